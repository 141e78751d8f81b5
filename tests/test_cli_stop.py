"""A command stopped by SIGTERM (``kill``, ``timeout``, a service manager) or Ctrl-C
unwinds as an error would: it exits 143 (or 130), prints no traceback, stops its worker
processes, and leaves neither a partial output nor a temporary file or piece behind.
Killed outright (SIGKILL), it cannot clean up, but its pool's workers and its forked pieces
still end."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any
from pathlib import Path

import child
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a command's worker processes are found in /proc")

TIMEOUT = 60


def _stop(tmp_path: Path, args: list[str], started: Callable[[Path, Path], bool], sig: signal.Signals,
          workers: int) -> tuple[int, str, Path, Path]:
    """Run ``warckit ARGS`` (``OUT`` in *args* is the output directory) with a temporary
    directory of its own; send *sig* as soon as ``started(tmp, out)`` and *workers* child
    processes run; return its exit status, its stderr, and the two directories."""
    tmp, out = tmp_path / "tmp", tmp_path / "out"
    tmp.mkdir()
    out.mkdir()
    argv = child.warckit_cli(*(a.replace("OUT", str(out)) for a in args))
    # (Started in the background by a shell, this process may ignore SIGINT, and so
    # would the command: Python turns SIGINT into KeyboardInterrupt only when it is not.)
    proc = subprocess.Popen(argv, env=child.env(TMPDIR=str(tmp)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + TIMEOUT
        while not (started(tmp, out) and len(child.children_of(proc.pid)) >= workers):
            assert proc.poll() is None, f"finished before it was stopped: {proc.stderr.read()}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline
            time.sleep(0.001)
        kids = child.children_of(proc.pid)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=TIMEOUT)
        deadline = time.monotonic() + TIMEOUT
        while any(map(child.alive, kids)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(map(child.alive, kids)), "a worker process outlived the command"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err, tmp, out


def _has(directory: str, pattern: str) -> Callable[[Path, Path], bool]:
    return lambda tmp, out: any((tmp if directory == "tmp" else out).glob(pattern))


@pytest.fixture
def big(bench_warc: Callable[[str, float], Path]) -> Path:
    """A gzip-per-record WARC large enough to be checked and indexed in pieces (35 MB)."""
    return bench_warc("domain", 40)


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_index_in_pieces(tmp_path: Path, big: Path, sig: signal.Signals, status: int) -> None:
    """Stopped once its forked piece runs and its output's temporary file is there (the
    pieces' own files have no name: nothing of theirs can be left in TMPDIR)."""
    rc, err, tmp, out = _stop(tmp_path, ["index", "-j", "2", str(big), "-o", "OUT/index.cdxj"],
                              _has("out", "*"), sig, workers=1)
    assert (rc, err) == (status, "")
    assert list(tmp.iterdir()) == [] and list(out.iterdir()) == []


def test_index_pieces_leave_nothing_when_killed(tmp_path: Path, big: Path) -> None:
    """SIGKILL allows no clean-up: the forked pieces' anonymous files go with the processes."""
    rc, _, tmp, _ = _stop(tmp_path, ["index", "-j", "2", str(big), "-o", "OUT/index.cdxj"],
                          _has("out", "*"), signal.SIGKILL, workers=1)
    assert rc == -signal.SIGKILL
    assert list(tmp.iterdir()) == []


def test_check_in_pieces(tmp_path: Path, big: Path) -> None:
    rc, err, tmp, _ = _stop(tmp_path, ["check", "-j", "2", str(big)], lambda tmp, out: True,
                            signal.SIGTERM, workers=1)
    assert (rc, err) == (143, "")
    assert list(tmp.iterdir()) == []


def _many(tmp_path: Path, bench_warc: Callable[[str, float], Path]) -> Path:
    """A directory of 12 files: a command with ``-j 2`` gives them to a process pool."""
    src = tmp_path / "in"
    src.mkdir()
    for i in range(12):
        shutil.copyfile(bench_warc("domain", 6.0), src / f"f{i:02}.warc.gz")
    return src


def test_index_of_many_files_in_a_pool(tmp_path: Path, bench_warc: Callable[[str, float], Path]) -> None:
    src = _many(tmp_path, bench_warc)
    rc, err, tmp, out = _stop(tmp_path, ["index", "-j", "2", str(src), "-o", "OUT/index.cdxj"],
                              _has("tmp", "warckit-index-*.part"), signal.SIGTERM, workers=2)
    assert (rc, err) == (143, "")
    assert list(tmp.iterdir()) == [] and list(out.iterdir()) == []


def test_check_of_many_files_in_a_pool(tmp_path: Path, bench_warc: Callable[[str, float], Path]) -> None:
    src = _many(tmp_path, bench_warc)
    rc, err, tmp, _ = _stop(tmp_path, ["check", "-j", "2", str(src)], lambda tmp, out: True, signal.SIGTERM,
                            workers=2)
    assert (rc, err) == (143, "")
    assert list(tmp.iterdir()) == []


