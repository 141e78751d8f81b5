"""ZipNum sharded indexes (pywb / Common Crawl): gzip blocks of N lines, ``.idx`` and ``.loc``.

A ZipNum index is

* one or more *shards*: files of independent gzip members, each holding *N* sorted lines;
* an ``.idx`` summary, one tab-separated line per block, itself sorted:
  ``<urlkey> <timestamp>\\t<part>\\t<offset>\\t<length>\\t<block number>`` where the key is the
  first two fields of the block's first line;
* a ``.loc`` file mapping each part name to its path(s): ``<part>\\t<path>[\\t<path>…]``
  (relative paths are relative to the ``.loc`` file).

:func:`write_zipnum` writes all three from sorted lines; pywb's ``ZipNumIndexSource`` reads
them. Unlike pywb's own sample, every block written here ends with a newline, so a
whole-stream ``zcat`` of a shard gives valid lines too. :class:`ZipNumIndex` reads both.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Iterator

from .._util.frozen import Frozen
from ..errors import ParseError
from ..io.atomic import replacing
from ._bisect import bisect_left_line, line_number, previous_line_start
from .sort import is_header

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import IO

__all__ = ["DEFAULT_BLOCK_LINES", "ZipNumIndex", "write_zipnum", "write_zipnum_blocks", "write_zipnum_summary"]

#: Lines per gzip block (pywb / webarchive-commons default).
DEFAULT_BLOCK_LINES = 3000
#: Longest index line accepted (CDX lines are ~300 bytes; CDXJ a few KiB).
MAX_LINE = 4 << 20
#: Compressed bytes read, and decompressed bytes made, per step of a block.
_BLOCK_IN = 1 << 16
_BLOCK_OUT = 1 << 18


class ZipNumPaths(Frozen):
    """The three files of a ZipNum index."""

    __slots__ = ("shard", "idx", "loc")  # noqa: RUF023 (the field order)
    shard: str
    idx: str
    loc: str

    def __init__(self, shard: str, idx: str, loc: str) -> None:
        object.__setattr__(self, "shard", shard)
        object.__setattr__(self, "idx", idx)
        object.__setattr__(self, "loc", loc)


def _compress(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return comp.compress(data) + comp.flush()


def write_zipnum_blocks(
    lines: Iterable[bytes | str],
    out: IO[bytes],
    *,
    block_lines: int = DEFAULT_BLOCK_LINES,
) -> list[tuple[bytes, int, int]]:
    """Write sorted index lines to *out* as gzip blocks of *block_lines* lines (one shard).

    Header / legend lines are dropped. Returns each block's ``(key, offset, length)``,
    the key being the first two fields of its first line: the shard's part of the
    ``.idx`` (see :func:`write_zipnum_summary`).

    Raises:
        ValueError: *block_lines* is not positive.
        ParseError: The lines are not sorted.
    """
    if block_lines < 1:
        raise ValueError("block_lines must be positive")
    blocks: list[tuple[bytes, int, int]] = []
    offset = 0
    block: list[bytes] = []
    last: bytes = b""

    def flush() -> None:
        nonlocal offset
        comp = _compress(b"".join(block))
        out.write(comp)
        key = b" ".join(block[0].split(b" ", 2)[:2]).rstrip(b"\n")
        blocks.append((key, offset, len(comp)))
        offset += len(comp)
        block.clear()

    for raw in lines:
        line = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        if not line.endswith(b"\n"):
            line += b"\n"
        if is_header(line):
            continue
        if line < last:
            raise ParseError(f"ZipNum input is not sorted at {line[:200]!r}")
        last = line
        block.append(line)
        if len(block) >= block_lines:
            flush()
    if block:
        flush()
    return blocks


def write_zipnum_summary(
    shards: Iterable[tuple[str, str, Iterable[tuple[bytes, int, int]]]],
    idx: IO[bytes],
    loc: IO[bytes],
) -> int:
    """Write the ``.idx`` and ``.loc`` of shards written by :func:`write_zipnum_blocks`.

    Args:
        shards: ``(part name, path as the .loc gives it, blocks)`` in key order: the
            shards hold consecutive key ranges (a range-partitioned sort), so their
            ``.idx`` entries, numbered across shards, are sorted too.
        idx: Receives the ``.idx`` lines.
        loc: Receives the ``.loc`` lines (one per shard).

    Returns:
        The number of blocks.

    Raises:
        ParseError: A shard's first key sorts before the previous shard's last key.
    """
    number = 0
    last = b""
    for part, path, blocks in shards:
        part_b = part.encode("utf-8")
        for key, offset, length in blocks:
            if key < last:
                raise ParseError(f"ZipNum shard {part} is out of order at {key[:200]!r}")
            last = key
            number += 1
            idx.write(key + b"\t%s\t%d\t%d\t%d\n" % (part_b, offset, length, number))
        loc.write(f"{part}\t{path}\n".encode())
    return number


def write_zipnum(
    lines: Iterable[bytes | str],
    base: str | os.PathLike[str],
    *,
    block_lines: int = DEFAULT_BLOCK_LINES,
    part: str | None = None,
) -> ZipNumPaths:
    """Write sorted index lines as a single-shard ZipNum index.

    Args:
        lines: Sorted index lines (any format; header / legend lines are dropped).
        base: Path without extension; writes ``base.cdx.gz``, ``base.idx``, ``base.loc``.
        block_lines: Lines per gzip block.
        part: Part name in ``.idx`` and ``.loc`` (default: the shard's base name).

    Returns:
        The paths written.

    Raises:
        ValueError: *block_lines* is not positive.
        ParseError: The lines are not sorted.
    """
    if block_lines < 1:
        raise ValueError("block_lines must be positive")
    base_s = os.fspath(base)
    paths = ZipNumPaths(base_s + ".cdx.gz", base_s + ".idx", base_s + ".loc")
    part_name = part or os.path.basename(base_s)
    # Written under temporary names and renamed into place (never through a file or
    # symlink already at the final name); a failure leaves no half-written output.
    with replacing(paths.shard) as shard:
        blocks = write_zipnum_blocks(lines, shard, block_lines=block_lines)
    with replacing(paths.idx) as idx, replacing(paths.loc) as loc:
        write_zipnum_summary([(part_name, os.path.basename(paths.shard), blocks)], idx, loc)
    return paths


class ZipNumIndex:
    """Read a ZipNum index: range scans by key prefix, without reading unrelated blocks.

    Args:
        idx_path: The ``.idx`` (or ``.summary``) file.
        loc_path: The ``.loc`` file (default: *idx_path* with ``.loc``).
    """

    def __init__(self, idx_path: str | os.PathLike[str], loc_path: str | os.PathLike[str] | None = None) -> None:
        self.idx_path = os.fspath(idx_path)
        self.loc_path = os.fspath(loc_path) if loc_path else os.path.splitext(self.idx_path)[0] + ".loc"
        self.locations = self._load_loc()

    def _load_loc(self) -> dict[str, str]:
        """Part name → first existing path (pywb tries each path in turn)."""
        base = os.path.dirname(self.loc_path)
        found: dict[str, str] = {}
        with open(self.loc_path, "rb") as fh:
            for number, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise ParseError(
                        f"line {number} is not UTF-8", source=self.loc_path, snippet=raw[:80]
                    ) from None
                parts = line.rstrip("\r\n").split("\t")
                if len(parts) < 2 or not parts[0]:
                    continue
                for candidate in parts[1:]:
                    if "\x00" in candidate:
                        raise ParseError(f"line {number}: a path contains NUL", source=self.loc_path)
                    path = candidate if "://" in candidate else os.path.join(base, candidate)
                    if os.path.isfile(path):
                        found[parts[0]] = path
                        break
        return found

    def _idx_error(self, message: str, pos: int, entry: bytes) -> ParseError:
        """An error about the ``.idx`` entry at byte *pos*, naming its line number."""
        with open(self.idx_path, "rb") as fh:
            number = line_number(fh, pos)
        return ParseError(f"line {number}: {message}", offset=pos, source=self.idx_path, snippet=entry[:80])

    def _entry(self, entry: bytes, pos: int) -> tuple[str, int, int]:
        """``(part path, offset, length)`` of a ``.idx`` line, checked against the shard."""
        fields = entry.rstrip(b"\r\n").split(b"\t")
        if len(fields) < 4:
            raise self._idx_error("bad .idx line (fewer than 4 tab-separated fields)", pos, entry)
        try:
            part = fields[1].decode("utf-8")
        except UnicodeDecodeError:
            raise self._idx_error("the part name is not UTF-8", pos, entry) from None
        off_text, len_text = fields[2].strip(), fields[3].strip()
        if not (off_text.isdigit() and len_text.isdigit() and len(off_text) < 20 and len(len_text) < 20):
            raise self._idx_error("offset and length must be decimal numbers", pos, entry)
        offset, length = int(off_text), int(len_text)
        path = self.locations.get(part)
        if path is None:
            raise self._idx_error(f"no location for part {part!r} in {self.loc_path}", pos, entry)
        size = os.path.getsize(path)
        if length == 0 or offset + length > size:
            raise self._idx_error(
                f"block {offset}+{length} is outside {path} ({size} bytes)", pos, entry
            )
        return path, offset, length

    def _block_lines(self, path: str, offset: int, length: int) -> Iterator[bytes]:
        """The lines of the gzip block at *offset*, streamed (bounded memory whatever it inflates to)."""

        def error(message: str) -> ParseError:
            return ParseError(f"gzip block {offset}+{length}: {message}", offset=offset, source=path)

        buf = bytearray()
        scan = 0
        with open(path, "rb") as fh:
            fh.seek(offset)
            left = length
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            pending = b""
            while True:
                if not pending:
                    if d.eof and d.unused_data:
                        pending = d.unused_data  # another member in the same block
                        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    elif left:
                        pending = fh.read(min(left, _BLOCK_IN))
                        left -= len(pending)
                        if not pending:
                            raise error("the shard ends inside the block")
                    else:
                        break
                try:
                    out = d.decompress(pending, _BLOCK_OUT)
                except zlib.error as exc:
                    raise error(f"bad gzip data ({exc})") from None
                pending = d.unconsumed_tail
                buf += out
                start = 0
                while (nl := buf.find(b"\n", scan)) >= 0:
                    yield bytes(buf[start : nl + 1])
                    start = scan = nl + 1
                del buf[:start]
                scan = len(buf)
                if scan > MAX_LINE:
                    raise error(f"a line is longer than {MAX_LINE} bytes")
            if not d.eof:
                raise error("the gzip member is truncated")
        if buf:
            yield bytes(buf) + b"\n"

    def iter_from(self, target: bytes) -> Iterator[bytes]:
        """Lines ``>= target`` in order, starting in the block that may hold *target*.

        Raises:
            ParseError: an ``.idx`` or ``.loc`` entry is malformed or points outside its
                shard, or a block is damaged; the message names the file and line.
        """
        with open(self.idx_path, "rb") as idx:
            pos = bisect_left_line(idx, target)
            if pos > 0:
                pos = previous_line_start(idx, pos)
            idx.seek(pos)
            while entry := idx.readline(MAX_LINE):
                if not entry.endswith(b"\n") and len(entry) == MAX_LINE:
                    raise self._idx_error(f"line longer than {MAX_LINE} bytes", pos, entry)
                path, offset, length = self._entry(entry, pos)
                pos += len(entry)
                for line in self._block_lines(path, offset, length):
                    if line >= target:
                        yield line

    def first_line(self) -> bytes:
        """The first index line (used to detect the format); ``b""`` when empty."""
        for line in self.iter_from(b""):
            return line
        return b""
