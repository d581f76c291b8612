"""Terraform conditionals as alternatives: ``var.big ? "ml.p5.48xlarge" : "ml.g5.2xlarge"`` is one
of its literal branches, and everything the loader computes from such a value maps it option by
option or demotes it to a plain Unknown (never one option's value where another is meant)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.conftest import scan_files

from finlint import ir
from finlint.ir import Alternatives, Unknown
from finlint.loaders.common.yamlload import LineDict
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform import loader as tf
from finlint.loaders.terraform.eval import Evaluator
from finlint.loaders.terraform.functions import binary
from finlint.loaders.terraform.items import as_str_tuple, times

REASON = "condition: var.big has no default and no value in tfvars or --var"
ROLE = 'role_arn = "arn:aws:iam::123456789012:role/x"'


def load(tmp_path: Path, text: str) -> dict[str, ir.Record]:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text).lstrip("\n"))
    files = sorted(tmp_path.glob("*.tf"))
    result = tf.load_directory(tmp_path, files, lambda p: p.relative_to(tmp_path).as_posix(), {})
    return {r.address: r for r in result.records}


def options(value: Any) -> set[Any]:
    assert isinstance(value, Alternatives), value
    return set(value.options)


def plain(value: Any) -> bool:
    return type(value) is Unknown


def notebook(expr: str, extra: str = "") -> str:
    return f"""
    variable "big" {{ type = bool }}
    variable "name" {{}}
    locals {{
      sizes = {{ a = "ml.p4d.24xlarge", b = "ml.g5.2xlarge" }}
      env   = var.big ? "prod" : "dev"
    }}
    {extra}
    resource "aws_sagemaker_notebook_instance" "nb" {{
      name          = "nb"
      {ROLE}
      instance_type = {expr}
    }}
    """


def instance_type(tmp_path: Path, expr: str, extra: str = "") -> Any:
    records = load(tmp_path, notebook(expr, extra))
    record = records["aws_sagemaker_notebook_instance.nb"]
    assert isinstance(record, ir.Notebook)
    return record.instance_type


# --- conditionals give alternatives ---------------------------------------------------------------


def test_a_conditional_with_literal_branches_is_alternatives_naming_the_condition(tmp_path: Path) -> None:
    value = instance_type(tmp_path, 'var.big ? "ml.p5.48xlarge" : "ml.g5.2xlarge"')
    assert options(value) == {"ml.p5.48xlarge", "ml.g5.2xlarge"}
    assert value.reason == REASON


def test_nested_conditionals_and_null_branches(tmp_path: Path) -> None:
    value = instance_type(tmp_path, 'var.big ? "ml.p5.48xlarge" : (var.name == "x" ? "ml.g5.xlarge" : null)')
    assert options(value) == {"ml.p5.48xlarge", "ml.g5.xlarge", None}


def test_a_branch_that_is_not_a_literal_keeps_a_plain_unknown(tmp_path: Path) -> None:
    value = instance_type(tmp_path, 'var.big ? var.name : "ml.g5.2xlarge"')
    assert plain(value) and value.reason == REASON
    value = instance_type(tmp_path, 'var.big ? ["ml.p5.48xlarge"] : ["ml.g5.2xlarge"]')
    assert plain(value)  # lists are not options


def test_a_condition_on_alternatives_picks_the_branches_its_options_reach(tmp_path: Path) -> None:
    value = instance_type(tmp_path, 'local.env == "prod" ? "ml.p4d.24xlarge" : "ml.g5.2xlarge"')
    assert options(value) == {"ml.p4d.24xlarge", "ml.g5.2xlarge"}
    value = instance_type(tmp_path, 'local.env != "test" ? "ml.p4d.24xlarge" : "ml.g5.2xlarge"')
    assert value == "ml.p4d.24xlarge"  # true on every option


# --- operations map option by option --------------------------------------------------------------


def test_operations_map_over_the_options(tmp_path: Path) -> None:
    assert options(instance_type(tmp_path, 'lookup(local.sizes, var.big ? "a" : "b")')) == {
        "ml.p4d.24xlarge",
        "ml.g5.2xlarge",
    }
    assert options(instance_type(tmp_path, 'local.sizes[var.big ? "a" : "b"]')) == {
        "ml.p4d.24xlarge",
        "ml.g5.2xlarge",
    }
    assert options(instance_type(tmp_path, '"ml.${var.big ? "p4d.24" : "g5.2"}xlarge"')) == {
        "ml.p4d.24xlarge",
        "ml.g5.2xlarge",
    }
    assert options(instance_type(tmp_path, 'lower(var.big ? "ML.P4D.24XLARGE" : "ML.G5.2XLARGE")')) == {
        "ml.p4d.24xlarge",
        "ml.g5.2xlarge",
    }


def test_arithmetic_and_comparisons_never_return_an_operand(tmp_path: Path) -> None:
    two, eight = Alternatives("c", (1, 8)), 2
    assert options(binary("*", two, eight)) == {2, 16}  # not 1 or 8
    assert options(binary("+", two, two)) == {2, 9, 16}  # every combination (a superset)
    assert options(binary(">", two, 4)) == {False, True}
    assert binary(">", two, 0) is True
    assert plain(binary("*", two, Unknown("count")))  # with a plain unknown: plain
    assert binary("*", two, Unknown("count")).reason == "c"
    assert plain(binary("/", Alternatives("c", (0, 1)), 0))  # an option Terraform rejects
    assert plain(binary("&&", Alternatives("c", ("x", "y")), True))


def test_functions_and_attributes_of_alternatives(tmp_path: Path) -> None:
    ev = Evaluator(_Scope({"big": Alternatives("c", ("ab", "abc"))}))

    def value(text: str) -> Any:
        return ev.value(h.parse_expression(text, 1))

    assert options(value("length(var.big)")) == {2, 3}
    assert plain(value("can(var.big)"))  # a bool, not the strings
    assert plain(value("var.big.name"))  # an attribute of a string: none of its options
    assert plain(value("file(var.big)"))  # a file's text, not its path
    assert plain(value("[for c in var.big : c]"))
    assert plain(value('split(",", var.big)'))  # a list result is not an option
    assert options(value('coalesce(var.big, "z")')) == {"ab", "abc"}
    assert options(value('!(var.big == "ab")')) == {True, False}


class _Scope:
    def __init__(self, variables: dict[str, Any]) -> None:
        self.variables = variables

    def variable(self, name: str) -> Any:
        return self.variables.get(name, Unknown(f"var.{name}"))

    def local(self, name: str) -> Any:
        return Unknown(f"local.{name}")

    def resource_attr(self, rtype: str, name: str, attr: str) -> Any:
        return Unknown("resource")

    def path(self, which: str) -> Any:
        return Unknown("path")

    def read_file(self, path: str) -> str | None:
        return "file text"


# --- the unsafe spots give a plain Unknown (or the right options) ---------------------------------


def test_times_multiplies_options_or_demotes() -> None:
    sizes = Alternatives("c", (2, 4))
    assert options(times(sizes, 3)) == {6, 12}  # items.times() never returns one option unmultiplied
    assert plain(times(sizes, Unknown("count: x")))
    assert options(times(Alternatives("c", (2, None)), 3)) == {6, None}


def test_list_fields_and_nested_values_never_hold_options() -> None:
    from finlint.loaders.terraform.eval import demote  # new with alternatives in Terraform

    assert plain(as_str_tuple(Alternatives("c", ("p5.48xlarge", "g5.xlarge"))))
    (element,) = as_str_tuple([Alternatives("c", ("p5.48xlarge", "g5.xlarge"))])
    assert plain(element)
    manifest = LineDict({"spec": [{"type": Alternatives("c", ("a", "b"))}], "n": 1})
    manifest.line = 7
    demoted = demote(manifest)
    assert plain(demoted["spec"][0]["type"]) and demoted.line == 7
    assert isinstance(manifest["spec"][0]["type"], Alternatives)  # the original is untouched


def test_pool_fields_computed_from_options_are_plain_unknown(tmp_path: Path) -> None:
    records = load(
        tmp_path,
        """
        variable "big" { type = bool }
        resource "aws_batch_compute_environment" "ce" {
          compute_environment_name = "ce"
          type                     = "MANAGED"
          compute_resources {
            type          = var.big ? "SPOT" : "EC2"
            instance_type = ["p4d.24xlarge"]
            max_vcpus     = var.big ? 192 : 96
            min_vcpus     = 0
            subnets       = ["s"]
          }
        }
        resource "aws_instance" "gpu" {
          ami           = "ami-1"
          instance_type = var.big ? "p5.48xlarge" : "g5.xlarge"
          instance_market_options {
            market_type = var.big ? "spot" : "capacity-block"
          }
          capacity_reservation_specification {
            capacity_reservation_preference = var.big ? "open" : "none"
          }
        }
        resource "awscc_sagemaker_cluster" "hp" {
          cluster_name = "hp"
          instance_groups = [{
            instance_group_name = "g"
            instance_type       = "ml.p5.48xlarge"
            instance_count      = var.big ? 4 : 2
            training_plan_arn   = var.big ? "arn:plan" : null
            execution_role      = "arn:aws:iam::123456789012:role/x"
          }]
        }
        resource "aws_sagemaker_domain" "studio" {
          domain_name = "d"
          auth_mode   = "IAM"
          vpc_id      = "v"
          subnet_ids  = ["s"]
          default_user_settings {
            execution_role = "arn:aws:iam::123456789012:role/x"
            jupyter_lab_app_settings {
              default_resource_spec { instance_type = "ml.g5.xlarge" }
              app_lifecycle_management {
                idle_settings { lifecycle_management = var.big ? "ENABLED" : "DISABLED" }
              }
            }
          }
        }
        """,
    )
    ce = records["aws_batch_compute_environment.ce"]
    assert isinstance(ce, ir.ComputePool)
    assert plain(ce.max_size)  # vCPUs are not an instance count (pools.py, like CFN _vcpus_to_instances)
    assert plain(ce.capacity_types)  # a tuple field: never "SPOT" or "EC2"
    ec2 = records["aws_instance.gpu"]
    assert isinstance(ec2, ir.ComputePool)
    assert plain(ec2.instance_types) and plain(ec2.capacity_types)
    assert plain(ec2.capacity_reservation)  # a boolean field: never the preference's options
    hp = records['awscc_sagemaker_cluster.hp.instance_groups["g"]']
    assert isinstance(hp, ir.ComputePool)
    assert options(hp.desired_size) == {4, 2}  # a count: the same field, its options
    assert plain(hp.capacity_reservation)  # a boolean field: never the plan ARN's options
    studio = records["aws_sagemaker_domain.studio"]
    assert isinstance(studio, ir.Notebook)
    assert plain(studio.idle_shutdown)  # a boolean field: never "ENABLED" / "DISABLED"


def test_count_of_zero_or_one_keeps_todays_behaviour(tmp_path: Path) -> None:
    """``count = var.x ? 1 : 0``: the resource is loaded once (as for any unknown count) and every
    size multiplied by the count is a plain Unknown: never N instances as if certain."""
    records = load(
        tmp_path,
        """
        variable "big" { type = bool }
        resource "aws_eks_node_group" "gpu" {
          count           = var.big ? 1 : 0
          cluster_name    = "c"
          node_group_name = "gpu"
          node_role_arn   = "r"
          subnet_ids      = ["s"]
          instance_types  = ["p5.48xlarge"]
          scaling_config {
            min_size     = 2
            desired_size = 2
            max_size     = 4
          }
        }
        """,
    )
    pool = records["aws_eks_node_group.gpu"]
    assert isinstance(pool, ir.ComputePool)
    assert plain(pool.min_size) and plain(pool.desired_size) and plain(pool.max_size)
    assert pool.min_size.reason == f"count/for_each: count: {REASON}"
    assert plain(pool.extra["count"])


# --- end to end -----------------------------------------------------------------------------------

TRAINING = f"""\
variable "big" {{
  type = bool
}}

