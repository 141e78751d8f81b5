"""Shared fixtures: the corpus location, both implementations of the hot modules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
#: The shared third-party corpus (../shared/corpus from the repository root).
CORPUS = Path(os.environ.get("WARCKIT_CORPUS", ROOT.parent / "shared" / "corpus"))


def corpus_path(name: str) -> Path:
    """Path of a corpus file; skips the test when the corpus is not available."""
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus file {name} not available (set WARCKIT_CORPUS)")
    return path


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
