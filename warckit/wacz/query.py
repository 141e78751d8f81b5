"""Look URLs up in a WACZ by its own index, and read the records it points at, with
seeks and bounded reads only: end of central directory → central directory → index
(the whole ``index.idx``, then only the gzip blocks a look-up needs; or a binary
search of a plain ``index.cdx``) → the record's byte range. This is how ReplayWeb.page
reads a WACZ over HTTP, and it works on any seekable binary file object.

Example:
    >>> import tempfile, os
    >>> from warckit.cdx.query import Query, run_query
    >>> from warckit.wacz import create_wacz
    >>> out = os.path.join(tempfile.mkdtemp(), "sample.wacz")
    >>> _ = create_wacz(["examples/sample.warc.gz"], out)
    >>> with WaczIndex(out) as index:
    ...     entries = list(run_query([index], Query("https://example.com/about")))
    ...     with index.record(entries[0]) as record:
    ...         print(entries[0].fields["filename"], record.type, record.offset, len(record.payload_stream().read()))
    sample.warc.gz response 1303 63
"""

from __future__ import annotations

import bisect
import io
import json
import zlib
from collections.abc import Iterator
from itertools import pairwise
from typing import IO, Any, cast

from ..cdx.query import Index, _scan_file
from ..errors import ParseError, UsageError
from ..io.sources import InputLike, open_source
from ..io.zipped import MemberFile, ZipMember, open_member, read_directory, read_member
from ..read.reader import read_record_at
from ..read.wacz import ARCHIVE_DIR
from ..record.records import WarcRecord
from .indexes import CDX, CDX_GZ, IDX

__all__ = ["MAX_BLOCK", "WaczIndex"]

#: Largest compressed or inflated index block accepted (py-wacz's are ~100 KiB).
MAX_BLOCK = 64 << 20
_BUFFER = 1 << 12


