"""Worker processes forked from this one, which take tasks from a board in shared memory.

Why not ``concurrent.futures`` or ``multiprocessing.Pool``: their pools hand out tasks and take
results in threads of this process, and those threads need the GIL that this process holds
while it does its own share of the work. A worker then sits idle until its next task is sent
(7-9 % of the time on the 10,000-file tree), and every task's input is pickled and sent again.
Here the workers inherit everything at the fork. Tasks are published as bytes in an anonymous
shared mapping (while discovery is still going on), and each process claims the next task under
a lock: workers claim from the front, this process claims from the back once publishing is done.
A worker sends its results back over its own pipe, which this process reads between its own
tasks. Nothing in this module is a thread.

The lock is a token in a pipe (read it to take the lock, write it back to release it), so
there are no POSIX semaphores and no ``/dev/shm`` is needed. A worker that dies, or a result
that cannot be sent back, costs nothing but time: every task without a result is done again
here (:meth:`ForkPool.unfinished`).
"""

from __future__ import annotations

import mmap
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

#: A task's result could not be made or sent (this process does the task again).
FAILED: Any = object()

_HEADER = struct.Struct("<4q")  # published, done (0/1), front (next task a worker takes), back
_SPAN = struct.Struct("<2q")  # a task's payload: start and end offset in the data area
_FRAME = struct.Struct("<qqq")  # a result frame: task, ok (0/1), payload length
#: F_SETPIPE_SZ (Linux): a larger pipe lets a worker run ahead while this process works
_F_SETPIPE_SZ = 1031
_PIPE_BYTES = 1 << 20
#: Seconds a process waits for the lock before it checks that the others are alive.
LOCK_PATIENCE = 1.0


class BoardFull(Exception):
    """No room for another task: the caller does it itself."""


