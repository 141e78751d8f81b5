"""Guided WARC writing: one method per record type, mandatory fields filled, rules enforced.

:class:`WarcWriter` takes the caller's intent (a target URI, an HTTP head and a body,
a content type, links to other records), fills every field the standard asks for,
validates the head against :mod:`warckit.record.rules` and writes the record through a
:class:`~warckit.write.rolling.RollingFile`. Each method returns a :class:`WrittenRecord`:
the record's identity and its place on disk (valid CDX offset and length), which can
be passed on as ``concurrent_to=`` / ``refers_to=``.

Example:
    >>> import tempfile, warckit
    >>> from warckit.write.guided import WarcWriter
    >>> out = tempfile.mkdtemp()
    >>> with WarcWriter(out, prefix="demo", warcinfo={"operator": "Ada"}) as w:
    ...     req = w.request("https://example.com/", b"GET / HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n")
    ...     res = w.response("https://example.com/", b"HTTP/1.1 200 OK\\r\\nContent-Type: text/html\\r\\n\\r\\n",
    ...                      b"<p>hi</p>", concurrent_to=req, ip="93.184.215.14")
    >>> [r.type for r in warckit.open(w.files[0])]
    ['warcinfo', 'request', 'response']
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import Any, Union

from .._util.dates import format_warc_date, parse_warc_date
from .._version import __version__
from ..errors import HttpParseError, Issue, UsageError, ValidationError
from ..record import rules as _validate
from ..record.digests import Digest, Digester, format_digest
from ..record.headers import Headers
from ..record.http import parse_http_head
from ..record.payload import PayloadDigester, payload_convention
from . import args as _args
from .rolling import DEFAULT_MAX_BYTES, DEFAULT_TEMPLATE, RollingFile
from .writer import (
    BlockSink,
    EncodedRecord,
    Readable,
    RecordEncoder,
    file_suffix,
    head_bytes,
    iter_source,
    prepare_given,
)

__all__ = ["Body", "GuidedWriter", "HybridPolicy", "RecordRef", "WarcWriter", "WrittenRecord"]

Body = Union[bytes, bytearray, memoryview, Readable, Iterable[bytes], None]
"""A record body: bytes, a binary stream (``read``) or an iterable of byte chunks."""

_BLANK_ID = "<urn:uuid:00000000-0000-0000-0000-000000000000>"

#: Most records in flight (returned to the caller, block still being compressed on
#: the worker thread, not yet in the file). Many small records can queue up behind a
#: large one, so the worker never waits for the caller.
MAX_PENDING = 64
#: Most block bytes held by the records in flight.
MAX_PENDING_BYTES = 16 << 20

_CONFORMS_TO = {
    "1.1": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
    "1.0": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.0/",
}


_LOCATION = ("filename", "path", "offset", "length")


class WrittenRecord:
    """Identity and location of a record the writer wrote.

    Immutable. While its block is still being compressed on the writer's worker
    thread the record is not on disk yet: it goes there, in call order, with the
    next record the writer writes or when :meth:`WarcWriter.flush` /
    :meth:`WarcWriter.close` runs. Reading :attr:`filename`, :attr:`path`,
    :attr:`offset` or :attr:`length` writes it at once (waiting for its block).

    Attributes:
        record_id: ``<urn:uuid:…>``.
        type: WARC-Type.
        target_uri: WARC-Target-URI, or ``None``.
        date: WARC-Date as written.
        filename: Final file name (without ``.open``), the CDX ``filename`` field.
        path: Final path of the file.
        offset: Offset of the record's gzip member / zstd frame / first byte.
        length: Bytes the record occupies in the file (CDX compressed length).
        block_digest: WARC-Block-Digest as written.
        payload_digest: WARC-Payload-Digest as written (the logical record's).
        segments: Number of segments the record was split into (1 = not segmented).
        payload_convention: ``"warc1.1"`` (de-chunked entity) or ``"legacy"`` (as stored)
            when a payload digest was computed over an HTTP body.
    """

    __slots__ = ("_filename", "_length", "_offset", "_path", "_settle", "block_digest", "date",
                 "payload_convention", "payload_digest", "record_id", "segments", "target_uri",
                 "type")

    record_id: str
    type: str
    target_uri: str | None
    date: str
    block_digest: str | None
    payload_digest: str | None
    segments: int
    payload_convention: str | None
    _filename: str
    _path: str
    _offset: int
    _length: int
    _settle: Callable[[], None] | None

    def __init__(self, record_id: str, type: str, target_uri: str | None, date: str,
                 filename: str, path: str, offset: int, length: int,
                 block_digest: str | None = None, payload_digest: str | None = None,
                 segments: int = 1, payload_convention: str | None = None) -> None:
        init = object.__setattr__
        init(self, "record_id", record_id)
        init(self, "type", type)
        init(self, "target_uri", target_uri)
        init(self, "date", date)
        init(self, "_filename", filename)
        init(self, "_path", path)
        init(self, "_offset", offset)
        init(self, "_length", length)
        init(self, "block_digest", block_digest)
        init(self, "payload_digest", payload_digest)
        init(self, "segments", segments)
        init(self, "payload_convention", payload_convention)
        init(self, "_settle", None)

    def _placed(self, filename: str, path: str, offset: int, length: int) -> None:
        """Fill in the location once the writer has written the record."""
        init = object.__setattr__
        init(self, "_filename", filename)
        init(self, "_path", path)
        init(self, "_offset", offset)
        init(self, "_length", length)
        init(self, "_settle", None)

    def _where(self) -> None:
        settle = self._settle
        if settle is not None:
            settle()
            # Not placed after all: writing it failed (possibly in another thread,
            # meanwhile); this raises that error rather than returning no location.
            settle = self._settle
            if settle is not None:
                settle()

    @property
    def filename(self) -> str:
        """Final file name (without ``.open``), the CDX ``filename`` field."""
        self._where()
        return self._filename

    @property
    def path(self) -> str:
        """Final path of the file."""
        self._where()
        return self._path

    @property
    def offset(self) -> int:
        """Offset of the record's gzip member / zstd frame / first byte."""
        self._where()
        return self._offset

    @property
    def length(self) -> int:
        """Bytes the record occupies in the file (CDX compressed length)."""
        self._where()
        return self._length

    def _astuple(self) -> tuple[Any, ...]:
        return (self.record_id, self.type, self.target_uri, self.date, self.filename, self.path,
                self.offset, self.length, self.block_digest, self.payload_digest, self.segments,
                self.payload_convention)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"WrittenRecord is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"WrittenRecord is immutable (cannot delete {name!r})")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, WrittenRecord)
        return self._astuple() == other._astuple()

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __repr__(self) -> str:
        names = ("record_id", "type", "target_uri", "date", *_LOCATION, "block_digest",
                 "payload_digest", "segments", "payload_convention")
        args = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._astuple()))
        return f"WrittenRecord({args})"


