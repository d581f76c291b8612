"""finlint.forkpool: every task is done once, by a worker or here, whatever happens to them."""

from __future__ import annotations

import os
import signal
import time

import pytest

from finlint import forkpool
from finlint.forkpool import FAILED, BoardFull, ForkPool

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork"),
    # the pool itself, in this process: it may carry the Go runtime's threads from a Helm test
    # (finlint.parallel.can_fork keeps a real scan from forking then; see test_parallel.py)
    pytest.mark.filterwarnings(r"ignore:This process \(pid=\d+\) is multi-threaded:DeprecationWarning"),
]


def _drain(pool: ForkPool, work: object) -> dict[int, object]:
    """What a caller does: claim from the back, then take the workers' results."""
    here: dict[int, object] = {}
    pool.finish()
    while (task := pool.claim_back()) is not None:
        here[task] = work(pool.payload(task))  # type: ignore[operator]
        pool.collect()
    pool.wait_all()
    return here


def _slow_echo(payload: bytes) -> tuple[bytes, int]:
    time.sleep(0.002)
    return payload, os.getpid()


def test_each_task_is_done_once_by_the_workers_and_here() -> None:
    with ForkPool(2, _slow_echo) as pool:
        for i in range(60):
            pool.publish(str(i).encode())
        here = _drain(pool, _slow_echo)
        results = dict(pool.results)
    assert not set(here) & set(results)  # nobody took a task twice
    assert sorted(set(here) | set(results)) == list(range(60))
    for task, (payload, _) in {**results, **here}.items():  # type: ignore[misc]
        assert payload == str(task).encode()
    workers = {pid for _, pid in results.values()}  # type: ignore[misc]
    assert len(workers) == 2 and os.getpid() not in workers and here


def test_tasks_published_after_the_fork_reach_the_workers() -> None:
    with ForkPool(1, _slow_echo) as pool:
        pool.publish(b"first")
        time.sleep(0.05)  # the worker has done the first and waits for more
        for i in range(20):
            pool.publish(b"x" * i)
        here = _drain(pool, _slow_echo)
    assert 0 in pool.results  # taken before anything else was published
    assert any(task > 0 for task in pool.results)  # and the later ones reached the worker too
    assert sorted({*pool.results, *here}) == list(range(21))


def _unpicklable(payload: bytes) -> object:
    return (lambda: None) if payload == b"bad" else payload


def test_a_result_that_cannot_be_sent_is_failed_and_redone() -> None:
    with ForkPool(1, _unpicklable) as pool:
        for payload in (b"bad", b"good", b"bad"):
            pool.publish(payload)
        time.sleep(0.2)  # the worker takes them all before this process claims any
        here = _drain(pool, lambda p: p)
    for task in (0, 2):  # each bad one failed in the worker, or was done here
        assert task in here or pool.results[task] is FAILED
    assert 1 in here or pool.results[1] == b"good"
    assert pool.unfinished() == sorted({0, 2} | set(here))  # no worker result: redone here


def _die_on_three(payload: bytes) -> bytes:
    if payload == b"3":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.002)
    return payload


def test_a_killed_worker_loses_nothing() -> None:
    with ForkPool(1, _die_on_three) as pool:
        for i in range(10):
            pool.publish(str(i).encode())
        time.sleep(0.1)  # the worker reaches task 3 and dies
        here = _drain(pool, lambda p: p)
        missing = pool.unfinished()
    assert 3 in missing and 3 not in here
    assert sorted({*pool.results, *here, *missing}) == list(range(10))


_POOL: list[ForkPool] = []


def _die_holding_the_lock(payload: bytes) -> bytes:
    _POOL[0]._locked().__enter__()  # takes the token and never gives it back
    os.kill(os.getpid(), signal.SIGKILL)
    return payload


def test_a_worker_killed_holding_the_lock_does_not_hang_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(forkpool, "LOCK_PATIENCE", 0.05)
    child = ForkPool._child

    def keep(self: ForkPool, out: int) -> None:  # the worker's work finds its pool
        _POOL[:] = [self]
        child(self, out)

    monkeypatch.setattr(ForkPool, "_child", keep)
    with ForkPool(1, _die_holding_the_lock) as pool:
        pool.publish(b"0")
        pool.publish(b"1")
        time.sleep(0.2)
        started = time.monotonic()
        pool.finish()  # needs the lock the dead worker took
        assert pool.claim_back() == 1
        assert time.monotonic() - started < 5
        pool.wait_all()
        assert pool.unfinished() == [0, 1]  # no worker result: 0 is redone, 1 was done here


def test_the_board_says_when_it_is_full() -> None:
    with ForkPool(1, _slow_echo, max_tasks=2, max_bytes=16) as pool:
        pool.publish(b"a")
        with pytest.raises(BoardFull):
            pool.publish(b"b" * 16)  # no room for its bytes
        pool.publish(b"b")
        with pytest.raises(BoardFull):
            pool.publish(b"c")  # no room for a third task
        _drain(pool, _slow_echo)


def test_an_error_here_kills_and_reaps_the_workers() -> None:
    with pytest.raises(RuntimeError), ForkPool(2, _slow_echo) as pool:
        pids = list(pool._pids)
        raise RuntimeError("this process gave up")
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left


def test_workers_exit_when_their_parent_is_gone() -> None:
    read, write = os.pipe()
    middle = os.fork()
    if middle == 0:  # a parent that publishes nothing and is killed
        code = 1
        try:
            os.close(read)
            pool = ForkPool(1, _slow_echo)
            os.write(write, str(pool._pids[0]).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    worker = int(os.read(read, 64))
    os.close(read)
    os.waitpid(middle, 0)  # the middle process exited without finish(): the worker is orphaned
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        if _zombie(worker):  # exited, waiting for its new parent to reap it
            return
        time.sleep(0.01)
    os.kill(worker, signal.SIGKILL)
    pytest.fail("an orphaned worker kept waiting for tasks")


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False