class ForkPool:
    """``workers`` forked processes that each run ``work(payload)`` on the tasks they claim.

    Use as a context manager (the workers are reaped, or killed on an error). ``work`` runs in
    the children as it would here; what it returns must be picklable (else: :data:`FAILED`)."""

    def __init__(
        self,
        workers: int,
        work: Callable[[bytes], object],
        max_tasks: int = 1 << 16,
        max_bytes: int = 64 << 20,
    ) -> None:
        self._work = work
        self._max_tasks = max_tasks
        # anonymous shared mappings: inherited by the children, pages backed only once written
        self._header = mmap.mmap(-1, _HEADER.size)
        self._spans = mmap.mmap(-1, max_tasks * _SPAN.size)
        self._data = mmap.mmap(-1, max_bytes)
        self._used = 0  # bytes of the data area written (only this process publishes)
        self._published = 0
        self._token_read, self._token_write = os.pipe()
        os.set_blocking(self._token_read, False)  # every process waits in select, then reads
        os.write(self._token_write, b"t")
        self._owner = os.getpid()
        self._pids: list[int] = []
        self._pipes: dict[int, bytearray] = {}  # read end -> bytes received, not yet framed
        self.results: dict[int, object] = {}
        self._start(workers)

    # -- set-up and tear-down ------------------------------------------------------------------

    def _start(self, workers: int) -> None:
        pipes = [os.pipe() for _ in range(workers)]
        for number, (_, write) in enumerate(pipes):
            pid = os.fork()
            if pid == 0:  # the child: its own write end only, then work until no task is left
                for other, (read_end, write_end) in enumerate(pipes):
                    os.close(read_end)
                    if other != number:
                        os.close(write_end)
                self._child(write)
            self._pids.append(pid)
        for read, write in pipes:
            os.close(write)
            os.set_blocking(read, False)
            _enlarge(read)
            self._pipes[read] = bytearray()

    def _child(self, out: int) -> None:
        """A worker's whole life: never returns, never runs this process's exit handlers or
        flushes its inherited buffers (``os._exit``)."""
        code = 0
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: this process reports it
            _enlarge(out)
            while (task := self._claim_front()) is not None:
                try:
                    payload, ok = pickle.dumps(self._work(self.payload(task)), pickle.HIGHEST_PROTOCOL), 1
                except Exception:  # noqa: BLE001 - the parent does this task again
                    payload, ok = b"", 0
                _write_all(out, _FRAME.pack(task, ok, len(payload)) + payload)
        except BaseException:  # noqa: BLE001 - the parent does every task without a result
            code = 1
        finally:
            os._exit(code)

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)

    def close(self, kill: bool = False) -> None:
        """Reap the workers (killed first when ``kill``: this process gave up on them)."""
        for pid in self._pids:
            if kill:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self._pids = []
        for fd in (*self._pipes, self._token_read, self._token_write):
            with suppress(OSError):
                os.close(fd)
        self._pipes = {}

    # -- the board -----------------------------------------------------------------------------

    def publish(self, payload: bytes) -> int:
        """Put a task on the board; its number. :class:`BoardFull` when there is no room."""
        end = self._used + len(payload)
        if self._published >= self._max_tasks or end > len(self._data):
            raise BoardFull
        task = self._published
        self._data[self._used : end] = payload
        _SPAN.pack_into(self._spans, task * _SPAN.size, self._used, end)
        self._used = end
        self._published += 1
        with self._locked():
            published, done, front, back = _HEADER.unpack_from(self._header)
            _HEADER.pack_into(self._header, 0, self._published, done, front, back)
        return task

    def finish(self) -> None:
        """Every task is published: this process may now claim from the back."""
        with self._locked():
            _, _, front, _ = _HEADER.unpack_from(self._header)
            _HEADER.pack_into(self._header, 0, self._published, 1, front, self._published)

    def claim_back(self) -> int | None:
        """The last task nobody has claimed (this process's next), or None."""
        with self._locked():
            published, done, front, back = _HEADER.unpack_from(self._header)
            if back <= front:
                return None
            _HEADER.pack_into(self._header, 0, published, done, front, back - 1)
            return int(back - 1)

    def _claim_front(self) -> int | None:
        """The first task nobody has claimed (a worker's next), waiting while more may come."""
        while True:
            with self._locked():
                published, done, front, back = _HEADER.unpack_from(self._header)
                limit = back if done else published
                if front < limit:
                    _HEADER.pack_into(self._header, 0, published, done, front + 1, back)
                    return int(front)
                if done:
                    return None
            if os.getppid() != self._owner:  # the parent is gone: nobody will publish more
                os._exit(1)
            time.sleep(0.0005)  # publishing runs ahead of the workers: rare, and short

    def payload(self, task: int) -> bytes:
        start, end = _SPAN.unpack_from(self._spans, task * _SPAN.size)
        return bytes(self._data[start:end])

    @property
    def published(self) -> int:
        return self._published

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the token. A process killed while holding it (the OOM killer) would leave the
        others waiting forever, so a wait of :data:`LOCK_PATIENCE` seconds looks around: a
        worker whose parent is gone exits; the parent, when a worker has died, puts a new
        token in (at worst two processes then claim one task, or one task is claimed by
        nobody: a task done twice gives the same result, one without a result is redone)."""
        while True:
            ready, _, _ = select.select([self._token_read], [], [], LOCK_PATIENCE)
            if ready:
                try:
                    os.read(self._token_read, 1)
                    break
                except BlockingIOError:  # another process took it first
                    continue
            if os.getpid() != self._owner:
                if os.getppid() != self._owner:
                    os._exit(1)
            elif self._reap():
                os.write(self._token_write, b"t")
        try:
            yield
        finally:
            os.write(self._token_write, b"t")

    def _reap(self) -> bool:
        """Whether a worker was killed (by a signal: it may have held the token); the workers
        that have exited are reaped here."""
        killed = False
        for pid in list(self._pids):
            with suppress(ChildProcessError):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done == pid:
                    self._pids.remove(pid)
                    killed = killed or os.WIFSIGNALED(status)
        return killed

    # -- results -------------------------------------------------------------------------------

    def collect(self, wait: bool = False) -> None:
        """Take the results the workers have sent into :attr:`results` (``FAILED`` for a task
        they could not do). ``wait``: block until at least one pipe has news (or all closed)."""
        if wait and self._pipes:
            select.select(list(self._pipes), [], [])
        for fd in list(self._pipes):
            buffer = self._pipes[fd]
            while True:
                try:
                    chunk = os.read(fd, _PIPE_BYTES)
                except BlockingIOError:
                    break
                if not chunk:  # the worker is done (or died): what it did not send is redone
                    del self._pipes[fd]
                    os.close(fd)
                    break
                buffer += chunk
            self._frames(buffer)

    def _frames(self, buffer: bytearray) -> None:
        offset = 0
        while len(buffer) - offset >= _FRAME.size:
            task, ok, length = _FRAME.unpack_from(buffer, offset)
            end = offset + _FRAME.size + length
            if len(buffer) < end:
                break
            if ok:
                try:
                    self.results[task] = pickle.loads(memoryview(buffer)[offset + _FRAME.size : end])
                except Exception:  # noqa: BLE001 - a result that does not unpickle is redone here
                    self.results[task] = FAILED
            else:
                self.results[task] = FAILED
            offset = end
        del buffer[:offset]

    @property
    def running(self) -> bool:
        """Some worker may still send results."""
        return bool(self._pipes)

    def wait_all(self) -> None:
        """Every result the workers will send (until each one's pipe is closed)."""
        while self._pipes:
            self.collect(wait=True)

    def unfinished(self) -> list[int]:
        """Published tasks with no result (a worker died, or the result was FAILED)."""
        return [t for t in range(self._published) if self.results.get(t, FAILED) is FAILED]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _enlarge(fd: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, OSError, ValueError):
        pass  # not Linux, or above /proc/sys/fs/pipe-max-size: the default size works too
