"""Fixtures for the URL tests: both implementations of the SURT hot path."""

from __future__ import annotations

from types import ModuleType

import pytest

from warckit import _speedups


@pytest.fixture(scope="module", params=["py", "c"])
def surt_impl(request: pytest.FixtureRequest) -> ModuleType:
    """The pure twin, then the compiled one (skipped when it was not built)."""
    if request.param == "py":
        return _speedups.pure("surt")
    if _speedups.NO_EXTENSIONS:
        pytest.skip("WARCKIT_NO_EXTENSIONS is set")
    try:
        return _speedups.compiled("surt")
    except ImportError:
        pytest.skip("compiled surt twin not built")
