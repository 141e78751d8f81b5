"""prctl (the parent-death signal of a forked worker): compiled and pure twins agree, and
a forked piece gets SIGTERM as its parent-death signal through either."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from twins import impl_params, requires_compiled

from warckit._speedups import prctl as selector
from warckit.read.pieces import Forked, _dumps, _loads

IMPLS = impl_params("prctl")
TWINS = [p.values[0] for p in IMPLS]
LINUX = sys.platform.startswith("linux")


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    """The test process keeps the parent-death signal it had."""
    before = TWINS[0].get_pdeathsig()
    yield
    if before is not None:
        TWINS[0].set_pdeathsig(before)


@pytest.mark.parametrize("impl", IMPLS)
def test_set_then_get(impl: ModuleType) -> None:
    if not LINUX:
        assert impl.set_pdeathsig(signal.SIGTERM) is False and impl.get_pdeathsig() is None
        return
    assert impl.set_pdeathsig(signal.SIGTERM) is True
    assert impl.get_pdeathsig() == signal.SIGTERM
    assert impl.set_pdeathsig(0) is True
    assert impl.get_pdeathsig() == 0


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("signum", [-1, 65, 999, 2**31, -(2**31) - 1, 2**70])
def test_no_such_signal_is_refused(impl: ModuleType, signum: int) -> None:
    assert impl.set_pdeathsig(signum) is False
    assert impl.get_pdeathsig() == (0 if LINUX else None)


@requires_compiled("prctl")
@given(st.one_of(st.integers(-(2**33), 2**33), st.sampled_from([0, 1, 15, 31, 32, 64, 65])))
def test_twins_agree(signum: int) -> None:
    pure, compiled = TWINS
    results = []
    for impl in (pure, compiled):
        impl.set_pdeathsig(0)
        results.append((impl.set_pdeathsig(signum), pure.get_pdeathsig(), compiled.get_pdeathsig()))
    assert results[0] == results[1]
    assert results[0][1] == (signum if results[0][0] else 0)


@pytest.mark.parametrize("impl", IMPLS)
def test_a_forked_piece_stops_with_its_parent(impl: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selector, "impl", impl)
    assert Forked(impl.get_pdeathsig).result() == (signal.SIGTERM if LINUX else None)


class _Report:
    def __init__(self, issues: list[str]) -> None:
        self.issues = issues

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Report) and other.issues == self.issues


@pytest.mark.parametrize(("value", "kind"), [
    (("warckit-index-x.part", 7238, [52358477, 52358917]), b"m"),  # an index piece
    ((b"\x00\xff", None, True, 2**70, {"k": (1.5, frozenset({3}))}), b"m"),
    (_Report(["a", "b"]), b"p"),  # objects go by pickle
    ((1, _Report([])), b"p"),
    (signal.SIGTERM, b"p"),  # (an int subclass: marshal writes exact types only)
])
def test_results_come_back_as_they_were(value: object, kind: bytes) -> None:
    data = _dumps(value)
    assert data[:1] == kind
    back = _loads(data)
    assert back == value and type(back) is type(value)
    assert Forked(lambda: value).result() == value
