"""Notebook lifecycle scripts, shared by the loaders: is there an idle / auto-stop check?

A SageMaker notebook lifecycle configuration's ``OnStart``/``OnCreate`` content is a shell script,
base64-encoded as the API takes it. The AWS samples' ``auto-stop-idle`` script sets ``IDLE_TIME``
and runs ``autostop.py``; others call ``aws sagemaker stop-notebook-instance`` after an idle check.
"""

from __future__ import annotations

import base64
import binascii
import re

IDLE_SCRIPT = re.compile(r"(?i)idle|auto[-_ ]?stop|stop-notebook-instance")


def script_text(value: str) -> str:
    """The script behind a content string: decoded when it is base64, else the text itself."""
    try:
        return base64.b64decode(value, validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return value


def stops_when_idle(text: str) -> bool:
    return IDLE_SCRIPT.search(script_text(text)) is not None
