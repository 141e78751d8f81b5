"""Records → index lines: which records are indexed, read once front to back.

The indexer reads each file once, front to back. A record's entry is emitted when the
*next* record arrives (or at the end of the file), when its length in the file is known
without spooling its body. Each indexed record becomes a :class:`~warckit.cdx.capture.Capture`
(:mod:`warckit.cdx.capture`); a POST/PUT ``request`` and the adjacent ``response`` it is
concurrent to get the request body appended to their key (:mod:`warckit.cdx.pairing`);
captures become lines in :mod:`warckit.cdx.lines`.

Output formats: ``cdx`` (new-style CDX, see :mod:`warckit.cdx.formats`), ``cdxj`` (pywb /
cdxj-indexer CDXJ), ``cdx11`` and ``cdx9`` (classic CDX with legend). The pywb formats follow
cdxj-indexer 1.5 byte for byte, including its record selection (``application/warc-fields``
resource/metadata records are skipped) and its payload digest for records that lack one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator

from .._util.frozen import Frozen
from ..errors import Issue, ParseError, UsageError
from ..read import pieces as _pieces
from ..read import reader as _reader
from ..record.records import WarcRecord
from . import _keys
from ..record.fields import escape_not_utf8, holds_not_utf8, not_utf8_message
from .capture import TEXT_FIELDS, Capture, extract, finish, not_utf8_fields, repair_text
from .formats import FORMATS
from .lines import capture_line, header_for, new_style_entry
from .pairing import PostBody, is_post_or_put, pair_post, post_body

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any
    from ..io.sources import InputLike
    from .formats import FormatName

#: Makes the capture of the current record: ``(record, filename, compute_digest)``.
Extractor = Callable[[WarcRecord, str, bool], Capture]

__all__ = [
    "ALL_TYPES",
    "DEFAULT_TYPES",
    "Capture",
    "Extractor",
    "IndexOptions",
    "capture_line",
    "checked_lines",
    "header_for",
    "index",
    "index_file",
    "index_range",
    "iter_captures",
    "new_style_entry",
    "split_points",
]

#: Record types indexed by default.
DEFAULT_TYPES: frozenset[str] = frozenset({"response", "resource", "revisit", "metadata", "conversion"})
#: Every WARC record type.
ALL_TYPES: frozenset[str] = frozenset(
    {"warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion", "continuation"}
)

_PYWB_FORMATS = frozenset({"cdxj", "cdx11", "cdx9"})


class IndexOptions(Frozen):
    """How files are indexed.

    Attributes:
        format: ``cdx`` (new-style), ``cdxj``, ``cdx11`` or ``cdx9``.
        types: Record types to index (``request`` and ``warcinfo`` are off by default).
        post_append: Append POST/PUT request bodies to the key (pywb's ``__wb_method``).
        unicode_host: New-style keys with IDN hosts in Unicode instead of punycode.
        skip_warc_fields: Skip ``resource``/``metadata`` records of type
            ``application/warc-fields`` (cdxj-indexer's rule). ``None``: on for the pywb
            formats, off for the new-style CDX.
        lenient: Read damaged files leniently (every recovery goes to *on_warning*).
        filename: File name written into the index (default: the base name of the path).

    Raises:
        UsageError: An unknown format or record type.
    """

    __slots__ = (  # noqa: RUF023 (the field order)
        "format", "types", "post_append", "unicode_host", "skip_warc_fields", "lenient", "filename",
    )
    format: FormatName
    types: frozenset[str]
    post_append: bool
    unicode_host: bool
    skip_warc_fields: bool | None
    lenient: bool
    filename: str | None

    def __init__(
        self,
        format: FormatName = "cdx",
        types: Collection[str] = DEFAULT_TYPES,
        post_append: bool = True,
        unicode_host: bool = False,
        skip_warc_fields: bool | None = None,
        lenient: bool = False,
        filename: str | None = None,
    ) -> None:
        if format not in FORMATS:
            raise UsageError(f"unknown index format {format!r}; choose one of {', '.join(FORMATS)}")
        unknown = {t.lower() for t in types} - ALL_TYPES
        if unknown:
            raise UsageError(f"unknown record type(s): {', '.join(sorted(unknown))}")
        init = object.__setattr__
        init(self, "format", format)
        init(self, "types", frozenset(t.lower() for t in types))
        init(self, "post_append", post_append)
        init(self, "unicode_host", unicode_host)
        init(self, "skip_warc_fields", skip_warc_fields)
        init(self, "lenient", lenient)
        init(self, "filename", filename)

    def replace(self, **changes: Any) -> IndexOptions:
        """A copy with some fields changed (``dataclasses.replace``, which it replaces).

        >>> IndexOptions(format="cdxj").replace(filename="a.warc.gz").filename
        'a.warc.gz'
        """
        return IndexOptions(**{**dict(zip(self._fields(), self._values())), **changes})

    @property
    def skips_warc_fields(self) -> bool:
        """Whether ``application/warc-fields`` resource/metadata records are skipped."""
        if self.skip_warc_fields is None:
            return self.format in _PYWB_FORMATS
        return self.skip_warc_fields

    @property
    def read_types(self) -> frozenset[str]:
        """The record types read: :attr:`types`, and ``request`` for POST pairing.

        >>> sorted(IndexOptions(types={"response"}).read_types)
        ['request', 'response']
        >>> sorted(IndexOptions(types={"response"}, post_append=False).read_types)
        ['response']
        """
        if self.post_append:
            return self.types | {"request"}
        return self.types

    def skips(self, record: WarcRecord) -> bool:
        """Whether a record of a read type is passed over as if it were not there
        (cdxj-indexer's ``application/warc-fields`` rule)."""
        return (
            self.skips_warc_fields
            and record.type in ("resource", "metadata")
            and record.content_type == "application/warc-fields"
        )


def iter_captures(
    source: InputLike,
    options: IndexOptions | None = None,
    *,
    on_warning: Callable[[Issue], None] | None = None,
    extractor: Extractor | None = None,
) -> Iterator[Capture]:
    """Yield the captures of one WARC/ARC file, in file order.

    Args:
        source: A path, ``"-"`` (standard input) or a binary file object (see
            :func:`warckit.io.sources.open_source`, which the reader opens it with).
        options: What to index; see :class:`IndexOptions`.
        on_warning: Receives every recovery made in lenient mode.
        extractor: Makes each record's capture while the record is current, in place of
            :func:`warckit.cdx.capture.extract` (same arguments); a caller that needs
            more of the record (its payload, say) reads it there.

    Raises:
        ParseError: Damaged input in strict mode.
    """
    return _iter_range(source, options or IndexOptions(), on_warning, 0, 0, None, None, extractor or extract)


def split_points(path: str, parts: int, options: IndexOptions, *, min_size: int | None = None) -> list[tuple[int, int]]:
    """Where to cut *path* into up to *parts* pieces indexed apart (see :func:`index_range`).

    A split point ``(before, at)`` needs a record at *before* that the indexer reads and
    does not skip, so that it is the pending capture when the record at *at* arrives.
    ``[]``: index the file in one piece.
    """
    read_types = options.read_types

    def starts_piece(record: WarcRecord) -> bool:
        return record.type in read_types and not options.skips(record)

    return _pieces.split_points(path, parts, starts_piece, min_size=min_size)


def _filename(source: InputLike, opts: IndexOptions) -> str:
    if opts.filename is not None:
        filename = opts.filename
    elif isinstance(source, (str, os.PathLike)):
        filename = os.path.basename(os.fspath(source))
    else:
        filename = os.path.basename(str(getattr(source, "name", "-")))
    return _keys.escape_field(filename)


def _iter_range(
    source: InputLike,
    opts: IndexOptions,
    on_warning: Callable[[Issue], None] | None,
    start: int,
    emit_from: int,
    end: int | None,
    stopped_at: list[int] | None,
    extract: Extractor = extract,
) -> Iterator[Capture]:
    """:func:`iter_captures` of the records that start in ``[emit_from, end)``.

    Reading starts at record offset *start* (``<= emit_from``): the records before
    *emit_from* only give the first ones their request/response pairing (see
    :func:`split_points`). The first record at or past *end* is read to settle the
    pairing of the last one. The offsets of the last record before *end* and of the first
    one at or past it are appended to *stopped_at* (nothing if the file ends first).
    """
    filename = _filename(source, opts)
    wanted = opts.types
    post_append = opts.post_append
    compute_digest = opts.format in _PYWB_FORMATS
    skip_fields = opts.skips_warc_fields
    kwargs: dict[str, Any] = {"lenient": opts.lenient, "types": set(opts.read_types)}
    if start:
        kwargs["offset"] = start
    if on_warning is not None:
        kwargs["on_warning"] = on_warning
    # The capture before the current record: emitted once the current one has been
    # paired with it (or has broken the adjacency).
    pending: Capture | None = None
    pending_rec: WarcRecord | None = None
    pending_body: PostBody | None = None
    last = -1  # offset of the last record read before *end*
    with _reader.open_archive(source, **kwargs) as reader:
        plain = reader.compression == "none"
        for record in reader:
            offset = record.offset
            final = end is not None and offset >= end
            if final:
                # The record after the range: it only settles the pairing of the pending
                # capture, exactly as a one-piece run would.
                if stopped_at is not None:
                    stopped_at.extend((last, offset))
                    stopped_at = None
            else:
                last = offset
            if skip_fields and opts.skips(record):
                continue
            rtype = record.type
            if rtype == "request" and rtype not in wanted and not is_post_or_put(record):
                # Only POST/PUT requests matter when requests are not indexed; a GET
                # breaks the adjacency of a pending pair just like any other record.
                if pending is not None and pending_rec is not None:
                    finish(pending, pending_rec, plain)
                    if pending.type in wanted and pending.offset >= emit_from:
                        yield pending
                pending = pending_rec = pending_body = None
                if final:
                    break
                continue
            cap = extract(record, filename, compute_digest)
            body = post_body(record, cap) if post_append and cap.method is not None else None
            if pending is not None and pending_rec is not None:
                finish(pending, pending_rec, plain)
                pair_post(pending, pending_body, cap, body)
                if pending.type in wanted and pending.offset >= emit_from:
                    yield pending
            if final:
                pending = None
                break
            pending, pending_rec, pending_body = cap, record, body
        if pending is not None and pending_rec is not None:
            finish(pending, pending_rec, plain)
            if pending.type in wanted and pending.offset >= emit_from:
                yield pending


def index_file(
    source: InputLike,
    options: IndexOptions | None = None,
    *,
    on_warning: Callable[[Issue], None] | None = None,
) -> Iterator[str]:
    """Yield the index lines (no header, no newline, file order) of one WARC/ARC file."""
    return index_range(source, options or IndexOptions(), on_warning=on_warning)


def index_range(
    source: InputLike,
    options: IndexOptions,
    start: int = 0,
    end: int | None = None,
    *,
    read_from: int | None = None,
    on_warning: Callable[[Issue], None] | None = None,
    stopped_at: list[int] | None = None,
) -> Iterator[str]:
    """:func:`index_file` restricted to the records that start in ``[start, end)``.

    ``(read_from, start)`` must be a split point from
    :func:`split_points` (*read_from*: the record before *start*), or
    ``start=0``. The offsets of the last record before *end* and of the first one at or
    past it are appended to *stopped_at* (nothing if the file ends first).
    """
    begin = start if read_from is None else read_from
    return checked_lines(_iter_range(source, options, on_warning, begin, start, end, stopped_at), options,
                         source, on_warning)


def checked_lines(captures: Iterable[Capture], options: IndexOptions, source: InputLike,
                  on_warning: Callable[[Issue], None] | None = None) -> Iterator[str]:
    """The index lines (*options*' format) of *captures*, read from *source*, with a field
    holding bytes that are not UTF-8 an error, or in lenient mode those bytes as ``%XX``."""
    fmt = options.format
    unicode_host = options.unicode_host
    escapes = fmt == "cdxj"  # (its JSON is ASCII: a byte that is not UTF-8 shows as \udcXX)
    for cap in captures:
        try:
            line = capture_line(cap, fmt, unicode_host=unicode_host)
        except TypeError:  # orjson refuses a surrogate escape: a byte that is not UTF-8
            line = _not_utf8(source, options, cap, None, on_warning)
        else:
            if holds_not_utf8(line) or (escapes and "\\udc" in line):
                line = _not_utf8(source, options, cap, line, on_warning)
        yield line


def _not_utf8(source: InputLike, options: IndexOptions, cap: Capture, line: str | None,
              on_warning: Callable[[Issue], None] | None) -> str:
    """The line of a capture whose header fields hold bytes that are not UTF-8 (WARC 1.1
    section 4: fields are UTF-8): an error, or in lenient mode those bytes as ``%XX``.

    *line*: the capture's line as formatted (``None`` if it could not be), returned as it
    is when no field of the capture holds such bytes (CDXJ writes a character outside the
    BMP as a surrogate pair, which looks alike).
    """
    fields = not_utf8_fields(cap)
    if not fields and line is not None and not holds_not_utf8(line):
        return line
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", None)
    name = None if name is None else str(name)
    if not options.lenient:
        value = getattr(cap, fields[0]) if fields else line or ""
        text = ", ".join(value) if isinstance(value, tuple) else value
        shown = [TEXT_FIELDS[f] for f in fields] or ["the index line"]
        raise ParseError(not_utf8_message(shown, text), source=name, offset=cap.offset)
    repaired = repair_text(cap)
    # (anything left, such as a file name that is not UTF-8, is escaped in the line itself)
    line = escape_not_utf8(capture_line(cap, options.format, unicode_host=options.unicode_host))
    if on_warning is not None:
        on_warning(Issue("not-utf8", "bytes that are not UTF-8 written as %XX in the index line"
                         + (f" ({', '.join(repaired)})" if repaired else ""),
                         offset=cap.offset, source=name))
    return line


def index(
    sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    format: FormatName = "cdx",
    types: Collection[str] = DEFAULT_TYPES,
    post_append: bool = True,
    unicode_host: bool = False,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
) -> Iterator[str]:
    """Index WARC/ARC files; yield lines in file order (unsorted, no header).

    Use :func:`warckit.cdx.write_index` for a sorted file with its header, or parse the
    lines with :class:`~warckit.cdx.CdxEntry` (new-style) and friends.

    Example:
        >>> for line in index(["crawl.warc.gz"]):  # doctest: +SKIP
        ...     print(line)
    """
    paths = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    for path in paths:
        opts = IndexOptions(
            format=format,
            types=frozenset(types),
            post_append=post_append,
            unicode_host=unicode_host,
            lenient=lenient,
        )
        yield from index_file(path, opts, on_warning=on_warning)
