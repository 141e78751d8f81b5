"""Run Python child processes on the warckit the tests import (importable as ``child``).

A child started with ``sys.executable`` from the checkout would import the checkout's
``warckit`` (no compiled modules in CI, which tests the installed package) or,
outside it, an installed one: either way not the implementation under test. The
child built here puts the parent's ``warckit`` first on its path, inherits
``WARCKIT_NO_EXTENSIONS`` / ``WARCKIT_REQUIRE_EXTENSIONS``, and asserts before
anything else that it runs that same package with the same implementation.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import warckit
from warckit import _speedups

#: The directory that holds the package the tests import.
PACKAGE_PARENT = str(Path(warckit.__file__).resolve().parent.parent)


def env(**extra: str) -> dict[str, str]:
    """The parent's environment, with its ``warckit`` first on ``PYTHONPATH``."""
    result = dict(os.environ)
    rest = result.get("PYTHONPATH")
    result["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + rest if rest else "")
    result.update(extra)
    return result


def preamble() -> str:
    """Code a child runs first: import the parent's warckit and check its implementation."""
    return (
        "import os, sys\n"
        f"sys.path.insert(0, {PACKAGE_PARENT!r})\n"
        "import warckit, warckit._speedups\n"
        f"assert os.path.realpath(warckit.__file__) == {os.path.realpath(warckit.__file__)!r}, "
        "('child imports', warckit.__file__)\n"
        f"assert warckit._speedups.IMPLEMENTATION == {_speedups.IMPLEMENTATION!r}, "
        "('child implementation', warckit._speedups.IMPLEMENTATION)\n"
    )


def python(code: str) -> list[str]:
    """argv running *code* (after :func:`preamble`) in a child interpreter; pass ``env=env()``."""
    return [sys.executable, "-c", preamble() + code]


def warckit_cli(*args: str) -> list[str]:
    """argv of ``python -m warckit ARGS`` on the parent's warckit; pass ``env=env()``."""
    run = "import runpy\nsys.argv[0] = 'warckit'\nrunpy.run_module('warckit', run_name='__main__', alter_sys=True)\n"
    return [sys.executable, "-c", preamble() + run, *args]


def children_of(pid: int) -> list[int]:
    """The pids of process *pid*'s children, sorted (Linux: read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return sorted(found)


def alive(pid: int) -> bool:
    """Process *pid* runs (a zombie, exited but not yet reaped, does not; Linux)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
