"""The command line: a thin shell over :func:`finlint.scan.lint` and the reporters.

Exit codes (ruff, sqlfluff): 0 no finding at or above ``--fail-on``; 1 such findings (or the
cost budget exceeded); 2 usage, configuration or policy error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from finlint import __version__
from finlint.engine import EngineConfig, Policy, PolicyError, load_policies
from finlint.finding import SEVERITIES

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--select FIN1,FIN301 --select oversized-p5`` -> ("FIN1", "FIN301", "oversized-p5")."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _parse_vars(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        if "=" not in item:
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--var")
        key, value = item.split("=", 1)
        out[key.strip()] = value
    return out


def _policies(policy_dirs: tuple[Path, ...]) -> list[Policy]:
    try:
        return load_policies(policy_dirs)
    except PolicyError as exc:
        click.echo(f"finlint: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)


def _cost_options(fn: Any) -> Any:
    """--usage-file, --region, --pricing: shared by `scan` and `cost`."""
    fn = click.option(
        "--pricing",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Overlay your own prices (same format as the embedded snapshot).",
    )(fn)
    fn = click.option("--region", help="AWS region for prices (default: usage file, else us-east-1).")(fn)
    return click.option(
        "--usage-file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Usage assumptions (default: ./finlint-usage.yml when present).",
    )(fn)


def _cost_settings(usage_file: Path | None, region: str | None, pricing: Path | None) -> Any:
    from finlint.cost import CostSettings

    return CostSettings(region=region, pricing_file=pricing, usage_file=usage_file)


def _cost_guard(fn: Any) -> Any:
    """Run ``fn``; a bad usage or pricing file is a usage error (exit 2)."""
    from finlint.cost import PricingError, UsageFileError

    try:
        return fn()
    except (UsageFileError, PricingError) as exc:
        click.echo(f"finlint: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="finlint")
def main() -> None:
    """finlint: a FinOps linter for AI-training infrastructure on AWS."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    default="text",
    show_default=True,
    help="Output format.",
    type=click.Choice(["text", "json"]),
)
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report to FILE.")
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITIES),
    default="low",
    show_default=True,
    help="Exit 1 when a finding is at or above this severity.",
)
@click.option(
    "--select", multiple=True, help="Only these rules (ids, slugs or id prefixes; comma-separated)."
)
@click.option(
    "--ignore", multiple=True, help="Skip these rules (ids, slugs or id prefixes; comma-separated)."
)
@click.option(
    "--policy-dir",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Extra directory of policies in the same YAML format.",
)
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option(
    "--var-file",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Terraform variables file (repeatable).",
)
@click.option("--var", "tf_vars", multiple=True, help="Terraform variable NAME=VALUE (repeatable).")
@click.option("--exit-zero", is_flag=True, help="Always exit 0 on findings (for rollout).")
@click.option("--color/--no-color", default=None, help="Colour the text output (default: on a terminal).")
@_cost_options
@click.option("--max-monthly-usd", type=float, help="Exit 1 when the active findings' total exceeds N/month.")
def scan(
    paths: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    fail_on: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    policy_dir: tuple[Path, ...],
    exclude: tuple[str, ...],
    var_file: tuple[Path, ...],
    tf_vars: tuple[str, ...],
    exit_zero: bool,
    color: bool | None,
    usage_file: Path | None,
    region: str | None,
    pricing: Path | None,
    max_monthly_usd: float | None,
) -> None:
    """Scan PATHS (default: .) for costly AI-training configuration."""
    from finlint.reporters import ReportContext, get_reporter
    from finlint.scan import ScanOptions, lint

    policies = _policies(policy_dir)
    known = {p.id for p in policies} | {p.name for p in policies}
    for selector in _split(select) + _split(ignore):
        if not any(k == selector or k.startswith(selector) for k in known):
            raise click.BadParameter(f"no rule matches {selector!r}", param_hint="--select/--ignore")
    options = ScanOptions(
        paths=list(paths) or [Path(".")],
        engine=EngineConfig(select=_split(select), ignore=_split(ignore)),
        policy_dirs=list(policy_dir),
        exclude=list(exclude),
        loader_options={"tf_var_files": list(var_file), "tf_vars": _parse_vars(tf_vars)},
        cost_settings=_cost_settings(usage_file, region, pricing),
    )
    result = _cost_guard(lambda: lint(options, policies))
    use_color = (output is None and sys.stdout.isatty()) if color is None else color
    context = ReportContext(fail_on=fail_on, color=use_color, max_monthly_usd=max_monthly_usd)
    report = get_reporter(fmt).render(result, context)
    if output is not None:
        output.write_text(report, encoding="utf-8")
    else:
        click.echo(report, nl=False)
    code = result.exit_code(fail_on, max_monthly_usd)
    sys.exit(EXIT_OK if exit_zero else code)


