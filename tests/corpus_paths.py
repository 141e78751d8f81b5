"""Where the test data lives (importable from any test module as ``corpus_paths``).

Test modules import these names from here rather than from ``conftest``: with
several conftest.py files in the tree, ``import conftest`` is ambiguous.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
#: The shared third-party corpus (../shared/corpus from the repository root).
CORPUS = Path(os.environ.get("WARCKIT_CORPUS", ROOT.parent / "shared" / "corpus"))
#: The deterministic benchmark corpus generator (../shared/bench from the repository root).
MAKE_CORPUS = ROOT.parent / "shared" / "bench" / "make_corpus.py"


def corpus_path(name: str) -> Path:
    """Path of a corpus file; skips the test when the corpus is not available."""
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus file {name} not available (set WARCKIT_CORPUS)")
    return path


def make_corpus(out_dir: Path, mix: str, megabytes: float) -> Path:
    """A gzip-per-record WARC written by ``make_corpus.py`` (same arguments, same bytes).

    Skips the test when ../shared/bench is not next to the repository.
    """
    if not MAKE_CORPUS.exists():
        pytest.skip(f"{MAKE_CORPUS} not available (../shared/bench next to the repository)")
    base = out_dir / f"{mix}-{megabytes:g}"
    path = base.with_suffix(".warc.gz")
    if not path.exists():
        subprocess.run(
            [sys.executable, str(MAKE_CORPUS), str(base), str(megabytes), "--mix", mix, "--compress", "gzip"],
            check=True, capture_output=True,
        )
    return path
