"""The one place that knows two implementations of the hot functions exist.

Each hot module ``NAME`` has a pure-Python twin ``_NAME_py`` and, when the build
compiled it, a Cython module ``_NAME_c`` built from ``_speedups/NAME.pyx`` at the
repository root. The selector module ``NAME`` (``from warckit._speedups.NAME import
impl``) picks the compiled one, statically and typed as the pure twin, unless
``WARCKIT_NO_EXTENSIONS`` is set, the interpreter is not CPython, or the import fails;
:func:`load` returns the same choice by name.

:data:`IMPLEMENTATION` is ``"c"`` when every module in :data:`MODULES` is compiled,
else ``"py"``; :func:`implementations` tells module by module, and :func:`status` also
says why a pure twin is used and which C libraries a compiled module calls.

A compiled module that exists but cannot be loaded, and a source checkout imported
without its compiled modules (every hot path then silently pure), each raise one
:class:`PurePythonWarning`.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from .._util.frozen import Frozen

if TYPE_CHECKING:
    from types import ModuleType

# (No dataclasses, pathlib or json here: every warckit process imports this module,
# and those three cost more start-up time than the reading path itself.)

#: Every hot module that has (or may have) a compiled twin.
MODULES: tuple[str, ...] = ("headers", "gzipmember", "surt", "readercore", "blockdeflate", "verifyfast", "prctl")

#: True when compiled modules must not be used.
NO_EXTENSIONS: bool = bool(os.environ.get("WARCKIT_NO_EXTENSIONS")) or (
    sys.implementation.name != "cpython"
)

_HERE = os.path.dirname(os.path.realpath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
#: The repository root when this package is imported from a source checkout, else None.
_CHECKOUT: str | None = (
    _ROOT
    if os.path.isfile(os.path.join(_ROOT, "setup.py")) and os.path.isdir(os.path.join(_ROOT, "_speedups"))
    else None
)
_BUILD_IN_PLACE = "`pip install -e .` or `python setup.py build_ext --inplace`"


class PurePythonWarning(RuntimeWarning):
    """A hot module runs as its pure-Python twin although a compiled one was expected."""


class ModuleStatus(Frozen):
    """Which implementation of one hot module this process uses, and why."""

    __slots__ = ("name", "implementation", "reason", "libraries")  # noqa: RUF023 (the repr order)

    #: The hot module's name (one of :data:`MODULES`).
    name: str
    #: ``"c"`` (compiled) or ``"py"`` (pure-Python twin).
    implementation: str
    #: Why the pure twin is used (``None`` when compiled).
    reason: str | None
    #: The C libraries the compiled module calls, with versions and where they come from.
    libraries: tuple[str, ...]

    def __init__(self, name: str, implementation: str, reason: str | None,
                 libraries: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "implementation", implementation)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "libraries", libraries)


def pure(name: str) -> ModuleType:
    """Return the pure-Python implementation of hot module *name*."""
    return importlib.import_module(f"warckit._speedups._{name}_py")


def compiled(name: str) -> ModuleType:
    """Return the compiled implementation of *name*; raises ImportError if it was not built."""
    return importlib.import_module(f"warckit._speedups._{name}_c")


#: name -> the ImportError of a compiled module that could not be imported.
_FAILED: dict[str, ImportError] = {}


def _is_built(name: str) -> bool:
    # (A file test, not importlib.util.find_spec: importing importlib.util brings in
    # contextlib, functools and collections, which the reading path does not need, at
    # every start in a source checkout, where each module is asked about at import.)
    from importlib.machinery import EXTENSION_SUFFIXES

    stem = os.path.join(_HERE, f"_{name}_c")
    return any(os.path.isfile(stem + suffix) for suffix in EXTENSION_SUFFIXES)


def fell_back(name: str, exc: ImportError) -> None:
    """Note that compiled *name* could not be imported; warn if it was built but cannot load."""
    if name not in _FAILED:
        _FAILED[name] = exc
        if _is_built(name):  # built, but it cannot load (a missing library, ...)
            warnings.warn(
                f"warckit: the compiled {name} module cannot be loaded ({exc}); "
                f"its pure-Python twin is used (slower). See `warckit --version`.",
                PurePythonWarning, stacklevel=3)


def load(name: str) -> ModuleType:
    """Return the implementation of hot module *name* that this process uses.

    The choice is made once, by the selector module ``warckit._speedups.NAME``, whose
    ``impl`` the library imports statically (typed as the pure twin).
    """
    impl: ModuleType = importlib.import_module(f"warckit._speedups.{name}").impl
    return impl


def _build_report() -> dict[str, dict[str, object]]:
    """What setup.py recorded about each module (empty if it left no report)."""
    import json

    try:
        with open(os.path.join(_HERE, "_build.json"), encoding="utf-8") as f:
            modules = json.load(f)["modules"]
        return modules if isinstance(modules, dict) else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _why_missing(name: str) -> str:
    entry = _build_report().get(name, {})
    if entry.get("built") is False:
        return f"not built: {entry.get('reason', 'the compile failed')}"
    if _CHECKOUT is not None:
        return f"not built in this source checkout ({_CHECKOUT}); run {_BUILD_IN_PLACE}"
    return "not built: this install has no compiled module and no build report (see the building docs)"


def _status(name: str) -> ModuleStatus:
    if NO_EXTENSIONS:
        why = ("WARCKIT_NO_EXTENSIONS is set" if os.environ.get("WARCKIT_NO_EXTENSIONS")
               else f"{sys.implementation.name} is not CPython")
        return ModuleStatus(name, "py", why)
    try:
        module = compiled(name)
    except ImportError as exc:
        reason = f"cannot be loaded: {exc}" if _is_built(name) else _why_missing(name)
        return ModuleStatus(name, "py", reason)
    libraries = tuple(
        str(getattr(module, attr)) for attr in ("ISAL_LIBRARY", "LIBDEFLATE_LIBRARY") if hasattr(module, attr)
    )
    return ModuleStatus(name, "c", None, libraries)


def status() -> dict[str, ModuleStatus]:
    """Return, for every hot module in :data:`MODULES`, what this process uses and why.

    Imports every compiled module (and the C libraries they bind), so it is not free.
    """
    return {name: _status(name) for name in MODULES}


def implementations() -> dict[str, str]:
    """Return ``{module: "c" or "py"}`` for every hot module in :data:`MODULES`.

    ``"c"`` is the compiled module and ``"py"`` its pure-Python twin: the one
    :func:`load` returns in this process.
    """
    return {name: s.implementation for name, s in status().items()}


def _implementation() -> str:
    return "c" if all(v == "c" for v in implementations().values()) else "py"


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


def _warn_if_unbuilt_checkout() -> None:
    """Warn once when this package is a source checkout whose compiled modules were not built."""
    if NO_EXTENSIONS or _CHECKOUT is None:
        return
    missing = [name for name in MODULES if not _is_built(name)]
    if missing:
        warnings.warn(
            f"warckit is imported from the source checkout {_CHECKOUT}, where {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not compiled: those hot paths run in pure "
            f"Python (several times slower). Build them there with {_BUILD_IN_PLACE}, or run from "
            f"another directory to use an installed warckit (WARCKIT_NO_EXTENSIONS=1 silences this).",
            PurePythonWarning, stacklevel=3)


_warn_if_unbuilt_checkout()

__all__ = [
    "IMPLEMENTATION", "MODULES", "NO_EXTENSIONS", "ModuleStatus", "PurePythonWarning",
    "compiled", "fell_back", "implementations", "load", "pure", "status",
]
