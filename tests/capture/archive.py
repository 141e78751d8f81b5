"""Read a capture's WARC back with warckit, and again with warcio (the test oracle)."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import warckit
from warckit.cli import main


class Rec:
    """What a test checks of one record."""

    def __init__(self, record: Any) -> None:
        self.type: str = record.type
        self.uri: str | None = record.target_uri
        self.id: str = record.record_id
        self.concurrent_to: tuple[str, ...] = tuple(record.concurrent_to)
        self.ip: str | None = record.headers.first("WARC-IP-Address")
        self.truncated: str | None = record.headers.first("WARC-Truncated")
        self.payload_digest = str(record.payload_digest) if record.payload_digest else None
        self.head_length = len(record.http.raw) if self.type in ("request", "response") else 0
        self.block: bytes = record.raw_stream().read()

    @property
    def head(self) -> bytes:
        return self.block[:self.head_length]

    @property
    def body(self) -> bytes:
        return self.block[self.head_length:]


def sha1_label(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def read_back(files: list[str]) -> list[Rec]:
    """Every record of *files* but the warcinfo ones, after ``warckit check`` passed and
    warcio read the same records."""
    assert files
    out: list[Rec] = []
    for path in files:
        assert main(["check", path]) == 0
        with warckit.open(path) as reader:
            records = [Rec(r) for r in reader]
        assert _warcio_view(path) == [(r.type, r.uri, r.id, r.concurrent_to, r.payload_digest,
                                       r.body) for r in records]
        out += [r for r in records if r.type != "warcinfo"]
    return out


def _warcio_view(path: str) -> list[tuple[Any, ...]]:
    from warcio.archiveiterator import ArchiveIterator

    seen = []
    with Path(path).open("rb") as f:
        for record in ArchiveIterator(f):
            h = record.rec_headers
            concurrent = tuple(h.get_header("WARC-Concurrent-To", "").split()) or ()
            body = record.raw_stream.read()  # after the HTTP head, if any
            seen.append((record.rec_type, h.get_header("WARC-Target-URI"),
                         h.get_header("WARC-Record-ID"), concurrent,
                         h.get_header("WARC-Payload-Digest"), body))
    return seen


def pairs(records: list[Rec]) -> list[tuple[Rec, Rec]]:
    """The (response, request) pairs, checking the order and the linkage."""
    assert len(records) % 2 == 0, [r.type for r in records]
    out = []
    for response, request in zip(records[::2], records[1::2]):
        assert (response.type, request.type) == ("response", "request")
        assert request.concurrent_to == (response.id,)
        assert request.uri == response.uri
        assert response.ip == request.ip == "127.0.0.1"
        out.append((response, request))
    return out
