"""Regenerate ``src/finlint/data/instances.json`` from the instance reference (instances.md).

Usage: ``python scripts/gen_instances.py /path/to/instances.md > src/finlint/data/instances.json``

The reference's §1.2 table is parsed row by row; §1.3 (related types) and §1.4 (CPU types) have
free-form or differently shaped rows, so their figures are typed below with the source key the
reference gives. Keeping the generator lets a reviewer diff a regenerated file against the
committed one when the reference is refreshed.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

META = {
    "source": (
        "Karpenter instance-types reference page (aws/karpenter-provider-aws "
        "website/content/en/docs/reference/instance-types.md, commit 692ccdd, 2026-07-11) [K1]; "
        "p3 from the v1.12 page (commit 9e1d72f, 2026-04-25) [K2]; Neuron device memory from the EC2 "
        "DescribeInstanceTypes fixture (pkg/fake/zz_generated.describe_instance_types.go, commit 6fc13b5) "
        "[K3] and the AWS Neuron architecture docs [N1, N2]; trn2.3xlarge from skypilot-catalog "
        "catalogs/v8/aws/vms.csv (commit 00148f2, undated) [S1] and Karpenter's bandwidth map [K4]"
    ),
    "date": "2026-07-11",
    "notes": (
        "memory_mib is karpenter.k8s.aws/instance-memory (whole instance, MiB); gpu_memory_mib is per GPU; "
        "accelerator_memory_mib is per Neuron device (not a Karpenter label). Neuron types carry "
        "accelerator_* and gpu_count 0. g6f/gr6f are fractional L4: gpu_name l4 but gpu_count 0 (K1). "
        "trn2.3xlarge and trn2u.48xlarge labels are rule-derived (not in K1). Left out for want of "
        "specs: p6e-gb200.36xlarge (vCPU/memory/GPU not found), inf1, dl2q, g4ad, g5g, g7, g7e sizes "
        "(only their accelerator names are in the reference). sagemaker_aliases is empty: every ml.* "
        "type with an EC2 twin is the EC2 name plus 'ml.'; ml.eia1/eia2.* (Elastic Inference, retired) "
        "and ml.geospatial.interactive have no EC2 twin."
    ),
}

# §1.3 / §1.4 rows: name -> (vcpu, memory_mib, gpu_count, gpu_name, gpu_mfr, gpu_mem, acc_count,
#                            acc_name, acc_mem, network_mbps, cpu_manufacturer, src)
EXTRA: dict[str, tuple[Any, ...]] = {
    # trn2u: N2 gives the same spec as trn2.48xlarge; K4 network; labels rule-derived.
    "trn2u.48xlarge": (192, 2097152, 0, None, None, None, 16, "trainium2", 98304, 3200000, None, "N2, K4"),
    # Fractional L4 (K1): gpu-count 0, per-GPU memory is the slice.
    "g6f.large": (2, 8192, 0, "l4", "nvidia", 2861, 0, None, None, None, None, "K1"),
    "g6f.xlarge": (4, 16384, 0, "l4", "nvidia", 2861, 0, None, None, None, None, "K1"),
    "g6f.2xlarge": (8, 32768, 0, "l4", "nvidia", 5722, 0, None, None, None, None, "K1"),
    "g6f.4xlarge": (16, 65536, 0, "l4", "nvidia", 11444, 0, None, None, None, None, "K1"),
    "gr6f.4xlarge": (16, 131072, 0, "l4", "nvidia", 11444, 0, None, None, None, None, "K1"),
    # §1.4 CPU contrast types (K1).
    "m5.xlarge": (4, 16384, 0, None, None, None, 0, None, None, 1250, "intel", "K1"),
    "m6i.xlarge": (4, 16384, 0, None, None, None, 0, None, None, 1562, "intel", "K1"),
    "c5.xlarge": (4, 8192, 0, None, None, None, 0, None, None, 1250, "intel", "K1"),
    "r5.xlarge": (4, 32768, 0, None, None, None, 0, None, None, 1250, "intel", "K1"),
    "m7i.48xlarge": (192, 786432, 0, None, None, None, 0, None, None, 50000, "intel", "K1"),
    "c7i.48xlarge": (192, 393216, 0, None, None, None, 0, None, None, 50000, "intel", "K1"),
}

_NAME_RE = re.compile(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")


def derive_labels(name: str) -> dict[str, Any]:
    """Karpenter's category/generation/family/size rule (reference §2)."""
    m = _NAME_RE.match(name)
    if not m:
        raise ValueError(f"cannot derive labels for {name}")
    family, size = name.split(".", 1)
    return {"family": family, "category": m.group(1), "generation": int(m.group(3)), "size": size}


def _int(cell: str) -> int:
    return int(cell.replace("‡", "").replace("§", "").strip())


def parse_table(text: str) -> dict[str, dict[str, Any]]:
    section = text.split("### 1.2 Every size", 1)[1].split("‡ **Neuron device memory", 1)[0]
    rows: dict[str, dict[str, Any]] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        name = c[0].split("`")[1]
        label_key, label_val = c[5].replace("§", "").strip().split("=", 1)
        label_val = label_val.strip().strip("`")
        count = _int(c[4])
        per_dev = _int(c[7])
        row = derive_labels(name)
        # Cross-check the derived labels against the table's own columns.
        assert row["category"] == c[10].replace("§", "").strip(), name
        assert row["family"] == c[11].replace("§", "").strip(), name
        assert row["generation"] == _int(c[12]), name
        gpu = label_key == "gpu-name"
        row.update(
            vcpu=_int(c[1]),
            memory_mib=_int(c[2]),
            gpu_count=count if gpu else 0,
            gpu_name=label_val if gpu else None,
            gpu_manufacturer=c[6].replace("§", "").strip() if gpu else None,
            gpu_memory_mib=per_dev if gpu else None,
            accelerator_count=0 if gpu else count,
            accelerator_name=None if gpu else label_val,
            accelerator_memory_mib=None if gpu else per_dev,
            accelerator_manufacturer=None if gpu else c[6].replace("§", "").strip(),
            network_mbps=_int(c[9]),
            src=c[15],
        )
        rows[name] = row
    return rows


def build(text: str) -> dict[str, Any]:
    instances = parse_table(text)
    for name, v in EXTRA.items():
        row = derive_labels(name)
        row.update(
            vcpu=v[0],
            memory_mib=v[1],
            gpu_count=v[2],
            gpu_name=v[3],
            gpu_manufacturer=v[4],
            gpu_memory_mib=v[5],
            accelerator_count=v[6],
            accelerator_name=v[7],
            accelerator_memory_mib=v[8],
            accelerator_manufacturer="aws" if v[7] else None,
            network_mbps=v[9],
            src=v[11],
        )
        if v[10]:
            row["cpu_manufacturer"] = v[10]
        instances[name] = row
    return {"_meta": META, "instances": instances, "sagemaker_aliases": {}}


def dumps(data: dict[str, Any]) -> str:
    """JSON with one instance per line, so a refresh diffs row by row."""
    rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data["instances"].items())
    return (
        "{\n"
        f' "_meta": {json.dumps(data["_meta"], indent=2)},\n'
        f' "instances": {{\n{rows}\n }},\n'
        f' "sagemaker_aliases": {json.dumps(data["sagemaker_aliases"])}\n'
        "}\n"
    )


def main(argv: list[str]) -> int:
    path = Path(argv[1] if len(argv) > 1 else "/work/shared/reference/instances.md")
    data = build(path.read_text("utf-8"))
    sys.stdout.write(dumps(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
