"""The test suite itself: no test reads a fixed path outside the repository and ../shared."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: A string literal naming a machine's own directories (the shared corpus is found
#: relative to the repository in corpus_paths.py).
_FIXED_PATH = re.compile(r"""["'](?:/tmp/|/work/|/home/|/Users/|/root/|/var/|/opt/|/mnt/)""")


def test_no_test_reads_a_fixed_path() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{n}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _FIXED_PATH.search(line)
    ]
    assert offenders == []
