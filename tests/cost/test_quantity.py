"""Kubernetes quantity parsing: the units Karpenter limits and PVC sizes are written in."""

from __future__ import annotations

import pytest

from finlint.domain.quantity import parse_quantity, quantity_to_gib


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1k", 1000.0),  # Karpenter docs: `cpu: 1k`
        ("1000", 1000.0),
        ("1000Gi", 1000 * 2**30),
        ("200Mi", 200 * 2**20),
        ("2Ti", 2 * 2**40),
        ("16Ki", 16 * 1024),
        ("500m", 0.5),  # millicores
        ("250u", 0.00025),
        ("3n", 3e-9),
        ("1e3", 1000.0),
        ("1E3", 1000.0),  # an exponent, not exa followed by junk
        ("1E", 1e18),  # exa
        ("5G", 5e9),
        ("100M", 1e8),
        ("1.5Gi", 1.5 * 2**30),
        (".5", 0.5),
        ("+5", 5.0),
        ("-1", -1.0),
        ("64", 64.0),
    ],
)
def test_parses_kubernetes_quantity_strings(text: str, expected: float) -> None:
    assert parse_quantity(text) == pytest.approx(expected, rel=1e-12)


def test_plain_numbers_pass_through() -> None:
    assert parse_quantity(64) == 64.0
    assert parse_quantity(1.5) == 1.5


@pytest.mark.parametrize(
    "value",
    [
        "",
        "abc",
        "1K",  # upper-case K is not a Kubernetes suffix
        "1Ki1",
        "1 Gi",
        "1e999",  # overflows a float: rejected, not inf
        "{{ .Values.cpu }}",
        True,  # a YAML boolean is an int in Python, never a quantity
        None,
        ["1"],
        float("nan"),
    ],
)
def test_rejects_what_is_not_a_quantity(value: object) -> None:
    assert parse_quantity(value) is None


def test_p5_sized_limits_compare_with_instance_specs() -> None:
    # p5.48xlarge: 192 vCPU, 2048 GiB. A pool capped at cpu 100 / memory 200Gi cannot launch one.
    assert parse_quantity("100") < 192  # type: ignore[operator]
    assert parse_quantity("200Gi") < 2048 * 2**20 * 1024  # type: ignore[operator]
    assert parse_quantity("1k") > 192  # type: ignore[operator]


def test_quantity_to_gib() -> None:
    assert quantity_to_gib("1200Gi") == 1200.0
    assert quantity_to_gib("1Ti") == 1024.0
    assert quantity_to_gib("5G") == pytest.approx(4.656612873)
    assert quantity_to_gib("lots") is None
