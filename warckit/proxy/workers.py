"""``warckit proxy --workers N``: one port served by N forked processes.

One Python process archives on about one core (the GIL); workers put every core to use.
The parent binds the port (a socket per worker where the kernel balances them), makes the :class:`~warckit.proxy.stats.SharedStats` file and
forks; each worker serves connections with its own event loop, writers (the file names
carry its pid) and dedup connections. SIGTERM or SIGINT to the parent stops every worker
as one proxy stops (exchanges under way finish, every file is closed); the parent then
exits. A worker that fails stops the others.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sqlite3
import sys
import tempfile
import traceback
from collections.abc import Callable

from ..read.workers import stop_with_parent
from ..errors import ParseError, UsageError, WarckitError
from .server import ArchivingProxy
from .stats import SharedStats

__all__ = ["MAX_WORKERS", "serve_in_workers"]

MAX_WORKERS = 64
_SIGNALS = {signal.SIGTERM, signal.SIGINT}
#: The statistics file in the parent's shared directory.
_STATS = "stats.sqlite"


def _listen(host: str, port: int, n: int) -> list[socket.socket]:
    """*n* sockets listening on one port: one each (SO_REUSEPORT, so the kernel spreads new
    connections evenly), or one shared where the system cannot spread them."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                  flags=socket.AI_PASSIVE)[0]
    # Quirk: only Linux balances connections across SO_REUSEPORT sockets; a shared socket
    # elsewhere (asyncio accepts many connections at each wake-up: one worker may get most).
    spread = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
    if spread and port:
        # A port another program holds with SO_REUSEPORT would take ours in too, and
        # share its connections: make sure it is free (this bind fails if it is not).
        socket.create_server(address[:2], family=family).close()
    first = socket.create_server(address[:2], family=family, backlog=1024, reuse_port=spread)
    socks = [first]
    if spread:
        bound = first.getsockname()[:2]
        try:
            socks += [socket.create_server(bound, family=family, backlog=1024, reuse_port=True)
                      for _ in range(n - 1)]
        except OSError:
            for s in socks:
                s.close()
            raise
    return socks


def _worker(proxy: ArchivingProxy, sock: socket.socket, parent: int, shared: str) -> int:
    def ready() -> None:
        loop = asyncio.get_running_loop()
        for sig in _SIGNALS:
            loop.add_signal_handler(sig, proxy.request_stop)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS | {signal.SIGCHLD})

    stop_with_parent(parent)
    try:
        asyncio.run(proxy.serve(ready, sock=sock))
    except (WarckitError, OSError) as exc:
        print(f"warckit proxy: worker {os.getpid()}: {exc}", file=sys.stderr, flush=True)
        return 1
    except BaseException:  # noqa: BLE001 - reported whole: a worker must not die silently
        traceback.print_exc()
        return 1
    finally:
        _leave(shared, parent)
    return 0


def _leave(shared: str, parent: int) -> None:
    """Count this worker out; the last one out of a parent that died (a SIGKILL runs no
    clean-up) removes the parent's directory of shared statistics."""
    try:
        last = SharedStats.leave(os.path.join(shared, _STATS))
    except sqlite3.Error:
        return  # (the parent removed it: it outlived the workers)
    if last and os.getppid() != parent:
        shutil.rmtree(shared, ignore_errors=True)


def serve_in_workers(proxy: ArchivingProxy, workers: int,
                     listening: Callable[[str, int], None] | None = None) -> tuple[int, list[str]]:
    """Serve *proxy* from *workers* processes until SIGTERM/SIGINT.

    Args:
        proxy: The proxy (made, not started: its CA and dedup database already checked).
        workers: How many processes.
        listening: Called with the address once the socket listens.

    Returns:
        The exit status (``0``: every worker stopped cleanly) and the files written.
    """
    if not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers {workers}: want 1-{MAX_WORKERS}")
    if not hasattr(os, "fork"):
        raise UsageError("--workers needs fork(), which this system lacks: use one worker")
    socks = _listen(proxy.host, proxy.port, workers)
    proxy.host, proxy.port = socks[0].getsockname()[:2]
    shared = tempfile.mkdtemp(prefix="warckit-proxy-")
    path = os.path.join(shared, _STATS)
    try:
        try:
            SharedStats.create(path, workers)
        except sqlite3.Error as exc:  # (as a bad dedup database is reported)
            raise ParseError(f"cannot make the workers' statistics file ({exc})", source=path) from None
        proxy.archivist.stats = SharedStats(path)
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS | {signal.SIGCHLD})
        live: set[int] = set()
        parent = os.getpid()
        for i in range(workers):
            pid = os.fork()
            if pid == 0:  # the worker
                code = 1
                try:
                    mine = socks[i % len(socks)]
                    for other in socks:
                        if other is not mine:
                            other.close()
                    code = _worker(proxy, mine, parent, shared)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            live.add(pid)
        for sock in socks:
            sock.close()
        if listening is not None:
            listening(proxy.host, proxy.port)
        status = _supervise(live)
        try:
            proxy.files = SharedStats.all_files(path)
        except sqlite3.Error as exc:
            raise ParseError(f"cannot read the workers' statistics file ({exc})", source=path) from None
        return status, proxy.files
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS | {signal.SIGCHLD})
        for sock in socks:
            sock.close()
        shutil.rmtree(shared, ignore_errors=True)


def _supervise(live: set[int]) -> int:
    """Wait for the workers; stop them all on a signal or when one fails."""
    status = 0
    stopping = False

    def stop_all() -> None:
        for pid in live:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    while live:
        sig = signal.sigwait(_SIGNALS | {signal.SIGCHLD})
        if sig in _SIGNALS and not stopping:
            stopping = True
            stop_all()
        while live:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            live.discard(pid)
            if os.waitstatus_to_exitcode(wait_status) != 0:
                status = 1
                if not stopping:
                    print(f"warckit proxy: worker {pid} failed; stopping the others",
                          file=sys.stderr, flush=True)
                    stopping = True
                    stop_all()
    return status
