"""What the ``warckit`` command is made of (its subcommands) and what ``--version`` says:
the part of :mod:`warckit.cli` that needs no argument parser."""

from __future__ import annotations

import sys

from .._version import __version__

__all__ = ["COMMANDS", "version_text"]

#: Subcommand modules, in the order ``warckit --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "ls",
    "extract",
    "check",
    "index",
    "merge",
    "query",
    "surt",
    "recompress",
    "arc2warc",
    "crawllog2warc",
    "dedup",
    "wacz",
    "serve",
    "proxy",
)


#: ``sys.implementation.name`` as :func:`platform.python_implementation` spells it.
_IMPLEMENTATION_NAMES = {"cpython": "CPython", "pypy": "PyPy", "ironpython": "IronPython",
                         "jython": "Jython"}


def version_text() -> str:
    """What ``warckit --version`` prints: the version, then each hot module's implementation."""
    from .. import _speedups

    modules = _speedups.status()
    used = sum(s.implementation == "c" for s in modules.values())
    # (What platform.python_implementation() and python_version() say, without
    # importing platform: 2 ms.)
    implementation = _IMPLEMENTATION_NAMES.get(sys.implementation.name, sys.implementation.name)
    lines = [f"warckit {__version__} ({implementation} {sys.version.split()[0]})",
             f"compiled hot modules: {used} of {len(modules)} in use"
             + ("" if used == len(modules) else "; the others run their pure-Python twins (slower)")]
    width = max(len(name) for name in modules)
    for name, s in modules.items():
        if s.implementation == "c":
            detail = "compiled" + (f": {', '.join(s.libraries)}" if s.libraries else "")
        else:
            detail = f"pure Python: {s.reason}"
        lines.append(f"  {name:<{width}}  {detail}")
    return "\n".join(lines)
