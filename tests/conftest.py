"""Shared fixtures: the corpus location (names live in corpus_paths.py); and the session's
own temporary directory, which must hold none of warckit's temporary files at the end."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_paths import CORPUS, DATA, ROOT, corpus_path, make_corpus

__all__ = ["CORPUS", "DATA", "ROOT", "corpus_path"]

#: The session's temporary directory (TMPDIR for this process and every child it starts).
_SESSION_TMP: Path | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Give the session (and the processes it starts) a temporary directory of its own, so
    that what warckit leaves behind is seen, and is not another run's.

    pytest's own ``tmp_path`` directories stay where they were (its root is fixed first),
    with their retention of the last runs.
    """
    global _SESSION_TMP
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    _SESSION_TMP = Path(tempfile.mkdtemp(prefix="warckit-tests-"))
    os.environ["TMPDIR"] = str(_SESSION_TMP)
    tempfile.tempdir = None  # (recomputed from TMPDIR at the next call)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a temporary file or directory warckit names (``warckit-*``)
    outlived it: a spool, a piece or a work directory that was not removed."""
    if _SESSION_TMP is None:
        return
    left = sorted(p.name for p in _SESSION_TMP.iterdir() if p.name.startswith("warckit-"))
    shutil.rmtree(_SESSION_TMP, ignore_errors=True)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("")
            reporter.write_sep("!", f"warckit left temporary files behind: {', '.join(left)}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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
