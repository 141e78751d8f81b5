"""One WarcWriter shared by eight threads: every record whole, at its reported place."""

from __future__ import annotations

import gzip
import os
import threading
import zlib
from pathlib import Path
from types import ModuleType

import pytest
import zstandard
from twins import impl_params

import warckit
from warckit.write import writer as _writer
from warckit.write.guided import WarcWriter, WrittenRecord

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
THREADS = 8
PER_THREAD = 60


def _body(t: int, i: int) -> bytes:
    # Sizes from a few bytes to ~300 KB (past the worker-thread threshold of the
    # streaming backends), compressible and not.
    size = (t * 7919 + i * 104729) % 40_000 if i % 10 else 300_000 + t
    text = (f"<p>thread {t} record {i}</p>".encode() * (size // 24 + 1))[:size]
    return text if i % 3 else os.urandom(size)


def _decompress(raw: bytes, compression: str) -> bytes:
    if compression == "gzip":
        return gzip.decompress(raw)
    if compression == "zstd":
        return zstandard.ZstdDecompressor().decompress(raw)
    return raw


def _run(tmp_path: Path, **kwargs: object) -> tuple[WarcWriter, list[list[tuple[WrittenRecord, bytes]]]]:
    results: list[list[tuple[WrittenRecord, bytes]]] = [[] for _ in range(THREADS)]
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)
    w = WarcWriter(tmp_path, max_bytes=400_000, fsync=False, **kwargs)  # type: ignore[arg-type]

    def work(t: int) -> None:
        try:
            start.wait()
            for i in range(PER_THREAD):
                body = _body(t, i)
                if i % 4 == 0:
                    rec = w.resource(f"https://t{t}.example/{i}", body, content_type="text/html")
                else:
                    rec = w.response(f"https://t{t}.example/{i}", HEAD, iter([body[:999], body[999:]]))
                if i % 7 == 0:
                    assert rec.offset >= 0  # settle some records while others write
                results[t].append((rec, body))
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(300)
    w.close()
    assert not errors, errors
    return w, results


@pytest.mark.parametrize(("compression", "backend"), [
    ("gzip", None), ("gzip", "zlib"), ("zstd", None), ("none", None)])
def test_eight_threads_share_one_writer(tmp_path: Path, compression: str, backend: str | None) -> None:
    if backend is not None and backend not in _writer.GZIP_BACKENDS:
        pytest.skip(f"{backend} not installed")
    w, results = _run(tmp_path, compression=compression, gzip_backend=backend)
    assert not list(tmp_path.glob("*.open"))
    files = sorted(w.files)
    assert sorted(str(p) for p in tmp_path.iterdir()) == files
    assert len(files) > 10  # rolled many times
    # Every record is whole at its reported (file, offset, length).
    for per_thread in results:
        assert len(per_thread) == PER_THREAD
        for rec, body in per_thread:
            with open(rec.path, "rb") as f:
                f.seek(rec.offset)
                raw = f.read(rec.length)
            plain = _decompress(raw, compression)
            assert plain.startswith(b"WARC/1.1\r\n")
            assert f"WARC-Record-ID: {rec.record_id}\r\n".encode() in plain
            assert plain.endswith(body + b"\r\n\r\n")
    # The files hold exactly these records (plus one warcinfo each), back to back.
    seen = {}
    for path in files:
        recs = list(warckit.open(path))
        assert recs[0].type == "warcinfo"
        assert sum(r.type == "warcinfo" for r in recs) == 1
        end = 0
        for r in recs:
            assert r.offset == end
            end += r.length
            seen[r.record_id] = (path, r.offset, r.length)
        assert end == os.path.getsize(path)
    written = {rec.record_id: (rec.path, rec.offset, rec.length)
               for per_thread in results for rec, _ in per_thread}
    assert len(written) == THREADS * PER_THREAD
    assert {k: v for k, v in seen.items() if k in written} == written
    assert len(seen) == len(written) + len(files)
    # Each thread's records are in the files in its call order.
    order = {path: n for n, path in enumerate(files)}
    for per_thread in results:
        places = [(order[rec.path], rec.offset) for rec, _ in per_thread]
        assert places == sorted(places)


def test_closing_while_threads_write(tmp_path: Path) -> None:
    """close() from another thread: later records are refused with UsageError, the
    files are finished, and every record that was accepted is in them."""
    w = WarcWriter(tmp_path, max_bytes=100_000, fsync=False)
    accepted: list[WrittenRecord] = []
    refused: list[BaseException] = []
    lock = threading.Lock()

    def work(t: int) -> None:
        # Until refused: a thread that ran out of records before close() (a loaded machine
        # can starve the closing thread) would never meet the closed writer.
        for i in range(1_000_000):
            try:
                rec = w.resource(f"https://t{t}.example/{i}", _body(t, i + 1)[:5000],
                                 content_type="text/html")
            except warckit.UsageError as exc:
                with lock:
                    refused.append(exc)
                return
            with lock:
                accepted.append(rec)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    while len(accepted) < 50:
        threading.Event().wait(0.001)
    w.close()
    for th in threads:
        th.join(60)
    assert len(refused) == 4
    assert not list(tmp_path.glob("*.open"))
    ids = {r.record_id for path in w.files for r in warckit.open(path)}
    assert all(rec.record_id in ids for rec in accepted)
    for rec in accepted[::5]:
        assert warckit.read_record_at(rec.path, rec.offset).record_id == rec.record_id


@pytest.mark.parametrize("bd", impl_params("blockdeflate"))
def test_native_job_shared_between_threads(bd: ModuleType) -> None:
    """A compression job waited for and polled by many threads at once (both twins):
    one result for all, no crash (the compiled job used to be freed by the first
    thread back while the others still read it)."""
    data = os.urandom(1 << 20) + b"abc" * 300_000
    for _ in range(20):
        worker = bd.Worker()
        job = worker.submit(data, 6)
        got: list[tuple[bytes, int]] = []
        errors: list[BaseException] = []
        go = threading.Barrier(8)

        def use(i: int, job: object = job, go: threading.Barrier = go,
                got: list[tuple[bytes, int]] = got, errors: list[BaseException] = errors) -> None:
            try:
                go.wait()
                if i % 2:
                    while not job.done():  # type: ignore[attr-defined]
                        pass
                got.append(job.result())  # type: ignore[attr-defined]
                assert job.done()  # type: ignore[attr-defined]
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=use, args=(i,)) for i in range(8)]
        for th in threads:
            th.start()
        closer = threading.Thread(target=worker.close)
        closer.start()
        for th in threads:
            th.join(60)
        closer.join(60)
        worker.close()
        assert not errors, errors
        assert len(got) == 8 and all(g == got[0] for g in got)
        out, crc = got[0]
        assert zlib.decompress(out, -15) == data and crc == zlib.crc32(data)


@pytest.mark.parametrize("bd", impl_params("blockdeflate"))
def test_native_worker_started_and_stopped_by_many_threads(bd: ModuleType) -> None:
    """Threads submitting to and closing one worker at once (both twins): every job
    is compressed right, nothing hangs or crashes (the compiled worker could start a
    second thread on the same compressors, or be joined twice)."""
    worker = bd.Worker()
    blocks = [os.urandom(100_000) + bytes([i]) * 100_000 for i in range(4)]
    errors: list[BaseException] = []

    def hammer(t: int) -> None:
        try:
            for i in range(20):
                data = blocks[(t + i) % 4]
                job = worker.submit(data, 1 + i % 6)
                if i % 3 == 0:
                    worker.close()
                out, crc = job.result()
                assert zlib.decompress(out, -15) == data and crc == zlib.crc32(data)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    worker.close()
    assert not errors, errors
    assert not any(th.is_alive() for th in threads)
