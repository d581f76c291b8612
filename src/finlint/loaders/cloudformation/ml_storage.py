"""CloudFormation handlers for notebooks (lifecycle configs, Studio idle shutdown) and FSx links.

Both facts are resolved inside the one template: a notebook's ``LifecycleConfigName`` is followed
to the ``AWS::SageMaker::NotebookInstanceLifecycleConfig`` it names (by ``!GetAtt``/``!Ref`` or
by its ``NotebookInstanceLifecycleConfigName``) and its ``OnStart``/``OnCreate`` script is read
(``Fn::Base64`` of literal text, or base64 text) for an idle / auto-stop check; an FSx for Lustre
file system is linked to S3 by ``ImportPath``/``ExportPath``/``AutoImportPolicy`` or by an
``AWS::FSx::DataRepositoryAssociation`` whose ``FileSystemId`` refers to it. What lives in another
template is not visible: a config named but not defined here is unknown, never a finding.
"""

from __future__ import annotations

from typing import Any

from finlint import ir
from finlint.loaders import FieldCollector
from finlint.loaders.cloudformation.resources import Resource, _referenced_resource, fsx
from finlint.loaders.cloudformation.values import Template
from finlint.loaders.common.lifecycle_scripts import script_text, stops_when_idle

LIFECYCLE_TYPE = "AWS::SageMaker::NotebookInstanceLifecycleConfig"
DRA_TYPE = "AWS::FSx::DataRepositoryAssociation"


def _script_text(node: Any) -> str | None:
    """The text of a lifecycle hook's ``Content``: ``Fn::Base64`` of text, or base64 text."""
    if isinstance(node, dict) and len(node) == 1:
        ((fn, arg),) = node.items()
        if fn == "Fn::Base64":
            return _script_text_plain(arg)
        return None
    if isinstance(node, str):
        return script_text(node)
    return None


def _script_text_plain(arg: Any) -> str | None:
    if isinstance(arg, str):
        return arg
    if isinstance(arg, dict) and len(arg) == 1:
        ((fn, inner),) = arg.items()
        if fn == "Fn::Sub":  # the variables do not matter for what the script does
            text = inner[0] if isinstance(inner, list) and inner else inner
            return text if isinstance(text, str) else None
        if fn == "Fn::Join" and isinstance(inner, list) and len(inner) == 2 and isinstance(inner[1], list):
            return "\n".join(p for p in inner[1] if isinstance(p, str))
    return None


def _lifecycle_body(tpl: Template, raw: Any, value: Any) -> tuple[str, Any] | None:
    """(logical id, body) of the lifecycle config a notebook names, when it is in this template."""
    target = _referenced_resource(tpl, raw, LIFECYCLE_TYPE)
    if target is not None:
        return target, tpl.resources[target]
    if isinstance(value, str):
        for logical_id, body in tpl.resources.items():
            if not (isinstance(body, dict) and body.get("Type") == LIFECYCLE_TYPE):
                continue
            props = body.get("Properties")
            if isinstance(props, dict) and props.get("NotebookInstanceLifecycleConfigName") == value:
                return str(logical_id), body
    return None


def idle_check(body: Any) -> Any:
    """True/False: the config's scripts do / do not stop the notebook when idle; Unknown if unreadable."""
    props = body.get("Properties") if isinstance(body, dict) else None
    if not isinstance(props, dict):
        return ir.Unknown("the lifecycle configuration has no readable Properties")
    unreadable = False
    for hook in ("OnStart", "OnCreate"):
        scripts = props.get(hook)
        for script in scripts if isinstance(scripts, list) else []:
            content = script.get("Content") if isinstance(script, dict) else None
            text = _script_text(content)
            if text is None:
                unreadable = True
            elif stops_when_idle(text):
                return True
    if unreadable:
        return ir.Unknown("a lifecycle script is built at deploy time and cannot be read")
    return False


def notebook_instance(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("instance_type", *res.props.get("InstanceType"))
    fields.put("volume_size_gb", *res.props.get("VolumeSizeInGB", int))
    fields.put("name", *res.props.get("NotebookInstanceName"))
    value, line = res.props.get("LifecycleConfigName")
    raw = res.props.node.get("LifecycleConfigName") if isinstance(res.props.node, dict) else None
    idle: Any = False
    if line is None:
        fields.lines["idle_shutdown"] = res.props.key_line("InstanceType") or res.location.line
    else:
        found = _lifecycle_body(res.tpl, raw, value)
        if found is None:
            name = value if isinstance(value, str) else "a lifecycle configuration"
            idle = ir.Unknown(f"{name} is not defined in this template; its script cannot be read")
            fields.put("lifecycle_config", value, line)
        else:
            fields.put("lifecycle_config", found[0], line)
            idle = idle_check(found[1])
        fields.lines["idle_shutdown"] = line
    fields.values["idle_shutdown"] = idle
    return [res.record(ir.Notebook, fields)]


def studio_domain(res: Resource) -> list[ir.Record]:
    """A Studio domain's default JupyterLab instance type and whether idle shutdown is on."""
    settings = res.props.obj("DefaultUserSettings")
    lab = settings.obj("JupyterLabAppSettings") if settings is not None else None
    if lab is None:
        return []
    fields = FieldCollector()
    fields.put("name", *res.props.get("DomainName"))
    spec = lab.obj("DefaultResourceSpec")
    if spec is not None:
        fields.put("instance_type", *spec.get("InstanceType"))
    manage = lab.obj("AppLifecycleManagement")
    idle_settings = manage.obj("IdleSettings") if manage is not None else None
    state, state_line = (None, None) if idle_settings is None else idle_settings.get("LifecycleManagement")
    if state_line is None:
        fields.values["idle_shutdown"] = False
        fields.lines["idle_shutdown"] = settings.key_line("JupyterLabAppSettings") if settings else lab.line
    elif isinstance(state, str):
        fields.put("idle_shutdown", state.upper() == "ENABLED", state_line)
    else:
        fields.put("idle_shutdown", ir.plain_unknown(state), state_line)  # a state is not a bool
    return [res.record(ir.Notebook, fields, notebook_kind="studio-domain")]


def fsx_file_system(res: Resource) -> list[ir.Record]:
    """:func:`resources.fsx`, plus whether the file system is linked to S3."""
    records = fsx(res)
    if not records:
        return records
    linked: Any = False
    line: int | None = None
    association: str | None = None
    lustre = res.props.obj("LustreConfiguration")
    for key in ("ExportPath", "ImportPath", "AutoImportPolicy"):
        value, key_line = lustre.get(key) if lustre is not None else (None, None)
        if key_line is None:
            continue
        if key == "AutoImportPolicy" and value == "NONE":
            continue
        linked, line = (True if isinstance(value, str) else ir.plain_unknown(value)), key_line  # not a bool
        break
    if linked is False:
        for logical_id, body in res.tpl.resources.items():
            if not (isinstance(body, dict) and body.get("Type") == DRA_TYPE):
                continue
            props = body.get("Properties")
            raw = props.get("FileSystemId") if isinstance(props, dict) else None
            if _referenced_resource(res.tpl, raw) == res.logical_id:
                linked, line, association = True, res.location.line, str(logical_id)
                break
    record = records[0]
    lines = dict(record.attr_lines)
    lines["data_repository"] = line or lines.get("deployment_type") or res.location.line
    extra = dict(record.extra)
    if association is not None:
        extra["data_repository_association"] = association
    return [record.with_changes(data_repository=linked, attr_lines=lines, extra=extra)]
