"""Reading gzip in lanes (LaneDecoder, two inflating threads in the compiled build)
gives exactly the records, errors and issues of one decoder, on the whole corpus."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from corpus_paths import CORPUS
from test_readahead import GZ_ARCHIVES, _records

from warckit._speedups.gzipmember import impl
from warckit.io import compression


@pytest.mark.parametrize("lenient", [False, True])
def test_corpus_same_in_lanes(lenient: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not CORPUS.is_dir():
        pytest.skip("shared corpus not available")
    switches: list[int] = []

    class Lanes(impl.LaneDecoder):  # type: ignore[misc, name-defined]
        def close(self) -> None:
            switches.append(self.switches)
            super().close()

    compared = 0
    for name in GZ_ARCHIVES:
        path = CORPUS / name
        expect = _records(path, False, lenient)
        with monkeypatch.context() as m:
            # Every gzip file in lanes of 3000 compressed bytes: many switches per file.
            m.setattr(compression, "_lanes_pay", lambda fileobj, start: True)
            m.setattr(compression, "LaneDecoder", functools.partial(Lanes, span=3000))
            got: Any = _records(path, True, lenient)
        assert got == expect, name
        compared += 1
    assert compared > 50
    assert sum(switches) > 100
