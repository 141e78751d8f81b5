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
