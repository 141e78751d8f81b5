"""The one place that knows two implementations of the hot functions exist.

Each hot module ``NAME`` has a pure-Python twin ``_NAME_py`` and, when the build
compiled it, a Cython module ``_NAME_c`` built from ``_speedups/NAME.pyx`` at the
repository root. :func:`load` picks the compiled one unless ``WARCKIT_NO_EXTENSIONS``
is set, the interpreter is not CPython, or the import fails.

:data:`IMPLEMENTATION` is ``"c"`` when every module in :data:`MODULES` is compiled,
else ``"py"``.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

#: Every hot module that has (or may have) a compiled twin.
MODULES: tuple[str, ...] = ("headers", "gzipmember", "surt", "readercore", "blockdeflate", "verifyfast")

#: True when compiled modules must not be used.
NO_EXTENSIONS: bool = bool(os.environ.get("WARCKIT_NO_EXTENSIONS")) or (
    sys.implementation.name != "cpython"
)


def pure(name: str) -> ModuleType:
    """Return the pure-Python implementation of hot module *name*."""
    return importlib.import_module(f"warckit._speedups._{name}_py")


def compiled(name: str) -> ModuleType:
    """Return the compiled implementation of *name*; raises ImportError if it was not built."""
    return importlib.import_module(f"warckit._speedups._{name}_c")


def load(name: str) -> ModuleType:
    """Return the implementation of hot module *name* that this process uses."""
    if not NO_EXTENSIONS:
        try:
            return compiled(name)
        except ImportError:
            pass
    return pure(name)


def _implementation() -> str:
    if NO_EXTENSIONS:
        return "py"
    for name in MODULES:
        try:
            compiled(name)
        except ImportError:
            return "py"
    return "c"


_IMPLEMENTATION: str | None = None


def __getattr__(name: str) -> str:
    # IMPLEMENTATION is computed on first use: importing every compiled module (and
    # what they import) would slow down the start of every warckit process.
    global _IMPLEMENTATION
    if name == "IMPLEMENTATION":
        if _IMPLEMENTATION is None:
            _IMPLEMENTATION = _implementation()
        return _IMPLEMENTATION
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: ``"c"`` if every hot module is compiled and selected, else ``"py"`` (computed lazily).
IMPLEMENTATION: str

__all__ = ["IMPLEMENTATION", "MODULES", "NO_EXTENSIONS", "compiled", "load", "pure"]
