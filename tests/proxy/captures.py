"""What the proxy wrote, read back with warckit, and the checks every capture must pass."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proxy_process import TIMEOUT, venv_command

import warckit
from warckit.cli import main

#: A payload kept in memory up to this size (only its length and SHA-1 beyond).
KEEP = 1 << 20


@dataclass
class Rec:
    """One record of a proxy's WARC, with its payload de-chunked (content coding kept)."""

    file: Path
    offset: int
    type: str
    record_id: str
    date: str
    target_uri: str | None
    concurrent_to: tuple[str, ...]
    refers_to: str | None
    ip: str | None
    payload_digest: str | None
    profile: str | None
    status: int | None
    http_headers: list[tuple[str, str]]
    first_line: str
    entity_len: int
    entity_sha1: bytes
    entity: bytes | None
    block: bytes | None
    warc_headers: list[tuple[str, str]] = field(default_factory=list)

    def http_header(self, name: str) -> str | None:
        for key, value in self.http_headers:
            if key.lower() == name.lower():
                return value
        return None


def _http_head(raw: bytes) -> tuple[str, list[tuple[str, str]]]:
    lines = raw.decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        if line:
            key, _, value = line.partition(":")
            headers.append((key.strip(), value.strip()))
    return lines[0], headers


def read_records(paths: Iterable[Path]) -> list[Rec]:
    """Every record of *paths*, in file order."""
    out = []
    for path in paths:
        with warckit.open(str(path)) as reader:
            for record in reader:
                h, n, kept = hashlib.sha1(), 0, bytearray()
                head = record.http if record.has_http else None
                block = None
                if head is not None:
                    stream: Any = record.content_stream()
                else:
                    stream = record.raw_stream()
                while chunk := stream.read(1 << 20):
                    h.update(chunk)
                    n += len(chunk)
                    if len(kept) <= KEEP:
                        kept += chunk
                if head is None:
                    block = bytes(kept) if n <= KEEP else None
                first_line, http_headers = _http_head(head.raw) if head is not None else ("", [])
                digest = record.headers.first("WARC-Payload-Digest")
                out.append(Rec(
                    file=path, offset=record.offset, type=record.type,
                    record_id=record.record_id or "", date=record.date_string or "",
                    target_uri=record.target_uri, concurrent_to=record.concurrent_to,
                    refers_to=record.refers_to, ip=record.ip_address,
                    payload_digest=digest, profile=record.headers.first("WARC-Profile"),
                    status=record.http_status if record.type in ("response", "revisit") else None,
                    http_headers=http_headers, first_line=first_line,
                    entity_len=n, entity_sha1=h.digest(),
                    entity=bytes(kept) if n <= KEEP else None, block=block,
                    warc_headers=list(record.headers.fields),
                ))
    return out


def sha1_label(raw: bytes) -> str:
    """``sha1:BASE32`` of a raw SHA-1 digest (WARC-Payload-Digest's form)."""
    import base64

    return "sha1:" + base64.b32encode(raw).decode("ascii")


def sha1_of(data: bytes) -> bytes:
    return hashlib.sha1(data).digest()


@dataclass
class Exchange:
    """A capture: its response (or revisit) and the request written after it."""

    response: Rec
    request: Rec
    others: list[Rec]  # records that follow the pair (metadata), if any


def exchanges(records: Sequence[Rec]) -> list[Exchange]:
    """The captures in *records*; asserts the layout PROXY-CONTRACT promises: each file
    starts with its warcinfo, each response/revisit is followed by its request, which names
    it in WARC-Concurrent-To and has the same target URI; every response/revisit and
    request names the warcinfo of its file."""
    out: list[Exchange] = []
    by_file: dict[Path, list[Rec]] = {}
    for rec in records:
        by_file.setdefault(rec.file, []).append(rec)
    for path, recs in by_file.items():
        assert recs[0].type == "warcinfo", (path.name, [r.type for r in recs])
        assert [r.type for r in recs].count("warcinfo") == 1, path.name
        i = 1
        while i < len(recs):
            rec = recs[i]
            assert rec.type in ("response", "revisit"), (path.name, i, rec.type, rec.target_uri)
            assert i + 1 < len(recs), (path.name, "response without request", rec.target_uri)
            req = recs[i + 1]
            assert req.type == "request", (path.name, i + 1, req.type)
            assert req.concurrent_to == (rec.record_id,), (req.concurrent_to, rec.record_id)
            assert req.target_uri == rec.target_uri
            i += 2
            others = []
            while i < len(recs) and recs[i].type == "metadata":
                others.append(recs[i])
                i += 1
            out.append(Exchange(rec, req, others))
    return out


