"""CdxStore: formats in, pywb CDXJ out; duplicates, deletes, bad lines, the database file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from warckit.cdx.query import Query, run_query
from warckit.errors import ParseError, UsageError, WarckitError
from warckit.serve.store import CdxStore, IngestLineError, IngestResult, StoreError

CDX11 = b"com,example)/ 20140102030405 http://example.com/ text/html 200 ABCD - - 1043 0 a.warc.gz\n"
CDX9 = b"com,example)/a 20140102030405 http://example.com/a text/html 404 EFGH - 2000 a.warc.gz\n"
CDXJ = (b'com,example)/b 20150101000000 {"url": "http://example.com/b", "mime": "image/png", '
        b'"status": "200", "digest": "sha1:IJKL", "length": "55", "offset": "3000", '
        b'"filename": "b.warc.gz"}\n')
NEW = (b"com,example,www,)/c 2016-02-03T04:05:06.123456Z http://www.example.com/c sha1:MNOP "
       b'revisit c.warc.gz 4000 {"length":77,"status":200,"mime":"text/html"}\n')

WANT_CDX11 = (b'com,example)/ 20140102030405 {"url": "http://example.com/", "mime": "text/html", '
              b'"status": "200", "digest": "ABCD", "length": "1043", "offset": "0", '
              b'"filename": "a.warc.gz"}\n')
WANT_CDX9 = (b'com,example)/a 20140102030405 {"url": "http://example.com/a", "mime": "text/html", '
             b'"status": "404", "digest": "EFGH", "offset": "2000", "filename": "a.warc.gz"}\n')
WANT_NEW = (b'com,example)/c 20160203040506 {"url": "http://www.example.com/c", "mime": "warc/revisit", '
            b'"status": "200", "digest": "sha1:MNOP", "length": "77", "offset": "4000", '
            b'"filename": "c.warc.gz"}\n')


@pytest.fixture
def store(tmp_path: Path) -> CdxStore:
    with CdxStore(tmp_path / "coll.sqlite") as s:
        yield s  # type: ignore[misc]


def test_every_format_becomes_pywb_cdxj(store: CdxStore) -> None:
    batch = [b" CDX N b a m s k r M S V g\n", CDX11, CDX9,
             b"!warckit-cdx 1.0 sorted urlkey timestamp url digest type filename offset json\n",
             NEW, b"!meta {}\n", b"\n", CDXJ]
    assert store.add(batch) == IngestResult(4, ())
    assert list(store.iter_prefix(b"")) == [WANT_CDX11, WANT_CDX9, CDXJ, WANT_NEW]
    assert store.format == "cdxj" and store.key_style == "cdx" and store.zipnum is None


def test_key_is_made_again_from_the_url(store: CdxStore) -> None:
    # a new-style key, a wrong key and a missing key all become cdx_key(url)
    store.add([(b'whatever 20140101000000 {"url": "http://WWW.Example.com:80/X?b=2&a=1", '
               b'"offset": "1", "filename": "f"}\n'),
               b"- 20140101000000 http://example.org/ - - - - 5 f\n"])
    keys = [line.split(b" ")[0] for line in store.iter_prefix(b"")]
    assert keys == [b"com,example)/x?a=1&b=2", b"org,example)/"]


def test_post_keys_keep_their_method_query(store: CdxStore) -> None:
    store.add([
        (b'com,example)/api?__wb_method=post&q=1 20200101000000 {"url": "http://example.com/api", '
        b'"method": "POST", "requestBody": "q=1", "offset": "1", "filename": "f"}\n'),
        b"com,example)/form?__wb_method=post&a=b 20200101000000 http://example.com/form - 200 D - 2 f\n",
    ])
    keys = [line.split(b" ")[0] for line in store.iter_prefix(b"")]
    assert keys == [b"com,example)/api?__wb_method=post&q=1", b"com,example)/form?__wb_method=post&a=b"]


def test_timestamps_of_any_precision_become_14_digits(store: CdxStore) -> None:
    store.add([b'com,example)/ 2014 {"url": "http://example.com/", "offset": "1"}\n',
               b'com,example)/ 2015-06-07T08:09:10Z {"url": "http://example.com/", "offset": "2"}\n'])
    assert [line.split(b" ")[1] for line in store.iter_prefix(b"")] == [
        b"20140101000000", b"20150607080910"]


def test_the_same_capture_posted_twice_is_stored_once(store: CdxStore) -> None:
    assert store.add([CDX11, CDX11]).count == 2
    assert store.add([CDX11]).count == 1
    assert list(store.iter_prefix(b"")) == [WANT_CDX11]
    # same key, timestamp, filename and offset: the line posted last replaces it
    changed = CDX11.replace(b" 200 ", b" 301 ")
    store.add([changed])
    assert list(store.iter_prefix(b"")) == [WANT_CDX11.replace(b'"200"', b'"301"')]
    # another offset in the same file is another capture
    store.add([CDX11.replace(b" 0 a.warc.gz", b" 9 a.warc.gz")])
    assert len(list(store.iter_prefix(b""))) == 2


def test_delete_removes_matching_captures_and_counts_them(store: CdxStore) -> None:
    store.add([CDX11, CDX9, CDXJ, NEW])
    # CDX-9 with other mime/status/digest still names the CDX-11 capture; CDXJ of NEW too
    other_fields = b"com,example)/ 20140102030405 http://example.com/ x/y 500 ZZZZ - 0 a.warc.gz\n"
    as_cdxj = (b'com,example)/c 20160203040506 {"url": "http://www.example.com/c", '
               b'"offset": "4000", "filename": "c.warc.gz"}\n')
    unknown = CDX9.replace(b" 2000 ", b" 2001 ")
    assert store.delete([other_fields, as_cdxj, unknown, other_fields]) == IngestResult(2, ())
    assert list(store.iter_prefix(b"")) == [WANT_CDX9, CDXJ]


@pytest.mark.parametrize(("line", "reason"), [
    (b"not an index line\n", "not a CDX, CDXJ or new-style CDX line (4 fields)"),
    (b'com,example)/ 20140101000000 {"url": "http://example.com/"\n', "bad JSON"),
    (b"com,example)/ 20140101000000 [1, 2]\n", "not a CDX, CDXJ"),
    (b'com,example)/ 20140101000000 {"mime": "text/html"}\n', "missing URL"),
    (b"com,example)/ 20140101000000 - text/html 200 D - - 1 0 f\n", "missing URL"),
    (b'com,example)/ - {"url": "http://example.com/"}\n', "missing timestamp"),
    (b'com,example)/ 20141301000000 {"url": "http://example.com/"}\n', "bad timestamp '20141301000000'"),
    (b'com,example)/ 20140230000000 {"url": "http://example.com/"}\n', "bad timestamp '20140230000000'"),
    (b'com,example)/ 20140101250000 {"url": "http://example.com/"}\n', "bad timestamp"),
    (b'com,example)/ 2014-01-01Tnoon {"url": "http://example.com/"}\n', "bad timestamp"),
    (b'com,example)/ 201 {"url": "http://example.com/"}\n', "bad timestamp '201'"),
    (b"com,example)/ 20140101000000 http://example.com/ text/html 200 D - - 1 x f\n", "bad offset 'x'"),
    (b'com,example)/ 20140101000000 {"url": "http://e.com/", "length": -3}\n', "bad length -3"),
    (b"com,example)/ 20140101000000 http://example.com/ \xff 200 D - - 1 0 f\n", "not UTF-8"),
    (b" CDX N b x y\n", "unsupported CDX legend"),
    (b"@alias http://a/ http://b/\n", "aliases"),
])
def test_a_bad_line_rejects_the_whole_batch(store: CdxStore, line: bytes, reason: str) -> None:
    store.add([CDX9])
    with pytest.raises(IngestLineError) as info:
        store.add([CDX11, CDXJ, line, NEW])
    err = info.value
    assert isinstance(err, ParseError) and isinstance(err, WarckitError)
    assert err.line == 3 and reason in str(err)
    assert str(err).startswith(f"{store.path}: line 3: ")
    assert line[:15].decode("utf-8", "replace").strip() in err.content
    assert list(store.iter_prefix(b"")) == [WANT_CDX9]  # nothing of the batch kept
    # a delete batch with a bad line removes nothing either
    with pytest.raises(IngestLineError):
        store.delete([CDX9, line])
    assert list(store.iter_prefix(b"")) == [WANT_CDX9]


def test_skip_keeps_the_good_lines_and_reports_every_bad_one(store: CdxStore) -> None:
    result = store.add([CDX11, b"junk\n", CDXJ, b'k 2014 {"url": "-"}\n', b"\n", NEW],
                       bad_lines="skip")
    assert result == IngestResult(3, (
        (2, "not a CDX, CDXJ or new-style CDX line (1 fields): 'junk'"),
        (4, "missing URL: 'k 2014 {\"url\": \"-\"}'"),
    ))
    assert list(store.iter_prefix(b"")) == [WANT_CDX11, CDXJ, WANT_NEW]
    assert store.delete([b"junk", CDX11], bad_lines="skip") == IngestResult(1, ((1, (
        "not a CDX, CDXJ or new-style CDX line (1 fields): 'junk'")),))


def test_bad_lines_must_be_error_or_skip(store: CdxStore) -> None:
    with pytest.raises(UsageError, match="bad_lines"):
        store.add([CDX11], bad_lines="ignore")  # type: ignore[arg-type]


def test_a_legend_says_how_to_read_the_classic_lines_after_it(store: CdxStore) -> None:
    # CDX-10 (N b a m s k r M V g) by its legend, and by its field count without one
    line = b"com,example)/x 20140101000000 http://example.com/x text/html 200 D - - 77 f.warc\n"
    store.add([b" CDX N b a m s k r M V g\n", line])
    store.add([line.replace(b"/x", b"/y")])
    got = list(store.iter_prefix(b""))
    assert got == [
        (b'com,example)/x 20140101000000 {"url": "http://example.com/x", "mime": "text/html", '
        b'"status": "200", "digest": "D", "offset": "77", "filename": "f.warc"}\n'),
        (b'com,example)/y 20140101000000 {"url": "http://example.com/y", "mime": "text/html", '
        b'"status": "200", "digest": "D", "offset": "77", "filename": "f.warc"}\n'),
    ]


def test_iter_prefix_is_a_bytewise_range(store: CdxStore) -> None:
    urls = ["http://example.com/", "http://example.com/a", "http://example.com/a/b",
            "http://example.com/ab", "http://example.com:8080/", "http://example.org/",
            "http://example.com/\u00e9t\u00e9"]
    store.add([f'k 20140101000000 {{"url": "{u}", "offset": "{i}"}}\n'.encode()
               for i, u in enumerate(urls)])
    every = list(store.iter_prefix(b""))
    assert every == sorted(every) and len(every) == 7
    assert [x.split(b" ")[0] for x in store.iter_prefix(b"com,example)/a")] == [
        b"com,example)/a", b"com,example)/a/b", b"com,example)/ab"]
    assert [x.split(b" ")[0] for x in store.iter_prefix(b"com,example)/a ")] == [b"com,example)/a"]
    assert list(store.iter_prefix(b"com,example)/\xff")) == []
    assert list(store.iter_prefix(b"\xff\xff")) == []
    assert len(list(store.iter_prefix(b"com,example"))) == 6


def test_run_query_reads_the_store(store: CdxStore) -> None:
    store.add([CDX11, CDX9, CDXJ, NEW])
    got = [e.format() for e in run_query([store], Query("example.com/", "prefix", from_="2015"))]
    assert [g.encode() + b"\n" for g in got] == [CDXJ, WANT_NEW]


def test_the_store_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with CdxStore(path) as s:
        s.add([CDX11])
    with CdxStore(str(path)) as s:
        assert list(s.iter_prefix(b"")) == [WANT_CDX11]
        assert s.path == str(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_file_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "index.cdxj"
    path.write_bytes(CDXJ * 200)
    with pytest.raises(StoreError) as info:
        CdxStore(path)
    assert str(info.value).startswith(f"{path}: not an SQLite database, or a damaged one")
    assert info.value.source == str(path)


def test_a_damaged_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with CdxStore(path) as s:
        s.add([CDX11.replace(b" 0 a.warc.gz", f" {i} a.warc.gz".encode()) for i in range(2000)])
    data = bytearray(path.read_bytes())
    data[4096 * 2: 4096 * 6] = b"\x5a" * (4096 * 4)  # trash pages of the B-tree
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged|malformed"):
        s = CdxStore(path)
        list(s.iter_prefix(b""))


def test_another_programs_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"not a warckit store \(tables: t\)"):
        CdxStore(path)


def test_an_empty_file_becomes_a_store(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    path.write_bytes(b"")
    with CdxStore(path) as s:
        s.add([CDX11])
        assert list(s.iter_prefix(b"")) == [WANT_CDX11]


def test_a_missing_directory_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "c.sqlite"
    with pytest.raises(StoreError, match="unable to open") as info:
        CdxStore(path)
    assert str(path) in str(info.value)


def test_a_closed_store_refuses_work(tmp_path: Path) -> None:
    s = CdxStore(tmp_path / "c.sqlite")
    s.close()
    with pytest.raises(UsageError, match="closed"):
        s.add([CDX11])
    with pytest.raises(UsageError, match="closed"):
        list(s.iter_prefix(b""))


@pytest.mark.parametrize(("ts", "ok"), [
    ("20160229000000", True), ("20150229000000", False), ("20000229000000", True),
    ("19000229000000", False), ("20141231235960", True), ("20141231235961", False),
    ("20140431000000", False), ("20140430235959", True), ("20140001000000", False),
])
def test_dates_are_checked_day_by_day(store: CdxStore, ts: str, ok: bool) -> None:
    line = f'com,example)/ {ts} {{"url": "http://example.com/"}}\n'.encode()
    result = store.add([line], bad_lines="skip")
    assert (result.count, len(result.skipped)) == ((1, 0) if ok else (0, 1))
    if not ok:
        assert result.skipped[0][1].startswith(f"bad timestamp '{ts}'")


def test_outbackcdx_14_field_lines_keep_the_revisit_fields(store: CdxStore) -> None:
    # OutbackCDX's own text output (CDX-11 and a resolved revisit's length, offset, file)
    line = (b"com,example)/ 20140102030405 http://example.com/ warc/revisit 200 ABCD - - 400 "
            b"900 b.warc.gz 1043 0 a.warc.gz\n")
    plain = b"com,example)/ 20140102030405 http://example.com/ text/html 200 ABCD - - 1043 0 a.warc.gz - - -\n"
    assert store.add([line, plain]).count == 2
    assert list(store.iter_prefix(b"")) == [
        WANT_CDX11,
        (b'com,example)/ 20140102030405 {"url": "http://example.com/", "mime": "warc/revisit", '
        b'"status": "200", "digest": "ABCD", "length": "400", "offset": "900", '
        b'"filename": "b.warc.gz", "orig.length": "1043", "orig.offset": "0", '
        b'"orig.filename": "a.warc.gz"}\n'),
    ]
    with pytest.raises(IngestLineError, match="bad orig.offset 'x'"):
        store.add([line.replace(b" 1043 0 ", b" 1043 x ")])
