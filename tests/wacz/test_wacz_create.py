"""``warckit wacz create``: layout, hashes, index, pages, ZIP64, safety, constant memory."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import struct
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from corpus_paths import ROOT, corpus_path

from warckit.cli import main
from warckit.errors import ParseError, UsageError
from warckit.wacz import create_wacz, validate_wacz
from warckit.wacz.indexes import BLOCK_LINES

SAMPLE = ROOT / "examples" / "sample.warc.gz"


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _sorted_cdxj(tmp_path: Path, *warcs: Path) -> list[bytes]:
    out = tmp_path / "expected.cdxj"
    assert main(["index", "-f", "cdxj", "--sort", "-j", "1", "-o", str(out), *map(str, warcs)]) == 0
    return out.read_bytes().splitlines(keepends=True)


def test_layout_hashes_and_datapackage(tmp_path: Path) -> None:
    out = tmp_path / "sample.wacz"
    summary = create_wacz([SAMPLE], out, titles=True)
    zf = zipfile.ZipFile(out)
    infos = {i.filename: i for i in zf.infolist()}
    assert list(infos) == ["archive/sample.warc.gz", "indexes/index.cdx", "pages/pages.jsonl",
                           "datapackage.json", "datapackage-digest.json"]
    # WARCs and the index are stored, byte for byte, so they can be read by ranges.
    assert infos["archive/sample.warc.gz"].compress_type == zipfile.ZIP_STORED
    assert infos["indexes/index.cdx"].compress_type == zipfile.ZIP_STORED
    assert zf.read("archive/sample.warc.gz") == SAMPLE.read_bytes()
    package = json.loads(zf.read("datapackage.json"))
    assert package["wacz_version"] == "1.1.1"
    assert package["software"].startswith("warckit ")
    assert package["profile"] == "data-package"
    assert package["created"].endswith("Z")
    assert package["mainPageURL"] == "https://example.com/"
    assert package["mainPageDate"] == "2026-11-30T09:00:00.000002Z"
    by_path = {r["path"]: r for r in package["resources"]}
    assert set(by_path) == {"archive/sample.warc.gz", "indexes/index.cdx", "pages/pages.jsonl"}
    for path, res in by_path.items():
        data = zf.read(path)
        assert res["hash"] == _sha256(data) and res["bytes"] == len(data)
        assert res["name"] == os.path.basename(path)
    assert by_path["archive/sample.warc.gz"]["hash"] == _sha256(SAMPLE.read_bytes())
    digest = json.loads(zf.read("datapackage-digest.json"))
    assert digest == {"path": "datapackage.json", "hash": _sha256(zf.read("datapackage.json"))}
    # The index is warckit's sorted CDXJ of the WARC, file names relative to archive/.
    assert zf.read("indexes/index.cdx").splitlines(keepends=True) == _sorted_cdxj(tmp_path, SAMPLE)
    assert summary.captures == 3 and summary.index == "indexes/index.cdx"
    pages = [json.loads(line) for line in zf.read("pages/pages.jsonl").splitlines()]
    assert pages[0] == {"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}
    assert [(p["url"], p["ts"], p["title"]) for p in pages[1:]] == [
        ("https://example.com/", "2026-11-30T09:00:00.000002Z", "Example"),
        ("https://example.com/about", "2026-11-30T09:00:00.000004Z", "About")]
    assert summary.pages == 2


def test_zipnum_index_as_py_wacz_writes_it(tmp_path: Path) -> None:
    warcs = [corpus_path("pywb/iana.warc.gz"), corpus_path("pywb/example.warc.gz"), SAMPLE]
    out = tmp_path / "z.wacz"
    summary = create_wacz(warcs, out, plain_max_lines=10)
    assert summary.index == "indexes/index.cdx.gz"
    zf = zipfile.ZipFile(out)
    assert zf.getinfo("indexes/index.cdx.gz").compress_type == zipfile.ZIP_STORED
    gz = zf.read("indexes/index.cdx.gz")
    idx = zf.read("indexes/index.idx").decode().splitlines()
    assert idx[0] == '!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}'
    expected = _sorted_cdxj(tmp_path, *warcs)
    assert summary.captures == len(expected) > 10
    lines: list[bytes] = []
    offset = 0
    for n, row in enumerate(idx[1:]):
        key, _, js = row.partition(" {")
        block = json.loads("{" + js)
        assert block["offset"] == offset
        data = gz[offset: offset + block["length"]]
        assert block["digest"] == _sha256(data)
        part = gzip.decompress(data).splitlines(keepends=True)
        assert len(part) == min(BLOCK_LINES, len(expected) - n * BLOCK_LINES)
        assert key == " ".join(part[0].decode().split(" ", 2)[:2])
        lines += part
        offset += block["length"]
    assert offset == len(gz)
    assert lines == expected
    assert validate_wacz(out).ok


def test_zip64_headers_and_end_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # force_zip64: ZIP64 local headers for every member; and with zipfile's ZIP64
    # threshold lowered while writing, offsets past it get ZIP64 central-directory
    # fields and the ZIP64 end records, which readers must then follow.
    out = tmp_path / "z64.wacz"
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 1000)
    create_wacz([SAMPLE, corpus_path("pywb/example.warc.gz")], out, force_zip64=True)
    monkeypatch.undo()
    data = out.read_bytes()
    assert data[:4] == b"PK\x03\x04"
    name_len, extra_len = struct.unpack("<HH", data[26:30])
    extra = data[30 + name_len: 30 + name_len + extra_len]
    assert struct.unpack("<H", extra[:2])[0] == 1  # the ZIP64 extended information field
    assert b"PK\x06\x06" in data[-200:] and b"PK\x06\x07" in data[-200:]  # ZIP64 EOCD + locator
    report = validate_wacz(out, check=True)
    assert report.ok, report.issues
    import warckit
    with warckit.open(out) as reader:
        records = [(r.offset, r.record_id) for r in reader]
    with warckit.open(SAMPLE) as a, warckit.open(corpus_path("pywb/example.warc.gz")) as b:
        assert records == [(r.offset, r.record_id) for r in a] + [(r.offset, r.record_id) for r in b]


def test_pages_file_given(tmp_path: Path) -> None:
    pages = tmp_path / "p.jsonl"
    pages.write_text('{"url": "https://example.com/about", "ts": "2026-11-30T09:00:00Z", "title": "About"}\n')
    out = tmp_path / "p.wacz"
    summary = create_wacz([SAMPLE], out, pages=pages, title="T", description="D")
    zf = zipfile.ZipFile(out)
    lines = zf.read("pages/pages.jsonl").decode().splitlines()
    assert json.loads(lines[0])["format"] == "json-pages-1.0"
    assert json.loads(lines[1])["title"] == "About"
    package = json.loads(zf.read("datapackage.json"))
    assert (package["title"], package["description"], package["mainPageURL"]) == (
        "T", "D", "https://example.com/about")
    assert summary.pages == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"url": "x"}\nnot json\n')
    with pytest.raises(ParseError, match="not a JSON line") as info:
        create_wacz([SAMPLE], tmp_path / "bad.wacz", pages=bad)
    assert info.value.offset == 13 and info.value.source == str(bad)
    assert not (tmp_path / "bad.wacz").exists()


def test_refuses_clashing_names_and_never_follows_a_planted_link(tmp_path: Path) -> None:
    other = tmp_path / "d" / "sample.warc.gz"
    other.parent.mkdir()
    other.write_bytes(SAMPLE.read_bytes())
    with pytest.raises(UsageError, match="same name"):
        create_wacz([SAMPLE, other], tmp_path / "x.wacz")
    with pytest.raises(FileNotFoundError):
        create_wacz([tmp_path / "missing.warc.gz"], tmp_path / "x.wacz")
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep me")
    link = tmp_path / "link.wacz"
    link.symlink_to(victim)
    create_wacz([SAMPLE], link)
    assert victim.read_bytes() == b"keep me"
    assert not link.is_symlink() and zipfile.is_zipfile(link)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "link.wacz", "victim"]  # no temporary left


def test_damaged_warc_leaves_no_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(SAMPLE.read_bytes() + b"GARBAGE")
    out = tmp_path / "out.wacz"
    assert main(["wacz", "create", "-o", str(out), str(bad)]) == 1
    assert not out.exists() and os.listdir(tmp_path) == ["bad.warc.gz"]
    assert main(["wacz", "create", "--lenient", "-o", str(out), str(bad)]) == 0
    assert "trailing-garbage" in capsys.readouterr().err
    assert validate_wacz(out).ok


@pytest.mark.slow
def test_constant_memory(tmp_path: Path, bench_warc) -> None:  # type: ignore[no-untyped-def]
    warc = bench_warc("domain", 40)
    out = tmp_path / "big.wacz"
    tracemalloc.start()
    try:
        summary = create_wacz([warc], out, detect_pages=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = warc.stat().st_size
    assert size > 30_000_000
    assert peak < 12_000_000, peak  # a 1 MiB copy buffer, index runs, parser buffers
    zf = zipfile.ZipFile(out)
    assert zf.getinfo(f"archive/{warc.name}").file_size == size
    assert summary.captures > 0


def _response(url: str, http: bytes, n: int) -> bytes:
    head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
            f"WARC-Date: 2024-01-01T00:00:0{n}Z\r\nWARC-Target-URI: {url}\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n")
    return head.encode() + http + b"\r\n\r\n"


def test_page_titles_from_decoded_html(tmp_path: Path) -> None:
    body = gzip.compress("<html><head><title>\n Caf&eacute; d\xe9j\xe0 </title>".encode("latin-1"))
    encoded = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n"
               b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
    untitled = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 6\r\n\r\n<p>x</p>"[:-2]
    image = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 4\r\n\r\nabcd"
    warc = tmp_path / "t.warc"
    warc.write_bytes(_response("http://a.example/", encoded, 1) + _response("http://a.example/u", untitled, 2)
                     + _response("http://a.example/i.png", image, 3))
    for titles, expected in ((True, ["Café déjà", "http://a.example/u"]),
                             (False, ["http://a.example/", "http://a.example/u"])):
        out = tmp_path / f"{titles}.wacz"
        create_wacz([warc], out, titles=titles)
        pages = [json.loads(line) for line in zipfile.ZipFile(out).read("pages/pages.jsonl").splitlines()[1:]]
        assert [p["title"] for p in pages] == expected


def test_header_bytes_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A URL and a record ID that are not UTF-8: a typed error naming the offset, or (lenient)
    ``%XX`` in the index line and in the page list, as ``warckit index`` writes them."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html></html>"
    record = (b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:\xff>\r\n"
              b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/caf\xe9\r\n"
              b"Content-Type: application/http; msgtype=response\r\n"
              b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n" + http + b"\r\n\r\n")
    warc = tmp_path / "latin1.warc"
    warc.write_bytes(record)
    out = tmp_path / "out.wacz"
    with pytest.raises(ParseError) as caught:
        create_wacz([warc], out)
    assert caught.value.offset == 0
    assert "(WARC-Target-URI, WARC-Record-ID, those bytes as %XX: 'http://example.com/caf%E9')" in str(caught.value)
    assert not out.exists()
    assert main(["wacz", "create", "-o", str(out), str(warc)]) == 1
    assert "Traceback" not in capsys.readouterr().err
    assert main(["wacz", "create", "--lenient", "-o", str(out), str(warc)]) == 0
    assert "(url, record_id) [not-utf8]" in capsys.readouterr().err
    zf = zipfile.ZipFile(out)
    assert zf.read("indexes/index.cdx").startswith(
        b'com,example)/caf%e9 20240101000000 {"url": "http://example.com/caf%E9", "mime": "text/html", ')
    page = json.loads(zf.read("pages/pages.jsonl").splitlines()[1])
    assert page["url"] == "http://example.com/caf%E9"
    assert validate_wacz(out).ok
