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


#: what a case's files may try to read from outside the scanned tree: its content must never
#: reach a report (run_case writes it beside the tree and checks every output for it); shaped
#: like an instance type, so that a read that did happen would surface in a finding
CANARY = "ml.canary-7f3a-outside.xlarge"
_B64_CANARY = __import__("base64").b64encode(CANARY.encode()).decode()[:20]
OUTSIDE_NAMES = ["../canary.txt", "/proc/self/environ", "../../etc/passwd", "${path.module}/../canary.txt"]


def gen_cfn_eval(rng: random.Random) -> Case:
    """Nested intrinsic functions: doubling Fn::Sub, deep Fn::Join / Fn::If / Fn::FindInMap."""
    value: Any = {"Fn::Sub": rng.choice(["ml.p5.48xlarge", "${AWS::Region}", _s(rng)])}
    size = 40  # bytes of the value: each Fn::Join doubles it; past ~40 KB a case only measures YAML
    for _ in range(rng.randint(1, 45)):
        kind = rng.choice(["sub2", "join", "if", "select"] if size < 40_000 else ["sub2", "if", "select"])
        size = size * 2 + 20 if kind == "join" else size + 40
        if kind == "sub2":
            value = {"Fn::Sub": ["${a}${a}", {"a": value}]}
        elif kind == "join":
            value = {"Fn::Join": ["", [value, value]]}
        elif kind == "if":
            value = {"Fn::If": ["C", value, {"Ref": "AWS::NoValue"}]}
        else:
            value = {"Fn::Select": [0, [value]]}
    template = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Conditions": {"C": {"Fn::Equals": ["a", "b"]}},
        "Resources": {
            "Nb": {
                "Type": "AWS::SageMaker::NotebookInstance",
                "Properties": {"InstanceType": value, "RoleArn": "r", "NotebookInstanceName": value},
            }
        },
    }
    return {"t.json": json.dumps(template).encode()}


def gen_tf_eval(rng: random.Random) -> Case:
    """Budgets and confinement of the Terraform evaluator: doubling locals, nested for, huge
    format widths, file functions naming paths outside the tree (a symlink among them)."""
    items = ", ".join(str(i) for i in range(rng.randint(1, 60)))
    lines = ["locals {", '  l0 = "x"', f"  xs = [{items}]"]
    n = rng.randint(1, 64)
    for i in range(1, n):
        prev = f"local.l{i - 1}"
        lines.append(
            "  l{} = {}".format(
                i,
                rng.choice(
                    [
                        f'"${{{prev}}}${{{prev}}}"',
                        f'format("%{rng.choice(["", "9", "99999", "1999999999", "*"])}s", {prev})',
                        f"[for a in local.xs : [for b in local.xs : {prev}]]",
                        f'join(",", [for a in local.xs : "${{{prev}}}"])',
                        f'replace({prev}, "x", "xxxxxxxx")',
                        f'file("{rng.choice(OUTSIDE_NAMES)}")',
                        f'base64encode(file("{rng.choice(OUTSIDE_NAMES)}"))',
                        f'filebase64("{rng.choice(OUTSIDE_NAMES)}")',
                        f'templatefile("{rng.choice(OUTSIDE_NAMES)}", {{}})',
                        'file("link.txt")',
                    ]
                ),
            )
        )
    lines += [
        "}",
        'resource "aws_sagemaker_notebook_instance" "n" {',
        f"  name          = local.l{rng.randint(0, n - 1)}",
        '  role_arn      = "r"',
        # a value read from outside the tree would surface here (FIN302: not in the catalog)
        "  instance_type = " + rng.choice([f"local.l{rng.randint(0, n - 1)}", '"ml.p5.48xlarge"']),
        "}",
    ]
    source = rng.choice(["../..", "/etc", "./m", "../outside"])
    lines.append(f'module "m" {{\n  source = "{source}"\n}}')
    return {"main.tf": "\n".join(lines).encode(), "@link:link.txt": b"../canary.txt"}


def gen_sdk_eval(rng: random.Random) -> Case:
    """String folding in SDK launchers: doubling f-strings and +, padding format specs, joins."""
    start = rng.choice(['os.environ["X"]', repr("x"), repr(_s(rng))])
    lines = ["import os", "from sagemaker.pytorch import PyTorch", f"a = {start}"]
    for _ in range(rng.randint(1, 50)):
        lines.append(
            rng.choice(
                [
                    "a = f'{a}{a}'",
                    "a = a + a",
                    f"a = '{{:>{rng.choice(['9', '99999', '1999999999'])}}}'.format(a)",
                    "a = '/'.join([a, a, a])",
                    f"a = a * {rng.choice(['2', '100000', '10**9'])}",
                    f"a = '%{rng.choice(['9', '1999999999'])}s' % a",
                ]
            )
        )
    lines.append(
        "PyTorch(entry_point='t.py', role='r', instance_type='ml.p5.48xlarge', instance_count=1, "
        "base_job_name=a).fit()"
    )
    return {"launch.py": "\n".join(lines).encode()}


def gen_template(rng: random.Random) -> Case:
    """Templated YAML the tolerant reader masks: unclosed tags, long lines, templated keys."""
    head = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\n"
    body = rng.choice(
        [
            "  note: " + "{{ " * rng.randint(1, 70_000),
            "a" + " " * rng.randint(1, 200_000) + "{{ .Values.x }}",
            "{{ if .x }}\n" * rng.randint(1, 300),
            "- " * rng.randint(1, 50_000) + "k: {{ v }}",
            "  k: [" + ", ".join("{{ x }}" for _ in range(rng.randint(1, 20_000))) + "]",
            '  args: ["' + "-" * rng.randint(1, 150_000) + 'ckpt=/x"]',
        ]
    )
    return {"t.yaml": (head + body + "\n").encode()}


GENERATORS = [
    gen_cfn,
    gen_tf,
    gen_k8s,
    gen_sdk,
    gen_api,
    gen_mutation,
    gen_mutation,
    gen_cfn_eval,
    gen_tf_eval,
    gen_sdk_eval,
    gen_template,
]


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
        (Path(tmp) / "canary.txt").write_text(CANARY)  # beside the tree: never to be read
        root = Path(tmp) / "tree"
        root.mkdir()
        for name, data in case.items():
            if name.startswith("@link:"):  # a symlink the case plants: name -> target
                (root / name[len("@link:") :]).symlink_to(data.decode())
                continue
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            result = lint(ScanOptions(paths=[root], engine=EngineConfig()))
            held = repr(result.records)  # what a report, the cost stage or a golden could show
            if "canary-7f3a" in held or _B64_CANARY in held:
                return "leak", "a file outside the tree reached the IR"
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
        if "canary-7f3a" in text or _B64_CANARY in text:
            return "leak", f"{fmt}: a file outside the tree reached the report"
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
    for klass in ["traceback", "hang", "memory", "invalid", "leak"]:
        print(f"{klass:12} {len(failures.get(klass, []))}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
