"""How many CPUs this process may run on (the default for threads and ``-j``), and how
many of them its own parallel jobs (forked children) take."""

from __future__ import annotations

import os


def cpu_count() -> int:
    """CPUs available to this process (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


#: Forked children of this process running a parallel job (warckit.read.pieces.Forked).
_JOBS = 0


def jobs_running() -> int:
    """Parallel jobs (forked children) this process runs now: each takes a CPU."""
    return _JOBS


def job_started() -> None:
    """Note a forked child started (see :func:`jobs_running`)."""
    global _JOBS
    _JOBS += 1


def job_ended() -> None:
    """Note a forked child ended (reaped)."""
    global _JOBS
    _JOBS = max(0, _JOBS - 1)


def _no_jobs() -> None:
    global _JOBS
    _JOBS = 0  # a forked child runs none of its parent's jobs


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_no_jobs)
