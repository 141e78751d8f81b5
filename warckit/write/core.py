"""The guided writer's engine: options, output series, and the one path every record
takes (stream the block once, hash, fill the head, check, encode, roll, write).

:class:`~warckit.write.guided.WarcWriter` is the facade with one method per record
type; the heads come from :mod:`warckit.write.build`, the bytes from
:mod:`warckit.write.encode`, the records in flight wait in a
:class:`~warckit.write.pipeline.PendingQueue`, large blocks are split by
:mod:`warckit.write.segment`.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Union

from .._version import __version__
from ..errors import UsageError
from ..record.digests import Digester, b32encode, format_digest
from ..record.headers import Headers
from ..record.payload import PayloadConvention, PayloadDigester, payload_convention
from . import args as _args
from . import build as _build
from .encode import BlockSink, EncodedRecord, RecordEncoder, file_suffix, head_bytes
from .hybrid import HybridPolicy
from .pipeline import PendingQueue
from .rolling import DEFAULT_MAX_BYTES, DEFAULT_TEMPLATE, RollingFile, Series
from .segment import write_segmented
from .writer import Readable, iter_source
from .written import WrittenRecord, refs

__all__ = ["Body", "Series", "WriterCore", "WriterOptions", "known_length"]

Body = Union[bytes, bytearray, memoryview, Readable, Iterable[bytes], None]
"""A record body: bytes, a binary stream (``read``) or an iterable of byte chunks."""

_BLANK_ID = "<urn:uuid:00000000-0000-0000-0000-000000000000>"

_CONFORMS_TO = {
    "1.1": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
    "1.0": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.0/",
}


def known_length(body: Body) -> int | None:
    """Length of a body in memory (``None``: a stream or an iterable)."""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return len(body)
    if body is None:
        return 0
    return None


@dataclass(frozen=True)
class WriterOptions:
    """Everything a :class:`~warckit.write.guided.WarcWriter` is configured with but its
    directory (the keyword arguments of its constructor, same names and defaults)."""

    prefix: str = "WARC"
    version: str = "1.1"
    compression: str = "gzip"
    level: int | None = None
    zstd_dictionary: bytes | None = None
    max_bytes: int | None = DEFAULT_MAX_BYTES
    max_records: int | None = None
    template: str = DEFAULT_TEMPLATE
    fsync: bool = True
    warcinfo: Mapping[str, str] | Iterable[tuple[str, str]] | None = None
    digest: str = "sha1"
    digest_encoding: str | None = None
    payload_digest: str = "warc1.1"
    segment_size: int | None = None
    hybrid: HybridPolicy | None = None
    host: str | None = None
    port: int | str = 0
    gzip_backend: str | None = None
    threads: bool | None = None


class WriterCore:
    """Options, series, placement and the record path (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike[str], options: WriterOptions) -> None:
        o = options
        if o.version not in ("1.0", "1.1"):
            raise UsageError(f"version must be '1.1' or '1.0', not {o.version!r}")
        if o.payload_digest not in ("warc1.1", "legacy"):
            raise UsageError("payload_digest must be 'warc1.1' or 'legacy'")
        if o.segment_size is not None and o.segment_size <= 0:
            raise UsageError("segment_size must be positive")
        if o.hybrid is not None and o.compression == "none":
            raise UsageError("a hybrid policy needs a compressed main series")
        # Fails early on a bad algorithm; the empty digest is the validation placeholder.
        probe = Digester(o.digest, encoding=o.digest_encoding)
        self._blank_digest = str(probe.digest())
        algorithm = probe.algorithm
        self._new_hash: Any = getattr(hashlib, algorithm, None) or (lambda: hashlib.new(algorithm))
        items = _args.check_fields("WarcWriter", "warcinfo", o.warcinfo) or []
        self.options = o
        self.directory = os.fspath(directory)
        try:
            os.makedirs(self.directory, exist_ok=True)  # as `dedup apply` does
        except FileExistsError:
            raise UsageError(f"output directory {self.directory!r} is not a directory") from None
        self.version = o.version
        self.digest = o.digest
        self.digest_encoding = o.digest_encoding
        self.payload_convention: PayloadConvention = payload_convention(o.payload_digest)
        self.segment_size = o.segment_size
        self.hybrid = o.hybrid
        self.host = o.host or socket.gethostname()
        self._algorithm = algorithm
        enc = o.digest_encoding or ("base32" if algorithm == "sha1" else "base16")
        self._b32_label = f"{algorithm}:" if enc == "base32" else None
        self._warcinfo_fields = self._info_fields(items)
        self._closed = False
        # Held while records are placed (and while anything reads or changes the
        # files, the series or the records in flight); reentrant, because a
        # WrittenRecord's location settles through it.
        self._lock = threading.RLock()
        self._pending = PendingQueue(self._lock, self._place, self.directory)
        common: dict[str, Any] = {
            "prefix": o.prefix, "template": o.template, "max_bytes": o.max_bytes,
            "max_records": o.max_records, "fsync": o.fsync, "host": self.host.split(".")[0],
            "port": o.port,
        }
        main_encoder = RecordEncoder(o.compression, level=o.level, zstd_dictionary=o.zstd_dictionary,
                                     backend=o.gzip_backend, threads=o.threads)
        self._series: dict[str, Series] = {}
        self._add_series("main", main_encoder, common)
        if o.hybrid is not None:
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
        holder: list[Series] = []

        def on_open(filename: str) -> EncodedRecord:
            return self._open_file(holder[0], filename)

        rolling = RollingFile(self.directory, ext=file_suffix(encoder.compression),
                              preamble=encoder.preamble(), on_open=on_open, **common)
        series = Series(name, encoder, rolling)
        holder.append(series)
        self._series[name] = series

    def _format_hash(self, h: Any) -> str:
        """``algorithm:value`` of a hashlib object, as :func:`format_digest` writes it."""
        if self._b32_label is not None:  # the common case, one call less per digest
            return self._b32_label + b32encode(h.digest())
        return format_digest(self._algorithm, h.digest(), self.digest_encoding)

    def _digester(self) -> Digester:
        return Digester(self.digest, encoding=self.digest_encoding)

    def _check(self, headers: Headers, block_length: int | None = None) -> None:
        _build.check_headers(headers, self.version, block_length)

    def _route(self, content_type: str | None, size: int | None, encoding: str | None) -> str:
        if self.hybrid is not None and self.hybrid.uncompressed(content_type, size, encoding):
            return "uncompressed"
        return "main"

    # -- what the record methods share -------------------------------------------------

    def _common(self, concurrent_to: Any, ip: str | None) -> list[tuple[str, str]]:
        out = []
        if ip is not None:
            out.append(("WARC-IP-Address", ip))
        out += [("WARC-Concurrent-To", r) for r in refs(concurrent_to)]
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
        raw, head = _build.checked_http_head(http_head, rtype)
        fields = self._common(concurrent_to, ip)
        if truncated is not None:
            fields.append(("WARC-Truncated", truncated))
        if identified_payload_type is not None:
            fields.append(("WARC-Identified-Payload-Type", identified_payload_type))
        size = known_length(body)
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

    # -- warcinfo -----------------------------------------------------------------------

    def _warcinfo_record(self, series: Series, filename: str | None,
                         block: bytes, content_type: str) -> tuple[str, EncodedRecord, dict[str, Any]]:
        rid = _build.new_record_id()
        date = _build.format_date(None, self.version)
        d = self._digester()
        d.update(block)
        bd = str(d.digest())
        headers = _build.warcinfo_headers(rid, date, filename, bd, content_type, len(block))
        self._check(headers, len(block))
        enc = series.encoder.encode_bytes(head_bytes(self.version, headers), block)
        return rid, enc, {"date": date, "block_digest": bd}

    def _open_file(self, series: Series, filename: str) -> EncodedRecord:
        block = _build.warc_fields_block(self._warcinfo_fields)
        rid, enc, _ = self._warcinfo_record(series, filename, block, "application/warc-fields")
        series.warcinfo_id = rid
        return enc

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

    # -- the record path ----------------------------------------------------------------

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
        rid = record_id or _build.new_record_id()
        wdate = _build.format_date(date, self.version)
        extra = list(extra)
        typed_when_empty = rtype == "revisit" or bool(prefix)

        def build(warcinfo_id: str | None, block_digest: str, payload_d: str | None,
                  length: int, segment: int | None = None) -> Headers:
            return _build.record_headers(
                rtype, rid, wdate, target_uri, fields, warcinfo_id=warcinfo_id, extra=extra,
                segment=segment, block_digest=block_digest, payload_digest=payload_d,
                content_type=content_type, length=length, typed_when_empty=typed_when_empty)

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
        block_d = self._new_hash()
        payload_d: Any = None
        if payload == "http":
            payload_d = PayloadDigester(self.digest, encoding=self.digest_encoding,
                                        convention=self.payload_convention, chunked=chunked)
        elif payload is not None:
            payload_d = self._new_hash()
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
                self._settle()
                return write_segmented(self, series, sink, build, rid, rtype, target_uri, wdate,
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
                kept = True
                self._pending.add(series, encode, sink, record)
                return record
            self._pending.settle()
            filename, offset, size = self._place(series, encode)
        finally:
            if not kept:
                sink.close()
            if locked:
                self._lock.release()
        return WrittenRecord(rid, rtype, target_uri, wdate, filename,
                             os.path.join(self.directory, filename), offset, size, bd, pd_text,
                             1, convention)

    def _settle(self, until: WrittenRecord | None = None) -> None:
        """Write the pending records, in order: all, or up to and including *until*."""
        self._pending.settle(until)

    def _place(self, series: Series, encode: Any) -> tuple[str, int, int]:
        """Encode with the current file's warcinfo ID, roll if it does not fit, write."""
        rolling = series.rolling
        if not rolling.is_open:
            rolling.open_new()
        enc: EncodedRecord = encode(series.warcinfo_id)
        if not rolling.fits(enc.size):
            rolling.open_new()
            enc = encode(series.warcinfo_id)
        return rolling.write(enc)
