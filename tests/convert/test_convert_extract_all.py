"""extract --all: every payload to a file, a manifest, and no escape from DIR."""

from __future__ import annotations

import csv
import hashlib
import os
from pathlib import Path

import pytest
from corpus_paths import corpus_path

import warckit
from warckit.cli import main
from warckit.errors import UsageError
from warckit.tools.extract_all import extract_all, safe_relative_path
from warckit.write.guided import WarcWriter

HOSTILE = [
    "http://evil.example/../../../../etc/passwd",
    "http://evil.example/%2e%2e/%2e%2e/%2e%2e/tmp/pwned",
    "http://evil.example/%2E%2E%2F%2E%2E%2Fescape",
    "http://evil.example/..%5c..%5cwin",
    "http://evil.example/a\\..\\..\\b",
    "file:///etc/shadow",
    "/absolute/path",
    "//double/slash",
    "C:\\Windows\\system32\\config",
    "http://evil.example/nul%00byte.txt",
    "http://evil.example/" + "x" * 5000,
    "http://evil.example/" + "deep/" * 400 + "leaf",
    "http://evil.example/CON",
    "http://evil.example/aux.txt",
    "http://evil.example/lpt1",
    "http://evil.example/com9.log",
    "http://evil.example/trailing.dot.",
    "http://evil.example/.hidden",
    "http://evil.example/%2e",
    "http://evil.example/~user/%20space%20",
    "http://..:80/..",
    "urn:x:../../y",
]


def _hostile_warc(tmp_path: Path) -> tuple[Path, list[bytes]]:
    # Written by hand: the guided writer (rightly) refuses most of these as URIs.
    bodies = [f"payload {i}".encode() for i in range(len(HOSTILE))]
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / "hostile.warc"
    with open(path, "wb") as f:
        f.writelines(b"WARC/1.0\r\nWARC-Type: resource\r\n"
                    + f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n".encode()
                    + b"WARC-Date: 2024-01-01T00:00:00Z\r\n"
                    + f"WARC-Target-URI: {url}\r\nContent-Type: text/plain\r\n".encode()
                    + f"Content-Length: {len(body)}\r\n\r\n".encode() + body + b"\r\n\r\n" for i, (url, body) in enumerate(zip(HOSTILE, bodies)))
    return path, bodies


def _tree(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() or p.is_symlink()]


