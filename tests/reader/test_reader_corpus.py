"""Every WARC and ARC file of the shared corpus: strict, lenient, counts, offsets."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_paths import CORPUS
from corpus_readme import ROWS, count_agrees, record_count
from corpus_table import LENIENT, LENIENT_WRONG, NOT_ARCHIVES, README_COUNT_DIFFERS, STRICT_ERRORS
from warc_bytes import Fault, Unreadable, first_fault

import warckit
from warckit.errors import HttpParseError, ParseError, RecordParseError, WarckitError

#: These tests read the shared corpus by name (CI has it; see the README).
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available (set WARCKIT_CORPUS)")

_TEXT = (".cdx", ".cdxj", ".md", ".tsv", ".idx", ".loc", ".log", ".out", ".cdx.gz", ".txt")


def _archive_files() -> list[str]:
    if not CORPUS.is_dir():
        return []
    names = []
    for p in sorted(CORPUS.rglob("*")):
        rel = p.relative_to(CORPUS).as_posix()
        if not p.is_file() or rel.endswith(_TEXT) or "crawllog" in rel or "crawl" in p.name:
            continue
        names.append(rel)
    return names


ARCHIVES = [n for n in _archive_files() if n not in NOT_ARCHIVES]


def _read_all(path: Path, **kw: object) -> list[warckit.WarcRecord]:
    out = []
    with warckit.open(path, **kw) as reader:  # type: ignore[arg-type]
        for rec in reader:
            rec.http  # noqa: B018 - parse the HTTP head too
            rec.length  # noqa: B018
            out.append(rec)
    return out


def test_corpus_is_there() -> None:
    assert len(ARCHIVES) > 100 or not CORPUS.is_dir()


@pytest.mark.parametrize("name", ARCHIVES)
def test_strict(name: str) -> None:
    path = CORPUS / name
    if name in STRICT_ERRORS:
        cls, offset, before = STRICT_ERRORS[name]
        got: list[warckit.WarcRecord] = []
        with pytest.raises(cls) as info, warckit.open(path) as reader:
            for rec in reader:
                rec.http  # noqa: B018
                rec.length  # noqa: B018
                got.append(rec)
        assert isinstance(info.value, ParseError)
        assert info.value.offset == offset
        assert info.value.source == str(path)
        assert str(offset) in str(info.value)
        assert len(got) == before
    else:
        records = _read_all(path)
        # the count warcio and FastWARC give in the corpus README
        assert len(records) == record_count(name), ROWS[name]
        offsets = [r.offset for r in records]
        assert offsets == sorted(offsets)  # (records of one gzip member share its offset)
        if all(r.member_aligned for r in records):  # each record's bytes end where the next begin
            ends = [r.offset + r.length for r in records]  # type: ignore[operator]
            assert ends == [*offsets[1:], path.stat().st_size][: len(ends)]


def _walkable() -> dict[str, Fault | None]:
    """Uncompressed WARC files the byte walk reads (not gzip, no folded head lines),
    with their first framing fault."""
    out = {}
    for name in ARCHIVES:
        data = (CORPUS / name).read_bytes()
        if ".arc" in name.replace(".warc", "") or data[:2] == b"\x1f\x8b":
            continue
        try:
            out[name] = first_fault(data)
        except Unreadable:  # (the folded-head files: test_interop compares them with warcio)
            continue
    return out


WALKABLE = _walkable()


def test_byte_walk_reads_most_uncompressed_warcs() -> None:
    assert len(WALKABLE) >= 45


@pytest.mark.parametrize("name", sorted(WALKABLE))
def test_strict_errors_where_the_bytes_break(name: str) -> None:
    """In an uncompressed WARC, strict reading stops where walking the bytes finds the
    first framing fault (a head without Content-Length, garbage instead of a record, a
    block not followed by CRLF CRLF), with the records before it; a broken HTTP head
    (HttpParseError) stops it at a record start no later than that."""
    fault = WALKABLE[name]
    if fault is None:
        assert name not in STRICT_ERRORS or STRICT_ERRORS[name][0] is not RecordParseError
        return
    assert name in STRICT_ERRORS
    cls, offset, before = STRICT_ERRORS[name]
    if cls is HttpParseError:
        assert offset <= fault.record and before <= fault.records_before
    else:
        assert (cls, offset, before) == (RecordParseError, fault.at, fault.records_before)


def test_every_file_strict_mode_refuses_has_a_lenient_expectation() -> None:
    assert set(STRICT_ERRORS) == set(LENIENT)
    assert set(LENIENT_WRONG) <= set(LENIENT) and set(README_COUNT_DIFFERS) <= set(LENIENT)


@pytest.mark.parametrize("name", sorted(LENIENT))
def test_lenient_counts_are_the_readmes(name: str) -> None:
    """The lenient count of a damaged file is the README oracles' count; where they stop
    at the damage, at least the records they read before it."""
    count = LENIENT[name][0]
    if name in README_COUNT_DIFFERS:
        assert count != record_count(name)
        return
    assert count_agrees(name, count), ROWS[name]


def _lenient_cases() -> list[object]:
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=LENIENT_WRONG[n])) if n in LENIENT_WRONG else n
        for n in ARCHIVES
    ]


@pytest.mark.parametrize("name", _lenient_cases())
def test_lenient_reads_everything(name: str) -> None:
    issues: list[warckit.Issue] = []
    records = _read_all(CORPUS / name, lenient=True, on_warning=issues.append)
    if name in LENIENT:
        count, codes = LENIENT[name]
        assert len(records) == count
        assert {i.code for i in issues} == codes
        assert all(i.source == str(CORPUS / name) and i.offset is not None for i in issues)
    elif name not in STRICT_ERRORS:
        # A clean file reads the same in both modes.
        strict = _read_all(CORPUS / name)
        assert [(r.offset, r.type, r.record_id) for r in records] == [
            (r.offset, r.type, r.record_id) for r in strict
        ]


@pytest.mark.parametrize("name", sorted(NOT_ARCHIVES - {"webarchive-commons/gzip/empty.gz"}))
def test_not_archives_raise_typed_errors(name: str) -> None:
    path = CORPUS / name
    if not path.exists():
        pytest.skip("corpus missing")
    with pytest.raises(WarckitError) as info:
        _read_all(path)
    assert isinstance(info.value, ParseError) and info.value.offset is not None


def test_offsets_are_member_offsets_and_lengths_tile_the_file() -> None:
    path = CORPUS / "pywb/iana.warc.gz"
    records = _read_all(path)
    assert len(records) == 343
    pos = 0
    for rec in records:
        assert rec.offset == pos
        assert rec.length is not None
        pos += rec.length
    assert pos == path.stat().st_size


def test_plain_offsets_tile_the_file() -> None:
    path = CORPUS / "resiliparse/warcfile.warc"
    pos = 0
    for rec in _read_all(path):
        assert rec.offset == pos == rec.stream_offset
        pos += rec.length or 0
    assert pos == path.stat().st_size


def test_whole_file_gzip_offsets() -> None:
    """Several records in one gzip member: offset is the member's, length is None."""
    records = _read_all(CORPUS / "gowarc/good.warc.gz.open")
    assert len(records) == 50
    assert {r.offset for r in records} == {0}
    assert all(r.length is None and not r.member_aligned for r in records)
    streams = [r.stream_offset for r in records]
    assert streams == sorted(streams) and len(set(streams)) == 50


