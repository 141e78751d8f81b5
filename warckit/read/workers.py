"""Worker processes that end with the command that started them: a pool whose work not
yet started is dropped when the command stops, and workers that stop with their parent
even when it is killed outright."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

def stop_with_parent(parent: int) -> None:
    """Linux: this process (a child of *parent*) gets SIGTERM when its parent dies, even
    by SIGKILL, rather than run on unsupervised. Elsewhere nothing is done."""
    if not sys.platform.startswith("linux"):
        return
    from .._speedups.prctl import impl  # (in the child: a command that forks none skips it)

    if not impl.set_pdeathsig(int(signal.SIGTERM)):  # (no prctl to be had: supervised as elsewhere)
        return
    if os.getppid() != parent:  # the parent died before the call
        os.kill(os.getpid(), signal.SIGTERM)


#: The signals that stop a command (its handlers raise).
_STOPS = frozenset({signal.SIGINT, signal.SIGTERM})


def _pool_worker(parent: int) -> None:
    # A worker ends on SIGTERM (the command's handler, inherited by fork, would raise
    # into the pool's loop), and gets it when the command is killed outright. It was
    # started with the stops held off (process_pool), which it undoes.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    stop_with_parent(parent)


@contextlib.contextmanager
def process_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool of *jobs* workers (forked where the system allows: they start
    without imports) whose workers end with this process; leaving the ``with`` block
    early (an error, a stop) drops the work not yet started."""
    # (Imported here: concurrent.futures.process brings in multiprocessing, tens of
    # milliseconds that a command running in one process does not need.)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = None
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_pool_worker,
                               initargs=(os.getpid(),))
    # The pool starts its manager thread (and, forked, its workers) at the first submit.
    # A stop raised while that thread starts leaves one that shutdown cannot join ("cannot
    # join thread before it is started"): the stop would end in a traceback. So the pool
    # starts here, with the stops held off; its workers unblock them (_pool_worker).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        try:
            pool.submit(int)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a stop held off arrives here)
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
