"""The indexer opens its WARC/ARC input through the one opener (:mod:`warckit.io.sources`)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from warckit.cdx import IndexOptions, index_file
from warckit.read import pieces

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample.warc.gz"


@pytest.mark.parametrize("fmt", ["cdx", "cdxj"])
def test_standard_input_indexes_like_the_path(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    options = IndexOptions(format=fmt, filename="sample.warc.gz")  # type: ignore[arg-type]
    expected = list(index_file(SAMPLE, options))
    assert len(expected) > 1
    stdin = io.TextIOWrapper(io.BytesIO(SAMPLE.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert list(index_file("-", options)) == expected


def test_standard_input_is_not_split() -> None:
    """Standard input has no size to cut by: one piece."""
    assert pieces.split_points("-", 4, min_size=0) == []
