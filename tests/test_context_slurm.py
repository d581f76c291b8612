"""Changed-file scans of Slurm clusters (issue 27): a changed job script reads the cluster
configuration it links to, and a changed configuration reports the jobs it now affects."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.test_context import needs_git, repo, scan, where

CONF = "PartitionName=gpu Nodes=gpu-[1-4] Default=YES MaxTime={limit}\n"
JOB = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\nsrun python train.py\n"


@needs_git
def test_changed_job_script_reads_the_slurm_conf_above_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "cluster/slurm.conf": CONF.format(limit="1-00:00:00"),
            "cluster/jobs/train.sbatch": JOB,
            "other/notes.yaml": "a: 1\n",
        },
    )
    _, report = scan(root, monkeypatch, "cluster/jobs/train.sbatch")
    assert report["summary"]["context_files"] == 1  # slurm.conf: the partition's limit applies
    assert where(report) == []


@needs_git
def test_changed_slurm_conf_reports_the_jobs_it_uncaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {"cluster/slurm.conf": CONF.format(limit="UNLIMITED"), "cluster/jobs/train.sbatch": JOB},
    )
    _, report = scan(root, monkeypatch, "cluster/slurm.conf")
    assert where(report) == [("cluster/jobs/train.sbatch", 2, "FIN101")]


JOB_DEFINITION = """{
  "jobDefinitionName": "llm-eval",
  "containerProperties": {"resourceRequirements": [{"type": "GPU", "value": "1"}]}
}
"""
SUBMIT = """import boto3

batch = boto3.client("batch")
batch.submit_job(jobName="e", jobQueue="q", jobDefinition="llm-eval:2"{timeout})
"""


@needs_git
def test_changed_job_definition_reads_the_script_that_submits_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timeout is set at submit time (issue 27): the job definition alone is not uncapped."""
    timeout = ', timeout={"attemptDurationSeconds": 7200}'
    root = repo(
        tmp_path,
        {"batch/job-definition.json": JOB_DEFINITION, "batch/launch.py": SUBMIT.format(timeout=timeout)},
    )
    _, report = scan(root, monkeypatch, "batch/job-definition.json")
    assert report["summary"]["context_files"] == 1 and where(report) == []


@needs_git
def test_changed_submit_script_reports_the_job_definition_it_submits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path, {"batch/job-definition.json": JOB_DEFINITION, "batch/launch.py": SUBMIT.format(timeout="")}
    )
    _, report = scan(root, monkeypatch, "batch/launch.py")
    assert where(report) == [("batch/job-definition.json", 1, "FIN101")]
