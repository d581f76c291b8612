"""Step Functions state machines in CloudFormation: the ASL out of the template, then training jobs.

A definition comes as ``Definition`` (an object in the template), or ``DefinitionString`` as
literal text, ``Fn::Sub`` or ``Fn::Join``, with ``DefinitionSubstitutions`` applied after
CloudFormation's own substitution. It is rebuilt into an ASL tree whose unresolvable pieces are
:class:`~finlint.ir.Unknown` values (keeping file lines when the text is a literal ``|`` block),
then read by :func:`finlint.loaders.sagemaker_api.training_jobs_from_asl`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from finlint import ir
from finlint.loaders import DocContext
from finlint.loaders.cloudformation.resources import Resource
from finlint.loaders.cloudformation.values import (
    NO_VALUE,
    SUB_VAR,
    is_intrinsic,
    known_scalar,
    scalar_text,
    sub_args,
)
from finlint.loaders.common.yamlload import LineDict, LineList, YamlLoadError, load_all
from finlint.loaders.sagemaker_api.asl import training_jobs_from_asl

_BLOCK_LITERAL = re.compile(r"\|[0-9+-]*\s*(?:#.*)?$")
_PLACEHOLDER = re.compile(r"__finlint_unknown_(\d+)__")


@dataclass
class _Placeholders:
    """Unresolvable ``${...}`` pieces of a definition text, replaced by unique plain tokens."""

    reasons: list[str] = field(default_factory=list)
    originals: list[str] = field(default_factory=list)

    def add(self, original: str, reason: str) -> str:
        self.reasons.append(reason)
        self.originals.append(original)
        return f"__finlint_unknown_{len(self.reasons) - 1}__"

    def restore(self, text: str) -> str:
        return _PLACEHOLDER.sub(lambda m: self.originals[int(m.group(1))], text)

    @staticmethod
    def quote_bare(text: str) -> str:
        """Quote placeholders outside JSON strings (``"Max": ${Runtime}``), so the text stays
        valid JSON whatever position a value had; they become Unknown after parsing."""
        if "__finlint_unknown_" not in text:
            return text
        out: list[str] = []
        in_string = escaped = False
        last = 0
        for index, char in enumerate(text):
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "_" and text.startswith("__finlint_unknown_", index) and index >= last:
                match = _PLACEHOLDER.match(text, index)
                if match:
                    out.append(text[last:index] + '"' + match.group(0) + '"')
                    last = match.end()
        out.append(text[last:])
        return "".join(out)

    def value(self, text: str, key: Any) -> Any:
        """The ASL value for a string: itself, or Unknown when it holds a placeholder."""
        found = _PLACEHOLDER.findall(text)
        if not found:
            return text
        if key == "Resource":  # sagemaker_api recognises ${...} in ARNs (e.g. ${AWS::Partition})
            return self.restore(text)
        return ir.Unknown(self.reasons[int(found[0])])


def _copy_lines(src: Any, dst: Any) -> Any:
    for attr in ("line", "end_line", "key_lines", "item_lines"):
        if hasattr(src, attr):
            setattr(dst, attr, getattr(src, attr))
    return dst


def _rebuild(node: Any, leaf: Callable[[Any, Any], Any], key: Any = None, keep_lines: bool = True) -> Any:
    """A copy of an ASL tree with every non-container value passed through ``leaf(value, key)``.

    ``keep_lines=False`` gives plain dicts/lists, so the ASL reader uses its fallback line.
    """
    if isinstance(node, dict) and not is_intrinsic(node):
        items = {k: _rebuild(v, leaf, k, keep_lines) for k, v in node.items()}
        items = {k: v for k, v in items.items() if v is not NO_VALUE}
        if keep_lines and isinstance(node, LineDict):
            return _copy_lines(node, LineDict(items))
        return items
    if isinstance(node, list):
        values = [v for v in (_rebuild(v, leaf, key, keep_lines) for v in node) if v is not NO_VALUE]
        if keep_lines and isinstance(node, LineList) and len(values) == len(node):
            return _copy_lines(node, LineList(values))
        return values
    return leaf(node, key)


@dataclass
class _Definition:
    """A state machine definition found in a template, parsed, with where its lines start."""

    asl: Any  # the parsed ASL (LineDicts with lines, or plain dicts)
    ctx: DocContext
    fallback_line: int | None


class _StateMachine:
    """Builds the ASL of an ``AWS::StepFunctions::StateMachine`` and reads its training jobs."""

    def __init__(self, res: Resource) -> None:
        self.res = res
        self.tpl = res.tpl
        self.placeholders = _Placeholders()
        self.substitutions: dict[str, Any] = {}
        subs, _ = res.props.raw("DefinitionSubstitutions")
        if isinstance(subs, dict):
            self.substitutions = dict(subs)

    def substitution(self, original: str) -> str:
        """Apply DefinitionSubstitutions to one ``${X}``; unknown ones become placeholders."""
        name = original[2:-1]
        if name in self.substitutions:
            value = self.tpl.resolve(self.substitutions[name])
            if known_scalar(value):
                return scalar_text(value)
            reason = value.reason if isinstance(value, ir.Unknown) else f"substitution {name} is not a scalar"
            return self.placeholders.add(original, reason)
        return self.placeholders.add(original, f"{original} is not substituted")

    def substitute_text(self, text: str) -> str:
        return SUB_VAR.sub(lambda m: self.substitution(m.group(0)), text)

    def sub_text(self, arg: Any) -> str | None:
        """The text of a Fn::Sub after CloudFormation's and then DefinitionSubstitutions' pass."""
        text, variables = sub_args(arg)
        if text is None:
            return None

        def unknown(original: str, reason: str) -> str:
            if self._undefined(original[2:-1].strip(), variables):
                return original  # left for the DefinitionSubstitutions pass
            return self.placeholders.add(original, reason)

        return self.substitute_text(self.tpl.substitute(text, variables, unknown))

    def _undefined(self, name: str, variables: Mapping[str, Any]) -> bool:
        """A ``${name}`` that neither the Fn::Sub variables nor the template define."""
        tpl = self.tpl
        return not (
            name in variables
            or name in tpl.parameters
            or name in tpl.resources
            or name.startswith("AWS::")
            or "." in name
        )

    def join_text(self, arg: Any) -> str | None:
        if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str):
            return None
        parts = self.tpl.resolve(arg[1])
        if not isinstance(parts, list):
            return None
        out: list[str] = []
        for part in parts:
            if is_intrinsic(part) and "Fn::Sub" in part:
                text = self.sub_text(part["Fn::Sub"])
                out.append(text if text is not None else self.placeholders.add("${?}", "malformed Fn::Sub"))
                continue
            value = self.tpl.resolve(part)
            if value is NO_VALUE:
                continue
            if known_scalar(value):
                out.append(self.substitute_text(scalar_text(value)))
            else:
                reason = value.reason if isinstance(value, ir.Unknown) else "a Fn::Join part is not a string"
                out.append(self.placeholders.add("${?}", reason))
        return arg[0].join(out)

    # -- the definition -------------------------------------------------------------------------
    def definition(self) -> _Definition | ir.LoadError | None:
        props = self.res.props
        if not isinstance(props.node, dict):
            return None
        if "Definition" in props.node:
            return self._from_object(props.node["Definition"])
        raw = props.node.get("DefinitionString")
        if raw is None:
            return None
        key_line = props.key_line("DefinitionString")
        if isinstance(raw, str):
            return self._from_text(raw, self.substitute_text(raw), key_line, props.node, "DefinitionString")
        if is_intrinsic(raw) and "Fn::Sub" in raw:
            arg = raw["Fn::Sub"]
            text = self.sub_text(arg)
            if text is None:
                return None
            holder, holder_key = (arg, 0) if isinstance(arg, list) else (raw, "Fn::Sub")
            template_text = arg[0] if isinstance(arg, list) else arg
            return self._from_text(template_text, text, key_line, holder, holder_key)
        if is_intrinsic(raw) and "Fn::Join" in raw:
            text = self.join_text(raw["Fn::Join"])
            return None if text is None else self._from_text(None, text, key_line, None, None)
        return None

    def _from_object(self, node: Any) -> _Definition:
        def leaf(value: Any, key: Any) -> Any:
            if is_intrinsic(value):
                if key == "Resource" and "Fn::Sub" in value:
                    text = self.sub_text(value["Fn::Sub"])
                    return self.placeholders.restore(text) if text is not None else value
                value = self.tpl.resolve(value)
                # a scalar !If stays alternatives: the SageMaker API reader coerces them option by
                # option and demotes them where it reads an object or a list
                if value is NO_VALUE or isinstance(value, ir.Unknown):
                    return value
            if isinstance(value, str):
                return self.placeholders.value(self.substitute_text(value), key)
            return value

        asl = _rebuild(self._resolve_containers(node), leaf)
        line = self.res.props.key_line("Definition")
        return _Definition(asl, self.tpl.ctx, line)

    def _resolve_containers(self, node: Any, depth: int = 0) -> Any:
        """Intrinsics standing for whole objects/lists (``!If`` with NoValue) are resolved first."""
        if depth > 200:
            return ir.Unknown("definition is nested too deeply")
        if isinstance(node, dict) and not is_intrinsic(node):
            out = _copy_lines(
                node, LineDict({k: self._resolve_containers(v, depth + 1) for k, v in node.items()})
            )
            return out
        if isinstance(node, list):
            return _copy_lines(node, LineList(self._resolve_containers(v, depth + 1) for v in node))
        if is_intrinsic(node) and "Fn::If" in node:
            resolved = self.tpl.resolve(node)
            if isinstance(resolved, (dict, list)):
                return self._resolve_containers(resolved, depth + 1)
        return node

    def _from_text(
        self, source: str | None, text: str, key_line: int, holder: Any, holder_key: Any
    ) -> _Definition | ir.LoadError:
        mapped_line = self._block_start(source, text, holder, holder_key)
        text = self.placeholders.quote_bare(text)
        try:
            docs = load_all(text, is_json=True)
        except YamlLoadError as exc:
            line = self.tpl.line(mapped_line - 1 + exc.line) if mapped_line else key_line
            return ir.LoadError(
                self.tpl.ctx.file,
                line,
                f"state machine {self.res.logical_id}: the definition is not valid JSON: "
                f"{exc.message.removeprefix('invalid JSON: ')}",
            )
        asl = docs[0] if docs else None
        leaf: Callable[[Any, Any], Any] = lambda value, key: (  # noqa: E731
            self.placeholders.value(value, key) if isinstance(value, str) else value
        )
        if mapped_line:
            # ASL line 1 is template line `mapped_line`: shift by (mapped_line - 1).
            ctx = replace(self.tpl.ctx, line_offset=self.tpl.ctx.line_offset + mapped_line - 1)
            return _Definition(_rebuild(asl, leaf), ctx, None)
        return _Definition(_rebuild(asl, leaf, keep_lines=False), self.tpl.ctx, key_line)

    def _block_start(self, source: str | None, text: str, holder: Any, holder_key: Any) -> int | None:
        """The document line (before ctx offset) of the first content line when ``source`` is a
        literal ``|`` block whose lines are verbatim in the file, else None (use the key line)."""
        lines = self.tpl.ctx.lines
        if source is None or not lines or text.count("\n") != source.count("\n"):
            return None
        if not isinstance(holder, (LineDict, LineList)):
            return None
        indicator_line = holder.line_of(holder_key)
        file_index = self.tpl.line(indicator_line) - 1
        if not 0 <= file_index < len(lines) or not _BLOCK_LITERAL.search(lines[file_index]):
            return None
        content = source.split("\n")
        for offset, expected in enumerate(content):
            index = file_index + 1 + offset
            if expected.strip() and (index >= len(lines) or lines[index].strip() != expected.strip()):
                return None
        return indicator_line + 1


def state_machine(res: Resource) -> list[ir.Record] | ir.LoadResult:
    machine = _StateMachine(res)
    definition = machine.definition()
    if definition is None:
        return []
    if isinstance(definition, ir.LoadError):
        return ir.LoadResult(errors=[definition])
    if not isinstance(definition.asl, dict):
        return []
    jobs = training_jobs_from_asl(
        definition.asl,
        definition.ctx,
        address_prefix=f"{res.address}/",
        fallback_line=definition.fallback_line,
    )
    out: list[ir.Record] = []
    for job in jobs:
        extra = dict(job.extra)
        extra.update(res.extra)
        extra["state_machine"] = res.logical_id
        if res.tpl.used_parameters:
            extra["parameter_defaults"] = sorted(set(res.tpl.used_parameters))
        out.append(job.with_changes(suppressions=job.suppressions + res.suppressions, extra=extra))
    return out
