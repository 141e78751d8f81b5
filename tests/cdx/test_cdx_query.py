"""Queries by binary search equal a brute-force filter of the same entries.

Seeded random entries (hosts with subdomains, www, ports; timestamps of every precision,
fractions, a leap second) are written as sorted new-style CDX and CDX-11, plain and as
ZipNum, and 1,000+ random queries per index (every match type, time ranges of every
precision, closest, type, status, limit) are checked against an independent brute-force
filter: time bounds are computed with exact fractions and an exclusive "start of the next
period" upper bound, not with warckit's digit keys.
"""

from __future__ import annotations

import calendar
import random
import zlib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from warckit.cdx import CdxEntry
from warckit.cdx._keys import cdx_key, new_style_key
from warckit.cdx._timestamps import to_14_digits
from warckit.cdx.formats import CDX11_LEGEND, NEW_STYLE_HEADER, parse_line
from warckit.cdx.query import Index, query
from warckit.cdx.zipnum import write_zipnum
from warckit.errors import UsageError

SEED = 20261130
QUERIES_PER_INDEX = 1000

HOSTS = [
    "example.com", "www.example.com", "a.example.com", "b.a.example.com", "example.org",
    "www2.example.org", "iana.org", "www.iana.org", "example.com:8080", "exam.com", "com",
    "xn--bcher-kva.de", "192.168.0.1",
]
PATHS = ["/", "/a", "/a/", "/ab", "/a/b", "/a?x=1", "/a?x=1&y=2", "/b", "/b/c.html", "/%20x", "/A"]
TYPES = ["response", "revisit", "resource", "metadata", "arc-response"]
STATUSES = [200, 302, 404, None]


@dataclass
class Row:
    url: str
    ts: str  # W3C, any precision
    type: str
    status: int | None


def _timestamp(rng: random.Random) -> str:
    y = rng.choice([2013, 2014, 2016, 2026])
    mo, d = rng.randint(1, 12), rng.randint(1, 28)
    h, mi = rng.randint(0, 23), rng.randint(0, 59)
    s = rng.choice([0, 5, 30, 59, 60]) if (mo, d) == (12, 31) else rng.randint(0, 59)
    kind = rng.random()
    if kind < 0.05:
        return f"{y:04d}-{mo:02d}"
    if kind < 0.1:
        return f"{y:04d}-{mo:02d}-{d:02d}"
    base = f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}"
    if kind < 0.3:
        return base + "." + "".join(rng.choice("0123456789") for _ in range(rng.choice([1, 3, 6, 9]))) + "Z"
    return base + "Z"


def _rows(rng: random.Random, n: int) -> list[Row]:
    rows = []
    for _ in range(n):
        rows.append(Row(
            url=rng.choice(["http://", "https://"]) + rng.choice(HOSTS) + rng.choice(PATHS),
            ts=_timestamp(rng),
            type=rng.choice(TYPES),
            status=rng.choice(STATUSES),
        ))
    # a leap second and same-second fractions
    rows.append(Row("http://example.com/a", "2016-12-31T23:59:60Z", "response", 200))
    rows.append(Row("http://example.com/a", "2016-12-31T23:59:59.5Z", "response", 200))
    rows.append(Row("http://example.com/a", "2016-12-31T23:59:59Z", "response", 200))
    return rows


def _new_style_line(row: Row, i: int) -> str:
    extra: dict[str, object] = {"length": 100 + i}
    if row.status is not None:
        extra["status"] = row.status
    return CdxEntry.build(
        new_style_key(row.url), row.ts, row.url, "sha1:AAAA", row.type, "f.warc.gz", i, extra
    ).format()


def _cdx11_line(row: Row, i: int) -> str:
    mime = "warc/revisit" if row.type == "revisit" else "text/html"
    status = "-" if row.status is None else str(row.status)
    return (
        f"{cdx_key(row.url)} {to_14_digits(row.ts)} {row.url} {mime} {status} AAAA - - "
        f"{100 + i} {i} f.warc.gz"
    )


# -- the brute-force oracle --------------------------------------------------------------


def _parts(ts: str) -> list[int | Fraction]:
    digits = "".join(c for c in ts if c.isdigit())
    widths = [4, 2, 2, 2, 2, 2]
    parts: list[int | Fraction] = []
    pos = 0
    for w in widths:
        if pos >= len(digits):
            break
        parts.append(int(digits[pos:pos + w]))
        pos += w
    if pos < len(digits):
        parts.append(Fraction(int(digits[pos:]), 10 ** (len(digits) - pos)))
    return parts


def _moment(parts: list[int | Fraction]) -> Fraction:
    """Seconds since the epoch of the start of the period *parts* names."""
    p = list(parts) + [None] * (7 - len(parts))
    y = int(p[0])  # type: ignore[arg-type]
    mo = int(p[1]) if p[1] is not None else 1  # type: ignore[arg-type]
    d = int(p[2]) if p[2] is not None else 1  # type: ignore[arg-type]
    h, mi, s = (int(x) if x is not None else 0 for x in p[3:6])  # type: ignore[arg-type]
    frac = Fraction(p[6]) if p[6] is not None else Fraction(0)
    if s == 60:  # leap second: after every instant of second 59, before the next minute
        tiny = Fraction(1, 10**12)
        return Fraction(calendar.timegm((y, mo, d, h, mi, 59, 0, 0, 0))) + 1 - tiny + frac * tiny
    return Fraction(calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))) + frac