RecordRef = Union[WrittenRecord, str, Any]
"""A record reference: a :class:`WrittenRecord`, a record read by warckit, or an ID string."""

#: Media types whose payload is already compressed (routed by :class:`HybridPolicy`).
COMPRESSED_TYPES: tuple[str, ...] = (
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic",
    "video/", "audio/",
    "application/zip", "application/gzip", "application/x-gzip", "application/x-bzip2",
    "application/x-xz", "application/x-7z-compressed", "application/x-rar-compressed",
    "application/vnd.rar", "application/zstd", "application/x-zstd", "application/pdf",
    "application/vnd.openxmlformats-officedocument.", "application/epub+zip",
    "font/woff", "font/woff2", "application/font-woff",
)


@dataclass(frozen=True, slots=True)
class HybridPolicy:
    """Route records whose payload is already compressed to an uncompressed series.

    Args:
        content_types: Media-type prefixes (``"video/"``) or exact types treated as
            already compressed.
        min_size: Only payloads at least this large are routed (smaller ones compress
            fine with their record head). A body of unknown length counts as large.
        content_encodings: An HTTP ``Content-Encoding`` among these also counts as
            compressed.
    """

    content_types: tuple[str, ...] = COMPRESSED_TYPES
    min_size: int = 64 * 1024
    content_encodings: tuple[str, ...] = ("gzip", "x-gzip", "br", "zstd", "deflate", "compress")

    def uncompressed(self, content_type: str | None, size: int | None,
                     content_encoding: str | None = None) -> bool:
        """True when a payload of this type and size belongs in the uncompressed series."""
        if size is not None and size < self.min_size:
            return False
        if content_encoding and content_encoding.strip().lower() in self.content_encodings:
            return True
        if not content_type:
            return False
        mime = content_type.split(";", 1)[0].strip().lower()
        return any(mime.startswith(p) if p.endswith("/") or p.endswith(".") else mime == p
                   for p in self.content_types)


def _hash_functions(algorithm: str, encoding: str | None) -> tuple[Any, Any]:
    """(new hash object, hash object -> labelled digest text), as Digester formats them.

    The per-record path uses hashlib objects directly (no Digester/Digest objects): the
    text is the same as ``str(Digester(algorithm, encoding=encoding).digest())``.
    """
    import hashlib

    new = getattr(hashlib, algorithm, None) or (lambda: hashlib.new(algorithm))
    return new, lambda h: format_digest(algorithm, h.digest(), encoding)


def _reraise(exc: BaseException) -> None:
    raise exc


def _ref_id(ref: RecordRef) -> str:
    if isinstance(ref, WrittenRecord):
        return ref.record_id
    if isinstance(ref, str):
        ref = ref.strip()
        return ref if ref.startswith("<") else f"<{ref}>"
    rid = getattr(ref, "record_id", None)
    if not isinstance(rid, str):
        raise UsageError(f"cannot refer to {ref!r}: it has no record ID")
    return rid


def _refs(refs: RecordRef | Sequence[RecordRef] | None) -> list[str]:
    if refs is None:
        return []
    if isinstance(refs, (WrittenRecord, str)) or hasattr(refs, "record_id"):
        return [_ref_id(refs)]
    return [_ref_id(r) for r in refs]


def _known_length(body: Body) -> int | None:
    if isinstance(body, (bytes, bytearray, memoryview)):
        return len(body)
    if body is None:
        return 0
    return None


def _http_bytes(http_head: Any) -> bytes:
    if isinstance(http_head, (bytes, bytearray, memoryview)):
        return bytes(http_head)
    raw = getattr(http_head, "raw", None)
    if isinstance(raw, bytes):
        return raw
    raise UsageError("http_head must be the raw HTTP head bytes (ending with an empty line)")


def _checked(method: str, target_uri: object, *, date: object = None, ip: object = None,
             concurrent_to: object = None, extra_headers: object = (),
             uri_optional: bool = False) -> list[tuple[str, str]]:
    """Check the arguments every record method shares; return the extra headers as pairs."""
    _args.check_str(method, "target_uri", target_uri, optional=uri_optional)
    _args.check_date(method, date)
    _args.check_str(method, "ip", ip, optional=True)
    _args.check_refs(method, "concurrent_to", concurrent_to, many=True)
    return _args.check_fields(method, "extra_headers", extra_headers, optional=False) or []


@dataclass
class _Series:
    name: str
    encoder: RecordEncoder
    rolling: RollingFile
    warcinfo_id: str | None = None
    records: list[str] = field(default_factory=list)


