"""Issue 12: launch settings that travel (helpers, methods, config files, sibling modules).

Every fixture is hand-written, shaped like public launchers: kwargs built in a method, a YAML
config next to the script, constants imported from a sibling module.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.conftest import scan_paths

from finlint.ir import TrainingJob, Unknown, ValueSource
from finlint.loaders.sagemaker_sdk.loader import load_file

HEADER = "from sagemaker.pytorch import PyTorch\nfrom sagemaker.estimator import Estimator\n"


def write(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if text.startswith(HEADER):
            text = HEADER + textwrap.dedent(text[len(HEADER) :])
        target.write_text(textwrap.dedent(text), encoding="utf-8")


def jobs_in(tmp_path: Path, files: dict[str, str], script: str = "launch.py") -> list[TrainingJob]:
    write(tmp_path, files)
    path = tmp_path / script
    result = load_file(path, script, path.read_text(), {})
    assert not result.errors, result.errors
    return [r for r in result.records if isinstance(r, TrainingJob)]


def one(tmp_path: Path, files: dict[str, str], script: str = "launch.py") -> TrainingJob:
    (job,) = jobs_in(tmp_path, files, script)
    return job


# --- helpers and methods ------------------------------------------------------------------------


def test_module_helper_evaluated_with_the_call_site_argument(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    def build_args(instance_type, hours=2):
        args = {"instance_type": instance_type, "instance_count": 1}
        args["max_run"] = hours * 3600
        return args

    est = PyTorch(entry_point="train.py", **build_args("ml.p5.48xlarge"))
    est.fit()
    """
    )
    job = one(tmp_path, {"launch.py": code})
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.max_runtime_s == 7200  # the parameter's default, bound at this call site
    assert job.attr_lines["instance_type"] == 5  # the key in the dict the helper builds


def test_helper_called_twice_with_different_arguments(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    def settings(kind):
        return {"instance_type": kind, "max_run": 3600}

    small = Estimator(image_uri="i", role="r", **settings("ml.g5.xlarge"))
    large = Estimator(image_uri="i", role="r", **settings("ml.p5.48xlarge"))
    """
    )
    got = sorted(j.instance_type for j in jobs_in(tmp_path, {"launch.py": code}))
    assert got == ["ml.g5.xlarge", "ml.p5.48xlarge"]


def test_method_via_self_with_attributes_from_init(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    class Launcher:
        def __init__(self, instance_type):
            self.instance_type = instance_type
            self.use_spot = True

        def _get_estimator_args(self):
            return {"instance_type": self.instance_type, "instance_count": 2,
                    "use_spot_instances": self.use_spot}

        def launch(self):
            est = PyTorch(entry_point="train.py", **self._get_estimator_args())
            est.fit()

    Launcher("ml.p4d.24xlarge").launch()
    """
    )
    job = one(tmp_path, {"launch.py": code})
    assert job.instance_type == "ml.p4d.24xlarge"
    assert job.instance_count == 2 and job.spot is True


def test_static_and_class_methods_merged_with_double_star(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    class Configs:
        BASE_TYPE = "ml.g5.12xlarge"

        @staticmethod
        def spot():
            return {"use_spot_instances": True, "max_wait": 7200}

        @classmethod
        def base(cls):
            return {"instance_type": cls.BASE_TYPE, "max_run": 3600}

    est = PyTorch(entry_point="t.py", **{**Configs.base(), **Configs.spot()})
    """
    )
    job = one(tmp_path, {"launch.py": code})
    assert job.instance_type == "ml.g5.12xlarge"
    assert job.spot is True and job.max_runtime_s == 3600


def test_recursive_helper_is_bounded_and_unknown(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    def args_for(depth):
        return args_for(depth + 1)

    def ping(n):
        return pong(n)

    def pong(n):
        return ping(n)

    est = PyTorch(entry_point="t.py", instance_type=args_for(0), max_run=ping(1))
    """
    )
    job = one(tmp_path, {"launch.py": code})
    assert isinstance(job.instance_type, Unknown)
    assert isinstance(job.max_runtime_s, Unknown)


