"""The facts FIN502/FIN601 need, from every loader that can supply them: image, framework,
entry point, and PyTorch DataLoader calls linked to the GPU job that runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import scan_files

from finlint.ir import DataLoader, TrainingJob, Unknown

IMG = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311"


def jobs(result: object) -> list[TrainingJob]:
    return [r for r in result.records if isinstance(r, TrainingJob)]  # type: ignore[attr-defined]


def loaders(result: object) -> list[DataLoader]:
    return [r for r in result.records if isinstance(r, DataLoader)]  # type: ignore[attr-defined]


def test_training_image_from_api_kubernetes_terraform_and_plan(tmp_path: Path) -> None:
    request = {
        "TrainingJobName": "a",
        "AlgorithmSpecification": {"TrainingImage": IMG, "TrainingInputMode": "File"},
        "ResourceConfig": {"InstanceType": "ml.g5.xlarge", "InstanceCount": 1},
    }
    manifest = (
        "apiVersion: sagemaker.services.k8s.aws/v1alpha1\nkind: TrainingJob\nmetadata:\n  name: b\nspec:\n"
        f"  trainingJobName: b\n  algorithmSpecification:\n    trainingImage: {IMG}\n"
        "  resourceConfig:\n    instanceType: ml.g5.xlarge\n    instanceCount: 1\n"
    )
    hcl = (
        'variable "image" {}\n'
        'resource "aws_sagemaker_training_job" "c" {\n'
        '  training_job_name = "c"\n'
        "  algorithm_specification {\n"
        f'    training_image = "{IMG}"\n'
        "  }\n"
        '  resource_config {\n    instance_type = "ml.g5.xlarge"\n    instance_count = 1\n  }\n'
        "}\n"
        'resource "aws_sagemaker_training_job" "d" {\n'
        '  training_job_name = "d"\n'
        "  algorithm_specification {\n"
        "    training_image = var.image\n"
        "  }\n"
        "}\n"
    )
    result = scan_files(
        tmp_path,
        {"api/request.json": json.dumps(request, indent=2), "k8s/job.yaml": manifest, "tf/main.tf": hcl},
    )
    by_name = {j.name: j for j in jobs(result)}
    assert by_name["a"].training_image == IMG and by_name["a"].line_of("training_image") == 4
    assert by_name["b"].training_image == IMG and by_name["b"].line_of("training_image") == 8
    assert by_name["c"].training_image == IMG and by_name["c"].line_of("training_image") == 5
    assert isinstance(by_name["d"].training_image, Unknown)  # a variable without a value


def test_sdk_framework_image_and_entry_point(tmp_path: Path) -> None:
    code = (
        "from sagemaker.pytorch import PyTorch\n"
        "from sagemaker.huggingface import HuggingFace\n"
        "from sagemaker.estimator import Estimator\n"
        "from sagemaker.train import ModelTrainer\n"
        "from sagemaker.train.configs import SourceCode, Compute\n"
        'pt = PyTorch(entry_point="train.py", source_dir="src", instance_type="ml.g5.xlarge")\n'
        'hf_tf = HuggingFace(entry_point="t.py", tensorflow_version="2.6", instance_type="ml.g5.xlarge")\n'
        f'custom = Estimator(image_uri="{IMG}", instance_type="ml.g5.xlarge", instance_count=1)\n'
        "mt = ModelTrainer(\n"
        f'    training_image="{IMG}",\n'
        '    source_code=SourceCode(source_dir="code", entry_script="main.py"),\n'
        '    compute=Compute(instance_type="ml.p4d.24xlarge"),\n'
        ")\n"
    )
    result = scan_files(tmp_path, {"launch.py": code})
    by = {j.address.split(":")[1]: j for j in jobs(result)}
    assert (by["pt"].framework, by["pt"].entry_point, by["pt"].source_dir) == ("pytorch", "train.py", "src")
    assert by["hf_tf"].framework == "tensorflow"
    assert by["custom"].framework is None and by["custom"].training_image == IMG
    assert by["mt"].training_image == IMG and by["mt"].line_of("training_image") == 10
    assert (by["mt"].entry_point, by["mt"].source_dir) == ("main.py", "code")


SCRIPT = """\
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--num-workers", type=int, default=1)
args = parser.parse_args()
loader = DataLoader(torch.zeros(4), batch_size=2, num_workers=args.num_workers)
"""


def test_dataloader_read_from_a_script_that_never_names_sagemaker(tmp_path: Path) -> None:
    (loader,) = loaders(scan_files(tmp_path, {"train.py": SCRIPT}))
    assert loader.num_workers == 1 and loader.line_of("num_workers") == 8
    assert loader.pin_memory is None and loader.gpu is None  # no CUDA named, no launcher
    assert loader.location.line == 8 and loader.address == "train:DataLoader"


def test_entry_point_of_a_gpu_job_makes_the_loader_a_gpu_loader(tmp_path: Path) -> None:
    launcher = (
        "from sagemaker.pytorch import PyTorch\n"
        'est = PyTorch(entry_point="train.py", source_dir="src", instance_type="ml.g5.12xlarge",\n'
        "              max_run=3600)\n"
    )
    result = scan_files(tmp_path, {"launch.py": launcher, "src/train.py": SCRIPT}, select=("FIN601",))
    (loader,) = loaders(result)
    assert loader.gpu is True and loader.job == "launch:est"
    assert [(f.rule_id, f.line) for f in result.findings] == [("FIN601", 8)]
    assert "entry point of launch:est" in result.findings[0].message


def test_entry_point_of_a_cpu_job_is_not_a_gpu_loader(tmp_path: Path) -> None:
    launcher = (
        "from sagemaker.pytorch import PyTorch\n"
        'est = PyTorch(entry_point="train.py", instance_type="ml.c5.4xlarge")\n'
    )
    script = SCRIPT + "model = torch.nn.Linear(2, 2).cuda()\n"  # CUDA named, but the job is CPU
    result = scan_files(tmp_path, {"launch.py": launcher, "train.py": script}, select=("FIN601",))
    (loader,) = loaders(result)
    assert loader.gpu is False and result.findings == []


def test_dataloader_import_forms_and_positional_workers(tmp_path: Path) -> None:
    code = (
        "import torch\n"
        "from torch.utils import data as D\n"
        "from torch.utils.data import DataLoader as DL\n"
        "a = torch.utils.data.DataLoader(ds, pin_memory=True, num_workers=8)\n"
        "b = D.DataLoader(ds, 32, True, None, None, 4)\n"
        "c = DL(ds, num_workers=os.cpu_count())\n"
        "d = DL(ds, **kw)\n"
    )
    found = loaders(scan_files(tmp_path, {"t.py": code}))
    assert [(x.num_workers, x.pin_memory) for x in found[:2]] == [(8, True), (4, None)]
    assert isinstance(found[2].num_workers, Unknown)
    assert isinstance(found[3].num_workers, Unknown) and isinstance(found[3].pin_memory, Unknown)
    assert [x.address for x in found] == [f"t:DataLoader#{i}" for i in range(1, 5)]


def test_bad_python_with_dataloader_is_a_load_error_not_a_crash(tmp_path: Path) -> None:
    result = scan_files(
        tmp_path, {"broken.py": "from torch.utils.data import DataLoader\nloader = DataLoader(\n"}
    )
    assert [e.line for e in result.errors] == [2] and loaders(result) == []


def test_dict_of_a_dict_inside_a_function_does_not_crash(tmp_path: Path) -> None:
    """Field test (nova recipe notebooks): `dict(base)` reached the folding module's `dict()`
    branch, which used the interpreter class without importing it (NameError -> FIN000)."""
    code = (
        "from sagemaker.pytorch import PyTorch\n"
        "BASE = {'instance_type': 'ml.g5.xlarge'}\n"
        "def launch():\n"
        "    kwargs = dict(BASE)\n"
        "    return PyTorch(entry_point='t.py', max_run=3600, **kwargs)\n"
        "est = launch()\n"
    )
    result = scan_files(tmp_path, {"launch.py": code})
    assert result.errors == []
    assert [j.instance_type for j in jobs(result)] == ["ml.g5.xlarge"]


def test_a_module_of_the_source_dir_runs_on_the_job_too(tmp_path: Path) -> None:
    """Field test (a MELD sentiment model): the DataLoaders live in `training/meld_dataset.py`,
    which the entry point `training/train.py` imports; the whole source_dir runs on the GPU job."""
    launcher = (
        "from sagemaker.pytorch import PyTorch\n"
        'est = PyTorch(entry_point="train.py", source_dir="training", instance_type="ml.g5.xlarge")\n'
    )
    helper = (
        "from torch.utils.data import DataLoader\n\n"
        "def loaders(ds):\n"
        "    return DataLoader(ds, batch_size=32)\n"
    )
    files = {
        "launch.py": launcher,
        "training/train.py": "import meld_dataset\n",
        "training/meld_dataset.py": helper,
    }
    result = scan_files(tmp_path, {**files, "other/data.py": helper}, select=("FIN601",))
    by_file = {Path(d.location.file).parent.name: d for d in loaders(result)}
    assert by_file["training"].gpu is True and by_file["training"].job == "launch:est"
    assert by_file["other"].gpu is None  # outside the source_dir: not the job's code
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("meld_dataset.py", 4)]
    assert "in the source_dir of launch:est" in result.findings[0].message


def test_a_test_file_in_the_source_dir_is_not_training_code(tmp_path: Path) -> None:
    """Field test: `training/test_logging.py` builds a mock DataLoader; it never feeds the job."""
    launcher = (
        "from sagemaker.pytorch import PyTorch\n"
        'est = PyTorch(entry_point="train.py", source_dir="training", instance_type="ml.g5.xlarge")\n'
    )
    mock = "from torch.utils.data import DataLoader\n\ndef test_logging():\n    DataLoader([1])\n"
    result = scan_files(
        tmp_path, {"launch.py": launcher, "training/test_logging.py": mock}, select=("FIN601",)
    )
    assert loaders(result) == [] and result.findings == []


def test_framework_from_an_explicit_image_wins_over_the_estimator_class(tmp_path: Path) -> None:
    """Field test (Nova recipe notebooks): a PyTorch estimator running a vendor image
    (`.../nova-fine-tune-repo:...`, region from an f-string) is not PyTorch training code."""
    code = (
        "from sagemaker.pytorch import PyTorch\n"
        "region = boto3.Session().region_name\n"
        'image_uri = f"708977205387.dkr.ecr.{region}.amazonaws.com/nova-fine-tune-repo:SM-TJ-DPO-latest"\n'
        "est = PyTorch(image_uri=image_uri, instance_type='ml.p5.48xlarge', instance_count=4,\n"
        "              max_run=432000)\n"
        'pt = PyTorch(entry_point="t.py", instance_type="ml.p5.48xlarge", max_run=432000)\n'
    )
    result = scan_files(tmp_path, {"launch.py": code}, select=("FIN502",))
    est = next(j for j in jobs(result) if j.address == "launch:est")
    assert str(est.training_image).endswith("/nova-fine-tune-repo:SM-TJ-DPO-latest")
    assert [f.resource for f in result.findings] == ["launch:pt"]  # the class alone still says PyTorch


def test_jobs_that_can_reuse_one_warm_pool_are_peers(tmp_path: Path) -> None:
    """Field test (an SMP benchmark notebook): several launches with the same instance type and
    count and a keep-alive run back to back, which is what warm pools are for: FIN501 is silent."""
    one = (
        "PyTorch(entry_point='t.py', instance_type='{t}', max_run=86400, keep_alive_period_in_seconds=1800)\n"
    )
    code = (
        "from sagemaker.pytorch import PyTorch\n"
        + "a = "
        + one.format(t="ml.p4d.24xlarge")
        + "b = "
        + one.format(t="ml.p4d.24xlarge")
        + "c = "
        + one.format(t="ml.p5.48xlarge")
    )
    result = scan_files(tmp_path, {"bench.py": code}, select=("FIN501",))
    assert {j.address: j.warm_pool_peers for j in jobs(result)} == {"bench:a": 1, "bench:b": 1, "bench:c": 0}
    assert [f.resource for f in result.findings] == ["bench:c"]


def test_a_describe_training_job_response_is_not_a_launch(tmp_path: Path) -> None:
    """Field test (the ACK controller's test data): saved DescribeTrainingJob responses carry
    TrainingJobArn and TrainingJobStatus; they describe a job that ran, not one to launch."""
    response = {
        "TrainingJobName": "xgb",
        "TrainingJobArn": "arn:aws:sagemaker:us-west-2:123456789012:training-job/xgb",
        "TrainingJobStatus": "Completed",
        "AlgorithmSpecification": {"TrainingImage": IMG, "TrainingInputMode": "File"},
        "ResourceConfig": {
            "InstanceType": "ml.g5.xlarge",
            "InstanceCount": 1,
            "KeepAlivePeriodInSeconds": 1800,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
    }
    result = scan_files(tmp_path, {"describe.json": json.dumps(response, indent=2)})
    assert jobs(result) == [] and result.findings == [] and result.errors == []
    assert [n.message for n in result.notices] == ["a DescribeTrainingJob response, not a request: skipped"]


def test_cuda_in_a_notebook_is_read_from_the_cells_not_the_json(tmp_path: Path) -> None:
    """In the .ipynb JSON, `device="cuda"` is written `device=\\"cuda\\"`: the cells' source is searched."""
    cells = [
        "import torch\nfrom torch.utils.data import DataLoader\n",
        'device = torch.device("cuda")\nloader = DataLoader(torch.zeros(4), batch_size=2)\n',
    ]
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "source": c.splitlines(True)} for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(notebook, indent=1)
    (loader,) = loaders(scan_files(tmp_path, {"nb.ipynb": text}))
    cuda_line = next(i for i, line in enumerate(text.splitlines(), 1) if "torch.device" in line)
    assert loader.gpu is True and loader.gpu_evidence == f"the script uses CUDA (line {cuda_line})"
