"""Several threads and processes adding, deleting and querying one store: nothing lost, no torn batch."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from store_fixtures import (
    BATCH,
    batch_lines,
    expected_lines,
    read_until,
    torn_batches,
    write_and_delete,
)

from warckit.serve import store as store_module
from warckit.serve.store import CdxStore, StoreError

WRITERS = 4
BATCHES = 15


def test_threads_lose_nothing_and_never_see_half_a_batch(tmp_path: Path) -> None:
    path = str(tmp_path / "c.sqlite")
    stop = str(tmp_path / "stop")
    CdxStore(path).close()
    with ThreadPoolExecutor(WRITERS + 2) as pool:
        readers = [pool.submit(read_until, path, stop) for _ in range(2)]
        writers = [pool.submit(write_and_delete, path, w, BATCHES) for w in range(WRITERS)]
        assert [f.result() for f in writers] == [0] * WRITERS
        Path(stop).touch()
        scans = [f.result() for f in readers]
    assert all(torn == 0 for _, torn in scans), scans
    assert sum(n for n, _ in scans) >= 2
    with CdxStore(path) as store:
        assert list(store.iter_prefix(b"")) == expected_lines(WRITERS, BATCHES)


def test_one_store_object_shared_by_threads(tmp_path: Path) -> None:
    store = CdxStore(tmp_path / "c.sqlite")
    seen: list[list[tuple[bytes, int]]] = []
    done = threading.Event()

    def scan() -> None:
        while not done.is_set():
            seen.append(torn_batches(list(store.iter_prefix(b""))))

    def write(w: int) -> None:
        for b in range(BATCHES):
            store.add(batch_lines(w, b))
            if b % 3 == 0:
                assert store.delete(batch_lines(w, b)).count == BATCH

    reader = threading.Thread(target=scan)
    reader.start()
    with ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(write, range(WRITERS)))
    done.set()
    reader.join()
    assert seen and all(t == [] for t in seen)
    assert list(store.iter_prefix(b"")) == expected_lines(WRITERS, BATCHES)
    store.close()


def test_a_scan_may_be_resumed_on_another_thread(tmp_path: Path) -> None:
    # Starlette pulls a sync iterator's chunks on worker threads, one next() each.
    store = CdxStore(tmp_path / "c.sqlite")
    store.add(batch_lines(0, 0, size=2000))
    scan = store.iter_prefix(b"")
    first = next(scan)
    store.add(batch_lines(1, 0))  # written after the scan began: not part of its snapshot
    with ThreadPoolExecutor(3) as pool:
        rest = [pool.submit(next, scan, None).result() for _ in range(2005)]
    got = [first] + [r for r in rest if r is not None]
    assert len(got) == 2000 and torn_batches(got, 2000) == []
    assert len(list(store.iter_prefix(b""))) == 2000 + BATCH
    store.close()


@pytest.mark.slow
def test_processes_lose_nothing_and_never_see_half_a_batch(tmp_path: Path) -> None:
    path = str(tmp_path / "c.sqlite")
    stop = str(tmp_path / "stop")
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WRITERS + 2) as pool:
        # every process opens (and creates, for the first ones) the database at once
        readers = [pool.apply_async(read_until, (path, stop)) for _ in range(2)]
        writers = [pool.apply_async(write_and_delete, (path, w, BATCHES)) for w in range(WRITERS)]
        assert [r.get(timeout=300) for r in writers] == [0] * WRITERS
        Path(stop).touch()
        scans = [r.get(timeout=300) for r in readers]
    assert all(torn == 0 for _, torn in scans), scans
    with CdxStore(path) as store:
        assert list(store.iter_prefix(b"")) == expected_lines(WRITERS, BATCHES)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_opens_its_own_connections(tmp_path: Path) -> None:
    store = CdxStore(tmp_path / "c.sqlite")
    store.add(batch_lines(0, 0))
    list(store.iter_prefix(b""))  # the parent has an idle connection in its pool
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=store.add, args=(batch_lines(1, 0),))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert len(list(store.iter_prefix(b""))) == 2 * BATCH
    store.close()


def test_a_writer_waits_for_another_writer(tmp_path: Path) -> None:
    store = CdxStore(tmp_path / "c.sqlite")
    other = sqlite3.connect(tmp_path / "c.sqlite", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock for a while
    threading.Timer(0.5, lambda: other.execute("COMMIT")).start()
    started = time.monotonic()
    assert store.add(batch_lines(0, 0)).count == BATCH
    assert time.monotonic() - started >= 0.4
    # readers are not held up by a writer at all
    other.execute("BEGIN IMMEDIATE")
    assert len(list(store.iter_prefix(b""))) == BATCH
    other.execute("ROLLBACK")
    other.close()
    store.close()


def test_a_writer_held_up_too_long_gets_a_store_error(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.2)
    store = CdxStore(tmp_path / "c.sqlite")
    other = sqlite3.connect(tmp_path / "c.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(StoreError, match="busy") as info:
        store.add(batch_lines(0, 0))
    assert info.value.source == str(tmp_path / "c.sqlite")
    other.execute("ROLLBACK")
    other.close()
    assert store.add(batch_lines(0, 0)).count == BATCH  # and works once the lock is free
    assert len(list(store.iter_prefix(b""))) == BATCH
    store.close()