def capture_by_url(found: Sequence[Exchange], url: str) -> Exchange:
    matches = [e for e in found if e.response.target_uri == url]
    assert len(matches) == 1, (url, [e.response.target_uri for e in found])
    return matches[0]


def assert_warckit_check(paths: Sequence[Path]) -> None:
    """``warckit check FILE...`` exits 0."""
    assert paths
    assert main(["check", "--no-progress", *map(str, paths)]) == 0


def assert_warcio_check(paths: Sequence[Path], records: Sequence[Rec]) -> None:
    """``warcio check -v FILE`` (warcio's own digest verification) passes every record,
    but for one known disagreement: warcio digests a chunked payload with its chunk
    framing (webrecorder/warcio#74, #75, open), where WARC 1.1 5.9 takes the entity-body,
    i.e. the payload with the transfer coding removed (iipc/warc-specifications#22). Such a
    record must be a chunked response whose digest is the de-chunked entity's."""
    warcio = venv_command("warcio")
    assert warcio is not None, "warcio (a test dependency) is not installed"
    at = {(r.file, r.offset): r for r in records}
    for path in paths:
        done = subprocess.run([warcio, "check", "-v", str(path)], capture_output=True,
                              timeout=10 * TIMEOUT, check=False)
        out = done.stdout.decode("utf-8", "replace")
        assert done.returncode in (0, 1), (path.name, done.returncode, done.stderr[-3000:])
        current: Rec | None = None
        checked = 0
        for line in out.splitlines():
            if m := re.match(r"\s+(?:offset (\d+) )?WARC-Record-ID (<[^>]+>) (\w+)$", line):
                if m.group(1) is not None:
                    current = at[(path, int(m.group(1)))]
                else:  # (warcio leaves out offset 0)
                    current = next(r for r in records
                                   if r.file == path and r.record_id == m.group(2))
                assert (current.record_id, current.type) == (m.group(2), m.group(3)), line
                checked += 1
            elif line.strip() in ("digest pass", "no digest to check"):
                continue
            elif line.strip() == "digest present but not checked (revisit)":
                assert current is not None and current.type == "revisit", (path.name, line)
            elif line.strip().startswith("payload digest failed"):
                assert current is not None and current.type == "response", (path.name, line)
                chunked = (current.http_header("Transfer-Encoding") or "").lower()
                assert chunked == "chunked", (path.name, current.offset, line)
                assert current.payload_digest == sha1_label(current.entity_sha1)
            elif line.strip() and line.strip() != str(path):
                raise AssertionError((path.name, line, out[-3000:]))
        assert checked == sum(1 for r in records if r.file == path), (path.name, out[-3000:])


def warcprox_meta(header: str | None) -> dict[str, Any]:
    """The ``Warcprox-Meta`` response header as JSON."""
    assert header is not None, "no Warcprox-Meta response header"
    value = json.loads(header)
    assert isinstance(value, dict), header
    return value


def assert_capture_metadata(meta: dict[str, Any], records: Sequence[Rec], kind: str) -> Rec:
    """The header's ``capture-metadata`` names a record of *kind* by ID, file, offset and
    timestamp (its WARC-Date); that record."""
    cm = meta["capture-metadata"]
    assert set(cm) >= {"timestamp", "record-id", "type", "warc-filename", "offset"}, cm
    found = [r for r in records if r.record_id == cm["record-id"]]
    assert len(found) == 1, cm
    rec = found[0]
    assert (cm["type"], rec.type) == (kind, kind)
    assert cm["warc-filename"] == rec.file.name
    assert cm["offset"] == rec.offset
    assert cm["timestamp"] == rec.date
    return rec
