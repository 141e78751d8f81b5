"""Inputs of the columnar tests: chosen corpus files and a generated WARC with IDN, ports,
fractional and leap-second dates, a redirect, an IPv6 robots.txt and a POST pair."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from corpus_paths import CORPUS

#: Corpus files that index cleanly: revisits, POST, redirects, ARC, chunked, uncompressed.
CORPUS_FILES = (
    "warcio/example.warc.gz",
    "warcio/example.warc",
    "warcio/post-test.warc.gz",
    "warcio/example.arc",
    "warcio/example-iana.org-chunked.warc",
    "warc-specifications/hello-world.warc",
    "warc-specifications/20141124-heritrix-server-not-modified.warc.gz",
    "jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz",
    "jwat/arc/small_BNF.arc",
    "netarchivesuite/warc/NAS-20100909163324-00000-mette.kb.dk.warc",
)


def corpus_files() -> list[Path]:
    """The chosen corpus files; skips the test when the corpus is not there (the tests
    count on every one of them)."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    return [CORPUS / name for name in CORPUS_FILES if (CORPUS / name).exists()]


def _record(fields: list[tuple[str, str]], block: bytes) -> bytes:
    head = "WARC/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return head.encode("utf-8") + block + b"\r\n\r\n"


FRENCH = ("<html><head><title>Livres</title></head><body><p>Ceci est une librairie en ligne "
          "qui vend des livres anciens et modernes. Nous livrons partout en France et en "
          "Belgique, avec un service de qualité pour tous nos clients fidèles.</p></body></html>")


def generated_records() -> list[bytes]:
    """The records of the generated WARC, uncompressed, in order."""
    html = FRENCH.encode("iso-8859-1")
    http1 = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n"
             b"Content-Length: " + str(len(html)).encode() + b"\r\n\r\n" + html)
    http2 = b"HTTP/1.1 301 Moved Permanently\r\nLocation: https://foo.blogspot.com/new\r\nContent-Length: 0\r\n\r\n"
    http3 = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found"
    body = b"a=1&b=two"
    req = (b"POST /form HTTP/1.1\r\nHost: example.org\r\nContent-Type: application/x-www-form-urlencoded\r\n"
           b"Content-Length: 9\r\n\r\n" + body)
    http5 = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
    return [
        _record([("WARC-Type", "response"), ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000001>"),
                 ("WARC-Date", "2026-11-30T09:00:00.123456Z"), ("WARC-Target-URI", "http://Bücher.example:8080/seite?q=1"),
                 ("Content-Type", "application/http; msgtype=response")], http1),
        _record([("WARC-Type", "response"), ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000002>"),
                 ("WARC-Date", "2016-12-31T23:59:60Z"), ("WARC-Target-URI", "https://foo.blogspot.com/"),
                 ("WARC-Payload-Digest", "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"),
                 ("Content-Type", "application/http; msgtype=response")], http2),
        _record([("WARC-Type", "response"), ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000003>"),
                 ("WARC-Date", "2020-01-01T00:30:00Z"), ("WARC-Target-URI", "http://[2001:db8::1]/robots.txt"),
                 ("Content-Type", "application/http; msgtype=response")], http3),
        _record([("WARC-Type", "request"), ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000004>"),
                 ("WARC-Date", "2020-01-01T00:31:00Z"), ("WARC-Target-URI", "http://example.org/form"),
                 ("WARC-Concurrent-To", "<urn:uuid:00000000-0000-4000-8000-000000000005>"),
                 ("Content-Type", "application/http; msgtype=request")], req),
        _record([("WARC-Type", "response"), ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000005>"),
                 ("WARC-Date", "2020-01-01T00:31:00Z"), ("WARC-Target-URI", "http://example.org/form"),
                 ("Content-Type", "application/http; msgtype=response")], http5),
    ]


def generated_warc(directory: Path) -> Path:
    """The generated records as a gzip-per-record WARC in *directory*."""
    path = directory / "generated.warc.gz"
    path.write_bytes(b"".join(gzip.compress(r, mtime=0) for r in generated_records()))
    return path
