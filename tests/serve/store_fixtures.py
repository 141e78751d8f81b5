"""Helpers of the store tests (tests/serve/test_store*.py): sample index lines and files."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from warckit.cdx._keys import cdx_key

#: Hosts of the generated captures: subdomains, a port, a bare TLD neighbour, an IDN.
HOSTS = (
    "example.com", "www.example.com", "a.b.example.com", "example.com:8080", "example.org",
    "examples.com", "iana.org", "xn--bcher-kva.example", "example.co.uk", "sub.example.co.uk",
)
PATHS = ("/", "/a", "/a/", "/a/b", "/ab", "/a?x=1", "/a?x=2&y=3", "/foo/bar.html", "/foobar",
         "/robots.txt", "/%7Euser/", "/UPPER/Case")


def classic_line(url: str, ts: str, *, offset: int, filename: str = "a.warc.gz",
                 status: str = "200", mime: str = "text/html", eleven: bool = True) -> bytes:
    """A CDX-11 (or CDX-9) line of a capture."""
    values = [cdx_key(url), ts, url, mime, status, "SHA1DIGEST" + str(offset), "-"]
    if eleven:
        values += ["-", str(100 + offset)]
    values += [str(offset), filename]
    return (" ".join(values) + "\n").encode()


def generated_lines(n: int, seed: int = 7) -> list[bytes]:
    """*n* CDX-11 lines of distinct captures over :data:`HOSTS` x :data:`PATHS`, years 2010-2020."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        url = f"http://{rnd.choice(HOSTS)}{rnd.choice(PATHS)}"
        ts = (f"{rnd.randint(2010, 2020)}{rnd.randint(1, 12):02d}{rnd.randint(1, 28):02d}"
              f"{rnd.randint(0, 23):02d}{rnd.randint(0, 59):02d}{rnd.randint(0, 59):02d}")
        status = rnd.choice(("200", "200", "301", "404"))
        out.append(classic_line(url, ts, offset=i * 1000, status=status,
                                eleven=rnd.random() < 0.7))
    return out


def many_lines(n: int) -> Iterator[bytes]:
    """*n* CDXJ lines made on the fly (nothing kept): the large-batch tests."""
    for i in range(n):
        yield (f'com,example)/p{i:08d} 20200101000000 {{"url": "http://example.com/p{i:08d}", '
               f'"offset": "{i}", "filename": "big.warc.gz"}}\n').encode()


def sorted_cdxj(path: Path, lines: list[bytes]) -> Path:
    """Write *lines* (store lines, ending ``\\n``) as a sorted CDXJ file."""
    path.write_bytes(b"".join(sorted(set(lines))))
    return path


BATCH = 40


def batch_lines(writer: int, batch: int, size: int = BATCH) -> list[bytes]:
    """The CDXJ lines of batch *batch* of writer *writer* (keys ``com,example)/w…/b…/…``)."""
    return [(f'x 20200101000000 {{"url": "http://example.com/w{writer}/b{batch:03d}/{i:03d}", '
             f'"offset": "{i}", "filename": "w{writer}.warc.gz"}}\n').encode() for i in range(size)]


def batch_of(line: bytes) -> bytes:
    """``w…/b…`` of a line made by :func:`batch_lines`."""
    return line.split(b" ", 1)[0].split(b"/")[1] + b"/" + line.split(b" ", 1)[0].split(b"/")[2]


def torn_batches(lines: list[bytes], size: int = BATCH) -> list[tuple[bytes, int]]:
    """Batches seen partly (not 0 and not *size* of their lines) in one scan."""
    counts: dict[bytes, int] = {}
    for line in lines:
        key = batch_of(line)
        counts[key] = counts.get(key, 0) + 1
    return [(k, n) for k, n in sorted(counts.items()) if n != size]


def write_and_delete(path: str, writer: int, batches: int) -> int:
    """Add *batches* batches, deleting every third right after; the number of wrong counts."""
    from warckit.serve.store import CdxStore

    wrong = 0
    with CdxStore(path) as store:
        for b in range(batches):
            if store.add(batch_lines(writer, b)).count != BATCH:
                wrong += 1
            if b % 3 == 0 and store.delete(batch_lines(writer, b)).count != BATCH:
                wrong += 1
    return wrong


def read_until(path: str, stop_file: str, rounds: int = 10_000) -> tuple[int, int]:
    """Scan the store until *stop_file* exists: (scans made, torn batches seen)."""
    import os

    from warckit.cdx.query import Query, run_query
    from warckit.serve.store import CdxStore

    scans = torn = 0
    with CdxStore(path) as store:
        for _ in range(rounds):
            done = os.path.exists(stop_file)
            torn += len(torn_batches(list(store.iter_prefix(b"com,example)/w"))))
            lines = [e.format().encode() for e in run_query([store], Query("example.com/", "prefix"))]
            torn += len(torn_batches(lines))
            scans += 1
            if done:
                break
    return scans, torn


def expected_lines(writers: int, batches: int) -> list[bytes]:
    """What the store holds after :func:`write_and_delete` of every writer."""
    from warckit.serve.ingest import LineConverter

    conv = LineConverter()
    out = []
    for w in range(writers):
        for b in range(batches):
            if b % 3:
                out += [conv.convert(line).line for line in batch_lines(w, b)]  # type: ignore[union-attr]
    return sorted(out)