def test_launch_inside_helper_is_recorded_once(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    def run(kind):
        est = PyTorch(entry_point="t.py", instance_type=kind, max_run=3600)
        est.fit()
        return est

    run("ml.p5.48xlarge")
    run("ml.g5.xlarge")
    """
    )
    (job,) = jobs_in(tmp_path, {"launch.py": code})  # one launch site, not one per call
    assert isinstance(job.instance_type, Unknown)  # two calls, two values: not one of them


# --- config files -------------------------------------------------------------------------------

CONFIG_YAML = """\
training:
  instance_type: ml.p5.48xlarge
  instance_count: 1
  max_run: 7200
"""


def test_yaml_config_next_to_the_script(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import yaml
    from pathlib import Path

    cfg = yaml.safe_load(open(Path(__file__).parent / "config.yaml"))
    train = cfg["training"]
    est = PyTorch(
        entry_point="train.py",
        instance_type=train["instance_type"],
        instance_count=train.get("instance_count", 4),
        max_run=train.get("max_run", 3600),
        use_spot_instances=cfg.get("use_spot_instances", False),
    )
    """
    )
    job = one(tmp_path, {"launch.py": code, "config.yaml": CONFIG_YAML})
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.instance_count == 1 and job.max_runtime_s == 7200
    assert job.spot is False  # absent from a known config: the .get default
    assert job.value_source("instance_type") == ValueSource("instance_type", "config.yaml", 2, "config file")


def test_json_config_with_os_path_and_with_statement(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import json, os

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "conf", "job.json")) as f:
        cfg = json.load(f)
    est = Estimator(image_uri="i", role="r", **cfg["estimator"])
    """
    )
    conf = '{\n  "estimator": {\n    "instance_type": "ml.g5.2xlarge",\n    "max_run": 5400\n  }\n}\n'
    job = one(tmp_path, {"launch.py": code, "conf/job.json": conf})
    assert job.instance_type == "ml.g5.2xlarge" and job.max_runtime_s == 5400
    assert job.attr_lines["instance_type"] == 9  # the ** line in the script
    source = job.value_source("max_runtime_s")
    assert source is not None and (source.file, source.line) == ("conf/job.json", 4)


def test_omegaconf_and_argparse_default_path(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import argparse
    from omegaconf import OmegaConf

    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    args = parser.parse_args()
    cfg = OmegaConf.load(args.config)
    est = PyTorch(entry_point="t.py", instance_type=cfg["training"]["instance_type"],
                  max_run=cfg.training.max_run)
    """
    )
    job = one(tmp_path, {"launch.py": code, "config.yaml": CONFIG_YAML})
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.max_runtime_s == 7200  # attribute access, as OmegaConf allows


def test_unresolvable_and_missing_config_paths_say_why(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import sys, yaml

    a = yaml.safe_load(open(sys.argv[1]))
    b = yaml.safe_load(open("missing.yaml"))
    est = PyTorch(entry_point="t.py", instance_type=a["instance_type"], max_run=b["max_run"])
    """
    )
    job = one(tmp_path, {"launch.py": code})
    assert isinstance(job.instance_type, Unknown) and isinstance(job.max_runtime_s, Unknown)
    assert "config file path" in (job.instance_type.reason or "")
    assert "missing.yaml is not in the scanned tree" in (job.max_runtime_s.reason or "")


def test_empty_value_in_a_template_config_is_unknown_not_missing(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import yaml
    cfg = yaml.safe_load(open("config.yml"))
    est = PyTorch(entry_point="t.py", instance_type="ml.g5.xlarge", max_run=cfg["max_run"])
    """
    )
    job = one(tmp_path, {"launch.py": code, "config.yml": "max_run:\n"})
    assert isinstance(job.max_runtime_s, Unknown)
    assert "'max_run' is empty in config.yml:1" in (job.max_runtime_s.reason or "")


