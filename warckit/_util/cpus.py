"""How many CPUs this process may run on (the default for threads and ``-j``)."""

from __future__ import annotations

import os


def cpu_count() -> int:
    """CPUs available to this process (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1
