"""Both implementations of a hot module, for the parity tests (importable as ``twins``).

A compiled twin that does not import is never dropped silently: the tests that need
it are reported as skipped with the import error, and with
``WARCKIT_REQUIRE_EXTENSIONS=1`` (CI's compiled leg) they fail instead.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import pytest

from warckit import _speedups

REQUIRED = os.environ.get("WARCKIT_REQUIRE_EXTENSIONS") == "1"


def compiled_or_reason(name: str) -> tuple[ModuleType | None, str]:
    """The compiled twin of *name*, or ``None`` and why it is missing."""
    try:
        return _speedups.compiled(name), ""
    except ImportError as exc:
        if REQUIRED:
            raise
        return None, f"compiled {name} twin does not import ({exc}): its parity is not tested"


def impl_params(name: str) -> list[Any]:
    """``pytest.param`` for each twin; a missing compiled one is a skip with the reason."""
    params = [pytest.param(_speedups.pure(name), id=f"_{name}_py")]
    mod, reason = compiled_or_reason(name)
    if mod is None:
        params.append(pytest.param(None, id=f"_{name}_c", marks=pytest.mark.skip(reason=reason)))
    else:
        params.append(pytest.param(mod, id=f"_{name}_c"))
    return params


def requires_compiled(name: str) -> pytest.MarkDecorator:
    """Skip (with the reason) a test that compares the twins of *name* when the compiled one is missing."""
    mod, reason = compiled_or_reason(name)
    return pytest.mark.skipif(mod is None, reason=reason or "compiled twin present")


def both(name: str) -> tuple[ModuleType, ModuleType]:
    """``(pure, compiled)``; skips the calling test with the reason when the compiled twin is missing."""
    mod, reason = compiled_or_reason(name)
    if mod is None:
        pytest.skip(reason)
    return _speedups.pure(name), mod