resource "aws_sagemaker_training_job" "job" {{
  training_job_name = "job"
  {ROLE}
  algorithm_specification {{
    training_image      = "img"
    training_input_mode = "File"
  }}
  resource_config {{
    instance_type     = var.big ? "ml.p4d.24xlarge" : "ml.g5.2xlarge"
    instance_count    = 1
    volume_size_in_gb = 50
  }}
  stopping_condition {{
    max_runtime_in_seconds = (var.big ? LONG : SHORT) * 86400
  }}
  output_data_config {{
    s3_output_path = "s3://b/out"
  }}
}}
"""


def test_fin102_fires_on_both_branches_at_the_runtime_line(tmp_path: Path) -> None:
    text = TRAINING.replace("LONG", "14").replace("SHORT", "10")
    result = scan_files(tmp_path, {"main.tf": text}, select=("FIN101", "FIN102"))
    (finding,) = result.findings
    assert finding.rule_id == "FIN102" and finding.line == 18
    assert "1,209,600 or 864,000 s" in finding.message
    assert f"[for each possible value: max_runtime_s is 1,209,600 or 864,000 ({REASON})" in finding.message
    assert finding.cost is not None and finding.cost.basis.startswith("Lower bound")
    assert result.undetermined == []


def test_fin102_that_differs_by_branch_stays_undetermined_naming_the_options(tmp_path: Path) -> None:
    text = TRAINING.replace("LONG", "14").replace("SHORT", "1")
    result = scan_files(tmp_path, {"main.tf": text}, select=("FIN102",))
    assert result.findings == []
    (entry,) = result.undetermined
    assert entry.line == 18
    assert "one of 1,209,600 or 86,400: the verdict differs between them" in entry.reasons[0]


NOTEBOOK = f"""\
variable "big" {{
  type = bool
}}

