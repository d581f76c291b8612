"""Headless Chromium over the DevTools protocol on a pipe: no websocket client, no driver.

``chromium --remote-debugging-pipe`` reads protocol messages (JSON, each ended by a NUL byte)
on file descriptor 3 and writes on 4. :class:`Browser` opens a page, records every console
message, uncaught exception, log entry (CSP violations, failed loads) and network request, and
can evaluate JavaScript and take screenshots. Used by ``tests/reporters/test_reporter_html*.py``,
by ``scripts/html_screenshot.py`` (the README's screenshots of the demo, at 800 and 1,400 px) and
by ``python -m tests.browser REPORT.html OUT.png`` (a screenshot of any report).

Chromium is Debian's ``chromium`` package (``apt-get install chromium``); :func:`find_chromium`
returns None where it is not installed, and the tests skip with that reason.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
TIMEOUT_S = 60.0


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process with one page; use as a context manager."""

    def __init__(self, executable: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="finlint-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Move the child's ends above 10 so dup2 onto 3 and 4 cannot clobber one another.
        child_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
        child_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def wire() -> None:  # runs in the child before exec
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(  # noqa: S603 - a fixed argument list
            [executable, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
            pass_fds=(3, 4),
            preexec_fn=wire,  # noqa: PLW1509 - single-threaded test helper
        )
        os.close(child_r)
        os.close(child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    # --- protocol -----------------------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium exited: {self.stderr_text()[-2000:]}")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, params: dict[str, Any] | None = None, page: bool = True) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if page and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._record(reply)

    def wait_for(self, method: str, timeout: float = TIMEOUT_S) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if self._record(message) and message["method"] == method:
                return message

    def _record(self, message: dict[str, Any]) -> bool:
        """Keep an event of the current page (or of the browser); drop other tabs' events."""
        if "method" not in message or message.get("sessionId") not in (None, self.session):
            return False
        self.events.append(message)
        return True

    # --- pages ----------------------------------------------------------------------------------

    def open(self, url: str, javascript: bool = True, width: int = 1200, height: int = 900) -> None:
        """Open ``url`` in a fresh tab with every diagnostic domain on, and wait for load."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, page=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, page=False)[
            "sessionId"
        ]
        self.events.clear()
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        if not javascript:
            self.send("Emulation.setScriptExecutionDisabled", {"value": True})
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        self.evaluate("1")  # let queued console and log events arrive

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise BrowserError(f"evaluate failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and error log entries so far."""
        out: list[str] = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                out.append(f"exception: {details.get('exception', {}).get('description') or details}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning"):
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                out.append(f"console.{params['type']}: {args}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                entry = params["entry"]
                out.append(f"log {entry.get('source')}/{entry['level']}: {entry.get('text')}")
        return out

    def requests(self) -> list[str]:
        sent = [e for e in self.events if e.get("method") == "Network.requestWillBeSent"]
        return [e["params"]["request"]["url"] for e in sent]

    def screenshot(self, path: Path, full_page: bool = False, max_height: int = 4000) -> None:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            height = min(int(size["height"]) + 1, max_height)
            params["clip"] = {"x": 0, "y": 0, "width": int(size["width"]), "height": height, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close", page=False)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str]) -> int:
    """``python -m tests.browser REPORT.html OUT.png [WIDTH HEIGHT]``: a screenshot of the top."""
    if len(argv) not in (2, 4):
        print(main.__doc__, file=sys.stderr)
        return 2
    exe = find_chromium()
    if exe is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 1
    width, height = (int(argv[2]), int(argv[3])) if len(argv) == 4 else (1200, 1400)
    with Browser(exe) as browser:
        browser.open(Path(argv[0]).resolve().as_uri(), width=width, height=height)
        problems = browser.problems()
        browser.screenshot(Path(argv[1]))
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