class WaczIndex(Index):
    """The embedded index of a WACZ, as a :class:`~warckit.cdx.query.Index` for
    :func:`~warckit.cdx.query.run_query`; :meth:`record` reads what an entry points at.

    Args:
        source: A path, a URL (read by ranged requests, :mod:`warckit.io.remote`) or a seekable
            binary file object (not closed here).
        name: The name used in messages.
        storage_options: For a URL: fsspec options (credentials, endpoint…).

    Raises:
        ParseError: Not a ZIP file, or it has neither ``indexes/index.cdx`` nor
            ``indexes/index.cdx.gz`` with ``indexes/index.idx``.
    """

    def __init__(self, source: InputLike, name: str | None = None, *,
                 storage_options: dict[str, Any] | None = None) -> None:
        src = open_source(source, name=name, storage_options=storage_options)
        self._src = src
        if not src.seekable:
            src.close()
            raise UsageError(f"{src.name}: a WACZ must be seekable (its directory is at its end)")
        self.path = src.name
        self.zipnum = None
        self.format = "cdxj"
        self.declared_sorted = None
        self.key_style = "cdx"
        self._blocks: list[tuple[bytes, int, int]] | None = None
        try:
            self.members = {m.name: m for m in read_directory(src.file, src.name)}
            if CDX_GZ in self.members and IDX in self.members:
                self.index_member = CDX_GZ
            elif CDX in self.members:
                self.index_member = CDX
            else:
                raise ParseError(f"no index ({CDX}, or {CDX_GZ} with {IDX})", source=src.name)
            self._index = open_member(src.file, self.members[self.index_member], src.name)
        except BaseException:
            src.close()
            raise

    # -- the index ------------------------------------------------------------------

    def iter_prefix(self, prefix: bytes) -> Iterator[bytes]:
        """Index lines starting with *prefix*, in order."""
        if self.index_member == CDX:
            # A view of its own per scan: a domain look-up runs two scans at once, and the
            # buffer closes its raw file when dropped (the shared view would die with it).
            with io.BufferedReader(self._index.head(self._index.size), _BUFFER) as fh:
                yield from _scan_file(fh, prefix, f"{self.path}#{CDX}")
            return
        blocks = self._load_idx()
        keys = [b[0] for b in blocks]
        i = max(bisect.bisect_left(keys, prefix) - 1, 0)
        for _key, offset, length in blocks[i:]:
            for line in self._block(offset, length):
                if line.startswith(prefix):
                    yield line
                elif line > prefix:
                    return

    def _load_idx(self) -> list[tuple[bytes, int, int]]:
        """``(first key, offset, length)`` of each block of ``index.cdx.gz``, sorted."""
        if self._blocks is not None:
            return self._blocks
        where = f"{self.path}#{IDX}"
        data = read_member(self._src.file, self.members[IDX], self.path)
        blocks = []
        pos = 0
        for raw in data.splitlines(keepends=True):
            at, pos = pos, pos + len(raw)
            line = raw.strip()
            if not line or line.startswith(b"!"):
                continue
            head, brace, rest = line.partition(b" {")
            try:
                entry = json.loads(brace[1:] + rest)
                offset, length = int(entry["offset"]), int(entry["length"])
            except (ValueError, KeyError, TypeError):
                raise ParseError("not an index.idx line (key timestamp {offset, length})",
                                 offset=at, source=where, snippet=raw[:80]) from None
            if offset < 0 or not 0 < length <= MAX_BLOCK or offset + length > self._index.size:
                raise ParseError(f"block {offset}+{length} is outside {CDX_GZ} "
                                 f"({self._index.size} bytes)", offset=at, source=where)
            blocks.append((head.strip(), offset, length))
        if any(a[0] > b[0] for a, b in pairwise(blocks)):
            raise ParseError("the blocks are not in key order", source=where)
        self._blocks = blocks
        return blocks

    def _block(self, offset: int, length: int) -> list[bytes]:
        where = f"{self.path}#{CDX_GZ}"
        self._index.seek(offset)
        data = self._index.read(length)
        out = []
        while data:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                out.append(d.decompress(data, MAX_BLOCK))
            except zlib.error as exc:
                raise ParseError(f"gzip block {offset}+{length}: {exc}", offset=offset, source=where) from None
            if d.unconsumed_tail:
                raise ParseError(f"gzip block {offset}+{length} inflates past {MAX_BLOCK} bytes",
                                 offset=offset, source=where)
            if not d.eof:
                raise ParseError(f"gzip block {offset}+{length} is truncated", offset=offset, source=where)
            data = d.unused_data
        return [line + b"\n" for line in b"".join(out).splitlines() if line.strip()]

    # -- records ----------------------------------------------------------------------

    def warc(self, filename: str) -> MemberFile:
        """The WARC ``archive/<filename>`` as a seekable byte range of the package.

        Raises:
            ParseError: The package has no such WARC.
        """
        member: ZipMember | None = self.members.get(ARCHIVE_DIR + filename)
        if member is None:
            raise ParseError(f"no {ARCHIVE_DIR}{filename} in the package", source=self.path)
        return open_member(self._src.file, member, self.path)

    def record(self, entry: object) -> WarcRecord:
        """The record an index entry (a :class:`~warckit.cdx.CdxjEntry` from this
        index) points at; close it when done.

        Raises:
            ParseError: The entry names no WARC of the package, or no record is at its offset.
        """
        fields = getattr(entry, "fields", None)
        if not isinstance(fields, dict) or "filename" not in fields or "offset" not in fields:
            raise UsageError("not an entry of a WACZ index (no filename and offset)")
        filename = str(fields["filename"])
        view = self.warc(filename)
        offset = int(fields["offset"])
        length = str(fields.get("length", ""))
        if length.isdigit() and int(length) > 0:
            # Read no further than the record: its length is in the entry (for an
            # uncompressed WARC without the 4-byte trailer, warcio's convention).
            end = offset + int(length) + (0 if filename.endswith((".gz", ".zst")) else 4)
            try:
                return read_record_at(cast(IO[bytes], view.head(end)), offset, name=view.name)
            except ParseError:
                pass  # a length that does not hold the record: read on without it
        return read_record_at(cast(IO[bytes], view), offset, name=view.name)

    def close(self) -> None:
        """Close the package if this index opened it."""
        self._src.close()

    def __enter__(self) -> WaczIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