resource "aws_sagemaker_notebook_instance" "nb" {{
  name          = "nb"
  {ROLE}
  instance_type = var.big ? "BIG" : "ml.g5.2xlarge"
}}
"""


def test_fin301_passes_on_both_branches(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"main.tf": NOTEBOOK.replace("BIG", "ml.g5.12xlarge")}, select=("FIN301",))
    assert result.findings == [] and result.undetermined == []


def test_fin301_fires_when_every_branch_is_p5(tmp_path: Path) -> None:
    text = NOTEBOOK.replace(
        'var.big ? "BIG" : "ml.g5.2xlarge"', 'var.big ? "ml.p5.48xlarge" : "ml.p5.4xlarge"'
    )
    result = scan_files(tmp_path, {"main.tf": text}, select=("FIN301",))
    (finding,) = result.findings
    assert finding.rule_id == "FIN301" and finding.line == 8
    assert "runs on ml.p5.48xlarge or ml.p5.4xlarge" in finding.message  # family p5 on both


def test_fin301_undetermined_when_one_branch_is_p5(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"main.tf": NOTEBOOK.replace("BIG", "ml.p5.48xlarge")}, select=("FIN301",))
    assert result.findings == []
    (entry,) = result.undetermined
    assert entry.line == 8
    assert "one of p5 or g5: the verdict differs between them" in entry.reasons[0]