def test_record_split_across_members_lenient() -> None:
    issues: list[warckit.Issue] = []
    records = _read_all(CORPUS / "warcio/example-wrong-chunks.warc.gz", lenient=True, on_warning=issues.append)
    assert [r.type for r in records] == ["response", "request"]


def test_type_and_size_filters() -> None:
    path = CORPUS / "pywb/iana.warc.gz"
    with warckit.open(path, types={"revisit"}) as reader:
        revisits = [r.offset for r in reader]
    assert len(revisits) == 123
    with warckit.open(path, min_size=10000) as reader:
        big = [r.content_length for r in reader]
    assert big and min(big) >= 10000
    with warckit.open(path, max_size=0) as reader:
        assert all(r.content_length == 0 for r in reader)


def test_arc_v1_records() -> None:
    records = _read_all(CORPUS / "warcio/example.arc")
    info, resp = records
    assert info.format == "arc" and info.type == "warcinfo"
    assert info.target_uri == "filedesc://live-web-example.arc.gz"
    text = warckit.open(CORPUS / "warcio/example.arc")
    with text as reader:
        first = next(reader)
        assert first.version_block_text().startswith("1 0 LiveWeb Capture\nURL IP-address")  # type: ignore[attr-defined]
    assert resp.type == "response" and resp.target_uri == "http://example.com/"
    assert resp.date_string == "2014-02-16T05:02:21Z"
    assert resp.ip_address == "93.184.216.119"
    assert resp.http_status == 200
    assert resp.offset == 151 and resp.record_id is None


def test_arc_url_with_spaces_split_from_the_right() -> None:
    records = _read_all(CORPUS / "warcio/example-space-in-url.arc", lenient=True)
    assert records[1].target_uri == (
        "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False"
    )
    assert records[1].arc_fields["length"] == "1591"  # type: ignore[attr-defined]
    assert records[1].content_length == 1579  # the file is 12 bytes short


def test_empty_gzip_member_is_an_empty_archive() -> None:
    assert _read_all(CORPUS / "webarchive-commons/gzip/empty.gz") == []
    assert _read_all(CORPUS / "gowarc/empty.warc.gz.open") == []