def test_hostile_urls_stay_inside(tmp_path: Path) -> None:
    warc, bodies = _hostile_warc(tmp_path)
    out = tmp_path / "out"
    stats = extract_all(warc, out)
    assert stats.files == len(HOSTILE)
    # Nothing was created outside DIR: the tmp dir holds only in/ and out/.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]
    real = os.path.realpath(out)
    for p in _tree(out):
        assert os.path.realpath(p).startswith(real + os.sep)
        rel = p.relative_to(out)
        for part in rel.parts:
            assert part not in ("..", ".") and not part.startswith(".")
            assert "\x00" not in part and "\\" not in part and ":" not in part
            assert len(part) <= 100
            assert part.split(".")[0].upper() not in {"CON", "AUX", "NUL", "PRN", "LPT1", "COM9"}
            assert not part.endswith((".", " "))
        assert len(str(rel)) <= 260
    with open(out / "manifest.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["url"] for r in rows] == HOSTILE
    assert [(out / r["file"]).read_bytes() for r in rows] == bodies
    assert len({r["file"] for r in rows}) == len(rows)


@pytest.mark.parametrize(("url", "expected"), [
    ("http://evil.example/../../etc/passwd", ["evil.example", "_", "_", "etc", "passwd"]),
    ("http://evil.example/%2e%2e/x", ["evil.example", "_", "x"]),
    ("http://evil.example/nul%00byte", ["evil.example", "nul_byte"]),
    ("http://evil.example/CON", ["evil.example", "_CON"]),
    ("http://evil.example/aux.txt", ["evil.example", "_aux.txt"]),
    ("file:///etc/passwd", ["_file", "etc", "passwd"]),
    ("/etc/passwd", ["_noscheme", "etc", "passwd"]),
    ("http://evil.example/", ["evil.example", "index"]),
    ("http://evil.example/a?b=1", ["evil.example", "a_" + hashlib.sha1(b"b=1").hexdigest()[:10]]),
])
def test_safe_relative_path(url: str, expected: list[str]) -> None:
    assert safe_relative_path(url) == expected


def test_never_overwrites_and_never_follows_links(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    with WarcWriter(tmp_path / "in", prefix="L", version="1.0") as w:
        w.resource("http://h.example/a", b"one", content_type="text/plain")
        w.resource("http://h.example/a", b"two", content_type="text/plain")
        w.resource("http://h.example/a/b", b"three", content_type="text/plain")
        w.resource("http://h.example/link/x", b"four", content_type="text/plain")
    out = tmp_path / "out"
    (out / "files" / "h.example").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, out / "files" / "h.example" / "link")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    os.symlink(victim, out / "files" / "h.example" / "a.txt")
    stats = extract_all(w.files[0], out)
    # a.txt is a planted link: the two captures of /a get a-1.txt and a-2.txt; the
    # planted directory link "link" is not followed: link~1 is created instead.
    assert stats.names == ["files/h.example/a-1.txt", "files/h.example/a-2.txt",
                           "files/h.example/a/b.txt", "files/h.example/link~1/x.txt"]
    assert victim.read_text() == "keep" and list(outside.iterdir()) == []
    assert [(out / n).read_bytes() for n in stats.names] == [b"one", b"two", b"three", b"four"]
    with pytest.raises(UsageError, match="manifest.csv exists"):
        extract_all(w.files[0], out)


def test_corpus_payloads_and_manifest(tmp_path: Path) -> None:
    src = corpus_path("pywb/iana.warc.gz")
    stats = extract_all(src, tmp_path)
    expected = []
    for r in warckit.open(src, lenient=True):  # one response claims chunked but is not
        if r.type in ("response", "resource") and r.content_length:
            expected.append(hashlib.sha1(r.content_stream().read()).hexdigest())
    with open(tmp_path / "manifest.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert stats.files == len(rows) == len(expected) == 48
    assert [hashlib.sha1((tmp_path / r["file"]).read_bytes()).hexdigest() for r in rows] == expected
    first = rows[0]
    assert (first["url"], first["date"], first["media_type"], first["status"]) == (
        "http://www.iana.org/", "2014-01-26T20:06:24Z", "text/html", "200")
    assert first["file"] == "files/www.iana.org/index.html"


def test_cli_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = str(corpus_path("warcio/example.arc.gz"))
    assert main(["extract", "--all", src, "--out", str(tmp_path / "x")]) == 0
    assert capsys.readouterr().out.startswith("1 files (1270 bytes) written, 1 records without")
    assert (tmp_path / "x" / "files" / "example.com" / "index.html").read_bytes().startswith(b"<!doctype")
    assert main(["extract", "--all", src]) == 2
    assert main(["extract", src]) == 2


def test_a_payload_cut_short_is_not_left_behind(tmp_path: Path) -> None:
    """A file that ends inside a payload: the payloads before it are extracted and in the
    manifest, the cut one is neither (no partial file that looks whole)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"
    with WarcWriter(tmp_path / "w", compression="none", fsync=False) as w:
        w.response("https://example.com/a", head, b"a" * 1000)
        big = w.response("https://example.com/big", head, os.urandom(300_000))
    (written,) = w.files
    cut = tmp_path / "cut.warc"
    cut.write_bytes(Path(written).read_bytes()[:big.offset + 150_000])
    out = tmp_path / "out"
    with pytest.raises(warckit.errors.ParseError) as caught:
        extract_all(cut, out)
    assert caught.value.offset == big.offset
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "files/example.com/a.bin", "manifest.csv"]
    with open(out / "manifest.csv", newline="", encoding="utf-8") as fh:
        assert [row["file"] for row in csv.DictReader(fh)] == ["files/example.com/a.bin"]
