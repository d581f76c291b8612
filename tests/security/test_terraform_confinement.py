"""Terraform paths the scanned repository names stay inside the scan's roots (docs/security.md).

Each tree is a checkout (``repo/.git``) with the configuration in ``repo/infra`` and a secret
next to the checkout (``tmp_path/secret``). A path that resolves outside the checkout (``..``,
an absolute path, a symlink) is never read: the value is Unknown, one notice names the path,
and the secret appears nowhere in the scan's result or its JSON report.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from finlint import ir
from finlint.loaders.terraform import loader as tf
from finlint.reporters import ReportContext
from finlint.reporters.json_report import render
from finlint.result import ScanResult
from finlint.scan import ScanOptions, lint

SECRET = "S3CR3T-7f3a91c2"
SECRET_B64 = base64.b64encode(SECRET.encode()).decode()
REFUSED = "refused to read "
OUTSIDE = ": outside the scanned tree"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``repo`` (a checkout) with ``repo/infra``; the secret outside it, and ``outside/``."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "infra").mkdir()
    (tmp_path / "secret").write_text(SECRET)
    (tmp_path / "outside").mkdir()
    return tmp_path / "repo"


def notebook(name: str, instance_type: str) -> str:
    """A notebook whose instance type, when not in the catalog, is quoted in FIN302's evidence
    (the channel through which a file's text would reach the report)."""
    return (
        f'resource "aws_sagemaker_notebook_instance" "{name}" {{\n  instance_type = "{instance_type}"\n}}\n'
    )


def scan(root: Path, **options: object) -> tuple[ScanResult, str]:
    result = lint(ScanOptions(paths=[root], **options))  # type: ignore[arg-type]
    return result, render(result, ReportContext())


def refusals(result: ScanResult) -> list[str]:
    return [n.message for n in result.notices if n.message.startswith(REFUSED)]


def assert_no_secret(result: ScanResult, report: str) -> None:
    everything = report + repr(result.records) + repr(result.notices) + repr(result.undetermined)
    for text in (SECRET, SECRET_B64):
        assert text not in everything
        assert json.dumps(text)[1:-1] not in everything


def instance_types(result: ScanResult) -> dict[str, object]:
    return {r.address: getattr(r, "instance_type", None) for r in result.records}


# --- 1. file(), filebase64(), templatefile() -----------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "named"),
    [
        ('${file("../../secret")}', "secret"),  # relative to the root module, as Terraform reads it
        ('${file("${path.module}/../../secret")}', "secret"),
        ('${file("${path.root}/../../secret")}', "secret"),
        ('${file("link")}', "link"),  # a symlink in the checkout leading out of it
        ('${file("${path.module}/link")}', "link"),
        ('${base64encode(file("../../secret"))}', "secret"),
        ('${filebase64("../../secret")}', "secret"),
        ('${templatefile("../../secret", {})}', "secret"),
        ('${trimspace(file("ABSOLUTE"))}', "secret"),
    ],
)
def test_a_file_read_outside_the_checkout_is_unknown_with_one_notice(
    repo: Path, expression: str, named: str
) -> None:
    secret = repo.parent / "secret"
    os.symlink(secret, repo / "infra" / "link")
    expression = expression.replace("ABSOLUTE", secret.as_posix())
    # the same path twice: one notice
    (repo / "infra" / "main.tf").write_text(notebook("a", f"ml.{expression}") + notebook("b", expression))
    result, report = scan(repo)
    assert_no_secret(result, report)
    (message,) = refusals(result)
    assert message.endswith(f"{named}'{OUTSIDE}")
    (notice,) = [n for n in result.notices if n.message == message]
    assert notice.file.endswith("infra/main.tf") and notice.line == 2  # where the file is named
    types = instance_types(result)
    assert all(isinstance(types[f"aws_sagemaker_notebook_instance.{n}"], ir.Unknown) for n in "ab")


