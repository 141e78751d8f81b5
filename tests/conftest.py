"""Shared fixtures: the corpus location (names live in corpus_paths.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_paths import CORPUS, DATA, ROOT, corpus_path, make_corpus

__all__ = ["CORPUS", "DATA", "ROOT", "corpus_path"]


@pytest.fixture
def corpus() -> Path:
    """The corpus directory."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    return CORPUS


@pytest.fixture
def data_dir() -> Path:
    """tests/data."""
    return DATA


@pytest.fixture(scope="session")
def bench_warc(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, float], Path]:
    """``bench_warc(mix, megabytes)``: a generated gzip-per-record WARC, made once per session."""
    out = tmp_path_factory.mktemp("bench")

    def make(mix: str, megabytes: float) -> Path:
        return make_corpus(out, mix, megabytes)

    return make
