"""Where the test data lives (importable from any test module as ``corpus_paths``).

Test modules import these names from here rather than from ``conftest``: with
several conftest.py files in the tree, ``import conftest`` is ambiguous.
"""

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
