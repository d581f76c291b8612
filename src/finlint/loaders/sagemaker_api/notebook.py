"""CreateNotebookInstance requests -> :class:`~finlint.ir.Notebook`.

The request names its lifecycle configuration (``LifecycleConfigName``) but not the script; the
script lives in a separate CreateNotebookInstanceLifecycleConfig call, so a named configuration
is unknown (never a finding) and a request without one has nothing that stops the instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext, FieldCollector
from finlint.loaders.sagemaker_api.hyperpod import stem
from finlint.loaders.sagemaker_api.reader import FORMAT, TEMPLATED, Reader

MARKERS = ("NotebookInstanceName", "InstanceType", "RoleArn")


def is_notebook_request(doc: Mapping[str, Any]) -> bool:
    return all(k in doc for k in MARKERS) and "ResourceConfig" not in doc and "InstanceGroups" not in doc


def notebook_from_request(doc: Mapping[str, Any], ctx: DocContext, result: ir.LoadResult) -> None:
    reader = Reader(ctx)
    line = reader.root_line(doc)
    out = FieldCollector()
    name, name_line = reader.scalar(doc, "NotebookInstanceName", line, str)
    out.put("name", name, name_line)
    out.put("instance_type", *reader.scalar(doc, "InstanceType", line, str))
    out.put("volume_size_gb", *reader.scalar(doc, "VolumeSizeInGB", line, int))
    config, config_line = reader.scalar(doc, "LifecycleConfigName", line, str)
    idle: Any
    if config_line is None:
        idle = False
        out.lines["idle_shutdown"] = out.lines.get("instance_type", line)
    else:
        out.put("lifecycle_config", config, config_line)
        label = config if isinstance(config, str) else "the lifecycle configuration"
        idle = ir.Unknown(f"{label} is created by a separate request; its script is not in this one")
        out.lines["idle_shutdown"] = config_line
    out.values["idle_shutdown"] = idle
    plain = isinstance(name, str) and not TEMPLATED.search(name)
    result.records.append(
        ir.Notebook(
            address=f"{ctx.address_prefix}{name if plain else stem(ctx)}",
            location=ir.Location(ctx.file, line, reader.end_line(doc, line)),
            source_format=FORMAT,
            attr_lines=dict(out.lines),
            **out.values,
        )
    )
