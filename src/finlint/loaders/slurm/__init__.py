"""Slurm batch scripts (``#SBATCH`` directives, ``sbatch``/``srun`` command lines), read as text and
never executed: a FileLoader. ``options`` reads option words and Slurm's time formats,
``script`` finds directives and command lines, ``loader`` makes the records, ``link`` applies
submissions and ParallelCluster partitions over the whole scan."""

from finlint.loaders.slurm.loader import FORMAT, finalize, load_file, sniff

__all__ = ["FORMAT", "finalize", "load_file", "sniff"]