def _period_end(ts: str) -> Fraction:
    """Exclusive end of the period a bound names: ``2014`` → start of 2015."""
    parts = _parts(ts)
    last = len(parts) - 1
    if isinstance(parts[-1], Fraction):
        digits = len("".join(c for c in ts if c.isdigit())) - 14
        return _moment(parts) + Fraction(1, 10 ** digits)
    if last == 0:
        return _moment([int(parts[0]) + 1])
    if last == 1:
        y, m = int(parts[0]), int(parts[1])
        return _moment([y + 1, 1]) if m == 12 else _moment([y, m + 1])
    if last == 5 and parts[5] == 60:
        return _moment(parts[:5] + [59]) + 1
    step = {2: 86400, 3: 3600, 4: 60, 5: 1}[last]
    return _moment(parts) + step


_CACHE: dict[tuple[int, str], list[tuple[str, object, Fraction]]] = {}


def _parsed(lines: tuple[str, ...], fmt: str) -> list[tuple[str, Any, Fraction]]:
    key = (id(lines), fmt)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = [
            (line, e, _moment(_parts(e.timestamp)))
            for line, e in ((line, parse_line(line, fmt)) for line in lines)  # type: ignore[arg-type]
        ]
    return _CACHE[key]  # type: ignore[return-value]


def _brute(lines: tuple[str, ...], fmt: str, url: str, match: str, key_style: str, **f: object) -> list[str]:
    key = new_style_key(url) if key_style == "new-style" else cdx_key(url)

    def host(k: str) -> str | None:
        return k.split(")/")[0] if ")/" in k else None

    out = []
    for line, entry, moment in _parsed(tuple(lines), fmt):
        k = entry.urlkey
        if match == "exact":
            ok = k == key
        elif match == "prefix":
            p = key
            if url.endswith("/") and not p.endswith("/"):
                p += "/"
            elif url.endswith("?") and not p.endswith("?"):
                p += "?"
            ok = k.startswith(p)
        elif host(key) is None:
            ok = k.startswith(key)
        elif match == "host":
            ok = host(k) == host(key)
        else:
            hk, hq = host(k), host(key)
            assert hq is not None
            if hk is None:
                ok = False
            elif key_style == "new-style":
                ok = hk.startswith(hq)
            elif "," not in hq:
                ok = hk.startswith(hq + ",")
            else:
                ok = hk == hq or hk.startswith(hq + ",")
        if not ok:
            continue
        if f.get("from_") is not None and moment < _moment(_parts(str(f["from_"]))):
            continue
        if f.get("to") is not None and moment >= _period_end(str(f["to"])):
            continue
        if f.get("type") is not None and f["type"] not in (entry.record_type, getattr(entry, "type", None)):
            continue
        if f.get("status") is not None and entry.status != str(f["status"]):
            continue
        out.append(line)
    if f.get("closest") is not None:
        target = _moment(_parts(str(f["closest"])))
        out.sort(key=lambda line: (abs(_moment(_parts(parse_line(line, fmt).timestamp)) - target), line.encode()))  # type: ignore[arg-type]
    if f.get("limit") is not None:
        out = out[: int(str(f["limit"]))]
    return out


def _bound(rng: random.Random, rows: list[Row], w3c: bool) -> str:
    ts = rng.choice(rows).ts
    digits = "".join(c for c in ts if c.isdigit())
    if w3c and rng.random() < 0.5:
        return ts
    return digits[: rng.choice([4, 6, 8, 10, 12, 14, 14, len(digits)])]


def _random_query(rng: random.Random, rows: list[Row]) -> tuple[str, str, dict[str, object]]:
    url = rng.choice(rows).url if rng.random() < 0.9 else (
        rng.choice(["http://", ""]) + rng.choice(HOSTS + ["nothere.net"]) + rng.choice(PATHS)
    )
    match = rng.choice(["exact", "prefix", "host", "domain"])
    f: dict[str, object] = {}
    if rng.random() < 0.5:
        f["from_"] = _bound(rng, rows, True)
    if rng.random() < 0.5:
        f["to"] = _bound(rng, rows, True)
    if rng.random() < 0.2:
        f["closest"] = _bound(rng, rows, True)
    if rng.random() < 0.2:
        f["type"] = rng.choice(["response", "revisit", "arc-response"])
    if rng.random() < 0.2:
        f["status"] = rng.choice([200, 302, 404])
    if rng.random() < 0.2:
        f["limit"] = rng.randint(0, 5)
    return url, match, f


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[Path], list[str], str]]:
    rng = random.Random(SEED)
    rows = _rows(rng, 3000)
    tmp = tmp_path_factory.mktemp("query")
    out: dict[str, tuple[list[Path], list[str], str]] = {}
    for fmt, make, header in (("cdx", _new_style_line, NEW_STYLE_HEADER), ("cdx11", _cdx11_line, CDX11_LEGEND)):
        lines = sorted((make(row, i) for i, row in enumerate(rows)), key=lambda s: s.encode())
        plain = tmp / f"all.{fmt}"
        plain.write_text(header + "\n" + "".join(line + "\n" for line in lines), "utf-8")
        half = len(lines) // 2
        a, b = tmp / f"a.{fmt}", tmp / f"b.{fmt}"
        a.write_text(header + "\n" + "".join(sorted((l + "\n" for l in lines[::2]), key=str.encode)), "utf-8")
        b.write_text(header + "\n" + "".join(sorted((l + "\n" for l in lines[1::2]), key=str.encode)), "utf-8")
        zn = write_zipnum((line + "\n" for line in lines), tmp / f"zn-{fmt}", block_lines=37)
        out[f"{fmt}-plain"] = ([plain], lines, fmt)
        out[f"{fmt}-two-files"] = ([a, b], lines, fmt)
        out[f"{fmt}-zipnum"] = ([Path(zn.idx)], lines, fmt)
        assert half > 1000
    return out


