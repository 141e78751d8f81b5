"""arc2warc over every corpus ARC: payloads byte-identical, version block kept, valid output."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from convert_helpers import assert_valid
from corpus_paths import CORPUS, corpus_path

import warckit
from warckit.cli import main
from warckit.errors import ParseError, UsageError
from warckit.tools.arc2warc import arc_to_warc

# ARC file -> (records read, responses, resources, version blocks); damaged ones read leniently.
ARCS = {
    "jwat/arc/1-1-20110922131213-00000-svc-VirtualBox.arc": (102, 96, 5, 1),
    "jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz": (300, 261, 38, 1),
    "jwat/arc/invalid-arcfile-record-then-garbage.arc": (1, 1, 0, 0),
    "jwat/arc/small_BNF.arc": (6, 5, 0, 1),
    "jwat/arc/test-arc-1.0-dashed-fields.arc": (2, 1, 0, 1),
    "jwat/arc/test-arc-1.0-invalid-fields.arc": (1, 1, 0, 0),
    "netarchivesuite/arc/2-metadata-1.arc": (2, 0, 1, 1),
    "netarchivesuite/arc/3-3-20070119143010-00000-sb-test-har-001.statsbiblioteket.dk.arc": (5, 0, 4, 1),
    "netarchivesuite/arc/NetarchiveSuite-netarkivet.arc.gz": (66, 64, 1, 1),
    "netarchivesuite/arc/fyensdk.arc": (190, 189, 0, 1),
    "netarchivesuite/arc/input-1.arc": (4, 0, 3, 1),
    "netarchivesuite/arc/input-empty.arc": (0, 0, 0, 0),
    "netarchivesuite/arc/input-illegal.arc": (1, 1, 0, 0),
    "netarchivesuite/arc/input-nonarc.arc": (0, 0, 0, 0),
    "warcio/bad.arc": (4, 0, 3, 1),
    "warcio/example-space-in-url.arc": (2, 1, 0, 1),
    "warcio/example.arc": (2, 1, 0, 1),
    "warcio/example.arc.gz": (2, 1, 0, 1),
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc": (9, 7, 1, 1),
    "webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.arc.gz": (9, 7, 1, 1),
}


def test_table_lists_every_corpus_arc() -> None:
    if not CORPUS.is_dir():
        pytest.skip("corpus not available")
    found = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.arc*")}
    assert found == set(ARCS)


def _arc_blocks(path: Path) -> list[tuple[int, str, str]]:
    out = []
    for r in warckit.open(path, lenient=True):
        if r.type == "warcinfo" and (r.target_uri or "").startswith("filedesc:"):
            continue
        out.append((r.offset, r.arc_date, hashlib.sha1(r.read_block()).hexdigest()))
    return out


@pytest.mark.parametrize("name", sorted(ARCS))
def test_corpus_arc(name: str, tmp_path: Path) -> None:
    path = corpus_path(name)
    stats = arc_to_warc([path], tmp_path, lenient=True)
    assert (stats.records, stats.responses, stats.resources, stats.version_blocks) == ARCS[name]
    expected = _arc_blocks(path)
    got = []
    version_text = b""
    for f in stats.files:
        assert_valid(f)
        for r in warckit.open(f):
            if r.type == "warcinfo":
                block = r.read_block()
                if r.content_type == "text/plain":
                    version_text = block
                continue
            assert r.headers.first("WARC-ARC-Filename") == path.name
            got.append((int(r.headers.first("WARC-ARC-Offset") or -1),
                        (r.date_string or "").replace("-", "").replace(":", "").replace("T", "")[:14],
                        hashlib.sha1(r.read_block()).hexdigest()))
    # Same records, same offsets, blocks (HTTP head + payload) byte-identical.
    assert [(o, h) for o, _, h in got] == [(o, h) for o, _, h in expected]
    # Dates converted from the ARC archive-date (14 digits; longer ones truncated).
    for (_, warc_date, _), (_, arc_date, _) in zip(got, expected):
        if arc_date[:14].isdigit() and len(arc_date) >= 14 and arc_date[4:6] != "00":
            assert warc_date == arc_date[:14]
    if stats.version_blocks:
        first = next(r for r in warckit.open(path, lenient=True))
        assert version_text == first.raw_head + first.read_block()
        assert version_text.startswith(b"filedesc://")


def test_version_block_text_and_response_fields(tmp_path: Path) -> None:
    path = corpus_path("jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz")
    stats = arc_to_warc([path], tmp_path, version="1.0")
    records = []
    for r in warckit.open(stats.files[0]):
        records.append((r.type, r.content_type, r.read_block() if r.type == "warcinfo" else b"",
                        r.target_uri, r.date_string, r.ip_address, r.headers.first("WARC-ARC-Offset"),
                        str(r.payload_digest) if r.payload_digest else None))
    assert [t for t, *_ in records[:4]] == ["warcinfo", "warcinfo", "resource", "response"]
    assert b"source-arc-file: IAH-20080430204825-00000-blackbook.arc.gz" in records[0][2]
    assert b"1 1 InternetArchive" in records[1][2] and b"<arcmetadata" in records[1][2]
    assert records[2][1] == "text/dns" and records[2][3] == "dns:www.archive.org"
    assert records[3][:2] == ("response", "application/http;msgtype=response")
    assert records[3][3:7] == ("http://www.archive.org/robots.txt", "2008-04-30T20:48:25Z",
                               "207.241.229.39", "782")
    body = next(r.payload_stream().read() for r in warckit.open(path) if r.offset == 782)
    assert records[3][7] == "sha1:" + __import__("base64").b32encode(hashlib.sha1(body).digest()).decode()


def test_strict_refuses_damaged_and_warc_input(tmp_path: Path) -> None:
    with pytest.raises(ParseError):
        arc_to_warc([corpus_path("warcio/bad.arc")], tmp_path)
    with pytest.raises(UsageError):
        arc_to_warc([corpus_path("warcio/example.warc.gz")], tmp_path)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arcs = [str(corpus_path("warcio/example.arc")), str(corpus_path("warcio/example.arc.gz"))]
    assert main(["arc2warc", *arcs, "--out", str(tmp_path), "--compression", "none"]) == 0
    captured = capsys.readouterr()
    # Two inputs with the same stem: the second series takes the next serial (no overwrite).
    assert [Path(p).name for p in captured.out.split()] == ["example-00000.warc", "example-00001.warc"]
    assert "2 ARC files, 4 records: 2 responses, 0 resources, 2 version blocks kept" in captured.err
    assert main(["arc2warc", str(corpus_path("warcio/bad.arc")), "--out", str(tmp_path / "b")]) == 1
