"""Byte-compile warckit before timing it, as ``pip install`` does.

The benchmarks run warckit from the checkout. Where ``PYTHONDONTWRITEBYTECODE`` is set
(as on the CI machines), every process would otherwise compile warckit's modules from
source at start-up (about 17 ms per process on the reference machine), a cost no installed
copy pays and that the peers, installed from wheels, do not pay either.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def precompile(root: Path = ROOT) -> None:
    """Write the ``__pycache__`` files of the warckit package in the checkout *root*."""
    compileall.compile_dir(str(root / "warckit"), quiet=1)
