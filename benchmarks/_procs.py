"""A process and its descendants, from /proc (the benchmarks that time a server's CPU and memory)."""

from __future__ import annotations

import os


def tree_pids(pid: int) -> list[int]:
    """*pid* and its live descendants (Linux /proc; just *pid* where that cannot be read)."""
    out = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                for child in fh.read().split():
                    out.extend(tree_pids(int(child)))
    except OSError:
        pass
    return out
