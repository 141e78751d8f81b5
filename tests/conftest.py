"""Shared fixtures: the corpus location (names live in corpus_paths.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_paths import CORPUS, DATA, ROOT, corpus_path

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