class WarcWriter:
    """Write valid WARC files: warcinfo first, mandatory fields filled, rules enforced.

    Safe to share between threads (a crawler's workers): each record's body is read
    and hashed in the calling thread, then the record is placed under the writer's
    lock, so records go into the files whole, one after the other (a thread's records
    in its call order), and every :class:`WrittenRecord` location is exact. Not
    fork-safe while records are in flight: :meth:`flush` before forking.

    Args:
        directory: Output directory (created, with its parents, if missing).
        prefix: File-name prefix (``{prefix}`` in the template).
        version: ``"1.1"`` (default; microsecond WARC-Date) or ``"1.0"`` (seconds).
        compression: ``"gzip"`` (default), ``"zstd"`` or ``"none"``.
        level: Compression level: gzip per backend (libdeflate 0-12, default 5; isal
            0-3; zlib-ng / zlib 0-9), zstd 1-22.
        zstd_dictionary: Raw zstd dictionary; written as the IIPC dictionary frame at
            the start of each ``.warc.zst`` file and used for every frame.
        max_bytes: Roll to a new file before this many bytes (on disk) would be
            exceeded. ``None``: no limit.
        max_records: Roll after this many records (warcinfo not counted).
        template: File-name template (see :mod:`warckit.write.rolling`).
        fsync: ``fsync`` each file before dropping its ``.open`` suffix.
        warcinfo: Extra ``application/warc-fields`` for every file's warcinfo record
            (``operator``, ``description``, ``isPartOf``, ``robots``, …). ``software``,
            ``format``, ``conformsTo`` and ``hostname`` are filled unless given.
        digest: ``"sha1"`` (default) or ``"sha256"`` (any hashlib name).
        digest_encoding: ``"base32"`` (sha1 default) or ``"base16"``.
        payload_digest: ``"warc1.1"`` (default: the HTTP entity after removing the
            chunked transfer-coding) or ``"legacy"`` (the body as stored).
        segment_size: Blocks larger than this are written as a first segment plus
            ``continuation`` records (WARC 1.1 §7). ``None``: never segment.
        hybrid: A :class:`HybridPolicy` routing already-compressed payloads to a
            separate uncompressed ``.warc`` series (each series rolls on its own and
            has its own warcinfo). Only with ``compression`` other than ``"none"``.
        host: ``{host}`` in file names and the warcinfo ``hostname``.
        port: ``{port}`` in file names.
        gzip_backend: ``"libdeflate"`` (default when the ``deflate`` package is
            installed), ``"isal"``, ``"zlib-ng"`` or ``"zlib"``
            (:data:`warckit.write.writer.GZIP_BACKENDS`). All write standard gzip members.
        threads: Compress on a worker thread (default: when the machine has more
            than one CPU). With the libdeflate backend every record's head and block
            go to a native worker thread and the method returns at once: the record
            reaches the file, in call order, when its compression is done (checked at
            each call; at most :data:`MAX_PENDING` records or
            :data:`MAX_PENDING_BYTES` in flight), on :meth:`flush` / :meth:`close`,
            or when its :class:`WrittenRecord` location is read. An error writing a
            record in flight surfaces from a later call. Other backends compress
            blocks of 256 KiB and more on a thread while hashing. The output is the
            same either way.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        prefix: str = "WARC",
        version: str = "1.1",
        compression: str = "gzip",
        level: int | None = None,
        zstd_dictionary: bytes | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        max_records: int | None = None,
        template: str = DEFAULT_TEMPLATE,
        fsync: bool = True,
        warcinfo: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        digest: str = "sha1",
        digest_encoding: str | None = None,
        payload_digest: str = "warc1.1",
        segment_size: int | None = None,
        hybrid: HybridPolicy | None = None,
        host: str | None = None,
        port: int | str = 0,
        gzip_backend: str | None = None,
        threads: bool | None = None,
    ) -> None:
        if version not in ("1.0", "1.1"):
            raise UsageError(f"version must be '1.1' or '1.0', not {version!r}")
        if payload_digest not in ("warc1.1", "legacy"):
            raise UsageError("payload_digest must be 'warc1.1' or 'legacy'")
        convention = payload_convention(payload_digest)
        if segment_size is not None and segment_size <= 0:
            raise UsageError("segment_size must be positive")
        if hybrid is not None and compression == "none":
            raise UsageError("a hybrid policy needs a compressed main series")
        # Fails early on a bad algorithm; the empty digest is the validation placeholder.
        probe = Digester(digest, encoding=digest_encoding)
        self._blank_digest = str(probe.digest())
        self._new_hash, self._format_hash = _hash_functions(probe.algorithm, digest_encoding)
        items = _args.check_fields("WarcWriter", "warcinfo", warcinfo) or []
        self.directory = os.fspath(directory)
        try:
            os.makedirs(self.directory, exist_ok=True)  # as `dedup apply` does
        except FileExistsError:
            raise UsageError(f"output directory {self.directory!r} is not a directory") from None
        self.version = version
        self.digest = digest
        self.digest_encoding = digest_encoding
        self.payload_convention = convention
        self.segment_size = segment_size
        self.hybrid = hybrid
        self.host = host or socket.gethostname()
        self._warcinfo_fields = self._info_fields(items)
        self._closed = False
        # Held while records are placed (and while anything reads or changes the
        # files, the series or the records in flight); reentrant, because a
        # WrittenRecord's location settles through it.
        self._lock = threading.RLock()
        # Records whose blocks the worker thread is compressing, oldest first:
        # (series, encode, sink, record); written, in order, before anything else is.
        self._pending: deque[tuple[_Series, Any, BlockSink, WrittenRecord]] = deque()
        self._pending_bytes = 0
        common: dict[str, Any] = {
            "prefix": prefix, "template": template, "max_bytes": max_bytes,
            "max_records": max_records, "fsync": fsync, "host": self.host.split(".")[0],
            "port": port,
        }
        main_encoder = RecordEncoder(compression, level=level, zstd_dictionary=zstd_dictionary,
                                     backend=gzip_backend, threads=threads)
        self._series: dict[str, _Series] = {}
        self._add_series("main", main_encoder, common)
        if hybrid is not None:
            self._add_series("uncompressed", RecordEncoder("none"), common)

    # -- configuration ----------------------------------------------------------------

    def _info_fields(self, items: list[tuple[str, str]]) -> list[tuple[str, str]]:
        given = {k.lower() for k, _ in items}
        defaults = [
            ("software", f"warckit/{__version__} (https://pypi.org/project/warckit/)"),
            ("format", f"WARC File Format {self.version}"),
            ("conformsTo", _CONFORMS_TO[self.version]),
            ("hostname", self.host),
        ]
        return [(k, v) for k, v in defaults if k.lower() not in given] + items

    def _add_series(self, name: str, encoder: RecordEncoder, common: dict[str, Any]) -> None:
        holder: list[_Series] = []

        def on_open(filename: str) -> EncodedRecord:
            return self._open_file(holder[0], filename)

        rolling = RollingFile(self.directory, ext=file_suffix(encoder.compression),
                              preamble=encoder.preamble(), on_open=on_open, **common)
        series = _Series(name, encoder, rolling)
        holder.append(series)
        self._series[name] = series

    @property
    def files(self) -> list[str]:
        """Paths of the files finished so far (all of them after :meth:`close`)."""
        with self._lock:
            self._settle()
            out: list[str] = []
            for s in self._series.values():
                out += s.rolling.closed_files
            return out

    @property
    def open_files(self) -> list[str]:
        """Paths (with ``.open``) of the files being written now."""
        with self._lock:
            self._settle()
            return [s.rolling.path + ".open" for s in self._series.values() if s.rolling.path]

    @property
    def issues(self) -> list[Issue]:
        """Records that failed to be written (e.g. disk full), oldest first: what was
        cut off again, and files left with their ``.open`` name (see
        :attr:`abandoned_files`)."""
        with self._lock:
            return [i for s in self._series.values() for i in s.rolling.issues]

    @property
    def abandoned_files(self) -> list[str]:
        """Files left with their ``.open`` name: their last record is torn and could
        not be cut off. Empty unless writing failed and the file could not be cut."""
        with self._lock:
            return [p for s in self._series.values() for p in s.rolling.abandoned_files]

    # -- small helpers ------------------------------------------------------------------

    @staticmethod
    def new_record_id() -> str:
        """A fresh ``<urn:uuid:…>`` record ID."""
        return f"<urn:uuid:{uuid.uuid4()}>"

    def format_date(self, when: datetime | str | None = None) -> str:
        """A WARC-Date for *when* (default now) at this writer's version's precision."""
        if isinstance(when, str):
            return when
        when = when or datetime.now(timezone.utc)
        return format_warc_date(when, precision="microseconds" if self.version == "1.1" else "seconds")

    def _digester(self) -> Digester:
        return Digester(self.digest, encoding=self.digest_encoding)

    def _check(self, headers: Headers, block_length: int | None = None) -> None:
        issues = [i for i in _validate.validate_headers(headers, self.version, block_length=block_length)
                  if i.severity == "error"]
        if issues:
            raise ValidationError(issues)

    # -- warcinfo -----------------------------------------------------------------------

    def _warcinfo_block(self, items: Iterable[tuple[str, str]]) -> bytes:
        lines = []
        for k, v in items:
            if "\n" in k or "\r" in k or "\n" in v or "\r" in v or ":" in k:
                raise ValidationError([Issue("bad-syntax", "warcinfo field names/values must not "
                                             "contain CR/LF (names no colon)", "error", field=k)])
            lines.append(f"{k}: {v}\r\n")
        return "".join(lines).encode() + b"\r\n"

    def _warcinfo_record(self, series: _Series, filename: str | None,
                         block: bytes, content_type: str) -> tuple[str, EncodedRecord, dict[str, Any]]:
        rid = self.new_record_id()
        date = self.format_date()
        d = self._digester()
        d.update(block)
        fields = [("WARC-Type", "warcinfo"), ("WARC-Record-ID", rid), ("WARC-Date", date)]
        if filename is not None:
            fields.append(("WARC-Filename", filename))
        fields += [("WARC-Block-Digest", str(d.digest())), ("Content-Type", content_type),
                   ("Content-Length", str(len(block)))]
        headers = Headers(fields)
        self._check(headers, len(block))
        enc = series.encoder.encode_bytes(head_bytes(self.version, headers), block)
        return rid, enc, {"date": date, "block_digest": str(d.digest())}

    def _open_file(self, series: _Series, filename: str) -> EncodedRecord:
        block = self._warcinfo_block(self._warcinfo_fields)
        rid, enc, _ = self._warcinfo_record(series, filename, block, "application/warc-fields")
        series.warcinfo_id = rid
        return enc

    def warcinfo(
        self,
        fields: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        block: bytes | None = None,
        content_type: str = "application/warc-fields",
    ) -> WrittenRecord:
        """Write an additional warcinfo record into the current main file.

        Every file already starts with a warcinfo generated from the writer's
        configuration; use this for extra descriptions (e.g. a crawl-job change).

        Args:
            fields: ``application/warc-fields`` content.
            block: Or the raw block (with another *content_type*).
            content_type: Content-Type of the block.

        Raises:
            UsageError: an argument has the wrong type (named in the message).
        """
        items = _args.check_fields("warcinfo", "fields", fields)
        if block is not None and not isinstance(block, (bytes, bytearray, memoryview)):
            raise UsageError(f"warcinfo(): block must be bytes, not {type(block).__name__}")
        _args.check_str("warcinfo", "content_type", content_type)
        if block is None:
            block = self._warcinfo_block(items or [])
        with self._lock:
            return self._warcinfo_locked(block, content_type)

    def _warcinfo_locked(self, block: bytes, content_type: str) -> WrittenRecord:
        if self._closed:
            raise UsageError("the writer is closed")
        self._settle()
        series = self._series["main"]
        if not series.rolling.is_open:
            series.rolling.open_new()
        rid, enc, meta = self._warcinfo_record(series, series.rolling.filename, block, content_type)
        if not series.rolling.fits(enc.size):
            series.rolling.open_new()
            rid, enc, meta = self._warcinfo_record(series, series.rolling.filename, block, content_type)
        filename, offset, length = series.rolling.write(enc)
        return WrittenRecord(rid, "warcinfo", None, meta["date"], filename,
                             os.path.join(self.directory, filename), offset, length,
                             meta["block_digest"], None)

    # -- the core -----------------------------------------------------------------------

    def _emit(
        self,
        rtype: str,
        *,
        target_uri: str | None,
        fields: list[tuple[str, str]],
        prefix: bytes = b"",
        body: Body = None,
        payload: str | None,
        chunked: bool = False,
        content_type: str | None,
        date: datetime | str | None,
        extra: Iterable[tuple[str, str]] = (),
        payload_digest: str | None = None,
        series_name: str = "main",
        record_id: str | None = None,
    ) -> WrittenRecord:
        """Stream the block once, fill the fields, validate, encode, roll, write."""
        if self._closed:
            raise UsageError("the writer is closed")
        series = self._series[series_name]
        rid = record_id or self.new_record_id()
        wdate = self.format_date(date)
        extra = list(extra)

        def build(warcinfo_id: str | None, block_digest: str, payload_d: str | None,
                  length: int, segment: int | None = None) -> Headers:
            h: list[tuple[str, str]] = [("WARC-Type", rtype), ("WARC-Record-ID", rid),
                                        ("WARC-Date", wdate)]
            if target_uri is not None:
                h.append(("WARC-Target-URI", target_uri))
            h += fields
            if warcinfo_id is not None:
                h.append(("WARC-Warcinfo-ID", warcinfo_id))
            h += extra
            if segment is not None:
                h.append(("WARC-Segment-Number", str(segment)))
            h.append(("WARC-Block-Digest", block_digest))
            if payload_d is not None:
                h.append(("WARC-Payload-Digest", payload_d))
            if content_type is not None and (length or rtype == "revisit" or prefix):
                h.append(("Content-Type", content_type))
            h.append(("Content-Length", str(length)))
            return Headers(h)

        # Validate everything the caller chose before the body is consumed. The
        # placeholders have the form of the values filled in later (a digest of this
        # writer's algorithm and encoding, a record ID), so this is the only check the
        # record needs: what changes afterwards is generated here and valid by construction.
        blank = self._blank_digest
        placeholder = build(_BLANK_ID, blank, payload_digest or (blank if payload else None), 1)
        # A body in memory is not consumed by reading it: its compression may start
        # before the check (nothing is written until the check passed).
        early = isinstance(body, (bytes, bytearray, memoryview)) or body is None
        if not early:
            self._check(placeholder)

        segmenting = self.segment_size is not None
        sink = BlockSink("none") if segmenting else series.encoder.sink()
        new_hash = self._new_hash
        block_d = new_hash()
        payload_d: Any = None
        if payload == "http":
            payload_d = PayloadDigester(self.digest, encoding=self.digest_encoding,
                                        convention=self.payload_convention, chunked=chunked)
        elif payload is not None:
            payload_d = new_hash()
        payload_prefix = payload == "block"

        def digest(data: bytes, is_prefix: bool) -> None:
            block_d.update(data)
            if payload_d is not None and (payload_prefix or not is_prefix):
                payload_d.update(data)

        kept = False
        locked = False
        try:
            # While a gzip sink holds the block in memory, hashing waits until the block
            # is complete: with a backend other than libdeflate its compression then
            # starts first (on a worker thread for large blocks) and overlaps the
            # hashing and head building here; libdeflate waits for the head (below).
            held: list[tuple[bytes, bool]] = []
            if prefix:
                sink.write(prefix)
                held.append((prefix, True))
            for data in iter_source(body):
                sink.write(data)
                held.append((data, False))
                if not sink.in_memory:
                    for piece, is_prefix in held:
                        digest(piece, is_prefix)
                    held.clear()
            if not segmenting:
                sink.finish()
            if early:
                self._check(placeholder)
            for piece, is_prefix in held:
                digest(piece, is_prefix)
            held.clear()
            convention: str | None = None
            pd_text = payload_digest
            if isinstance(payload_d, PayloadDigester):
                # Quirk: a body that claims chunked coding but is not well-formed has no
                # de-chunked entity; the digest falls back to the stored bytes (legacy).
                pd_text = payload_d.text()
                convention = payload_d.convention
            elif payload_d is not None:
                pd_text = self._format_hash(payload_d)
            length = sink.length
            # The body is read: place the record under the lock (records whole, one
            # after the other, with exact offsets, whatever other threads do).
            self._lock.acquire()
            locked = True
            if self._closed:
                raise UsageError("the writer is closed")
            if segmenting and self.segment_size is not None and length > self.segment_size:
                return self._emit_segmented(series, sink, build, rid, rtype, target_uri, wdate,
                                            pd_text, convention)
            if segmenting:
                raw = sink
                sink = series.encoder.sink()
                for chunk in raw.raw_chunks():
                    sink.write(chunk)
                raw.close()
            bd = self._format_hash(block_d)
            # The head as it will be if the record goes into the current file; the
            # worker thread starts on it (and the block) now.
            wid0 = series.warcinfo_id
            head0 = head_bytes(self.version, build(wid0, bd, pd_text, length))
            series.encoder.start(head0, sink)

            def encode(wid: str | None) -> EncodedRecord:
                head = head0 if wid == wid0 else head_bytes(self.version, build(wid, bd, pd_text, length))
                return series.encoder.encode(head, sink)

            if sink.pending:
                # The worker thread compresses the block: return now and write the record
                # once it is compressed (checked at each call), when too much is in
                # flight, on flush / close, or when its location is asked for. The
                # compression overlaps the caller's next records.
                record = WrittenRecord(rid, rtype, target_uri, wdate, "", "", -1, -1, bd,
                                       pd_text, 1, convention)
                object.__setattr__(record, "_settle", partial(self._settle, record))
                self._pending.append((series, encode, sink, record))
                self._pending_bytes += length
                kept = True
                self._drain()
                return record
            self._settle()
            filename, offset, size = self._place(series, encode)
        finally:
            if not kept:
                sink.close()
            if locked:
                self._lock.release()
        return WrittenRecord(rid, rtype, target_uri, wdate, filename,
                             os.path.join(self.directory, filename), offset, size, bd, pd_text,
                             1, convention)

    def _drain(self) -> None:
        """Write the pending records that are compressed, and the oldest ones while more
        than :data:`MAX_PENDING` records or :data:`MAX_PENDING_BYTES` are in flight."""
        pending = self._pending
        while pending and (len(pending) > MAX_PENDING or self._pending_bytes > MAX_PENDING_BYTES
                           or pending[0][2].done):
            self._write_pending()

    def _settle(self, until: WrittenRecord | None = None) -> None:
        """Write the pending records, in order: all, or up to and including *until*."""
        with self._lock:
            pending = self._pending
            while pending:
                if until is not None and until._settle is None:
                    return  # placed meanwhile (by another thread)
                record = pending[0][3]
                self._write_pending()
                if record is until:
                    return

    def _write_pending(self) -> None:
        series, encode, sink, record = self._pending.popleft()
        self._pending_bytes -= sink.length
        try:
            filename, offset, size = self._place(series, encode)
        except BaseException as exc:
            # Asking this record for its location again raises the same error.
            object.__setattr__(record, "_settle", partial(_reraise, exc))
            raise
        finally:
            sink.close()
        record._placed(filename, os.path.join(self.directory, filename), offset, size)

    def _place(self, series: _Series, encode: Any) -> tuple[str, int, int]:
        """Encode with the current file's warcinfo ID, roll if it does not fit, write."""
        rolling = series.rolling
        if not rolling.is_open:
            rolling.open_new()
        enc: EncodedRecord = encode(series.warcinfo_id)
        if not rolling.fits(enc.size):
            rolling.open_new()
            enc = encode(series.warcinfo_id)
        return rolling.write(enc)

    def _emit_segmented(self, series: _Series, raw: BlockSink, build: Any, rid: str, rtype: str,
                        target_uri: str | None, wdate: str, pd_text: str | None,
                        convention: str | None) -> WrittenRecord:
        assert self.segment_size is not None
        self._settle()
        total = raw.length
        seg_size = self.segment_size
        first: tuple[str, int, int, str] | None = None
        number = 0
        chunks = raw.raw_chunks()
        pending = b""
        done = 0
        while done < total:
            number += 1
            want = min(seg_size, total - done)
            sink = series.encoder.sink()
            d = self._digester()
            got = 0
            try:
                while got < want:
                    if not pending:
                        pending = next(chunks)
                    piece = pending[: want - got]
                    pending = pending[len(piece):]
                    sink.write(piece)
                    d.update(piece)
                    got += len(piece)
                done += got
                bd = str(d.digest())
                cid = self.new_record_id()
                last = done >= total

                def encode(wid: str | None, bd: str = bd, got: int = got, sink: BlockSink = sink,
                           cid: str = cid, number: int = number, last: bool = last) -> EncodedRecord:
                        if number == 1:
                            return series.encoder.encode(
                                head_bytes(self.version, build(wid, bd, pd_text, got, 1)), sink)
                        h: list[tuple[str, str]] = [
                            ("WARC-Type", "continuation"), ("WARC-Record-ID", cid),
                            ("WARC-Date", wdate)]
                        if target_uri is not None:
                            h.append(("WARC-Target-URI", target_uri))
                        if wid is not None:
                            h.append(("WARC-Warcinfo-ID", wid))
                        h += [("WARC-Segment-Origin-ID", rid), ("WARC-Segment-Number", str(number))]
                        if last:
                            h.append(("WARC-Segment-Total-Length", str(total)))
                        h += [("WARC-Block-Digest", bd), ("Content-Length", str(got))]
                        headers = Headers(h)
                        self._check(headers, got)
                        return series.encoder.encode(head_bytes(self.version, headers), sink)
                if number == 1:
                    self._check(build(series.warcinfo_id, bd, pd_text, got, 1), got)
                placed = self._place(series, encode)
                if first is None:
                    first = (*placed, bd)
            finally:
                sink.close()
        raw.close()
        assert first is not None
        filename, offset, size, bd0 = first
        return WrittenRecord(rid, rtype, target_uri, wdate, filename,
                             os.path.join(self.directory, filename), offset, size, bd0, pd_text,
                             number, convention)

    # -- per-type methods ---------------------------------------------------------------

    def _http(self, http_head: Any, kind: str) -> tuple[bytes, Any]:
        raw = _http_bytes(http_head)
        if not raw.endswith(b"\r\n\r\n") and not raw.endswith(b"\n\n"):
            raise ValidationError([Issue("bad-http-head", "the HTTP head must end with an empty "
                                         "line (CRLF CRLF); pass the body separately", "error")])
        try:
            head = parse_http_head(raw, lenient=True)
        except HttpParseError as exc:
            raise ValidationError([Issue("bad-http-head", f"not an HTTP {kind} head: {exc}",
                                         "error")]) from None
        if kind == "response" and not head.is_response:
            raise ValidationError([Issue("bad-http-head", "a response block starts with an HTTP "
                                         "status line", "error")])
        if kind == "request" and head.is_response:
            raise ValidationError([Issue("bad-http-head", "a request block starts with an HTTP "
                                         "request line", "error")])
        return raw, head

    def _route(self, content_type: str | None, size: int | None, encoding: str | None) -> str:
        if self.hybrid is not None and self.hybrid.uncompressed(content_type, size, encoding):
            return "uncompressed"
        return "main"

    def _common(self, concurrent_to: Any, ip: str | None) -> list[tuple[str, str]]:
        out = []
        if ip is not None:
            out.append(("WARC-IP-Address", ip))
        out += [("WARC-Concurrent-To", r) for r in _refs(concurrent_to)]
        return out

    def _linked_date(self, date: datetime | str | None, links: Any) -> datetime | str | None:
        """Records of one capture event share one WARC-Date (WARC 1.1 §5.4)."""
        if date is not None:
            return date
        for ref in (links if isinstance(links, (list, tuple)) else [links]):
            if isinstance(ref, WrittenRecord):
                return ref.date
        return None

    def _http_record(self, rtype: str, target_uri: str, http_head: Any, body: Body,
                     body_length: int | None, concurrent_to: Any, ip: str | None,
                     date: datetime | str | None, extra: Iterable[tuple[str, str]],
                     truncated: str | None, identified_payload_type: str | None) -> WrittenRecord:
        raw, head = self._http(http_head, rtype)
        fields = self._common(concurrent_to, ip)
        if truncated is not None:
            fields.append(("WARC-Truncated", truncated))
        if identified_payload_type is not None:
            fields.append(("WARC-Identified-Payload-Type", identified_payload_type))
        size = _known_length(body)
        if size is None:
            size = body_length
        if size is None:
            cl = head.headers.first("Content-Length")
            size = int(cl) if cl and cl.strip().isdigit() else None
        ce = head.headers.first("Content-Encoding")
        series = self._route(head.content_type, size, ce) if rtype == "response" else "main"
        return self._emit(
            rtype, target_uri=target_uri, fields=fields, prefix=raw, body=body, payload="http",
            chunked=head.chunked, content_type=f"application/http;msgtype={rtype}",
            date=self._linked_date(date, concurrent_to), extra=extra, series_name=series)

    def request(
        self,
        target_uri: str,
        http_head: bytes | Any,
        body: Body = b"",
        *,
        body_length: int | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``request`` record: the HTTP request head plus its body.

        Args:
            target_uri: The requested URI.
            http_head: The request head as sent, ending with the empty line.
            body: Request body (bytes, stream or iterable of bytes).
            body_length: Length of a streamed body if known (only used for routing).
            concurrent_to: Records of the same capture event (usually the response).
            ip: WARC-IP-Address of the server.
            date: Capture time (default: now; or the linked record's date).
            extra_headers: Additional WARC fields, written as given.

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra = _checked("request", target_uri, date=date, ip=ip, concurrent_to=concurrent_to,
                         extra_headers=extra_headers)
        _args.check_http_head("request", http_head)
        body = _args.check_body("request", body)
        _args.check_int("request", "body_length", body_length)
        return self._http_record("request", target_uri, http_head, body, body_length,
                                 concurrent_to, ip, date, extra, None, None)

    def response(
        self,
        target_uri: str,
        http_head: bytes | Any,
        body: Body = b"",
        *,
        body_length: int | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        truncated: str | None = None,
        identified_payload_type: str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``response`` record: the HTTP response head plus the body as received.

        The payload digest covers the entity: with ``Transfer-Encoding: chunked`` the
        chunk framing is removed first (WARC 1.1), unless the writer was created with
        ``payload_digest="legacy"``.

        Args:
            target_uri: The URI fetched.
            http_head: The response head as received, ending with the empty line.
            body: The body as received (still chunked / content-encoded).
            body_length: Length of a streamed body if known (used for routing).
            concurrent_to: The request record (and others of the capture event).
            ip: WARC-IP-Address of the server.
            date: Capture time (default: now; or the linked record's date).
            truncated: WARC-Truncated reason when the body is incomplete.
            identified_payload_type: WARC-Identified-Payload-Type from sniffing.
            extra_headers: Additional WARC fields, written as given.

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra = _checked("response", target_uri, date=date, ip=ip, concurrent_to=concurrent_to,
                         extra_headers=extra_headers)
        _args.check_http_head("response", http_head)
        body = _args.check_body("response", body)
        _args.check_int("response", "body_length", body_length)
        _args.check_str("response", "truncated", truncated, optional=True)
        _args.check_str("response", "identified_payload_type", identified_payload_type,
                        optional=True)
        return self._http_record("response", target_uri, http_head, body, body_length,
                                 concurrent_to, ip, date, extra, truncated,
                                 identified_payload_type)

    def resource(
        self,
        target_uri: str,
        body: Body,
        *,
        content_type: str,
        body_length: int | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        truncated: str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``resource`` record: content without protocol framing (a file, a DNS answer).

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra_headers = _checked("resource", target_uri, date=date, ip=ip,
                                 concurrent_to=concurrent_to, extra_headers=extra_headers)
        body = _args.check_body("resource", body)
        _args.check_str("resource", "content_type", content_type)
        _args.check_int("resource", "body_length", body_length)
        _args.check_str("resource", "truncated", truncated, optional=True)
        fields = self._common(concurrent_to, ip)
        if truncated is not None:
            fields.append(("WARC-Truncated", truncated))
        size = _known_length(body) if body_length is None else body_length
        return self._emit("resource", target_uri=target_uri, fields=fields, body=body,
                          payload="block", content_type=content_type,
                          date=self._linked_date(date, concurrent_to), extra=extra_headers,
                          series_name=self._route(content_type, size, None))

    def metadata(
        self,
        target_uri: str | None = None,
        fields: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        body: Body = None,
        content_type: str = "application/warc-fields",
        refers_to: RecordRef | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``metadata`` record (``via``, ``hopsFromSeed``, ``outlink``… as warc-fields).

        Args:
            target_uri: The URI the metadata describes.
            fields: ``application/warc-fields`` content (repeated names allowed as pairs).
            body: Or a raw block in another *content_type*.
            content_type: Content-Type of the block.
            refers_to: The record described.
            concurrent_to: Records of the same capture event.
            date: Default now (or the linked record's date).
            extra_headers: Additional WARC fields.

        Raises:
            UsageError: an argument has the wrong type (named in the message), or both
                *fields* and *body* were given.
        """
        extra_headers = _checked("metadata", target_uri, date=date, concurrent_to=concurrent_to,
                                 extra_headers=extra_headers, uri_optional=True)
        items = _args.check_fields("metadata", "fields", fields)
        body = _args.check_body("metadata", body)
        _args.check_str("metadata", "content_type", content_type)
        _args.check_refs("metadata", "refers_to", refers_to, many=False)
        if items is not None and body is not None:
            raise UsageError("metadata(): give fields or body, not both")
        if body is None:
            body = self._warcinfo_block(items or [])
        wfields = self._common(concurrent_to, None)
        if refers_to is not None:
            wfields.append(("WARC-Refers-To", _ref_id(refers_to)))
        return self._emit("metadata", target_uri=target_uri, fields=wfields, body=body,
                          payload=None, content_type=content_type,
                          date=self._linked_date(date, concurrent_to or refers_to),
                          extra=extra_headers)

    def conversion(
        self,
        target_uri: str,
        body: Body,
        *,
        content_type: str,
        refers_to: RecordRef | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``conversion`` record: an alternative version of *refers_to*'s content.

        Raises:
            ValidationError: a field breaks a rule; nothing was written.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra_headers = _checked("conversion", target_uri, date=date, extra_headers=extra_headers)
        body = _args.check_body("conversion", body)
        _args.check_str("conversion", "content_type", content_type)
        _args.check_refs("conversion", "refers_to", refers_to, many=False)
        fields = [("WARC-Refers-To", _ref_id(refers_to))] if refers_to is not None else []
        return self._emit("conversion", target_uri=target_uri, fields=fields, body=body,
                          payload="block", content_type=content_type, date=date,
                          extra=extra_headers)

    def revisit(
        self,
        target_uri: str,
        *,
        profile: str = "identical-payload-digest",
        refers_to: RecordRef | None = None,
        refers_to_target_uri: str | None = None,
        refers_to_date: datetime | str | None = None,
        payload_digest: str | Digest | None = None,
        http_head: bytes | Any | None = None,
        concurrent_to: RecordRef | Sequence[RecordRef] | None = None,
        ip: str | None = None,
        date: datetime | str | None = None,
        extra_headers: Iterable[tuple[str, str]] = (),
    ) -> WrittenRecord:
        """Write a ``revisit`` record: a capture whose payload is not stored again.

        Args:
            target_uri: The URI captured now.
            profile: ``"identical-payload-digest"`` or ``"server-not-modified"``; the
                WARC 1.1 or 1.0 profile URI is written accordingly.
            refers_to: The original record (a :class:`WrittenRecord`, a record read by
                warckit, or its ID). Fills WARC-Refers-To and, unless given,
                the target URI, date and payload digest of the original.
            refers_to_target_uri: The original's target URI (URI-agnostic revisits:
                may differ from *target_uri*).
            refers_to_date: The original's WARC-Date.
            payload_digest: The original payload's digest (mandatory for
                identical-payload-digest, taken from *refers_to* when it has one).
            http_head: The revisited response's HTTP head; kept as the block with
                ``WARC-Truncated: length``.
            concurrent_to: Records of the same capture event.
            ip: WARC-IP-Address.
            date: Capture time.
            extra_headers: Additional WARC fields (e.g. ``WARC-Etag``).

        Raises:
            ValidationError: e.g. no payload digest for an identical-payload-digest revisit.
            UsageError: an argument has the wrong type (named in the message).
        """
        extra_headers = _checked("revisit", target_uri, date=date, ip=ip,
                                 concurrent_to=concurrent_to, extra_headers=extra_headers)
        _args.check_str("revisit", "profile", profile)
        _args.check_refs("revisit", "refers_to", refers_to, many=False)
        _args.check_str("revisit", "refers_to_target_uri", refers_to_target_uri, optional=True)
        _args.check_date("revisit", refers_to_date, "refers_to_date")
        _args.check_digest("revisit", "payload_digest", payload_digest)
        if http_head is not None:
            _args.check_http_head("revisit", http_head)
        uris = _validate.PROFILE_URIS[self.version]
        if profile not in uris:
            if "://" not in profile:
                raise UsageError(f"unknown revisit profile {profile!r}; use one of {sorted(uris)}")
            profile_uri = profile
        else:
            profile_uri = uris[profile]
        fields: list[tuple[str, str]] = []
        if refers_to is not None:
            fields.append(("WARC-Refers-To", _ref_id(refers_to)))
            if refers_to_target_uri is None:
                refers_to_target_uri = getattr(refers_to, "target_uri", None)
            if refers_to_date is None:
                refers_to_date = getattr(refers_to, "date_string", None) or (
                    refers_to.date if isinstance(refers_to, WrittenRecord) else None)
            if payload_digest is None:
                pd = getattr(refers_to, "payload_digest", None)
                payload_digest = str(pd) if pd is not None else None
        # Quirk: WARC-Refers-To-Target-URI / -Date are WARC 1.1 fields; Heritrix writes
        # them into WARC/1.0 revisits too, and so do we (readers ignore unknown fields).
        if refers_to_target_uri is not None and (
                profile_uri.endswith("identical-payload-digest") or refers_to_target_uri != target_uri):
            fields.append(("WARC-Refers-To-Target-URI", refers_to_target_uri))
        if refers_to_date is not None:
            if isinstance(refers_to_date, datetime):
                rdate = self.format_date(refers_to_date)
            else:
                rdate = refers_to_date
                if self.version == "1.0" and "." in rdate:
                    parsed = parse_warc_date(rdate)
                    if parsed is not None:
                        rdate = self.format_date(parsed)
            fields.append(("WARC-Refers-To-Date", rdate))
        fields += self._common(concurrent_to, ip)
        fields.append(("WARC-Profile", profile_uri))
        raw = b""
        if http_head is not None:
            raw, _ = self._http(http_head, "response")
            fields.append(("WARC-Truncated", "length"))
        return self._emit(
            "revisit", target_uri=target_uri, fields=fields, prefix=raw, body=None, payload=None,
            content_type="application/http;msgtype=response" if raw else None, date=date,
            extra=extra_headers,
            payload_digest=str(payload_digest) if payload_digest is not None else None)

    # -- as-is path ---------------------------------------------------------------------

    def write_record(
        self,
        record: Any = None,
        *,
        headers: Headers | None = None,
        block: Body = b"",
        version: str | None = None,
        validate: bool = True,
    ) -> WrittenRecord:
        """Write a record exactly as given (copying, repair), into the current main file.

        A record read by warckit is written byte-identically (its original head bytes
        and block). Alternatively give *headers* and *block*. The record keeps its own
        fields (including any WARC-Warcinfo-ID); nothing is filled in.

        Args:
            record: A record read by warckit.
            headers: Or the named fields to write...
            block: ...and the block.
            version: Version line for *headers* (default: the writer's).
            validate: Check the rule table and Content-Length first. ``False`` writes
                anything (explicit opt-out for repair work).

        Raises:
            ValidationError: the record breaks a rule; nothing was written.
        """
        series = self._series["main"]
        raw_head: bytes | None = None
        if record is not None:
            headers = record.headers
            version = record.version
            raw_head = record.raw_head or None
            block = record.raw_stream()
        if headers is None:
            raise UsageError("give a record, or headers and a block")
        version = version or self.version
        head, sink = prepare_given(series.encoder, headers, block, version, validate, raw_head)
        try:
            with self._lock:
                if self._closed:
                    raise UsageError("the writer is closed")
                self._settle()
                filename, offset, size = self._place(
                    series, lambda _wid: series.encoder.encode(head, sink))
        finally:
            sink.close()
        pd = headers.first("WARC-Payload-Digest")
        return WrittenRecord(headers.first("WARC-Record-ID") or "", headers.first("WARC-Type") or "",
                             headers.first("WARC-Target-URI"), headers.first("WARC-Date") or "",
                             filename, os.path.join(self.directory, filename), offset, size,
                             headers.first("WARC-Block-Digest"), pd)

    # -- lifecycle ----------------------------------------------------------------------

    def flush(self) -> None:
        """Write the records in flight: every record returned so far is then in its
        file (files are unbuffered)."""
        with self._lock:
            self._settle()
            for s in self._series.values():
                s.rolling.flush()

    def roll(self) -> None:
        """Close the current files now; the next record starts new ones."""
        with self._lock:
            self._settle()
            for s in self._series.values():
                s.rolling.close()

    def close(self) -> None:
        """Finish every file (fsync unless disabled, drop ``.open``).

        Records still in flight are written first. If one of them fails, the records
        behind it are not written (their :class:`WrittenRecord` location raises the
        error), the files are still finished, and the error is raised. A file gets
        its final name only if it ends at a complete record (see :attr:`issues`).
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._settle()
            except BaseException as exc:
                self._abandon_pending(exc)
                raise
            finally:
                for s in self._series.values():
                    try:
                        s.rolling.close()
                    finally:
                        s.encoder.close()

    def _abandon_pending(self, exc: BaseException) -> None:
        """Drop the records in flight after a failure: asking them for their location
        raises *exc*."""
        while self._pending:
            _series, _encode, sink, record = self._pending.popleft()
            sink.close()
            object.__setattr__(record, "_settle", partial(_reraise, exc))
        self._pending_bytes = 0

    def __del__(self) -> None:
        # A writer dropped without close(): its records in flight still reach the
        # (.open) file, as they would have without the worker thread. Best effort.
        if getattr(self, "_pending", None) and not getattr(self, "_closed", True):
            try:
                self._settle()
            except Exception:  # noqa: BLE001, S110 - nobody to report to in a finalizer
                pass

    def __enter__(self) -> WarcWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Alias: the guided writer.
GuidedWriter = WarcWriter