def test_recompress(tmp_path: Path, big: Path) -> None:
    rc, err, tmp, out = _stop(tmp_path, ["recompress", str(big), "OUT/re.warc.gz"], _has("out", "*"),
                              signal.SIGTERM, workers=0)
    assert (rc, err) == (143, "")
    assert list(tmp.iterdir()) == [] and list(out.iterdir()) == []


def test_pool_workers_end_when_the_command_is_killed(tmp_path: Path,
                                                     bench_warc: Callable[[str, float], Path]) -> None:
    src = _many(tmp_path, bench_warc)
    rc, _, _, _ = _stop(tmp_path, ["check", "-j", "2", str(src)], lambda tmp, out: True, signal.SIGKILL,
                        workers=2)  # (_stop asserts that its workers end)
    assert rc == -signal.SIGKILL


def test_forked_pieces_end_when_their_parent_is_killed() -> None:
    """A piece's child (``check``, ``index`` and ``verify_file`` on one large file) stops
    with its parent even when the parent is killed outright, rather than work on."""
    code = ("import time\nfrom warckit.read.pieces import Forked\n"
            "piece = Forked(time.sleep, 120)\nprint(piece.pid, flush=True)\ntime.sleep(120)\n")
    proc = subprocess.Popen(child.python(code), env=child.env(), stdout=subprocess.PIPE, text=True)
    try:
        pid = int(proc.stdout.readline())  # type: ignore[union-attr]
        assert child.alive(pid)
        proc.kill()
        proc.wait(timeout=TIMEOUT)
        deadline = time.monotonic() + 10
        while child.alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not child.alive(pid), "the piece's child outlived its parent"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class _StoppedWhileWriting:
    """A stderr on which the stop arrives as the error line is written."""

    def __init__(self, stop: type[BaseException]) -> None:
        self.stop = stop

    def write(self, text: str) -> int:
        raise self.stop

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("args", [["ls", "{dir}/missing.warc"], ["ls", "{dir}/garbage.warc"],
                                  ["check", "-j", "0", "{dir}/garbage.warc"]],
                         ids=["os-error", "damaged-input", "usage"])
@pytest.mark.parametrize("stop, status", [(KeyboardInterrupt, 130), ("Terminated", 143)])
def test_a_stop_while_the_error_is_printed_is_a_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     args: list[str], stop: Any, status: int) -> None:
    from warckit.cli import _main, main

    (tmp_path / "garbage.warc").write_bytes(b"not a WARC file at all\r\n" * 4)
    stop = getattr(_main, stop) if isinstance(stop, str) else stop
    monkeypatch.setattr(sys, "stderr", _StoppedWhileWriting(stop))
    try:
        got = main([a.replace("{dir}", str(tmp_path)) for a in args])
    except BaseException as exc:  # noqa: BLE001 - what escapes main is what the test is about
        pytest.fail(f"{type(exc).__name__} escaped main()")
    assert got == status


def _blocked() -> frozenset[int]:
    return frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def test_a_pool_starts_with_the_stops_held_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop raised while the pool started its manager thread left a thread that its
    shutdown could not join: ``check -j 2 DIR`` stopped early ended in a traceback
    ("cannot join thread before it is started"). The pool now starts with SIGINT and
    SIGTERM held off; its workers run with them unblocked (else SIGTERM, sent when the
    command dies, would never end them)."""
    from concurrent.futures import ProcessPoolExecutor

    from warckit.read.workers import process_pool

    stops = {signal.SIGINT, signal.SIGTERM}
    during_start: list[frozenset[int]] = []
    submit = ProcessPoolExecutor.submit

    def spy(self: ProcessPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        if self._executor_manager_thread is None:
            during_start.append(_blocked())
        return submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", spy)
    before = _blocked()
    with process_pool(2) as pool:
        assert _blocked() == before
        in_workers = list(pool.map(_blocked_in_worker, range(4)))
    assert during_start and stops <= during_start[0]
    assert all(not (stops & blocked) for blocked in in_workers)


def _blocked_in_worker(_: int) -> frozenset[int]:
    return _blocked()


@pytest.mark.parametrize("stop", ["Terminated", "KeyboardInterrupt"])
def test_a_stop_in_a_callback_python_ignores_is_raised_again(stop: str) -> None:
    """A stop landing in a weakref callback (importlib's module locks have them: .ci/run once
    printed "Exception ignored in: <function _get_module_lock.<locals>.cb>" for a SIGTERM)
    would be printed and lost; while a command runs it is raised again a moment later."""
    import weakref

    from warckit.cli import _main

    error: type[BaseException] = _main.Terminated if stop == "Terminated" else KeyboardInterrupt
    hook = sys.unraisablehook
    sys.unraisablehook = _main._stop_again(hook)
    alarm = signal.getsignal(signal.SIGALRM)

    class Thing:
        pass

    def callback(_: object) -> None:
        raise error

    try:
        thing = Thing()
        ref = weakref.ref(thing, callback)
        with pytest.raises(error):
            del thing  # the callback's stop is dropped here ...
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:  # ... and raised again here
                time.sleep(0.001)
        assert ref() is None
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGALRM, alarm)