@pytest.mark.parametrize(
    "name",
    ["cdx-plain", "cdx-two-files", "cdx-zipnum", "cdx11-plain", "cdx11-two-files", "cdx11-zipnum"],
)
def test_random_queries_equal_brute_force(
    indexes: dict[str, tuple[list[Path], list[str], str]], name: str
) -> None:
    paths, lines, fmt = indexes[name]
    key_style = "new-style" if fmt == "cdx" else "cdx"
    rng = random.Random(SEED + zlib.crc32(name.encode()) % 1000)
    rows = [Row(parse_line(l, fmt).original_url, parse_line(l, fmt).timestamp, "", None) for l in lines]  # type: ignore[arg-type]
    frozen = tuple(lines)
    nonempty = 0
    matches = {"exact": 0, "prefix": 0, "host": 0, "domain": 0}
    for _ in range(QUERIES_PER_INDEX):
        url, match, f = _random_query(rng, rows)
        expected = _brute(frozen, fmt, url, match, key_style, **f)
        got = [e.format() for e in query(paths, url, match=match, **f)]  # type: ignore[arg-type]
        assert got == expected, (name, url, match, f)
        nonempty += bool(expected)
        matches[match] += 1
    assert nonempty > QUERIES_PER_INDEX // 3
    assert min(matches.values()) > QUERIES_PER_INDEX // 6


def test_index_detects_format_and_key_style(indexes: dict[str, tuple[list[Path], list[str], str]]) -> None:
    assert Index(indexes["cdx-plain"][0][0]).format == "cdx"
    assert Index(indexes["cdx-plain"][0][0]).key_style == "new-style"
    assert Index(indexes["cdx11-zipnum"][0][0]).format == "cdx11"
    assert Index(indexes["cdx11-zipnum"][0][0]).key_style == "cdx"


def test_leap_second_and_fractions(indexes: dict[str, tuple[list[Path], list[str], str]]) -> None:
    paths = indexes["cdx-plain"][0]
    got = [e.timestamp for e in query(paths, "http://example.com/a", from_="20161231235959", to="2016-12-31T23:59:60Z")]
    assert got == ["2016-12-31T23:59:59.5Z", "2016-12-31T23:59:59Z", "2016-12-31T23:59:60Z"]
    got = [e.timestamp for e in query(paths, "http://example.com/a", from_="2016-12-31T23:59:59.6Z", to="2016")]
    assert got == ["2016-12-31T23:59:60Z"]
    closest = query(paths, "http://example.com/a", closest="2016-12-31T23:59:59.4Z", to="2016", limit=2)
    assert [e.timestamp for e in closest] == ["2016-12-31T23:59:59.5Z", "2016-12-31T23:59:59Z"]


def test_bad_arguments() -> None:
    with pytest.raises(UsageError, match="match type"):
        query([], "http://example.com/", match="everything")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="bad timestamp for from"):
        query([], "http://example.com/", from_="yesterday")
    with pytest.raises(UsageError, match="limit"):
        query([], "http://example.com/", limit=-1)


def test_unicode_host_index_is_found_by_punycode_and_unicode_urls(tmp_path: Path) -> None:
    urls = ["http://bücher.de/a", "http://www.bücher.de/b", "http://example.de/c"]
    lines = sorted(
        (CdxEntry.build(new_style_key(u, unicode_host=True), "2014", u, "-", "response", "f", i, {}).format()
         for i, u in enumerate(urls)),
        key=str.encode,
    )
    path = tmp_path / "u.cdx"
    path.write_text(NEW_STYLE_HEADER + "\n" + "".join(line + "\n" for line in lines), "utf-8")
    assert [e.url for e in query([path], "http://xn--bcher-kva.de/a")] == ["http://bücher.de/a"]
    assert [e.url for e in query([path], "http://bücher.de/", match="domain")] == [
        "http://bücher.de/a",
        "http://www.bücher.de/b",
    ]
