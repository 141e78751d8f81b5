"""crawllog2warc: one revisit per duplicate line, pointing at the right original."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from convert_helpers import assert_valid
from corpus_paths import corpus_path

import warckit
from warckit.cdx import index as cdx_index
from warckit.cdx.indexer import header_for
from warckit.cli import main
from warckit.tools.crawllog2warc import crawllog_to_warc
from warckit.tools.dedup import DedupIndex
from warckit.write.guided import WarcWriter, WrittenRecord

# crawl.log, duplicate-marked lines (= revisits written).
CORPUS_DUPLICATES = {
    "crawl-4.log": 2,
    "crawl-9.log": 122,
    "idna-crawl.log": 90,
    "crawl-42.log": 0,
    "crawl-680.log": 0,
    "crawl-long.log": 0,
    "heritrix1-2006/crawl.log": 0,
    "heritrix3-2015/crawl.log": 0,
    "invalid-crawl.log": 0,
    "oldjobs-11/crawl.log": 0,
    "stop-reason-crawl.log": 0,
}


@pytest.mark.parametrize("name", sorted(CORPUS_DUPLICATES))
def test_corpus_one_revisit_per_duplicate_line(name: str, tmp_path: Path) -> None:
    path = corpus_path(f"netarchivesuite/crawllogs/{name}")
    stats = crawllog_to_warc([path], tmp_path, lenient=True, version="1.0" if "9" in name else "1.1")
    assert stats.duplicates == CORPUS_DUPLICATES[name]
    assert stats.revisits == stats.duplicates
    assert stats.originals_not_found == stats.duplicates and stats.no_digest == 0
    written = 0
    for f in stats.files:
        assert_valid(f)
        records = [(r.type, r.read_block()) for r in warckit.open(f)]
        assert records[0][0] == "warcinfo"
        assert b"source-crawl-log: " + Path(name).name.encode() in records[0][1]
        written += sum(t == "revisit" for t, _ in records)
    assert written == stats.revisits
    assert len(stats.files) == (1 if stats.revisits else 0)


def test_corpus_revisit_fields(tmp_path: Path) -> None:
    path = corpus_path("netarchivesuite/crawllogs/crawl-9.log")
    stats = crawllog_to_warc([path], tmp_path, version="1.0")
    first = next(r for r in warckit.open(stats.files[0]) if r.type == "revisit")
    # 2007-12-27T12:51:31.991Z   200  242 http://netarkivet.dk/netarchive_alm/billeder/... E ...
    line = next(ln for ln in path.read_text().splitlines() if "duplicate:" in ln)
    parts = line.split()
    assert first.target_uri == parts[3]
    fetch = parts[8].split("+")[0]
    assert first.date_string == f"{fetch[:4]}-{fetch[4:6]}-{fetch[6:8]}T{fetch[8:10]}:{fetch[10:12]}:{fetch[12:14]}Z"
    assert str(first.payload_digest) == parts[9]
    assert first.headers.first("WARC-Profile") == \
        "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"
    assert first.content_length == 0
    assert first.refers_to is None and first.refers_to_target_uri is None


#: sha1 of the empty string: what Heritrix logs (and wrote) for a 304 without a body.
EMPTY_SHA1 = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"

ORIGINAL_DATES = [datetime(2020, 1, 1, 10, 0, i, tzinfo=timezone.utc) for i in range(3)]


def _write_originals(out: Path) -> list[WrittenRecord]:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    with WarcWriter(out, prefix="ORIG", version="1.0") as w:
        return [
            w.response("http://example.com/a", head, b"payload A", date=ORIGINAL_DATES[0]),
            w.response("http://example.com/b", head, b"payload B", date=ORIGINAL_DATES[1]),
            # the same payload under another URL, captured later
            w.response("http://mirror.example.org/b", head, b"payload B", date=ORIGINAL_DATES[2]),
        ]


def _line(url: str, digest: str, when: str, annotation: str, status: int = 200) -> str:
    return (f"{when[:4]}-{when[4:6]}-{when[6:8]}T{when[8:10]}:{when[10:12]}:{when[12:14]}.900Z "
            f"{status:>5} {9:>10} {url} L http://example.com/ text/html #001 {when}+12 {digest} - "
            f"{annotation},content-size:50")


def test_round_trip_revisits_point_at_originals(tmp_path: Path) -> None:
    (tmp_path / "orig").mkdir()
    a, b, mirror = _write_originals(tmp_path / "orig")
    log = tmp_path / "crawl.log"
    log.write_text("\n".join([
        _line("http://example.com/a", a.payload_digest or "", "20210101000001123", "duplicate:digest"),
        _line("http://example.com/b", b.payload_digest or "", "20210101000002000", "duplicate:digest"),
        # URI-agnostic: a URL never captured, payload known under two URLs; earliest before wins
        _line("http://other.example.net/c", b.payload_digest or "", "20210101000003000",
              "duplicate:uriAgnosticDigest"),
        # Heritrix logs the digest of the empty 304 body; the original's is written.
        _line("http://example.com/a", EMPTY_SHA1, "20210101000004000",
              "duplicate:server-not-modified", 304),
        _line("http://example.com/new", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "20210101000005000",
              "duplicate:digest"),
        _line("http://example.com/fresh", "sha1:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", "20210101000006000", "3t"),
    ]) + "\n")
    out = tmp_path / "out"
    stats = crawllog_to_warc([log], out, originals=[a.path])
    assert (stats.lines, stats.duplicates, stats.revisits) == (6, 5, 5)
    assert (stats.originals_found, stats.originals_not_found) == (4, 1)
    assert stats.by_match == {"url": 3, "digest": 1}
    revisits = [r for f in stats.files for r in warckit.open(f) if r.type == "revisit"]
    for f in stats.files:
        assert_valid(f)
    got = [(r.target_uri, r.refers_to, r.refers_to_target_uri, r.refers_to_date, r.date_string,
            r.profile_name, str(r.payload_digest)) for r in revisits]
    assert got == [
        ("http://example.com/a", a.record_id, "http://example.com/a", "2020-01-01T10:00:00Z",
         "2021-01-01T00:00:01.123Z", "identical-payload-digest", a.payload_digest),
        ("http://example.com/b", b.record_id, "http://example.com/b", "2020-01-01T10:00:01Z",
         "2021-01-01T00:00:02.000Z", "identical-payload-digest", b.payload_digest),
        ("http://other.example.net/c", mirror.record_id, "http://mirror.example.org/b",
         "2020-01-01T10:00:02Z", "2021-01-01T00:00:03.000Z", "identical-payload-digest",
         b.payload_digest),
        ("http://example.com/a", a.record_id, None, "2020-01-01T10:00:00Z",
         "2021-01-01T00:00:04.000Z", "server-not-modified", a.payload_digest),
        ("http://example.com/new", None, None, None, "2021-01-01T00:00:05.000Z",
         "identical-payload-digest", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ]


def test_originals_from_cdx_and_from_db(tmp_path: Path) -> None:
    (tmp_path / "orig").mkdir()
    a, b, _ = _write_originals(tmp_path / "orig")
    cdx = tmp_path / "orig.cdx"
    cdx.write_text("\n".join([header_for("cdx11") or "", *cdx_index([a.path], format="cdx11")]) + "\n")
    log = tmp_path / "crawl.log"
    log.write_text(_line("http://example.com/b", b.payload_digest or "", "20210101000002000",
                         "duplicate:digest") + "\n")
    stats = crawllog_to_warc([log], tmp_path / "out1", originals=[cdx], version="1.0")
    r = next(r for r in warckit.open(stats.files[0]) if r.type == "revisit")
    # CDX-11 has no record IDs: target URI and date only
    assert (r.refers_to, r.refers_to_target_uri, r.refers_to_date) == (
        None, "http://example.com/b", "2020-01-01T10:00:01Z")
    db = tmp_path / "dedup.sqlite"
    with DedupIndex(db) as idx:
        idx.add_file(a.path)
    assert main(["crawllog2warc", str(log), "--out", str(tmp_path / "out2"), "--db", str(db)]) == 0
    out = list((tmp_path / "out2").iterdir())
    r = next(r for r in warckit.open(out[0]) if r.type == "revisit")
    assert r.refers_to == b.record_id


def test_arc_reference_found_by_location(tmp_path: Path) -> None:
    arc = corpus_path("warcio/example.arc")
    target = next(r for r in warckit.open(arc) if r.type == "response")
    log = tmp_path / "crawl.log"
    log.write_text(_line("http://example.com/?again", "sha1:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC",
                         "20210101000002000", f'duplicate:"example.arc,{target.offset}"') + "\n")
    stats = crawllog_to_warc([log], tmp_path / "out", originals=[arc])
    assert stats.by_match == {"location": 1}
    r = next(r for r in warckit.open(stats.files[0]) if r.type == "revisit")
    assert (r.refers_to, r.refers_to_target_uri, r.refers_to_date) == (
        None, "http://example.com/", "2014-02-16T05:02:21Z")


def test_cli_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = [str(corpus_path("netarchivesuite/crawllogs/crawl-4.log")),
            str(corpus_path("netarchivesuite/crawllogs/crawl-9.log"))]
    assert main(["crawllog2warc", *logs, "--out", str(tmp_path), "--warc-version", "1.0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == ["lines read: 237", "malformed lines skipped: 0", "duplicates: 124",
                       "revisits written: 124", "originals found: 0", "originals not found: 124"]
    bad = str(corpus_path("netarchivesuite/crawllogs/invalid-crawl.log"))
    assert main(["crawllog2warc", bad, "--out", str(tmp_path / "x")]) == 1
    assert "line 2" in capsys.readouterr().err
    assert main(["crawllog2warc", bad, "--out", str(tmp_path / "x"), "--lenient"]) == 0
    assert "malformed lines skipped: 2" in capsys.readouterr().out


# A Heritrix 3 crawl.log line (padded columns) for the server-not-modified fetch of
# http://www.bl.uk/ that Heritrix itself wrote as the revisit in
# warc-specifications/20141124-heritrix-server-not-modified.warc.gz — with the
# empty-body digest sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ that record carries.
BL_304 = ("2014-11-24T08:13:54.150Z   304          0 http://www.bl.uk/ - - text/html #021 "
          "20141124081354070+79 sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ - "
          "duplicate:server-not-modified,content-size:215")
BL_ORIGINAL = "warc-specifications/20130729-heritrix-original.warc.gz"


def _revisit_headers(path: str) -> list[tuple[str, str]]:
    r = next(r for r in warckit.open(path) if r.type == "revisit")
    skip = {"warc-record-id", "warc-warcinfo-id", "warc-block-digest"}
    return [(k, v) for k, v in r.headers if k.lower() not in skip]


def test_server_not_modified_carries_the_originals_digest(tmp_path: Path) -> None:
    heritrix = next(r for r in warckit.open(corpus_path(
        "warc-specifications/20141124-heritrix-server-not-modified.warc.gz")))
    assert str(heritrix.payload_digest) == EMPTY_SHA1  # the Heritrix bug this avoids
    log = tmp_path / "crawl.log"
    log.write_text(BL_304 + "\n")
    stats = crawllog_to_warc([log], tmp_path / "out", originals=[corpus_path(BL_ORIGINAL)])
    assert (stats.revisits, stats.originals_found, stats.by_match) == (1, 1, {"url": 1})
    assert_valid(stats.files[0])
    assert _revisit_headers(stats.files[0]) == [
        ("WARC-Type", "revisit"),
        ("WARC-Date", "2014-11-24T08:13:54.070Z"),
        ("WARC-Target-URI", "http://www.bl.uk/"),
        ("WARC-Refers-To", "<urn:uuid:8897520c-76a7-4f2f-bfbd-ab1750bac5ea>"),
        ("WARC-Refers-To-Date", "2013-07-29T09:00:43Z"),
        ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified"),
        ("WARC-Payload-Digest", "sha1:USUDYFY6UJJK63UC7CCM7G37JIIFIAW2"),
        ("Content-Length", "0"),
    ]


def test_server_not_modified_without_original_has_no_payload_digest(tmp_path: Path) -> None:
    log = tmp_path / "crawl.log"
    log.write_text(BL_304 + "\n")
    stats = crawllog_to_warc([log], tmp_path / "out", version="1.0")
    assert (stats.revisits, stats.originals_not_found, stats.no_digest) == (1, 1, 0)
    assert_valid(stats.files[0])
    assert _revisit_headers(stats.files[0]) == [
        ("WARC-Type", "revisit"),
        ("WARC-Date", "2014-11-24T08:13:54Z"),  # WARC/1.0: whole seconds
        ("WARC-Target-URI", "http://www.bl.uk/"),
        ("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/server-not-modified"),
        ("Content-Length", "0"),
    ]


def test_server_not_modified_original_is_the_latest_capture_before_the_fetch(tmp_path: Path) -> None:
    """Found by URI whatever its digest: the latest capture at or before the fetch, not
    a later one, and not another URL's capture of the empty payload."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    (tmp_path / "orig").mkdir()
    with WarcWriter(tmp_path / "orig", prefix="ORIG") as w:
        w.response("http://example.com/p", head, b"version 1", date="2021-01-01T00:00:00Z")
        v2 = w.response("http://example.com/p", head, b"version 2", date="2021-01-02T00:00:00.5Z")
        w.response("http://example.com/p", head, b"version 3", date="2021-01-04T00:00:00Z")
        w.response("http://example.com/empty", head, b"", date="2021-01-02T00:00:00Z")
    log = tmp_path / "crawl.log"
    log.write_text(_line("http://example.com/p", EMPTY_SHA1, "20210103000000007",
                         "duplicate:server-not-modified", 304) + "\n")
    stats = crawllog_to_warc([log], tmp_path / "out", originals=[v2.path])
    r = next(r for r in warckit.open(stats.files[0]) if r.type == "revisit")
    assert (r.refers_to, r.refers_to_date, str(r.payload_digest), r.date_string) == (
        v2.record_id, "2021-01-02T00:00:00.5Z", v2.payload_digest, "2021-01-03T00:00:00.007Z")


def test_warc_date_keeps_the_logs_milliseconds() -> None:
    from warckit.tools.crawllog import parse_line
    from warckit.tools.crawllog2warc import warc_date

    entry = parse_line(BL_304)
    assert warc_date(entry.capture_time, "1.1") == "2014-11-24T08:13:54.070Z"
    assert warc_date(entry.capture_time, "1.0") == "2014-11-24T08:13:54Z"