def _rule_doc(policy: Policy) -> str:
    docs = policy.docs
    lines = [f"{policy.id} {policy.name} [{policy.severity}]", "", policy.summary, ""]
    sections = [
        ("What it does", docs.get("what")),
        ("Why it costs money", docs.get("why")),
        ("Known false positives", docs.get("known_false_positives")),
        ("What to do instead", docs.get("remediation")),
    ]
    for title, body in sections:
        if body:
            lines += [f"## {title}", str(body).strip(), ""]
    if policy.params:
        lines.append("## Options")
        lines += [f"- {k}: {json.dumps(v)}" for k, v in policy.params.items()]
        lines.append("")
    for ex in policy.examples:
        verdict = "Anti-pattern (fires" + (f" at line {', '.join(map(str, ex.lines))})" if ex.lines else ")")
        title = verdict if ex.kind == "fail" else "Best practice (passes)"
        lines += [f"## {title}: {ex.name} ({ex.format})", "", *("    " + c for c in ex.code.splitlines()), ""]
    refs = docs.get("references") or []
    if refs:
        lines.append("## References")
        lines += [f"- {r}" for r in refs]
    return "\n".join(lines).rstrip() + "\n"


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--policy-dir", multiple=True, type=click.Path(path_type=Path, file_okay=False))
def rules(fmt: str, policy_dir: tuple[Path, ...]) -> None:
    """List every rule: code, name, severity and summary."""
    policies = _policies(policy_dir)
    if fmt == "json":
        data: list[dict[str, Any]] = [
            {
                "id": p.id,
                "name": p.name,
                "severity": p.severity,
                "summary": p.summary,
                "applies_to": list(p.applies_to),
            }
            for p in policies
        ]
        click.echo(json.dumps(data, indent=2))
        return
    width = max((len(p.name) for p in policies), default=10)
    for p in policies:
        click.echo(f"{p.id}  {p.name:<{width}}  {p.severity:<8}  {p.summary}")


@main.command()
@click.argument("rule_id")
@click.option("--policy-dir", multiple=True, type=click.Path(path_type=Path, file_okay=False))
def rule(rule_id: str, policy_dir: tuple[Path, ...]) -> None:
    """Print one rule's documentation (by code or name) with its examples."""
    for policy in _policies(policy_dir):
        if rule_id in (policy.id, policy.name):
            click.echo(_rule_doc(policy), nl=False)
            return
    click.echo(f"finlint: error: no such rule: {rule_id!r} (see `finlint rules`)", err=True)
    sys.exit(EXIT_USAGE)


@main.command("cost")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@_cost_options
def cost_cmd(
    paths: tuple[Path, ...],
    fmt: str,
    exclude: tuple[str, ...],
    usage_file: Path | None,
    region: str | None,
    pricing: Path | None,
) -> None:
    """Price the AI-training resources in PATHS (default: .): jobs, notebooks, pools, file systems."""
    from finlint.cost.breakdown import build_breakdown, render_json, render_text
    from finlint.scan import ScanOptions, lint

    settings = _cost_settings(usage_file, region, pricing)
    result = lint(ScanOptions(paths=list(paths) or [Path(".")], exclude=list(exclude)), [])
    breakdown = _cost_guard(lambda: build_breakdown(result.records, settings))
    click.echo((render_json if fmt == "json" else render_text)(breakdown), nl=False)


@main.group("pricing")
def pricing_group() -> None:
    """Manage your price overlay (the embedded snapshot never changes)."""


@pricing_group.command("update")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default="finlint-pricing.json",
    show_default=True,
    help="Overlay file to write or refresh; use it with --pricing.",
)
@click.option("--region", "regions", multiple=True, help="Regions to fetch (default: us-east-1, us-west-2).")
def pricing_update(output: Path, regions: tuple[str, ...]) -> None:
    """Fetch On-Demand prices from the AWS Price List Query API (needs boto3 and AWS credentials)."""
    from finlint.cost.pricing_update import update_overlay

    summary = _cost_guard(lambda: update_overlay(output, list(regions) or ["us-east-1", "us-west-2"]))
    for region, info in summary["regions"].items():
        missing = ", ".join(info["no_on_demand_price"]) or "-"
        click.echo(f"{region}: {info['priced']} prices; no On-Demand price: {missing}")
    click.echo(f"wrote {output} (use it with --pricing {output})")


if __name__ == "__main__":  # pragma: no cover
    main()
