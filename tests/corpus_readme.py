"""What ../shared/corpus/README.md says about each file (importable as ``corpus_readme``).

The README's table was made with warcio 1.8.1 and FastWARC 2.0.1, independently of
warckit: expectations taken from it are not snapshots of warckit's own output.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from corpus_paths import CORPUS

README = CORPUS / "README.md"
_CELL = re.compile(r"(?<!\\)\|")
_COUNT = re.compile(r"(\d+) rec(, warnings)?(; check≠0)?$")


class Row(NamedTuple):
    """One file's row: format column, the two oracles' results, what it exercises."""

    format: str
    warcio: str
    fastwarc: str
    exercises: str


def _rows() -> dict[str, Row]:
    if not README.exists():
        return {}
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in _CELL.split(line.strip()[1:-1])]  # "\\|" is a literal "|"
            if len(cells) == 7:  # (the shorter tables describe groups of files)
                rows[cells[0].strip("`")] = Row(*cells[3:7])
    return rows


ROWS = _rows()


def oracle_count(cell: str) -> int | None:
    """``N`` of an oracle cell that reads the file to its end (``N rec``…), else None."""
    m = _COUNT.match(cell)
    return int(m.group(1)) if m else None


def is_arc(name: str) -> bool:
    return ".arc" in name.replace(".warc", "")


def record_count(name: str) -> int | None:
    """Records the README's oracles give: the count both read to the end; else the count
    of the one that reads to the end where the other fails (FastWARC does not read ARC
    by design, warcio rejects whole-file gzip by design); None if they disagree."""
    row = ROWS[name]
    warcio, fastwarc = oracle_count(row.warcio), oracle_count(row.fastwarc)
    if is_arc(name) or fastwarc is None:
        return warcio
    if warcio is None or warcio == fastwarc:
        return fastwarc
    return None


def clean(name: str) -> bool:
    """Both oracles read the file to the end, agree, print no warning and check passes."""
    row = ROWS[name]
    warcio, fastwarc = oracle_count(row.warcio), oracle_count(row.fastwarc)
    return (
        "truncated" not in row.format  # (both oracles return clipped.warc.gz's one record quietly)
        and warcio is not None
        and "warnings" not in row.warcio
        and "check≠0" not in row.warcio
        and (is_arc(name) or fastwarc == warcio)
    )


def count_agrees(name: str, count: int) -> bool:
    """Whether *count* records is what the README says of a file: its oracles' count; where
    they disagree, one of theirs; where they stop at damage, at least what they read."""
    expected = record_count(name)
    if expected is not None:
        return count == expected
    cells = (ROWS[name].warcio, ROWS[name].fastwarc)
    to_the_end = [n for n in map(oracle_count, cells) if n is not None]
    read_before = [int(m.group(1)) for m in (re.search(r"after (\d+)", c) for c in cells) if m]
    return (not to_the_end or count in to_the_end) and count >= max(read_before, default=0)


def gzip_members(name: str) -> int | None:
    """Complete gzip members the README's format column counts (``gzip×N``), or None."""
    m = re.match(r"gzip×(\d+)", ROWS[name].format)
    return int(m.group(1)) if m else None


def trailing_bytes(name: str) -> int:
    """Non-gzip bytes after the last member (``+NB trailing`` in the format column)."""
    m = re.search(r"\+(\d+)B trailing", ROWS[name].format)
    return int(m.group(1)) if m else 0
