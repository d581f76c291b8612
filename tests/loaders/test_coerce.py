"""One meaning for every loader: the same source text gives the same IR value everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import scan_files

from finlint.ir import Unknown
from finlint.loaders.common import coerce


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(2, 2), (2.0, 2), ("2", 2), (" 12 ", 12), ("2.0", 2), ("1e3", 1000), (None, None)],
)
def test_to_int_values(raw: object, expected: object) -> None:
    assert coerce.to_int(raw) == expected


@pytest.mark.parametrize("raw", ["2.7", 2.7, True, "lots", float("inf"), "nan", [1]])
def test_to_int_unknowns(raw: object) -> None:
    assert isinstance(coerce.to_int(raw, "count"), Unknown)


def test_to_bool_and_str() -> None:
    assert coerce.to_bool("True") is True and coerce.to_bool("false") is False
    assert isinstance(coerce.to_bool("yes"), Unknown)
    assert coerce.to_str(True) == "true" and coerce.to_str(3) == "3"


def test_fractional_count_means_the_same_in_every_format(tmp_path: Path) -> None:
    """Regression (issue 9): Terraform truncated "2.7" to 2 where the other loaders said unknown."""
    result = scan_files(
        tmp_path,
        {
            "main.tf": 'resource "aws_eks_node_group" "ng" {\n  instance_types = ["p5.48xlarge"]\n'
            '  scaling_config {\n    min_size = "2.7"\n    desired_size = "2.7"\n    max_size = 4\n  }\n}\n',
            "cfn.yaml": "Resources:\n  Ng:\n    Type: AWS::EKS::Nodegroup\n    Properties:\n"
            "      InstanceTypes: [p5.48xlarge]\n"
            "      ScalingConfig: {MinSize: '2.7', DesiredSize: '2.7', MaxSize: 4}\n",
        },
    )
    pools = [r for r in result.records if r.KIND == "compute_pool"]
    assert len(pools) == 2
    for pool in pools:
        assert isinstance(pool.min_size, Unknown), pool
        assert "not a whole number" in pool.min_size.reason