def test_proc_self_environ_is_never_read(repo: Path) -> None:
    (repo / "infra" / "main.tf").write_text(notebook("env", 'ml.${file("/proc/self/environ")}'))
    result, report = scan(repo)
    assert refusals(result) == [f"{REFUSED}'/proc/self/environ'{OUTSIDE}"]
    assert isinstance(instance_types(result)["aws_sagemaker_notebook_instance.env"], ir.Unknown)
    path_value = os.environ.get("PATH", "")
    assert not path_value or path_value not in report


def test_the_rule_holds_in_a_direct_loader_call_without_roots(repo: Path) -> None:
    # no options["roots"]: the checkout holding the configuration directory is the root
    infra = repo / "infra"
    (infra / "main.tf").write_text(notebook("a", 'ml.${file("../../secret")}'))
    result = tf.load_directory(infra, [infra / "main.tf"], lambda p: p.as_posix(), {})
    assert SECRET not in repr(result)
    assert [n.message for n in result.notices] == [
        f"{REFUSED}'{(repo.parent / 'secret').as_posix()}'{OUTSIDE}"
    ]


def test_a_file_elsewhere_in_the_checkout_is_still_read(repo: Path) -> None:
    (repo / "shared").mkdir()
    (repo / "shared" / "type.txt").write_text("p5.48xlarge\n")
    (repo / "infra" / "main.tf").write_text(notebook("a", 'ml.${trimspace(file("../shared/type.txt"))}'))
    result, _ = scan(repo / "infra")  # the scanned folder is infra; the checkout is the root
    assert refusals(result) == []
    assert instance_types(result)["aws_sagemaker_notebook_instance.a"] == "ml.p5.48xlarge"


@pytest.mark.parametrize(
    "function", ["fileexists", "filemd5", "filesha1", "filesha256", "filesha512", "fileset"]
)
def test_the_other_file_functions_are_not_evaluated(repo: Path, function: str) -> None:
    args = '"../..", "secret"' if function == "fileset" else '"../../secret"'
    (repo / "infra" / "main.tf").write_text(notebook("a", f"ml.${{{function}({args})}}"))
    result, report = scan(repo)
    assert_no_secret(result, report)
    assert isinstance(instance_types(result)["aws_sagemaker_notebook_instance.a"], ir.Unknown)


# --- 2. module sources and .terraform/modules/modules.json -------------------------------------


def _outside_module(repo: Path) -> Path:
    outside = repo.parent / "outside"
    (outside / "main.tf").write_text(notebook("leak", f"ml.{SECRET}"))
    return outside


@pytest.mark.parametrize("source", ["../../outside", "./vendored", "../../.."])
def test_a_local_module_outside_the_checkout_is_not_loaded(repo: Path, source: str) -> None:
    outside = _outside_module(repo)
    os.symlink(outside, repo / "infra" / "vendored")  # a directory symlink leading out
    (repo / "infra" / "main.tf").write_text(f'module "x" {{\n  source = "{source}"\n}}\n')
    result, report = scan(repo)
    assert_no_secret(result, report)
    assert not [r for r in result.records if r.address.startswith("module.x.")]
    messages = [n.message for n in result.notices if n.message.startswith("module 'x': ")]
    assert len(messages) == 1 and REFUSED in messages[0] and messages[0].endswith(f"{OUTSIDE}; skipped")


def test_a_local_module_inside_the_checkout_is_loaded(repo: Path) -> None:
    (repo / "modules" / "nb").mkdir(parents=True)
    (repo / "modules" / "nb" / "main.tf").write_text(notebook("this", "ml.p5.48xlarge"))
    (repo / "infra" / "main.tf").write_text('module "x" {\n  source = "../modules/nb"\n}\n')
    result, _ = scan(repo / "infra")
    assert instance_types(result)["module.x.aws_sagemaker_notebook_instance.this"] == "ml.p5.48xlarge"