def test_finding_from_a_config_value_names_and_points_at_the_file(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import yaml
    cfg = yaml.safe_load(open("config.yaml"))["training"]
    est = PyTorch(entry_point="t.py", instance_type=cfg["instance_type"], max_run=cfg["max_run"])
    est.fit()
    """
    )
    write(tmp_path, {"launch.py": code, "config.yaml": CONFIG_YAML})
    result = scan_paths([tmp_path], ("FIN301",))
    (finding,) = [f for f in result.findings if f.rule_id == "FIN301"]
    assert finding.file.endswith("config.yaml") and finding.line == 2
    assert "instance_type from config file" in finding.message and "config.yaml:2" in finding.message


# --- sibling modules ----------------------------------------------------------------------------


def test_constants_from_sibling_modules(tmp_path: Path) -> None:
    settings = """
    HOURS = 3600
    INSTANCE_TYPE = "ml.p5.48xlarge"
    MAX_RUN = 2 * HOURS
    TRAINING = {"instance_count": 2}
    """
    code = (
        HEADER
        + """
    import settings
    from settings import INSTANCE_TYPE
    from .pkgconf import TRAINING

    est = PyTorch(entry_point="t.py", instance_type=INSTANCE_TYPE, max_run=settings.MAX_RUN,
                  instance_count=TRAINING["instance_count"])
    """
    )
    files = {"app/launch.py": code, "app/settings.py": settings, "app/pkgconf.py": settings}
    job = one(tmp_path, files, "app/launch.py")
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.max_runtime_s == 7200 and job.instance_count == 2


def test_import_cycle_between_sibling_modules_is_bounded(tmp_path: Path) -> None:
    files = {
        "a.py": "from b import X\nY = 1\n",
        "b.py": "from a import Y\nX = 3600\n",
        "launch.py": HEADER + "from a import Y\nfrom b import X\n"
        "est = PyTorch(entry_point='t.py', instance_type='ml.g5.xlarge', max_run=X)\n",
    }
    job = one(tmp_path, files)
    assert job.max_runtime_s == 3600


def test_sibling_module_functions_are_not_walked_from_the_importer(tmp_path: Path) -> None:
    files = {
        "pipeline.py": HEADER + "def get(t):\n    return PyTorch(entry_point='x', instance_type=t)\n",
        "nb.py": HEADER + "from pipeline import get\nget('ml.p5.48xlarge').fit()\n",
    }
    assert jobs_in(tmp_path, files, "nb.py") == []  # the launch belongs to pipeline.py


# --- .get on unknown mappings -------------------------------------------------------------------


def test_get_default_is_never_assumed_on_an_unknown_mapping(tmp_path: Path) -> None:
    code = (
        HEADER
        + """
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-run", type=int, default=7200)
    args = parser.parse_args()
    cfg = load_config()
    est = PyTorch(entry_point="t.py", instance_type="ml.g5.xlarge",
                  use_spot_instances=cfg.get("use_spot_instances", False),
                  max_run=vars(args).get("max_run", 60),
                  max_wait=getattr(args, "max_wait", 100))
    """
    )
    job = one(tmp_path, {"launch.py": code})
    # Unknown, never the default False: spot on a flag with no checkpoint is FIN201's case.
    assert isinstance(job.spot, Unknown) and "default is not assumed" in job.spot.reason
    assert job.max_runtime_s == 7200  # vars(args) is known: the argparse default
    assert job.max_wait_s == 100  # not an argument: getattr's default on a known namespace


# --- argparse: local mode only by default -------------------------------------------------------

ARGPARSE_LOCAL = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--instance-type", default="local", choices=[{choices}])
args = parser.parse_args()
est = PyTorch(entry_point="t.py", instance_type=args.instance_type)
est.fit()
"""


def test_local_by_argparse_default_with_real_choices_is_checked(tmp_path: Path) -> None:
    code = HEADER + ARGPARSE_LOCAL.format(choices='"local", "ml.p4d.24xlarge"')
    job = one(tmp_path, {"launch.py": code})
    assert job.instance_type == "ml.p4d.24xlarge"
    write(tmp_path, {"launch.py": code})
    result = scan_paths([tmp_path], ("FIN101",))
    (finding,) = result.findings
    assert "argparse default 'local'" in finding.message
    assert "--instance-type ml.p4d.24xlarge" in finding.message


def test_local_by_argparse_default_with_only_local_choices_stays_exempt(tmp_path: Path) -> None:
    code = HEADER + ARGPARSE_LOCAL.format(choices='"local", "local_gpu"')
    assert jobs_in(tmp_path, {"launch.py": code}) == []


def test_local_by_argparse_default_with_instance_type_literals_in_the_file(tmp_path: Path) -> None:
    code = (
        HEADER
        + ARGPARSE_LOCAL.replace(", choices=[{choices}]", "")
        + 'PROD = ["ml.g5.2xlarge", "ml.p5.48xlarge"]\n'
    )
    job = one(tmp_path, {"launch.py": code})
    assert isinstance(job.instance_type, Unknown)
    assert "ml.g5.2xlarge, ml.p5.48xlarge" in (job.instance_type.reason or "")


def test_literal_local_mode_stays_exempt(tmp_path: Path) -> None:
    code = HEADER + 'PyTorch(entry_point="t.py", instance_type="local").fit()\nX = "ml.p5.48xlarge"\n'
    assert jobs_in(tmp_path, {"launch.py": code}) == []


# --- launches in test code ----------------------------------------------------------------------

TEST_CODE = {
    "tests/test_launch.py": HEADER
    + "def test_fit():\n    PyTorch(entry_point='t.py', instance_type='ml.p5.48xlarge').fit()\n",
    "tests/test_more.py": HEADER
    + "class TestJobs:\n"
    + "    def test_a(self):\n        Estimator(image_uri='i', role='r', instance_type='ml.g5.xlarge')\n"
    + "    def test_b(self):\n        Estimator(image_uri='i', role='r', instance_type='ml.g5.xlarge')\n",
}


def test_launches_in_test_code_are_counted_not_checked(tmp_path: Path) -> None:
    write(tmp_path, TEST_CODE)
    result = scan_paths([tmp_path], ("FIN101",))
    assert result.findings == []
    (notice,) = [n for n in result.notices if "test code" in n.message]
    assert notice.message == (
        "3 training launches in test code were not checked; --include-tests checks them (2 files)"
    )


def test_include_tests_checks_them(tmp_path: Path) -> None:
    from finlint.engine import EngineConfig
    from finlint.scan import ScanOptions, lint

    write(tmp_path, TEST_CODE)
    options = ScanOptions(
        paths=[tmp_path], engine=EngineConfig(select=("FIN101",)), loader_options={"include_tests": True}
    )
    result = lint(options)
    assert len(result.findings) == 3
    assert not [n for n in result.notices if "test code" in n.message]


def test_include_tests_from_the_cli_and_the_config_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from finlint.cli import main

    write(tmp_path, TEST_CODE)
    runner = CliRunner()
    default = runner.invoke(main, ["scan", str(tmp_path), "--select", "FIN101", "--exit-zero"])
    assert "3 training launches in test code were not checked" in default.output
    flag = runner.invoke(
        main, ["scan", str(tmp_path), "--select", "FIN101", "--include-tests", "--exit-zero"]
    )
    assert flag.output.count("FIN101") == 3
    (tmp_path / ".finlint.yaml").write_text("include_tests: true\n")
    configured = runner.invoke(main, ["scan", str(tmp_path), "--select", "FIN101", "--exit-zero"])
    assert configured.output.count("FIN101") == 3
    (tmp_path / ".finlint.yaml").write_text("include_tests: 'yes'\n")
    bad = runner.invoke(main, ["scan", str(tmp_path)])
    assert bad.exit_code == 2 and "include_tests: expected true or false" in bad.output


# --- the SageMaker SDK's defaults files ---------------------------------------------------------

SDK_DEFAULTS = """\
SchemaVersion: '1.0'
SageMaker:
  PythonSDK:
    Modules:
      RemoteFunction:
        InstanceType: ml.p5.48xlarge
      ModelTrainer:
        Compute:
          instance_type: ml.p4d.24xlarge
          instance_count: 2
        StoppingCondition:
          max_runtime_in_seconds: 7200
"""

REMOTE = """\
from sagemaker.remote_function import remote

@remote(max_runtime_in_seconds=3600)
def train():
    pass
"""

TRAINER = """\
from sagemaker.modules.train import ModelTrainer
from sagemaker.modules.configs import StoppingCondition

trainer = ModelTrainer(training_image="img", stopping_condition=StoppingCondition(max_runtime_in_seconds=600))
trainer.train()
"""


def test_defaults_file_next_to_a_remote_function(tmp_path: Path) -> None:
    job = one(tmp_path, {"launch.py": REMOTE, "config.yaml": SDK_DEFAULTS})
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.value_source("instance_type") == ValueSource(
        "instance_type", "config.yaml", 6, "SageMaker SDK defaults file"
    )


def test_defaults_file_fills_only_the_model_trainer_arguments_not_passed(tmp_path: Path) -> None:
    job = one(tmp_path, {"launch.py": TRAINER, "config.yaml": SDK_DEFAULTS})
    assert job.instance_type == "ml.p4d.24xlarge" and job.instance_count == 2
    assert job.max_runtime_s == 600  # stopping_condition is passed: the file's 7200 does not apply


def test_defaults_file_named_by_the_override_variable(tmp_path: Path) -> None:
    code = "import os\nos.environ['SAGEMAKER_USER_CONFIG_OVERRIDE'] = 'sm/defaults.yaml'\n" + REMOTE
    job = one(tmp_path, {"launch.py": code, "sm/defaults.yaml": SDK_DEFAULTS})
    assert job.instance_type == "ml.p5.48xlarge"
    source = job.value_source("instance_type")
    assert source is not None and source.file == "sm/defaults.yaml"
    env = {"nb/launch.py": REMOTE, "nb/.env": "SAGEMAKER_USER_CONFIG_OVERRIDE=../conf\n"}
    job = one(tmp_path / "e", {**env, "conf/config.yaml": SDK_DEFAULTS}, "nb/launch.py")
    assert job.instance_type == "ml.p5.48xlarge"


def test_a_plain_config_yaml_is_not_an_sdk_defaults_file(tmp_path: Path) -> None:
    plain = SDK_DEFAULTS.replace("SchemaVersion: '1.0'\n", "")
    job = one(tmp_path, {"launch.py": REMOTE, "config.yaml": plain})
    assert job.instance_type is None


def test_sdk_defaults_finding_names_the_file(tmp_path: Path) -> None:
    write(tmp_path, {"launch.py": REMOTE, "config.yaml": SDK_DEFAULTS})
    result = scan_paths([tmp_path], ("FIN301",))
    (finding,) = result.findings
    assert finding.file.endswith("config.yaml") and finding.line == 6
    assert "instance_type from SageMaker SDK defaults file" in finding.message


def test_checkpoint_uri_built_on_both_branches_is_present(tmp_path: Path) -> None:
    code = HEADER + (
        "if PREFIX:\n"
        '    out = f"s3://{bucket}/{PREFIX}/job"\n'
        "else:\n"
        '    out = f"s3://{bucket}/job"\n'
        "if FAST:\n"
        '    kind = "ml.g5.xlarge"\n'
        "else:\n"
        '    kind = "ml.p5.48xlarge"\n'
        'est = PyTorch(entry_point="t.py", instance_type=kind, use_spot_instances=True,\n'
        '              checkpoint_s3_uri=out + "/checkpoints")\n'
    )
    job = one(tmp_path, {"launch.py": code})
    assert isinstance(job.checkpoint_s3_uri, str)  # present on every branch: no FIN201
    assert isinstance(job.instance_type, Unknown)  # two different types stay unknown


def test_workflow_class_fed_from_an_argparse_default_config(tmp_path: Path) -> None:
    """Reduction of a field-test launcher: a class whose __init__ keeps part of a YAML config
    read through an argparse default path, and a method that launches from it."""
    code = HEADER + (
        "import argparse, yaml\n"
        "class Workflow:\n"
        "    def __init__(self, conf):\n"
        "        self.settings = conf['sagemaker']['training']\n"
        "    def _train(self):\n"
        "        return Estimator(image_uri='i', role='r',\n"
        "                         instance_type=self.settings['instance_type'],\n"
        "                         max_run=self.settings['max_run'])\n"
        "    def create(self):\n"
        "        self._train().fit()\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('-c', type=str, default='config.yml')\n"
        "    args, _ = parser.parse_known_args()\n"
        "    with open(args.c, 'rb') as f:\n"
        "        conf = yaml.load(f.read(), Loader=yaml.SafeLoader)\n"
        "    Workflow(conf).create()\n"
    )
    config = "sagemaker:\n  training:\n    instance_type: ml.p4d.24xlarge\n    max_run:\n"
    job = one(tmp_path, {"launch.py": code, "config.yml": config})
    assert job.instance_type == "ml.p4d.24xlarge"
    assert isinstance(job.max_runtime_s, Unknown)  # empty in the template: never "missing"
    assert "'max_run' is empty in config.yml:4" in (job.max_runtime_s.reason or "")


def test_comment_at_the_launch_suppresses_a_finding_pointing_into_the_config(tmp_path: Path) -> None:
    code = HEADER + (
        "import yaml\n"
        'cfg = yaml.safe_load(open("config.yaml"))["training"]\n'
        "# finlint: ignore[FIN301] -- short benchmark on purpose\n"
        'est = PyTorch(entry_point="t.py", instance_type=cfg["instance_type"], max_run=cfg["max_run"])\n'
    )
    write(tmp_path, {"launch.py": code, "config.yaml": CONFIG_YAML})
    (finding,) = [f for f in scan_paths([tmp_path], ("FIN301",)).findings if f.rule_id == "FIN301"]
    assert finding.file.endswith("config.yaml")
    assert finding.suppressed == "short benchmark on purpose"


def test_odd_config_paths_never_crash(tmp_path: Path) -> None:
    code = HEADER + (
        "import yaml, json\n"
        'a = yaml.safe_load(open("bad\\x00name.yaml"))\n'
        'b = json.load(open("."))\n'
        'c = yaml.safe_load(open("broken.yaml"))\n'
        'd = yaml.safe_load(open("/etc/passwd"))\n'
        'est = PyTorch(entry_point="t.py", instance_type=a["x"], max_run=b["y"], volume_size=c["z"],\n'
        '              checkpoint_s3_uri=d["w"])\n'
    )
    job = one(tmp_path, {"launch.py": code, "broken.yaml": "a: [1,\n"})
    assert isinstance(job.instance_type, Unknown) and isinstance(job.max_runtime_s, Unknown)
    assert "does not parse" in (job.volume_size_gb.reason or "")  # type: ignore[union-attr]
    assert "outside the scanned code" in (job.checkpoint_s3_uri.reason or "")  # type: ignore[union-attr]


def test_config_reads_stop_at_the_repository_root(tmp_path: Path) -> None:
    code = HEADER + (
        "import yaml\n"
        'cfg = yaml.safe_load(open("../../outside.yaml"))\n'
        'est = PyTorch(entry_point="t.py", instance_type=cfg["instance_type"])\n'
    )
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(tmp_path, {"outside.yaml": "instance_type: ml.p5.48xlarge\n"})
    job = one(tmp_path / "repo" / "jobs", {"launch.py": code})
    assert isinstance(job.instance_type, Unknown)
    assert "outside the scanned code" in (job.instance_type.reason or "")


def test_method_of_a_class_not_instantiated_here_sees_literal_init_attributes(tmp_path: Path) -> None:
    code = HEADER + (
        "class Job:\n"
        "    def __init__(self, role):\n"
        "        self.role = role\n"
        '        self.instance_type = "ml.p4d.24xlarge"\n'
        "    def run(self):\n"
        '        Estimator(image_uri="i", role=self.role, instance_type=self.instance_type,\n'
        "                  max_run=self.max_run).fit()\n"
    )
    job = one(tmp_path, {"launch.py": code})
    assert job.instance_type == "ml.p4d.24xlarge"  # a literal set by __init__
    assert isinstance(job.max_runtime_s, Unknown)
    assert "no Job is created in this file" in (job.max_runtime_s.reason or "")


def test_spot_flag_from_a_config_file_points_at_the_flag(tmp_path: Path) -> None:
    code = HEADER + (
        "import json\n"
        'cfg = json.load(open("job.json"))\n'
        'if not cfg["use_spot"]:\n'
        '    raise SystemExit("spot only")\n'
        'est = PyTorch(entry_point="t.py", instance_type="ml.g5.xlarge", max_run=3600,\n'
        '              use_spot_instances=cfg["use_spot"], max_wait=7200)\n'
    )
    write(tmp_path, {"launch.py": code, "job.json": '{\n  "use_spot": true\n}\n'})
    (finding,) = scan_paths([tmp_path], ("FIN201",)).findings
    assert finding.file.endswith("job.json") and finding.line == 2
    assert "spot from config file" in finding.message


def test_records_list_the_files_their_values_came_from(tmp_path: Path) -> None:
    code = HEADER + (
        "import yaml\n"
        "from settings import MAX_RUN\n"
        'cfg = yaml.safe_load(open("conf/train.yaml"))\n'
        'PyTorch(entry_point="t.py", instance_type=cfg["instance_type"], max_run=MAX_RUN).fit()\n'
    )
    files = {
        "launch.py": code,
        "settings.py": "MAX_RUN = 3600\n",
        "conf/train.yaml": "instance_type: ml.g5.xlarge\n",
        "config.yaml": "unrelated: true\n",  # next to the script, but not an SDK defaults file
    }
    job = one(tmp_path, files)
    assert job.inputs == ("conf/train.yaml", "settings.py")


def test_a_helper_first_reached_from_a_value_only_evaluation_keeps_its_launch(tmp_path: Path) -> None:
    code = HEADER + (
        "class Job:\n"
        "    def __init__(self):\n"
        "        self.est = make()\n"
        "    def run(self):\n"
        "        self.est.fit()\n"
        "def make():\n"
        '    return PyTorch(entry_point="x", instance_type="ml.g5.xlarge", max_run=600)\n'
    )
    (job,) = jobs_in(tmp_path, {"launch.py": code})
    assert job.instance_type == "ml.g5.xlarge" and job.location.line == 9
