"""The index of a WACZ: its CDXJ lines, sorted, as ``indexes/index.cdx`` or as the
compressed ZipNum pair ``indexes/index.cdx.gz`` + ``indexes/index.idx``.

The lines are warckit's CDXJ (:mod:`warckit.cdx.lines`, pywb's format) with the
``filename`` of the WARC inside ``archive/`` and offsets in that WARC, as py-wacz
writes them. The compressed form is the one py-wacz and ReplayWeb.page use: the
sorted lines in blocks of 1024, each block one gzip member of ``index.cdx.gz``; one
``index.idx`` line per block, ``<key> <timestamp> {"offset": …, "length": …,
"digest": "sha256:…"}`` (the block's first key, its place in ``index.cdx.gz`` and the
hash of its compressed bytes) after a ``!meta 0 {"format": "cdxj-gzip-1.0", …}`` line.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from typing import IO

from ..cdx._timestamps import utc_w3c
from ..cdx.capture import Capture
from ..cdx.indexer import IndexOptions, checked_lines, iter_captures
from ..cdx.sort import external_sort
from ..errors import Issue
from ..io.sources import open_source
from .pages import is_page, page_line, page_title

__all__ = ["BLOCK_LINES", "CDX", "CDX_GZ", "IDX", "PLAIN_MAX_LINES", "sorted_index", "write_zipnum_blocks"]

CDX = "indexes/index.cdx"
CDX_GZ = "indexes/index.cdx.gz"
IDX = "indexes/index.idx"
#: Lines per compressed block (py-wacz's and ArchiveWeb.page's default).
BLOCK_LINES = 1024
#: Indexes of at most this many lines are written plain (``index.cdx``), larger ones
#: compressed: a reader of a small plain index loads it whole, of a large one only
#: the ``.idx`` and the blocks a look-up needs.
PLAIN_MAX_LINES = BLOCK_LINES


def capture_lines(
    warcs: Iterable[tuple[str, str]],
    pages_out: IO[bytes] | None,
    *,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    titles: bool = True,
) -> Iterator[str]:
    """The CDXJ lines of each ``(path, name in the index)`` WARC, in file order; the
    pages detected among them are written to *pages_out* as they pass (with their
    ``<title>`` when *titles*)."""
    for path, filename in warcs:
        opts = IndexOptions(format="cdxj", filename=filename, lenient=lenient)
        # Titles are read through a second handle: the page's record was just read, so
        # its bytes come from the page cache.
        with open_source(path).file if titles and pages_out is not None else nullcontext() as again:

            def seen(caps: Iterable[Capture], again: IO[bytes] | None = again) -> Iterator[Capture]:
                for cap in caps:
                    yield cap  # (its line is made first: a page's URL is then as repaired)
                    if pages_out is not None and is_page(cap):
                        try:
                            ts = utc_w3c(cap.date)
                        except ValueError:
                            ts = cap.date
                        title = page_title(again, cap.offset, cap.http_content_type) if again else None
                        pages_out.write(page_line(cap.url, ts, title))

            yield from checked_lines(seen(iter_captures(path, opts, on_warning=on_warning)), opts, path,
                                     on_warning)


def sorted_index(lines: Iterable[str], out: IO[bytes], tmpdir: str | None = None) -> int:
    """Sort *lines* into *out* (bounded memory: sorted runs spill to *tmpdir*); the count."""
    return external_sort(lines, out, tmpdir=tmpdir)


def _gzip(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return comp.compress(data) + comp.flush()


def _block_key(line: bytes) -> str:
    return line.split(b"{", 1)[0].strip().decode("utf-8", "replace")


def write_zipnum_blocks(sorted_lines: IO[bytes], cdx_gz: IO[bytes], idx: IO[bytes], *,
                        block_lines: int = BLOCK_LINES) -> int:
    """Write sorted index lines as gzip blocks to *cdx_gz* and their summary to *idx*;
    the number of blocks.

    >>> import io
    >>> lines = b"".join(b"com,example)/%d 2024 {}\\n" % i for i in range(3))
    >>> gz, idx = io.BytesIO(), io.BytesIO()
    >>> write_zipnum_blocks(io.BytesIO(lines), gz, idx, block_lines=2)
    2
    >>> print(idx.getvalue().decode().splitlines()[1][:60])
    com,example)/0 2024 {"offset": 0, "length": 49, "digest": "s
    """
    idx.write(b'!meta 0 ' + json.dumps({"format": "cdxj-gzip-1.0",
                                         "filename": os.path.basename(CDX_GZ)}).encode() + b"\n")
    offset = 0
    blocks = 0
    while True:
        block = [line for _, line in zip(range(block_lines), sorted_lines)]
        if not block:
            return blocks
        data = _gzip(b"".join(block))
        cdx_gz.write(data)
        entry = {"offset": offset, "length": len(data),
                 "digest": "sha256:" + hashlib.sha256(data).hexdigest()}
        idx.write(f"{_block_key(block[0])} {json.dumps(entry)}\n".encode())
        offset += len(data)
        blocks += 1
