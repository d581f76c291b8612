"""Seeded fuzzer of the whole scan: ``python bench/fuzz.py --cases 5000 --seed 1 [--timeout 5]``.

Each case is a small hostile repository (CloudFormation, Terraform, Kubernetes/Karpenter YAML,
SageMaker SDK Python, SageMaker API JSON, notebooks, suppression comments) or a mutation
(truncate, byte flip, repeated span) of a real input under fixtures/. A persistent worker per
core scans it in-process (``finlint.scan.lint``) under an address-space limit, renders every
reporter and validates the output; the parent enforces a wall-clock timeout and restarts a
worker that hangs or dies. Failures are classified (traceback, hang, memory, invalid) and saved
under bench/out/fuzz/<class>-<n>/; the exit code is non-zero when any case failed.
The loader-level property tests stay in tests/loaders/test_fuzz_loaders.py.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
OUT = REPO / "bench" / "out" / "fuzz"
FORMATS = ["text", "json", "sarif", "github", "markdown", "junit", "html", "gitlab"]
MEMORY_BYTES = 1 << 30

Case = dict[str, bytes]  # relative path -> file content

HOSTILE = [
    "a\nb",
    "\x1b[31mred\x1b[0m",
    "\n::error file=x::pwned",
    "::set-output name=x::y",
    "@admin",
    "![img](http://x/y.png)",
    "nul\x00byte",
    "\r\n::warning::x",
    "<script>alert(1)</script>",
    "]]></x>",
    "`code`",
    "%0A::error::x",
    "\u202eevil",
    "\x07\x08\x0b\x0c",
    "x" * 300,
]
NUMBERS = ["1e308", "-1", "99999999999999999999999999999", "1e-308", "NaN", "0", "1" * 60]


def _s(rng: random.Random) -> str:
    return rng.choice(HOSTILE)


def _yq(s: str) -> str:
    return json.dumps(s)  # a JSON string is a YAML double-quoted scalar


def gen_cfn(rng: random.Random) -> Case:
    sub: Any = {"Fn::Sub": "ml.${X}.48xlarge"}
    for _ in range(rng.randint(0, 40)):
        sub = rng.choice(
            [
                {"Fn::Join": ["", [sub, _s(rng)]]},
                {"Fn::If": ["C", sub, {"Ref": "AWS::NoValue"}]},
                {"Fn::Sub": [_s(rng) + "${Y}", {"Y": sub}]},
            ]
        )
    count: Any = rng.choice(NUMBERS)
    tpl = {
        "Conditions": {"C": {"Fn::Equals": ["a", "a"]}},
        "Resources": {
            "Job" + str(rng.randint(0, 9)): {
                "Type": "AWS::SageMaker::TrainingJob",
                "Metadata": {"finlint": {"ignore": [_s(rng)]}},
                "Properties": {
                    "TrainingJobName": _s(rng),
                    "ResourceConfig": {
                        "InstanceType": sub,
                        "InstanceCount": json.loads(count) if count[0].isdigit() else count,
                        "VolumeSizeInGB": rng.choice(NUMBERS),
                    },
                    "Tags": [{"Key": _s(rng), "Value": _s(rng)}],
                },
            },
            "NG": {
                "Type": "AWS::EKS::Nodegroup",
                "Properties": {
                    "NodegroupName": _s(rng),
                    "InstanceTypes": ["p5.48xlarge", _s(rng)],
                    "ScalingConfig": {
                        "MaxSize": rng.choice(NUMBERS),
                        "DesiredSize": 10 ** rng.randint(0, 400),
                    },
                },
            },
        },
    }
    text = json.dumps(tpl, indent=1)
    if rng.random() < 0.5:
        return {"template.json": text.encode()}
    return {"template.yaml": ("AWSTemplateFormatVersion: '2010-09-09'\n" + text).encode()}


def gen_tf(rng: random.Random) -> Case:
    n = rng.randint(1, 30)
    lines = ["locals {", '  l0 = "ml.p5.48xlarge"']
    for i in range(1, n):
        expr = rng.choice(
            [
                f"local.l{i - 1}",
                f'format("%s%{rng.randint(0, 3000)}s", local.l{i - 1}, "x")',
                f'var.on ? local.l{i - 1} : "{_s(rng)!r}"'.replace("\n", "\\n"),
                f"[for x in range({rng.randint(0, 5000)}) : local.l{i - 1}][0]",
                f'join("", [local.l{i - 1}, "${{local.l{i - 1}}}"])',
                rng.choice(NUMBERS),
            ]
        )
        lines.append(f"  l{i} = {expr}")
    lines.append("}")
    name = json.dumps(_s(rng))[1:-1].replace("${", "$${")
    lines += [
        'variable "on" {',
        "  default = true",
        "}",
        f"# finlint: ignore {_s(rng)!r}".replace("\n", " "),
        'resource "aws_sagemaker_notebook_instance" "n" {',
        f'  name          = "{name}"',
        f"  instance_type = local.l{n - 1}",
        "}",
        'resource "aws_eks_node_group" "g" {',
        f'  node_group_name = "{name}"',
        f"  instance_types  = [local.l{rng.randint(0, n - 1)}]",
        f"  scaling_config {{\n    max_size = {rng.choice(NUMBERS)}\n    desired_size = 1\n    min_size = 0\n  }}",
        "}",
    ]
    return {"main.tf": "\n".join(lines).encode()}


def gen_k8s(rng: random.Random) -> Case:
    name = _s(rng)
    docs = [
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n"
        f"  name: {_yq(name)}\n  annotations: &a\n    x: {_yq(_s(rng))}\n"
        "spec:\n  template:\n    spec:\n      requirements:\n"
        "        - key: node.kubernetes.io/instance-type\n          operator: In\n"
        f"          values: [p5.48xlarge, {_yq(_s(rng))}]\n"
        f"  limits:\n    cpu: {rng.choice(NUMBERS)}\n    nvidia.com/gpu: {rng.choice(NUMBERS)}\n",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n"
        f"  name: {_yq(_s(rng))}\n  labels: *a\n"
        "spec:\n  template:\n    spec:\n      nodeSelector:\n"
        f"        node.kubernetes.io/instance-type: {_yq(_s(rng))}\n"
        "      containers:\n        - name: c\n"
        f"          resources: {{limits: {{nvidia.com/gpu: {rng.choice(NUMBERS)}}}}}\n"
        f"  # finlint: ignore {_s(rng)!r}\n".replace("\\n", "\n"),
    ]
    if rng.random() < 0.2:  # billion laughs
        docs.append(
            "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        )
    data = "---\n".join(docs).encode("utf-8", "surrogateescape")
    if rng.random() < 0.2:
        data = data.replace(b"p5", b"p5\xff\xfe", 1)
    return {"k8s/job.yaml": data}


def gen_sdk(rng: random.Random) -> Case:
    k = rng.randint(0, 10**6)
    src = [
        "from sagemaker.estimator import Estimator",
        f"N = {rng.choice(['10**100', '1' * 50, '-1', '0'])}",
        f"name = {_s(rng)!r}",
        f"t = 'ml.{{}}.48xlarge'.format('p5'){'' if rng.random() < 0.5 else '.ljust(' + str(k) + ')'}",
        f"u = f'ml.{{\"p4d\":>{rng.randint(0, 50000)}}}.24xlarge'",
        "for i in range(3):",
        f"    est = Estimator(instance_type=t if i else u, instance_count=N, base_job_name=name,"
        f" use_spot_instances=True, max_run={rng.choice(NUMBERS)})  # finlint: ignore {_s(rng)!r}",
        "    est.fit()",
    ]
    text = "\n".join(line.replace("\n", "") for line in src) + "\n"
    if rng.random() < 0.3:
        nb = {
            "cells": [{"cell_type": "code", "source": text.splitlines(True), "metadata": {}, "outputs": []}],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        return {"train.ipynb": json.dumps(nb).encode()}
    return {"train.py": text.encode()}


def gen_api(rng: random.Random) -> Case:
    req = {
        "TrainingJobName": _s(rng),
        "AlgorithmSpecification": {"TrainingImage": _s(rng), "TrainingInputMode": "File"},
        "ResourceConfig": {
            "InstanceType": rng.choice(["ml.p5.48xlarge", _s(rng)]),
            "InstanceCount": 10 ** rng.randint(0, 30),
            "VolumeSizeInGB": 10 ** rng.randint(0, 30),
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": rng.choice([1, -1, 10**40, 1e308])},
        "EnableManagedSpotTraining": True,
        "Tags": [{"Key": "finlint:ignore", "Value": _s(rng)}],
    }
    return {"sagemaker/create-training-job.json": json.dumps(req).encode()}


def _fixture_files() -> list[Path]:
    out = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in {".yaml", ".yml", ".json", ".tf", ".py", ".ipynb", ".tfvars"}:
            if path.stat().st_size < 40_000:
                out.append(path)
    return out


def gen_mutation(rng: random.Random) -> Case:
    path = rng.choice(_fixture_files())
    data = bytearray(path.read_bytes())
    for _ in range(rng.randint(1, 5)):
        n = len(data)
        i = rng.randint(0, n)
        j = rng.randint(i, min(n, i + 80))
        op = rng.choice(["truncate", "flip", "repeat", "insert"])
        if op == "truncate":
            del data[j:]
        elif op == "flip" and n:
            data[min(i, n - 1)] ^= 1 << rng.randint(0, 7)
        elif op == "repeat":
            data[j:j] = data[i:j] * rng.randint(1, 20)
        else:
            data[i:i] = rng.choice(HOSTILE).encode("utf-8", "surrogateescape")
    return {path.name: bytes(data)}


GENERATORS = [gen_cfn, gen_tf, gen_k8s, gen_sdk, gen_api, gen_mutation, gen_mutation]


def generate(seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}:{index}")
    return rng.choice(GENERATORS)(rng)


# ---------------------------------------------------------------- output checks

C0 = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
GH_COMMAND = re.compile(r"^::(error|warning|notice) file=[^:\n]*(?:,[a-zA-Z]+=[^:,\n]*)*::")
MENTION = re.compile(r"(?<![\w`/.])@\w")


def _strip_code(md: str) -> str:
    md = re.sub(r"```.*?```", "", md, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", md)


def check_output(fmt: str, text: str) -> str | None:
    """None when ``text`` is a valid ``fmt`` report, else the reason it is not."""
    try:
        if fmt in {"json", "sarif", "gitlab"}:
            json.loads(text)
        elif fmt == "junit":
            ET.fromstring(text)
        elif fmt == "html":
            if "\x00" in text or C0.search(text.replace("\r", "")):
                return "raw control character"
        else:
            if m := C0.search(text.replace("\r\n", "\n")):
                return f"control character {m.group()!r}"
            if "\r" in text:
                return "bare CR"
    except Exception as exc:  # noqa: BLE001 - any parse error is an invalid report
        return f"does not parse: {type(exc).__name__}: {exc}"[:200]
    if fmt == "github":
        for line in text.splitlines():
            if line.startswith("::") and not GH_COMMAND.match(line):
                return f"foreign workflow command: {line[:80]!r}"
            if "::" in line and not line.startswith("::") and re.search(r"^\s*::", line):
                return f"indented workflow command: {line[:80]!r}"
    if fmt == "markdown":
        plain = _strip_code(text)
        if "![" in plain:
            return "live image ![ from repository text"
        if m := MENTION.search(plain):
            return f"live @mention near {plain[max(0, m.start() - 20) : m.end() + 20]!r}"
    return None


# ---------------------------------------------------------------- running a case


def run_case(case: Case) -> tuple[str, str] | None:
    """Scan ``case`` in this process and check every report: None, or (class, detail)."""
    from finlint.engine import EngineConfig
    from finlint.reporters import ReportContext, get_reporter
    from finlint.scan import ScanOptions, lint

    with tempfile.TemporaryDirectory(prefix="finlint-fuzz-") as tmp:
        root = Path(tmp)
        for name, data in case.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            result = lint(ScanOptions(paths=[root], engine=EngineConfig()))
            outputs = {}
            for fmt in FORMATS:
                outputs[fmt] = get_reporter(fmt).render(result, ReportContext(engine=EngineConfig()))
        except MemoryError:
            return "memory", "MemoryError"
        except RecursionError as exc:
            return "traceback", _describe(exc)
        except Exception as exc:  # noqa: BLE001 - the point is to catch every escape
            return "traceback", _describe(exc)
    for fmt, text in outputs.items():
        if reason := check_output(fmt, text):
            return "invalid", f"{fmt}: {reason}"
    return None


def _describe(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "finlint" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno} {frames[-1].name}" if frames else "?"
    return f"{type(exc).__name__} at {where}: {str(exc)[:120]}"


def _worker(conn: Any, memory: int) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass
    os.environ.setdefault("FINLINT_CACHE_DIR", tempfile.mkdtemp(prefix="finlint-fuzz-cache-"))
    while True:
        case = conn.recv()
        if case is None:
            return
        try:
            conn.send(run_case(case))
        except MemoryError:
            conn.send(("memory", "MemoryError"))


class Worker:
    def __init__(self, memory: int) -> None:
        self.memory = memory
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.memory), daemon=True)
        self.proc.start()

    def run(self, case: Case, timeout: float) -> tuple[str, str] | None:
        self.conn.send(case)
        if self.conn.poll(timeout):
            try:
                out: tuple[str, str] | None = self.conn.recv()
                return out
            except EOFError:
                pass
            code = self.proc.exitcode
            self._restart()
            return "memory" if code in (-9, None) else "traceback", f"worker died (exit {code})"
        self._restart()
        return "hang", f"no answer in {timeout:g} s"

    def _restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self._start()

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(1)
        if self.proc.is_alive():
            self.proc.kill()


def save(klass: str, n: int, case: Case, detail: str) -> Path:
    where = OUT / f"{klass}-{n}"
    shutil.rmtree(where, ignore_errors=True)
    for name, data in case.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_bytes(data)
    (where / "FAILURE.txt").write_text(detail + "\n", encoding="utf-8")
    return where


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--memory-mb", type=int, default=MEMORY_BYTES >> 20)
    args = ap.parse_args(argv)
    import threading
    from queue import Empty, Queue

    todo: Queue[int] = Queue()
    for i in range(args.cases):
        todo.put(i)
    failures: dict[str, list[tuple[int, str]]] = {}
    lock = threading.Lock()
    started = time.monotonic()

    def loop() -> None:
        worker = Worker(args.memory_mb << 20)
        try:
            while True:
                try:
                    i = todo.get_nowait()
                except Empty:
                    return
                case = generate(args.seed, i)
                got = worker.run(case, args.timeout)
                if got:
                    with lock:
                        items = failures.setdefault(got[0], [])
                        items.append((i, got[1]))
                        where = save(got[0], len(items), case, f"case {i} seed {args.seed}: {got[1]}")
                        print(f"FAIL {got[0]:9} case {i}: {got[1]}  -> {where.relative_to(REPO)}", flush=True)
        finally:
            worker.close()

    threads = [threading.Thread(target=loop) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(
        f"\n{'class':12} failures   ({args.cases} cases, seed {args.seed}, {time.monotonic() - started:.0f} s)"
    )
    for klass in ["traceback", "hang", "memory", "invalid"]:
        print(f"{klass:12} {len(failures.get(klass, []))}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
