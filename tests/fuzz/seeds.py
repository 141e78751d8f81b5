"""Small, valid seed archives for fuzzing: one per container the reader knows.

Built here (not read from the corpus) so CI and the long campaign have them anywhere.
Every record is well formed: digests match, lengths are exact.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import struct

import zstandard

__all__ = ["SEEDS", "arc_seed", "records", "warc_gzip_members", "warc_gzip_whole", "warc_plain", "warc_zstd"]


def _sha1(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _record(wtype: str, block: bytes, extra: list[tuple[str, str]], n: int, version: str = "1.1") -> bytes:
    fields = [
        ("WARC-Type", wtype),
        ("WARC-Record-ID", f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>"),
        ("WARC-Date", "2024-05-06T07:08:09.123456Z" if version == "1.1" else "2024-05-06T07:08:09Z"),
        *extra,
        ("WARC-Block-Digest", _sha1(block)),
        ("Content-Length", str(len(block))),
    ]
    head = f"WARC/{version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields) + "\r\n"
    return head.encode() + block + b"\r\n\r\n"


def records() -> list[bytes]:
    """The records of the seed WARC, one bytes object each."""
    body = b"<html><head><title>hi</title></head><body>" + b"hello warc " * 40 + b"</body></html>\n"
    gz_body = gzip.compress(body, mtime=0)
    chunked = b"".join(
        f"{len(gz_body[i : i + 300]):x}\r\n".encode() + gz_body[i : i + 300] + b"\r\n"
        for i in range(0, len(gz_body), 300)
    ) + b"0\r\n\r\n"
    resp = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Encoding: gzip\r\nX-Folded: a\r\n  continued\r\n\r\n" + chunked
    )
    req = b"GET /page?q=1 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: fuzz\r\n\r\n"
    post = b"POST /form HTTP/1.1\r\nHost: example.com\r\nContent-Length: 7\r\n\r\na=1&b=2"
    info = b"software: warckit-fuzz\r\nformat: WARC File Format 1.1\r\n"
    uri = ("WARC-Target-URI", "http://example.com/page?q=1")
    http_resp = ("Content-Type", "application/http;msgtype=response")
    http_req = ("Content-Type", "application/http;msgtype=request")
    return [
        _record("warcinfo", info, [("WARC-Filename", "seed.warc"), ("Content-Type", "application/warc-fields")], 1),
        _record("request", req, [uri, http_req], 2),
        _record("response", resp, [uri, http_resp, ("WARC-Payload-Digest", _sha1(gz_body))], 3),
        _record("request", post, [("WARC-Target-URI", "http://example.com/form"), http_req], 4),
        _record(
            "revisit", resp.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n",
            [uri, http_resp, ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
             ("WARC-Refers-To-Target-URI", "http://example.com/page?q=1"),
             ("WARC-Refers-To-Date", "2024-05-06T07:08:09Z")],
            5,
        ),
        _record("resource", b"plain text resource\n", [("WARC-Target-URI", "dns:example.com"),
                                                        ("Content-Type", "text/plain")], 6, "1.0"),
        _record("metadata", b"outlink: http://example.com/a L a/@href\r\n",
                [uri, ("Content-Type", "application/warc-fields")], 7),
    ]


def warc_plain() -> bytes:
    return b"".join(records())


def warc_gzip_members() -> bytes:
    """One gzip member per record (the standard's recommendation)."""
    return b"".join(gzip.compress(r, mtime=0) for r in records())


def warc_gzip_whole() -> bytes:
    """The whole file in one gzip member."""
    return gzip.compress(warc_plain(), mtime=0)


def warc_zstd(dictionary: bool = True) -> bytes:
    """IIPC warc-zstd: one frame per record, after a dictionary frame."""
    recs = records()
    if not dictionary:
        c = zstandard.ZstdCompressor(level=3)
        return b"".join(c.compress(r) for r in recs)
    d = zstandard.ZstdCompressionDict(b"".join(recs[:3])[:2048], dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    c = zstandard.ZstdCompressor(level=3, dict_data=d)
    raw = d.as_bytes()
    frame = struct.pack("<II", 0x184D2A5D, len(raw)) + raw
    return frame + b"".join(c.compress(r) for r in recs)


def arc_seed(members: bool = False) -> bytes:
    """ARC v1: the version block and two URL records (each a gzip member with *members*)."""
    legend = b"1 0 warckit\nURL IP-address Archive-date Content-type Archive-length\n"
    head = b"filedesc://seed.arc 0.0.0.0 20240506070809 text/plain " + str(len(legend)).encode() + b"\n"
    parts = [head + legend + b"\n"]
    for url, body in ((b"http://example.com/", b"<html>hi</html>"), (b"http://example.com/b", b"second")):
        block = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + str(len(body)).encode() + (
            b"\r\n\r\n" + body
        )
        parts.append(url + b" 93.184.216.34 20240506070809 text/html " + str(len(block)).encode() + b"\n" + block + b"\n")
    return b"".join(gzip.compress(p, mtime=0) for p in parts) if members else b"".join(parts)


#: Name → bytes of every seed.
SEEDS: dict[str, bytes] = {
    "warc": warc_plain(),
    "warc-gz": warc_gzip_members(),
    "warc-gzfile": warc_gzip_whole(),
    "warc-zst": warc_zstd(),
    "warc-zst-nodict": warc_zstd(dictionary=False),
    "arc": arc_seed(),
    "arc-gz": arc_seed(members=True),
}


def inner(name: str, data: bytes) -> bytes:
    """The decompressed stream of a seed (what mutations inside the compression act on)."""
    if name in ("warc-gz", "warc-gzfile", "arc-gz"):
        return gzip.decompress(data)
    if name.startswith("warc-zst"):
        return b"".join(records())
    return data


def recompress(name: str, plain: bytes) -> bytes:
    """Compress a mutated inner stream the way seed *name* is compressed (one member/frame)."""
    if name in ("warc-gz", "warc-gzfile", "arc-gz"):
        return gzip.compress(plain, mtime=0)
    if name.startswith("warc-zst"):
        return zstandard.ZstdCompressor(level=3).compress(plain)
    return plain
