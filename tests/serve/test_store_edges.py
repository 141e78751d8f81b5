"""CdxStore edges: line endings, long lines, chunked bodies, failing inputs, abandoned scans."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_fixtures import BATCH, batch_lines

from warckit.errors import ParseError
from warckit.serve import store as store_module
from warckit.serve.ingest import MAX_LINE, split_lines
from warckit.serve.store import CdxStore, IngestLineError, IngestResult

LINE = b'com,example)/ 20140101000000 {"url": "http://example.com/", "offset": "1", "filename": "f"}'


@pytest.fixture
def store(tmp_path: Path) -> Iterator[CdxStore]:
    with CdxStore(tmp_path / "c.sqlite") as s:
        yield s


def test_line_endings_and_a_last_line_without_one(store: CdxStore) -> None:
    other = LINE.replace(b'"1"', b'"2"')
    third = LINE.replace(b'"1"', b'"3"')
    assert store.add([LINE + b"\r\n", other + b"\n", third]).count == 3
    assert list(store.iter_prefix(b"")) == [LINE + b"\n", other + b"\n", third + b"\n"]


def test_an_element_holding_two_lines_is_a_bad_line(store: CdxStore) -> None:
    with pytest.raises(IngestLineError, match="line 2: line break inside the line"):
        store.add([LINE, LINE + b"\n" + LINE.replace(b'"1"', b'"2"') + b"\n"])
    assert list(store.iter_prefix(b"")) == []


def test_a_line_over_the_limit_is_a_bad_line(store: CdxStore) -> None:
    huge = LINE[:-1] + b', "pad": "' + b"x" * MAX_LINE + b'"}\n'
    result = store.add([LINE, huge], bad_lines="skip")
    assert result.count == 1
    assert result.skipped[0][0] == 2 and result.skipped[0][1].startswith(
        f"line longer than {MAX_LINE} bytes: ")
    assert len(result.skipped[0][1]) < 300


def test_split_lines_rejoins_lines_across_chunks() -> None:
    body = b"".join(batch_lines(0, 0, size=50))
    for size in (1, 7, 64, 1000, len(body)):
        chunks = [body[i:i + size] for i in range(0, len(body), size)]
        assert list(split_lines(chunks)) == batch_lines(0, 0, size=50)
    assert list(split_lines([b"a\nb", b"c\n", b"", b"d"])) == [b"a\n", b"bc\n", b"d"]
    assert list(split_lines([])) == []


def test_split_lines_refuses_to_gather_an_endless_line() -> None:
    def endless() -> Iterator[bytes]:
        yield b"ok\n"
        while True:
            yield b"x" * 4096

    with pytest.raises(ParseError, match="line 2 is longer than 10000 bytes"):
        list(split_lines(endless(), max_line=10_000))
    with pytest.raises(ParseError, match="line 1 is longer than 10 bytes"):
        list(split_lines([b"0123456789AB\n"], max_line=10))


def test_split_lines_feeds_add(store: CdxStore) -> None:
    body = b" CDX N b a m s k r M S V g\n" + b"".join(batch_lines(0, 0))
    chunks = [body[i:i + 100] for i in range(0, len(body), 100)]
    assert store.add(split_lines(chunks)) == IngestResult(BATCH, ())


def test_a_failing_input_keeps_nothing_and_leaves_nothing_staged(store: CdxStore) -> None:
    def dropped() -> Iterator[bytes]:
        yield from batch_lines(0, 0)
        raise ConnectionResetError("client went away")

    with pytest.raises(ConnectionResetError):
        store.add(dropped())
    assert list(store.iter_prefix(b"")) == []
    # the connection goes back to the pool with an empty staging table
    assert store.add(batch_lines(1, 0)) == IngestResult(BATCH, ())
    assert len(list(store.iter_prefix(b""))) == BATCH


def test_abandoned_scans_give_their_connection_back(store: CdxStore) -> None:
    store.add(batch_lines(0, 0, size=2000))
    for _ in range(50):
        scan = store.iter_prefix(b"")
        next(scan)
        scan.close()
    assert len(store._idle) <= store_module.POOL_SIZE
    # a scan left open holds its snapshot: a write meanwhile is not in it
    scan = store.iter_prefix(b"")
    first = next(scan)
    assert store.delete(batch_lines(0, 0, size=2000)).count == 2000
    assert len([first, *scan]) == 2000
    assert list(store.iter_prefix(b"")) == []


def test_closing_with_a_scan_under_way(tmp_path: Path) -> None:
    store = CdxStore(tmp_path / "c.sqlite")
    store.add(batch_lines(0, 0, size=1000))
    scan = store.iter_prefix(b"")
    next(scan)
    store.close()
    assert len(list(scan)) == 999  # the scan finishes, then closes its connection
    assert store._idle == []


def _open_and_add(path: str, writer: int, barrier: object) -> int:
    barrier.wait()  # type: ignore[attr-defined]
    with CdxStore(path) as s:
        return s.add(batch_lines(writer, 0)).count


@pytest.mark.slow
def test_processes_creating_one_store_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / "new.sqlite")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(5)
    procs = [ctx.Process(target=_open_and_add, args=(path, w, barrier)) for w in range(5)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 5
    with CdxStore(path) as s:
        assert len(list(s.iter_prefix(b""))) == 5 * BATCH


def _open_only(path: str, barrier: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    with CdxStore(path) as s:
        assert s.path == path


def test_forked_processes_racing_to_create_a_store(tmp_path: Path) -> None:
    # Eight processes opening a new file at one instant: SQLite refuses a journal-mode
    # switch at once, without waiting, when another connection holds the file (about one
    # round in nine failed before the store retried it).
    ctx = multiprocessing.get_context("fork")
    for round_ in range(24):
        path = str(tmp_path / f"new{round_}.sqlite")
        barrier = ctx.Barrier(8)
        procs = [ctx.Process(target=_open_only, args=(path, barrier)) for _ in range(8)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        assert [p.exitcode for p in procs] == [0] * 8, f"round {round_}"
        with CdxStore(path) as s:
            assert list(s.iter_prefix(b"")) == []


def test_text_prefixes_and_text_lines_work_as_bytes(store: CdxStore) -> None:
    store.add([LINE.decode() + "\n"])  # type: ignore[list-item]
    assert list(store.iter_prefix("com,example)/ ")) == [LINE + b"\n"]  # type: ignore[arg-type]
    assert list(store.iter_prefix(bytearray(b"com,example)/"))) == [LINE + b"\n"]  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [b"\x00", b"\t", b"\x1b", b"\x7f"])
def test_a_control_character_makes_a_bad_line(store: CdxStore, bad: bytes) -> None:
    line = b"com,example)/ 20140101000000 http://example.com/ text/html 200 D - - 1 0 f" + bad + b"x\n"
    with pytest.raises(IngestLineError, match=f"line 1: control character {ord(bad):#04x} at column 75"):
        store.add([line])
    assert store.add([b"\t \n", LINE]).count == 1  # a line of blanks is a blank line


def test_an_empty_batch_takes_no_write_lock(store: CdxStore, tmp_path: Path) -> None:
    import sqlite3

    other = sqlite3.connect(tmp_path / "c.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the store
    try:
        assert store.add([b" CDX N b a m s k r M S V g\n", b"\n"]) == IngestResult(0, ())
        assert store.delete([b"junk"], bad_lines="skip").count == 0
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_large_batch_does_not_keep_its_staging_file(store: CdxStore,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "LARGE_BATCH", 30)
    list(store.iter_prefix(b""))
    idle = list(store._idle)
    assert store.add(batch_lines(0, 0)).count == BATCH  # 40 lines: closed after
    assert store._idle == []
    with pytest.raises(Exception, match="closed"):
        idle[0].execute("SELECT 1")
    assert store.add(batch_lines(0, 1, size=20)).count == 20  # 20: pooled again
    assert len(store._idle) == 1 and len(list(store.iter_prefix(b""))) == 60
