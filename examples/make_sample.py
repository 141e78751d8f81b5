"""Regenerate examples/sample.warc.gz: a small, valid WARC/1.1 file made by warckit.

Run from the repository root: ``python examples/make_sample.py``. Deterministic
(fixed dates and record IDs), so the file only changes when this script does.
"""

from __future__ import annotations

import gzip
import uuid
from pathlib import Path

from warckit import Digester, Headers

OUT = Path(__file__).resolve().parent / "sample.warc.gz"
DATE = "2026-11-30T09:00:00.{:06d}Z"


def _rid(n: int) -> str:
    return f"<urn:uuid:{uuid.UUID(int=0x5A3B1E00 + n)}>"


def _record(n: int, rtype: str, fields: list[tuple[str, str]], block: bytes, payload: bytes | None = None) -> bytes:
    bd = Digester("sha1")
    bd.update(block)
    head = [("WARC-Type", rtype), ("WARC-Record-ID", _rid(n)), ("WARC-Date", DATE.format(n))]
    head += fields
    head.append(("WARC-Block-Digest", str(bd.digest())))
    if payload is not None:
        pd = Digester("sha1")
        pd.update(payload)
        head.append(("WARC-Payload-Digest", str(pd.digest())))
    head.append(("Content-Length", str(len(block))))
    data = b"WARC/1.1\r\n" + Headers(head).to_bytes() + b"\r\n" + block + b"\r\n\r\n"
    return gzip.compress(data, mtime=0)


def main() -> None:
    info = b"software: warckit 0.1.0\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\ndescription: warckit sample\r\n"
    members = [_record(0, "warcinfo", [("WARC-Filename", "sample.warc.gz"), ("Content-Type", "application/warc-fields")], info)]
    pages = {
        "https://example.com/": b"<!doctype html><title>Example</title><p>Hello, archive.</p>\n",
        "https://example.com/about": b"<!doctype html><title>About</title><p>warckit sample page.</p>\n",
    }
    n = 1
    first_capture = None
    for url, body in pages.items():
        path = url.split("example.com", 1)[1]
        req = f"GET {path} HTTP/1.1\r\nHost: example.com\r\nUser-Agent: warckit-sample\r\n\r\n".encode()
        members.append(_record(n, "request", [("WARC-Target-URI", url), ("WARC-Warcinfo-ID", _rid(0)),
                                              ("Content-Type", "application/http;msgtype=request")], req))
        resp_head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        members.append(_record(n + 1, "response", [("WARC-Target-URI", url), ("WARC-Warcinfo-ID", _rid(0)),
                                                   ("WARC-Concurrent-To", _rid(n)), ("WARC-IP-Address", "93.184.215.14"),
                                                   ("Content-Type", "application/http;msgtype=response")],
                               resp_head + body, body))
        first_capture = first_capture or (n + 1, url, body)
        n += 2
    rn, url, body = first_capture
    pd = Digester("sha1")
    pd.update(body)
    revisit_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
    members.append(_record(n, "revisit", [
        ("WARC-Target-URI", url), ("WARC-Warcinfo-ID", _rid(0)),
        ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
        ("WARC-Refers-To", _rid(rn)), ("WARC-Refers-To-Target-URI", url),
        ("WARC-Refers-To-Date", DATE.format(rn)), ("WARC-Payload-Digest", str(pd.digest())),
        ("WARC-Truncated", "length"), ("Content-Type", "application/http;msgtype=response")], revisit_head))
    OUT.write_bytes(b"".join(members))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(members)} records)")


if __name__ == "__main__":
    main()
