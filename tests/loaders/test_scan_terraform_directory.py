"""A Terraform file passed alone (pre-commit passes only changed files) brings its whole directory."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_paths

VARIABLES = 'variable "notebook_type" {\n  default = "ml.p5.48xlarge"\n}\n'
MAIN = """resource "aws_sagemaker_notebook_instance" "nb" {
  name          = "research"
  role_arn      = "arn:aws:iam::111122223333:role/r"
  instance_type = var.notebook_type
}
"""


def test_changed_main_tf_is_scanned_with_its_variables(tmp_path: Path) -> None:
    (tmp_path / "variables.tf").write_text(VARIABLES)
    (tmp_path / "main.tf").write_text(MAIN)
    result = scan_paths([tmp_path / "main.tf"], select=("FIN301",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("main.tf", 4)]


def test_changed_tfvars_rescans_its_configuration(tmp_path: Path) -> None:
    (tmp_path / "variables.tf").write_text(VARIABLES.replace("ml.p5.48xlarge", "ml.g5.xlarge"))
    (tmp_path / "main.tf").write_text(MAIN)
    (tmp_path / "terraform.tfvars").write_text('notebook_type = "ml.p5.48xlarge"\n')
    result = scan_paths([tmp_path / "terraform.tfvars"], select=("FIN301",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("main.tf", 4)]


def test_notebook_priced_against_the_notebook_alternative(tmp_path: Path) -> None:
    (tmp_path / "variables.tf").write_text(VARIABLES)
    (tmp_path / "main.tf").write_text(MAIN)
    (finding,) = scan_paths([tmp_path], select=("FIN301",)).findings
    assert finding.cost is not None and finding.cost.monthly_usd is not None
    # (ml.p5.48xlarge $63.296/h - ml.g5.2xlarge $1.52/h) x 730 h
    assert abs(finding.cost.monthly_usd - (63.296 - 1.52) * 176) < 0.01  # active hours
    assert "ml.g5.2xlarge" in finding.cost.basis
