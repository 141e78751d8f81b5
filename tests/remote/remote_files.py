"""Files of the served directory, for the remote tests (a module of its own: ``conftest``
is a name every test directory's conftest.py has, so importing from it depends on
which directory pytest collected first)."""

from __future__ import annotations

from pathlib import Path

import pytest


def local(served: Path, name: str) -> Path:
    """*name* in the served directory; skips when the corpus file is not there."""
    path = served / name
    if not path.exists():
        pytest.skip(f"{name}: corpus file not available")
    return path
