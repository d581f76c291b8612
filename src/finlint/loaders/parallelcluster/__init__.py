"""AWS ParallelCluster v3 cluster configurations (``Scheduling.Scheduler: slurm``): a DocumentLoader."""

from finlint.loaders.parallelcluster.loader import FORMAT, claims, finalize, load

__all__ = ["FORMAT", "claims", "finalize", "load"]