@pytest.mark.parametrize("where", ["absolute", "escaping", "symlink"])
def test_modules_json_pointing_outside_the_checkout_is_ignored_for_that_module(
    repo: Path, where: str
) -> None:
    outside = _outside_module(repo)
    infra = repo / "infra"
    (infra / ".terraform" / "modules" / "ok").mkdir(parents=True)
    (infra / ".terraform" / "modules" / "ok" / "main.tf").write_text(notebook("this", "ml.p5.48xlarge"))
    os.symlink(outside, infra / ".terraform" / "modules" / "link")
    bad = {"absolute": outside.as_posix(), "escaping": "../../outside", "symlink": ".terraform/modules/link"}[
        where
    ]
    (infra / ".terraform" / "modules" / "modules.json").write_text(
        json.dumps(
            {
                "Modules": [
                    {"Key": "", "Source": "", "Dir": "."},
                    {"Key": "evil", "Source": "acme/evil/aws", "Dir": bad},
                    {"Key": "ok", "Source": "acme/ok/aws", "Dir": ".terraform/modules/ok"},
                ]
            }
        )
    )
    (infra / "main.tf").write_text(
        'module "evil" {\n  source = "acme/evil/aws"\n}\nmodule "ok" {\n  source = "acme/ok/aws"\n}\n'
    )
    result, report = scan(repo)
    assert_no_secret(result, report)
    assert not [r for r in result.records if r.address.startswith("module.evil.")]
    assert instance_types(result)["module.ok.aws_sagemaker_notebook_instance.this"] == "ml.p5.48xlarge"
    (message,) = [n.message for n in result.notices if n.message.startswith("module 'evil': ")]
    assert message == f"module 'evil': .terraform/modules/modules.json: {REFUSED}{bad!r}{OUTSIDE}; skipped"


# --- 3. symlinked .tf / .tf.json / .tfvars files -------------------------------------------------


@pytest.mark.parametrize("name", ["evil.tf", "evil.tf.json"])
def test_a_symlinked_configuration_file_leading_out_is_not_read(repo: Path, name: str) -> None:
    outside = repo.parent / "outside"
    if name.endswith(".json"):
        body = {"resource": {"aws_sagemaker_notebook_instance": {"leak": {"instance_type": f"ml.{SECRET}"}}}}
        (outside / name).write_text(json.dumps(body))
    else:
        (outside / name).write_text(notebook("leak", f"ml.{SECRET}"))
    os.symlink(outside / name, repo / "infra" / name)
    (repo / "infra" / "main.tf").write_text(notebook("ok", "ml.p5.48xlarge"))
    result, report = scan(repo)
    assert_no_secret(result, report)
    assert "aws_sagemaker_notebook_instance.leak" not in instance_types(result)
    assert instance_types(result)["aws_sagemaker_notebook_instance.ok"] == "ml.p5.48xlarge"
    (message,) = refusals(result)
    assert message.endswith(f"infra/{name}'{OUTSIDE}")


@pytest.mark.parametrize("name", ["terraform.tfvars", "x.auto.tfvars", "x.auto.tfvars.json"])
def test_a_symlinked_tfvars_file_leading_out_is_not_read(repo: Path, name: str) -> None:
    outside = repo.parent / "outside"
    text = json.dumps({"t": f"ml.{SECRET}"}) if name.endswith(".json") else f't = "ml.{SECRET}"\n'
    (outside / name).write_text(text)
    os.symlink(outside / name, repo / "infra" / name)
    (repo / "infra" / "main.tf").write_text(
        'variable "t" {\n  default = "ml.p5.48xlarge"\n}\n' + notebook("a", "${var.t}")
    )
    result, report = scan(repo)
    assert_no_secret(result, report)
    assert instance_types(result)["aws_sagemaker_notebook_instance.a"] == "ml.p5.48xlarge"  # the default
    (message,) = refusals(result)
    assert message.endswith(f"infra/{name}'{OUTSIDE}")


def test_a_var_file_given_on_the_command_line_is_the_users_and_is_read(repo: Path) -> None:
    var_file = repo.parent / "outside" / "prod.tfvars"
    var_file.write_text('t = "ml.p5.48xlarge"\n')
    (repo / "infra" / "main.tf").write_text('variable "t" {}\n' + notebook("a", "${var.t}"))
    result, _ = scan(repo, loader_options={"tf_var_files": [var_file]})
    assert refusals(result) == []
    assert instance_types(result)["aws_sagemaker_notebook_instance.a"] == "ml.p5.48xlarge"
