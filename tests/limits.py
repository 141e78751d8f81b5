"""Run a snippet in a child process whose address space is capped: memory bounds asserted for real."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import child

ROOT = Path(__file__).resolve().parent.parent

_PRELUDE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
"""


def run_limited(code: str, *, limit_mb: int, timeout: float = 120.0) -> str:
    """Run *code* with ``RLIMIT_AS`` = *limit_mb* MiB; return its stdout, fail on any error.

    A ``MemoryError`` (or a kill) in the child means the code did not run in bounded
    memory; the timeout catches quadratic or unbounded work.
    """
    # The child runs the warckit the tests import (child.preamble checks it), not the
    # checkout's uncompiled one that cwd would put first.
    script = _PRELUDE.format(limit=limit_mb << 20) + child.preamble() + textwrap.dedent(code)
    env = child.env()
    env["PYTHONPATH"] += os.pathsep + str(ROOT)
    env["MALLOC_ARENA_MAX"] = "2"  # virtual arenas per thread would count against RLIMIT_AS
    proc = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=timeout, env=env, cwd=child.PACKAGE_PARENT
    )
    assert proc.returncode == 0, f"child failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    return proc.stdout
