"""What SageMaker SDK calls mean: which calls launch training jobs and which arguments matter.

Classes are recognised by their import path (``sagemaker.pytorch.PyTorch``, an alias of it, or
``sagemaker.pytorch.PyTorch`` written out), never by a bare name, so an unrelated class called
``Estimator`` launches nothing. Defaults are the SDK's own (libraries.md §6): Estimator and
``@remote`` run for 86,400 s when ``max_run`` is absent, ``ModelTrainer`` for 3,600 s.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Mapping

from finlint.ir import Unknown
from finlint.loaders.sagemaker_sdk.calls import FollowingInterpreter
from finlint.loaders.sagemaker_sdk.loops import LaunchSite, launch_site
from finlint.loaders.sagemaker_sdk.scope import ClassVal, FuncVal, Scope
from finlint.loaders.sagemaker_sdk.sources import ArgDefault, PathVal, Sources, arg_default
from finlint.loaders.sagemaker_sdk.values import (
    MAX_STR,
    CallArgs,
    ClientVal,
    ConfigVal,
    DictVal,
    NamespaceVal,
    ObjVal,
    OneOf,
    ParserVal,
    Ref,
    is_known_scalar,
    partial_template,
    text_value,
)

ESTIMATOR_DEFAULT_RUNTIME_S = 24 * 60 * 60  # sagemaker/estimator.py: max_run=24 * 60 * 60
REMOTE_DEFAULT_RUNTIME_S = 24 * 60 * 60  # sagemaker/remote_function/client.py
MODEL_TRAINER_DEFAULT_RUNTIME_S = 3600  # sagemaker/train/defaults.py DEFAULT_MAX_RUNTIME_IN_SECONDS
LOCAL_MODES = frozenset({"local", "local_gpu"})  # instance types of SDK local mode (never billed)

#: SDK v2 estimator classes (framework, generic, JumpStart and first-party algorithms).
ESTIMATORS = frozenset(
    {
        "Estimator", "EstimatorBase", "Framework", "PyTorch", "TensorFlow", "HuggingFace", "MXNet",
        "SKLearn", "XGBoost", "Chainer", "RLEstimator", "JumpStartEstimator", "AlgorithmEstimator",
        "KMeans", "PCA", "LinearLearner", "FactorizationMachines", "LDA", "NTM", "RandomCutForest",
        "KNN", "Object2Vec", "IPInsights",
    }
)  # fmt: skip
AMAZON_ALGORITHMS = frozenset(
    {"KMeans", "PCA", "LinearLearner", "FactorizationMachines", "LDA", "NTM", "RandomCutForest",
     "KNN", "Object2Vec", "IPInsights"}
)  # fmt: skip

_SDK_KINDS = {
    "ModelTrainer": "model_trainer",
    "Compute": "compute",
    "StoppingCondition": "stopping",
    "CheckpointConfig": "checkpoint",
    "SourceCode": "source_code",
    "InstanceGroup": "instance_group",
    "HyperparameterTuner": "tuner",
    "TrainingStep": "training_step",
    "TuningStep": "tuning_step",
    "ParameterInteger": "parameter",
    "ParameterString": "parameter",
    "ParameterFloat": "parameter",
    "ParameterBoolean": "parameter",
    "remote": "remote",
    "RemoteExecutor": "remote_executor",
    "CheckpointLocation": "checkpoint_location",
    "s3_path_join": "path_join",
    "LocalSession": "local_session",  # sagemaker.local: jobs run in local containers
    "LocalPipelineSession": "local_session",  # sagemaker.workflow.pipeline_context
}

#: sagemaker_core shapes a ModelTrainer takes as they are (``sagemaker_core.shapes`` or
#: ``sagemaker_core.main.shapes``): same classes, same fields as ``sagemaker.modules.configs``.
_CORE_SHAPES = frozenset({"StoppingCondition", "CheckpointConfig"})

#: IR field -> argument names (v2 first, then the v1 ``train_*`` spelling).
ESTIMATOR_FIELDS = {
    "instance_type": ("instance_type", "train_instance_type"),
    "instance_count": ("instance_count", "train_instance_count"),
    "spot": ("use_spot_instances", "train_use_spot_instances"),
    "max_runtime_s": ("max_run", "train_max_run"),
    "max_wait_s": ("max_wait", "train_max_wait"),
    "checkpoint_s3_uri": ("checkpoint_s3_uri",),
    "checkpoint_local_path": ("checkpoint_local_path",),
    "keep_alive_s": ("keep_alive_period_in_seconds",),
    "volume_size_gb": ("volume_size", "train_volume_size"),
    "training_plan": ("training_plan",),
    "training_image": ("image_uri", "image_name"),
    "entry_point": ("entry_point",),
    "source_dir": ("source_dir",),
}
#: Framework estimator class -> the framework it runs (HuggingFace: by its *_version argument).
FRAMEWORKS = {"PyTorch": "pytorch", "TensorFlow": "tensorflow", "MXNet": "mxnet", "SKLearn": "sklearn"}
HUGGINGFACE_VERSIONS = (("pytorch_version", "pytorch"), ("tensorflow_version", "tensorflow"))
COMPUTE_FIELDS = {
    "instance_type": ("instance_type",),
    "instance_count": ("instance_count",),
    "spot": ("enable_managed_spot_training",),
    "keep_alive_s": ("keep_alive_period_in_seconds",),
    "volume_size_gb": ("volume_size_in_gb",),
    "training_plan": ("training_plan_arn",),
}
STOPPING_FIELDS = {"max_runtime_s": ("max_runtime_in_seconds",), "max_wait_s": ("max_wait_time_in_seconds",)}
CHECKPOINT_FIELDS = {"checkpoint_s3_uri": ("s3_uri",), "checkpoint_local_path": ("local_path",)}
SOURCE_CODE_FIELDS = {"entry_point": ("entry_script",), "source_dir": ("source_dir",)}
REMOTE_FIELDS = {
    "instance_type": ("instance_type",),
    "instance_count": ("instance_count",),
    "spot": ("use_spot_instances",),
    "max_runtime_s": ("max_runtime_in_seconds",),
    "max_wait_s": ("max_wait_time_in_seconds",),
    "keep_alive_s": ("keep_alive_period_in_seconds",),
    "volume_size_gb": ("volume_size",),
}
#: ModelTrainer argument -> (config kind, its fields).
TRAINER_CONFIGS: dict[str, tuple[str, Mapping[str, tuple[str, ...]]]] = {
    "compute": ("compute", COMPUTE_FIELDS),
    "stopping_condition": ("stopping", STOPPING_FIELDS),
    "checkpoint_config": ("checkpoint", CHECKPOINT_FIELDS),
    "source_code": ("source_code", SOURCE_CODE_FIELDS),
}


@dataclass(eq=False)
class Launch:
    """One training launch found in the file (module lines; mapped to file lines later)."""

    launcher: str
    sdk_class: str
    line: int
    end_line: int
    name: str
    fields: dict[str, tuple[Any, int]] = field(default_factory=dict)
    default_runtime: int | None = None
    runs: tuple[Any, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # the record's extra (loader context)
    request: DictVal | None = None  # boto3 create_training_job
    skip: str | None = None  # why it is not reported (local mode, inside a test)
    opaque: set[str] = field(default_factory=set)  # fields unknown because a whole container is
    sites: list[LaunchSite | None] = field(default_factory=list)  # fit()/train() calls, in loops
    finding_note: str = ""  # -> Record.finding_note (appended to every finding)
    inputs: tuple[str, ...] = ()  # -> Record.inputs (other files the values were read from)

    def __post_init__(self) -> None:
        self.sdk_kind = self.launcher  # stays "sdk-*" when a pipeline step wraps the launch


def classify(ref: Ref) -> str | None:
    """The SDK role of an imported name, or None for anything that is not SageMaker."""
    parts = ref.qualname.split(".")
    root, last = parts[0], parts[-1]
    if root == "argparse" and last == "ArgumentParser":
        return "parser"
    if root == "boto3" and last == "client":
        return "boto3_client"
    if root in ("os", "posixpath") and ref.qualname.endswith("path.join"):
        return "path_join"
    if root == "sagemaker_core":  # sagemaker.modules.configs re-exports these shapes from here
        return _SDK_KINDS.get(last) if last in _CORE_SHAPES else None
    if root != "sagemaker":
        return None
    if len(parts) > 1 and parts[-2] == "ModelTrainer" and last in ("from_recipe", "from_jumpstart_config"):
        return "model_trainer"
    if len(parts) > 1 and parts[-2] == "HyperparameterTuner" and last == "create":
        return "tuner_create"
    if last in ESTIMATORS:
        return "estimator"
    return _SDK_KINDS.get(last)


def drop_trainer_checkpoint(launch: Launch) -> None:
    """The v3 tuner (sagemaker-train ``HyperparameterTuner._build_training_job_definition``)
    copies a ModelTrainer's compute (spot included) and stopping condition into the tuning job's
    training job definition, but not its ``checkpoint_config``: the tuned jobs run without it."""
    dropped = [f for f in CHECKPOINT_FIELDS if launch.fields.pop(f, None) is not None]
    launch.extra.pop("checkpoint_s3_uri_default", None)
    for f in CHECKPOINT_FIELDS:
        launch.opaque.discard(f)
    if dropped:
        launch.finding_note += (
            "; the ModelTrainer's checkpoint_config is dropped by HyperparameterTuner (sagemaker-train "
            "builds the tuning job's training job definition without it)"
        )


class SdkInterpreter(FollowingInterpreter):
    """The interpreter with SageMaker meaning: collects :class:`Launch` records."""

    def __init__(self, is_test_file: bool = False, sources: Sources | None = None) -> None:
        super().__init__(is_test_file, sources)
        self.launches: list[Launch] = []
        self.instance_literals: set[str] = set()  # "ml.*" string constants of the file

    # -- launches ------------------------------------------------------------------------
    def new_launch(
        self, launcher: str, sdk_class: str, line: int, end_line: int, default: int | None
    ) -> Launch:
        name = self.target_name or (self.context[-1] if self.context else sdk_class)
        launch = Launch(launcher, sdk_class, line, end_line, name, default_runtime=default)
        if self.in_test:
            launch.skip = "inside a test"  # loader.TEST_SKIP
        if self.loop_depth:
            launch.extra["in_loop"] = True
        if not self.shadow:  # a call evaluated for its value only records no launch
            self.launches.append(launch)
        return launch

    def model_call(
        self, callee: Any, method: str | None, args: CallArgs, node: ast.Call, scope: Scope
    ) -> Any:
        if method is not None:
            return self.model_method(callee, method, args, node)
        sdk_class = None
        if isinstance(callee, ClassVal) and callee.sdk_base is not None:
            sdk_class, callee = callee.name, callee.sdk_base  # class MyEstimator(PyTorch)
        if not isinstance(callee, Ref):
            return NotImplemented
        kind = classify(callee)
        if kind is None:
            return NotImplemented
        sdk_class = sdk_class or (callee.last if kind != "model_trainer" else "ModelTrainer")
        if kind == "estimator":
            return self.estimator(sdk_class, args)
        if kind == "model_trainer":
            return self.model_trainer(sdk_class, args)
        if kind in (
            "compute",
            "stopping",
            "checkpoint",
            "instance_group",
            "checkpoint_location",
            "remote",
            "source_code",
        ):
            return ConfigVal(kind, callee.last, args)
        if kind == "remote_executor":
            launch = self.new_launch(
                "sdk-remote", sdk_class, args.line, args.end_line, REMOTE_DEFAULT_RUNTIME_S
            )
            self.fill(launch, args, REMOTE_FIELDS)
            return ObjVal("launch", [launch])
        if kind in ("tuner", "tuner_create"):
            return self.tuner(kind, args)
        if kind in ("training_step", "tuning_step"):
            return self.pipeline_step(args)
        if kind == "local_session":
            return ObjVal("local_session", [])
        if kind == "parameter":
            found = args.get("default_value") or args.pos(1)
            if found is None:
                name = args.get("name") or args.pos(0)
                return Unknown(f"pipeline parameter {_shown(name)} has no default_value")
            return found[0]
        if kind == "parser":
            return ParserVal()
        if kind == "boto3_client":
            return ClientVal(args.positional[0] if args.positional else Unknown())
        if kind == "path_join" and not any(isinstance(p, PathVal) for p in args.positional):
            return _join("/", args.positional, node.args)
        return NotImplemented

    def model_method(self, receiver: Any, method: str, args: CallArgs, node: ast.Call) -> Any:
        if isinstance(receiver, ParserVal):
            return _parser_method(receiver, method, args)
        if isinstance(receiver, ObjVal) and method in ("fit", "train", "tune"):
            if not self.shadow:  # how many times this call runs (loops around it)
                site = launch_site(self)
                for launch in receiver.launches:
                    launch.sites.append(site)
            return ObjVal("fit", receiver.launches)
        if method == "create_training_job" and not isinstance(receiver, (DictVal, ParserVal, ObjVal, str)):
            return self.api_request(args)
        if method == "client" and args.positional and args.positional[0] == "sagemaker":
            return ClientVal("sagemaker")
        if method == "join" and isinstance(receiver, str) and len(args.positional) == 1:
            items = args.positional[0]
            arg = node.args[0] if node.args else None
            if isinstance(items, tuple) and isinstance(arg, (ast.List, ast.Tuple)):
                return _join(receiver, list(items), arg.elts)
        return NotImplemented

    def attribute_of(self, base: Any, attr: str, node: ast.Attribute) -> Any:
        if attr == "sagemaker_client":
            return ClientVal("sagemaker")
        return super().attribute_of(base, attr, node)

    def on_attribute_assign(self, obj: Any, attr: str, value: Any, line: int) -> None:
        if isinstance(obj, ObjVal) and obj.kind == "launch":  # estimator.max_run = 7200
            for launch in obj.launches:
                for ir_field, names in ESTIMATOR_FIELDS.items():
                    if attr in names and launch.launcher == "sdk-estimator":
                        launch.fields[ir_field] = (value, line)

    def on_function(self, func: FuncVal, decorators: list[tuple[Any, ast.expr]]) -> None:
        for value, node in decorators:
            if isinstance(value, Ref) and classify(value) == "remote":
                args = CallArgs(node.lineno, node.end_lineno or node.lineno)
            elif isinstance(value, ConfigVal) and value.kind == "remote":
                args = value.args
            else:
                continue
            saved_target, saved_test = self.target_name, self.in_test
            self.target_name, self.in_test = func.node.name, func.is_test
            try:
                launch = self.new_launch(
                    "sdk-remote",
                    "remote",
                    node.lineno,
                    node.end_lineno or node.lineno,
                    REMOTE_DEFAULT_RUNTIME_S,
                )
            finally:
                self.target_name, self.in_test = saved_target, saved_test
            self.fill(launch, args, REMOTE_FIELDS)
            params = func.node.args.posonlyargs + func.node.args.args + func.node.args.kwonlyargs
            if any(p.annotation is not None and ast.unparse(p.annotation).endswith("CheckpointLocation")
                   for p in params):  # fmt: skip
                reason = "CheckpointLocation is passed when the function is called"
                launch.fields["checkpoint_s3_uri"] = (Unknown(reason), node.lineno)
                launch.fields["checkpoint_local_path"] = (Unknown(reason), node.lineno)

    # -- the launchers -------------------------------------------------------------------
    def estimator(self, sdk_class: str, args: CallArgs) -> ObjVal:
        launch = self.new_launch(
            "sdk-estimator", sdk_class, args.line, args.end_line, ESTIMATOR_DEFAULT_RUNTIME_S
        )
        if sdk_class == "Estimator":
            positions = {2: "instance_count", 3: "instance_type"}
        elif sdk_class in AMAZON_ALGORITHMS:
            positions = {1: "instance_count", 2: "instance_type"}
        else:
            positions = {}
        for index, ir_field in positions.items():
            found = args.pos(index)
            if found is not None:
                launch.fields[ir_field] = found
        self.fill(launch, args, ESTIMATOR_FIELDS)
        _framework(launch, sdk_class, args)
        groups = args.get("instance_groups")
        if groups is not None and "instance_type" not in launch.fields:
            _instance_groups(launch, groups)
        itype = launch.fields.get("instance_type", (None, 0))[0]
        if itype in LOCAL_MODES or (isinstance(itype, OneOf) and set(itype.options) <= LOCAL_MODES):
            self.local_mode(launch, itype)
        session = args.get("sagemaker_session")
        if session is not None and isinstance(session[0], ObjVal) and session[0].kind == "local_session":
            launch.skip = "local mode"  # a LocalSession/LocalPipelineSession runs it in local Docker
        self._job_name(launch, args, "base_job_name")
        return ObjVal("launch", [launch])

    def local_mode(self, launch: Launch, itype: Any) -> None:
        """Local mode is exempt, unless "local" is only an argparse default while the run may
        pass a real instance type (a ``choices`` entry, else an ``ml.*`` literal of the file):
        then the launch is checked and the finding says under which value."""
        if isinstance(itype, ArgDefault):
            real = [c for c in itype.choices if c.startswith("ml.")] or sorted(self.instance_literals)
            if real:
                flag = "--" + itype.dest.replace("_", "-")
                shown = ", ".join(real[:3]) + (", ..." if len(real) > 3 else "")
                launch.finding_note = (
                    f"; local mode only by the argparse default {str(itype)!r}: checked as run with "
                    f"{flag} {real[0]} (possible values: {shown})"
                )
                line = launch.fields["instance_type"][1]
                launch.fields["instance_type"] = (
                    real[0] if len(real) == 1 else Unknown(f"{flag} is {shown} when not run in local mode"),
                    line,
                )
                return
        launch.skip = "local mode"

    def model_trainer(self, sdk_class: str, args: CallArgs) -> ObjVal:
        launch = self.new_launch(
            "sdk-model-trainer", sdk_class, args.line, args.end_line, MODEL_TRAINER_DEFAULT_RUNTIME_S
        )
        for arg_name, (kind, fields) in TRAINER_CONFIGS.items():
            found = args.get(arg_name)
            if found is None or found[0] is None:
                continue
            value, line = found
            if isinstance(value, DictVal):  # pydantic turns a dict into the config object
                sub = CallArgs(value.line, value.end_line, keywords=dict(value.entries), open=value.open)
                value = ConfigVal(kind, kind, sub)
            if isinstance(value, ConfigVal):
                self.fill(launch, value.args, fields)
                if kind == "checkpoint" and "checkpoint_s3_uri" not in launch.fields:
                    # ModelTrainer.train() fills s3_uri under the job's output when it is unset.
                    launch.fields["checkpoint_s3_uri"] = ("s3://<default bucket>/<job>/checkpoints", line)
                    launch.extra["checkpoint_s3_uri_default"] = True
            else:
                reason = value.reason if isinstance(value, Unknown) else f"{arg_name} is not a {kind} config"
                for ir_field in fields:
                    launch.fields[ir_field] = (Unknown(reason), line)
                    launch.opaque.add(ir_field)
        image = args.get("training_image")
        if image is not None and image[0] is not None:
            launch.fields["training_image"] = image
        mode = args.get("training_mode")
        if mode is not None and isinstance(mode[0], Ref) and mode[0].last == "LOCAL_CONTAINER":
            launch.skip = "local mode"
        self._job_name(launch, args, "base_job_name")
        return ObjVal("launch", [launch])

    def api_request(self, args: CallArgs) -> Any:
        if not args.keywords:
            if self.shadow:  # a call evaluated for its value: the launch site notices once
                return Unknown("create_training_job response")
            self.notices.append(
                (args.line, "create_training_job request is built dynamically; not analysed statically")
            )
            return Unknown("create_training_job response")
        request = DictVal(dict(args.keywords), args.open, args.line, args.end_line)
        launch = self.new_launch("api-request", "create_training_job", args.line, args.end_line, None)
        launch.request = request
        launch.sites.append(launch_site(self))
        name = args.keywords.get("TrainingJobName")
        if name is not None and isinstance(name[0], str):
            launch.extra["job_name"] = name[0]
        return Unknown("create_training_job response")

    def tuner(self, kind: str, args: CallArgs) -> ObjVal:
        launches: list[Launch] = []
        if kind == "tuner":  # v2 sagemaker.tuner takes an estimator, v3 sagemaker.train.tuner a ModelTrainer
            found = args.get("estimator", "model_trainer") or args.pos(0)
            if found is not None and isinstance(found[0], ObjVal):
                launches = list(found[0].launches)
        else:
            found = args.get("estimator_dict", "model_trainer_dict")
            if found is not None and isinstance(found[0], DictVal):
                for value, _ in found[0].entries.values():
                    if isinstance(value, ObjVal):
                        launches.extend(value.launches)
        max_jobs = args.get("max_jobs")
        if max_jobs is None or max_jobs[0] is None:
            strategy = args.get("strategy")
            if strategy is not None and not isinstance(strategy[0], str):
                runs: tuple[Any, int] = (Unknown("max_jobs depends on the tuning strategy"), args.line)
            elif strategy is not None and strategy[0] == "Grid":
                runs = (Unknown("a Grid search runs every combination"), strategy[1])
            else:
                runs = (1, args.line)
        else:
            runs = max_jobs
        if len(launches) > 1:
            runs = (Unknown(f"max_jobs is shared by {len(launches)} estimators"), runs[1])
        for launch in launches:
            launch.runs = runs
            launch.extra["tuner"] = self.target_name or "HyperparameterTuner"
            if launch.launcher == "sdk-model-trainer":
                drop_trainer_checkpoint(launch)
        return ObjVal("tuner", launches)

    def pipeline_step(self, args: CallArgs) -> Any:
        launches: list[Launch] = []
        for key in ("estimator", "tuner", "step_args"):
            found = args.get(key)
            if found is not None and isinstance(found[0], ObjVal):
                launches.extend(found[0].launches)
        name = args.get("name") or args.pos(0)
        for launch in launches:
            launch.launcher = "pipeline-step"
            if name is not None and isinstance(name[0], str):
                launch.extra["pipeline_step"] = name[0]
        return Unknown("pipeline step")

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def fill(launch: Launch, args: CallArgs, fields: Mapping[str, tuple[str, ...]]) -> None:
        """Copy the arguments that matter into ``launch.fields`` (explicit None = absent)."""
        for ir_field, names in fields.items():
            found = args.get(*names)
            if found is not None and found[0] is not None:
                launch.fields[ir_field] = found
                if not any(name in args.keywords for name in names):
                    launch.opaque.add(ir_field)  # from **kwargs we cannot see through

    @staticmethod
    def _job_name(launch: Launch, args: CallArgs, key: str) -> None:
        found = args.get(key)
        if found is not None and isinstance(found[0], str):
            launch.extra["job_name"] = found[0]


def _framework(launch: Launch, sdk_class: str, args: CallArgs) -> None:
    """The framework a framework estimator runs: by its class, HuggingFace by its *_version argument."""
    framework = FRAMEWORKS.get(sdk_class)
    if sdk_class == "HuggingFace":
        framework = next((name for arg, name in HUGGINGFACE_VERSIONS if args.get(arg) is not None), None)
    if framework is not None:
        launch.fields["framework"] = (framework, args.line)


def _instance_groups(launch: Launch, groups: tuple[Any, int]) -> None:
    """Heterogeneous clusters: one type for all groups, or unknown."""
    value, line = groups
    if not isinstance(value, tuple) or not value:
        launch.fields["instance_type"] = (Unknown("instance_groups not known statically"), line)
        return
    types: list[Any] = []
    count: Any = 0
    for group in value:
        if not isinstance(group, ConfigVal):
            launch.fields["instance_type"] = (Unknown("instance_groups not known statically"), line)
            return
        itype = group.args.get("instance_type") or group.args.pos(1)
        icount = group.args.get("instance_count") or group.args.pos(2)
        types.append(itype[0] if itype else None)
        n = icount[0] if icount else None
        count = (
            count + n if isinstance(count, int) and isinstance(n, int) and not isinstance(n, bool) else None
        )
    if all(isinstance(t, str) for t in types) and len(set(types)) == 1:
        launch.fields["instance_type"] = (types[0], line)
    else:
        launch.fields["instance_type"] = (Unknown("instance groups of different types"), line)
    launch.fields["instance_count"] = (count if count is not None else Unknown("instance group counts"), line)
    launch.extra["instance_groups"] = len(value)


def _parser_method(parser: ParserVal, method: str, args: CallArgs) -> Any:
    if method == "add_argument":
        flags = [f for f in args.positional if isinstance(f, str)]
        dest_arg = args.get("dest")
        if dest_arg is not None and isinstance(dest_arg[0], str):
            dest = dest_arg[0]
        else:
            longs = [f for f in flags if f.startswith("--")]
            chosen = longs[0] if longs else (flags[0] if flags else "")
            dest = chosen.lstrip("-").replace("-", "_")
        if not dest:
            return None
        default = args.get("default")
        action = args.get("action")
        if default is not None:
            value = default[0]
        elif action is not None and action[0] == "store_true":
            value = False
        elif action is not None and action[0] == "store_false":
            value = True
        else:
            value = None
        kind = args.get("type")
        if isinstance(value, str) and kind is not None and isinstance(kind[0], Ref):
            converter = {"builtins.int": int, "builtins.float": float}.get(kind[0].qualname)
            if converter is not None:
                try:
                    value = converter(value)
                except ValueError:
                    value = Unknown(f"argparse default {value!r} is not a number")
        if isinstance(value, str) and not isinstance(value, ArgDefault):
            choices = args.get("choices")
            value = arg_default(value, dest, choices[0] if choices is not None else None)
        parser.defaults[dest] = value
        return None
    if method in ("add_argument_group", "add_mutually_exclusive_group"):
        return parser
    if method == "set_defaults":
        for key, (value, _) in args.keywords.items():
            parser.defaults[key] = value
        return None
    if method == "parse_args":
        return NamespaceVal(dict(parser.defaults))
    if method in ("parse_known_args", "parse_known_intermixed_args"):
        return (NamespaceVal(dict(parser.defaults)), Unknown("unrecognised command-line arguments"))
    return Unknown(f"result of ArgumentParser.{method}()")


def _join(sep: str, parts: list[Any], nodes: list[ast.expr]) -> Any:
    if not parts:
        return Unknown("empty join")
    texts: list[str] = []
    known = True
    for i, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
        else:
            known = False
            texts.append(partial_template(part, ast.unparse(nodes[i]) if i < len(nodes) else "?"))
    if sep == "/" and any(t.startswith("/") for t in texts[1:]):
        return Unknown("os.path.join with an absolute part")
    if sum(len(t) for t in texts) + len(sep) * len(texts) > MAX_STR:
        return Unknown("join too large to fold")
    joined = sep.join(t.rstrip("/") if sep == "/" and i < len(texts) - 1 else t for i, t in enumerate(texts))
    return text_value(joined, known, "join")


def _shown(found: tuple[Any, int] | None) -> str:
    if found is not None and is_known_scalar(found[0]):
        return repr(found[0])
    return "(unnamed)"
