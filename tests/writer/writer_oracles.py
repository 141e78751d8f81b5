"""Helpers shared by the writer tests (oracles: warcio and FastWARC)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path


def warcio_check(path: str | Path) -> tuple[int, str]:
    """Run ``warcio check -v PATH`` in-process; return (exit status, output)."""
    from warcio.cli import main

    out = io.StringIO()
    code: int | None
    with contextlib.redirect_stdout(out):
        try:
            code = main(["check", "-v", str(path)])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return int(code or 0), out.getvalue()


def fastwarc_block_digests(path: str | Path) -> list[tuple[str, int, bool]]:
    """(type, offset, block digest verifies) for every record, read by FastWARC."""
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    with open(path, "rb") as f:
        return [
            (r.headers.get("WARC-Type"), r.stream_pos, r.verify_block_digest())
            for r in ArchiveIterator(f, parse_http=False, record_types=WarcRecordType.any_type)
        ]
