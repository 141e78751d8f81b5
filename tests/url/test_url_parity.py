"""Hypothesis: the pure and compiled SURT twins give equal results and equal errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from url_strategies import urls

from warckit import _speedups

PURE = _speedups.pure("surt")
try:
    COMPILED = _speedups.compiled("surt")
except ImportError:  # the generic tests/speedups check fails when the build fell back
    COMPILED = None

pytestmark = pytest.mark.skipif(COMPILED is None, reason="compiled surt twin not built")


def _outcome(func: object, *args: object) -> tuple[str, object]:
    try:
        return ("ok", func(*args))  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - comparing exception types is the point
        return (type(exc).__name__, None)


flags = st.tuples(*[st.booleans()] * 6)
anything = st.one_of(urls, st.text(max_size=60), st.binary(max_size=30).map(lambda b: b.decode("latin-1")))


@settings(max_examples=300, deadline=None)
@given(url=anything, opts=flags)
def test_surt_key_parity(url: str, opts: tuple[bool, ...]) -> None:
    assert _outcome(PURE.surt_key, url, *opts) == _outcome(COMPILED.surt_key, url, *opts)


@pytest.mark.parametrize("value", [None, "", b"http://x/", 42])
def test_odd_types_parity(value: object) -> None:
    assert _outcome(PURE.surt_key, value) == _outcome(COMPILED.surt_key, value)


def test_compiled_names_are_compiled() -> None:
    """The compiled twin lists exactly what it compiles: every function it exports
    is its own (not the pure twin's re-exported), and the helpers that exist only in
    the pure twin are not presented as compiled."""
    assert set(COMPILED.__all__) == {"MAX_URL_LENGTH", "surt_key"}
    assert set(COMPILED.__all__) <= set(PURE.__all__)
    assert COMPILED.MAX_URL_LENGTH == PURE.MAX_URL_LENGTH
    assert COMPILED.surt_key is not PURE.surt_key
    assert type(COMPILED.surt_key).__name__ == "cython_function_or_method"
    for name in ("attempt_ip", "sort_query", "strip_www_label", "canonical_host"):
        assert not hasattr(COMPILED, name), name
