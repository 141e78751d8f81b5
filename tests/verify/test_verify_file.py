"""verify_file: the same reports and errors as verify_digests record by record, in one
process or several."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_paths import CORPUS

import warckit
from warckit.check import verify
from warckit.errors import WarckitError

#: Generated inputs (make_corpus.py mix, megabytes): enough records for every test below.
SIZES = {"domain": 5.0, "cc": 7.0, "small": 2.0}
#: Records taken from each (a domain record averages ~50 KB, a small one ~2 KB).
RECORDS = {"domain": 60, "cc": 300, "small": 600}


def _sequential(path: Path) -> tuple[list[tuple[int, verify.DigestReport]], str | None]:
    """The reference: the streaming path on every record, and the error that stops it."""
    out = []
    try:
        with warckit.open(path) as reader:
            for record in reader:
                out.append((record.offset, verify._verify_streaming(record)))
    except WarckitError as exc:
        return out, f"{type(exc).__name__}: {exc}"
    return out, None


def _run(path: Path, **kwargs: int) -> tuple[list[tuple[int, verify.DigestReport]], str | None]:
    out: list[tuple[int, verify.DigestReport]] = []
    try:
        out.extend(verify.verify_file(path, **kwargs))
    except WarckitError as exc:
        return out, f"{type(exc).__name__}: {exc}"
    return out, None


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and (".warc" in p.name or ".arc" in p.name))


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_file_matches_record_by_record(path: Path) -> None:
    expected = _sequential(path)
    assert _run(path) == expected
    assert _run(path, jobs=2, min_split_size=0) == expected


@pytest.fixture
def bench(bench_warc: Callable[[str, float], Path]) -> Callable[[str], Path]:
    """``bench(mix)``: a generated gzip-per-record WARC of that make_corpus.py mix."""
    return lambda mix: bench_warc(mix, SIZES[mix])


def _prefix(src: Path, dest: Path, records: int) -> Path:
    """The first *records* records of a gzip-per-record file (cut at a member start)."""
    with warckit.open(src) as reader:
        for i, record in enumerate(reader):
            if i == records:
                cut = record.offset
                break
        else:
            raise AssertionError(f"{src} has fewer than {records} records")
    with open(src, "rb") as fin, open(dest, "wb") as fout:
        fout.write(fin.read(cut))
    return dest


@pytest.mark.parametrize("mix", ["domain", "cc", "small"])
@pytest.mark.parametrize("jobs", [2, 3])
def test_bench_corpus_prefix_in_pieces(tmp_path: Path, bench: Callable[[str], Path], mix: str, jobs: int) -> None:
    path = _prefix(bench(mix), tmp_path / f"{mix}.warc.gz", RECORDS[mix])
    from warckit.read.pieces import split_points

    assert len(split_points(str(path), jobs, min_size=0)) == jobs - 1
    expected, error = _sequential(path)
    assert error is None and len(expected) == RECORDS[mix]
    got = list(verify.verify_file(path, jobs=jobs, min_split_size=0))
    assert got == expected
    assert all(r.ok for _, r in got)  # make_corpus.py writes right digests
    with warckit.open(path) as reader:
        digested = [r.offset for r in reader if "WARC-Block-Digest" in r.headers]
    assert len(digested) >= RECORDS[mix] // 4
    assert [o for o, r in got if r.block is not None] == digested  # each digest was checked


def test_damage_in_a_later_piece_raises_where_the_sequential_reading_does(
    tmp_path: Path, bench: Callable[[str], Path]
) -> None:
    path = _prefix(bench("small"), tmp_path / "small.warc.gz", 400)
    data = bytearray(path.read_bytes())
    at = len(data) * 3 // 4
    data[at : at + 64] = b"\x00" * 64  # inside a deflate stream of the second half
    path.write_bytes(bytes(data))
    expected, error = _sequential(path)
    assert error is not None
    assert _run(path, jobs=2, min_split_size=0) == (expected, error)


def test_split_point_out_of_step_falls_back(
    tmp_path: Path, bench: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _prefix(bench("cc"), tmp_path / "cc.warc.gz", 300)
    expected = _sequential(path)
    from warckit.read import pieces as split

    size = path.stat().st_size
    monkeypatch.setattr(split, "split_points", lambda *a, **k: [(size // 2 - 7, size // 2 - 3)])
    assert _run(path, jobs=2) == expected


def test_failed_child_is_reported_and_early_stop_reaps_children(
    tmp_path: Path, bench: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    failed = verify._Forked(str(tmp_path / "missing.warc.gz"), 0, None)
    assert failed.result() is None
    failed.cancel()
    assert not Path(failed.spool).exists()
    started: list[tuple[verify._Forked, int]] = []

    class Recorded(verify._Forked):
        def __init__(self, *args: object) -> None:
            super().__init__(*args)  # type: ignore[arg-type]
            assert self.pid is not None
            started.append((self, self.pid))

    monkeypatch.setattr(verify, "_Forked", Recorded)
    path = _prefix(bench("cc"), tmp_path / "cc.warc.gz", 300)
    it = verify.verify_file(path, jobs=3, min_split_size=0)
    assert next(it)[0] == 0
    it.close()  # the children are stopped and reaped, their spool files removed
    assert len(started) == 2
    for child, pid in started:
        assert child.pid is None
        assert not Path(child.spool).exists()
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_uncompressed_file_is_checked_in_one_piece(tmp_path: Path) -> None:
    src = CORPUS / "warcio/example-iana.org-chunked.warc"
    if not src.exists():
        pytest.skip("corpus not available")
    path = tmp_path / "x.warc"
    shutil.copy(src, path)
    got = list(verify.verify_file(path, jobs=2, min_split_size=0))
    assert got == _sequential(path)[0]
    reports = [r for _, r in got if r.payload is not None]
    assert reports and reports[0].payload is not None and reports[0].payload.convention == "legacy"


def test_reports_pickle_and_compare_by_value() -> None:
    import pickle

    path = CORPUS / "warcio/example-iana.org-chunked.warc"
    if not path.exists():
        pytest.skip("corpus not available")
    with warckit.open(path) as reader:
        reports = [verify.verify_digests(r) for r in reader]
    assert any(r.payload is not None for r in reports)
    for report in reports:
        copy = pickle.loads(pickle.dumps(report))
        assert copy == report and hash(copy) == hash(report) and repr(copy) == repr(report)
        with pytest.raises(AttributeError):
            report.block = None  # type: ignore[misc]


@pytest.mark.parametrize("mix", ["domain", "small"])
def test_worker_piece_comes_back_whole(tmp_path: Path, bench: Callable[[str], Path], mix: str) -> None:
    """A piece checked in a worker process returns its results (no silent fallback)."""
    path = _prefix(bench(mix), tmp_path / f"{mix}.warc.gz", RECORDS[mix])
    here = list(verify._piece(str(path), 0, None, []))
    child = verify._Forked(str(path), 0, None)
    try:
        result = child.result()
        assert result is not None
        items_iter, stopped = result
        items = list(items_iter)
    finally:
        child.discard()
    assert not stopped
    assert [(o, verify._report(i)) for o, i in items] == [(o, verify._report(i)) for o, i in here]
    assert any(isinstance(i, tuple) for _, i in items)  # the fast path's compact results


def test_worker_returns_streamed_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    src = CORPUS / "warcio/example-iana.org-chunked.warc"
    if not src.exists():
        pytest.skip("corpus not available")
    monkeypatch.setattr(verify, "_scan", lambda record, block=None: None)  # every record streams (forked: inherited)
    child = verify._Forked(str(src), 0, None)
    try:
        result = child.result()
        assert result is not None
        items = list(result[0])
    finally:
        child.discard()
    assert all(isinstance(i, verify.DigestReport) for _, i in items)
    assert [(o, verify._report(i)) for o, i in items] == _sequential(src)[0]


def test_fork_failure_checks_the_file_here(
    tmp_path: Path, bench: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    path = _prefix(bench("domain"), tmp_path / "domain.warc.gz", RECORDS["domain"])
    expected = _sequential(path)

    def no_fork() -> int:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert _run(path, jobs=2, min_split_size=0) == expected


def test_worker_results_are_spooled_and_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers' results come back through temporary files (bounded memory here), all removed after."""
    import base64
    import gzip
    import hashlib
    import os
    import tempfile

    members = []
    for i in range(2000):
        block = b"record %d " % i * (i % 50 + 1)
        digest = base64.b32encode(hashlib.sha1(block if i % 97 else b"wrong").digest()).decode()
        head = (f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{i}>\r\n"
                f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{i}\r\n"
                f"WARC-Block-Digest: sha1:{digest}\r\nContent-Length: {len(block)}\r\n\r\n").encode()
        members.append(gzip.compress(head + block + b"\r\n\r\n", compresslevel=1, mtime=0))
    path = tmp_path / "small.warc.gz"
    path.write_bytes(b"".join(members))
    spools = tmp_path / "spools"
    spools.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spools))
    monkeypatch.setattr(verify, "_SPOOL_BATCH", 7)  # many batches per piece
    sizes: list[int] = []
    real = verify._Forked.discard

    def measured(self: verify._Forked) -> None:
        if os.path.exists(self.spool):
            sizes.append(os.path.getsize(self.spool))
        real(self)

    monkeypatch.setattr(verify._Forked, "discard", measured)
    got = _run(path, jobs=3, min_split_size=0)
    assert got == _sequential(path)
    assert len(got[0]) == 2000 and [o for o, r in got[0] if not r.ok] == [
        sum(map(len, members[:i])) for i in range(0, 2000, 97)]
    assert list(spools.iterdir()) == []
    assert len(sizes) >= 2 and all(size > 1000 for size in sizes[:2])  # both workers' results were spooled


@pytest.mark.parametrize("cpus", [1, 2])
def test_a_large_block_is_hashed_on_the_worker_only_with_a_cpu_to_spare(
        monkeypatch: pytest.MonkeyPatch, cpus: int) -> None:
    import gzip
    import hashlib
    import io
    from base64 import b32encode

    body = bytes(range(256)) * 8192 * 3  # 6 MiB: past BUFFERED_MAX, so streamed
    chunked = b"".join(b"%x\r\n" % len(body[i:i + 300_000]) + body[i:i + 300_000] + b"\r\n"
                       for i in range(0, len(body), 300_000)) + b"0\r\n\r\n"
    block = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked

    def sha1(data: bytes) -> str:
        return "sha1:" + b32encode(hashlib.sha1(data).digest()).decode()

    head = (f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:big>\r\n"
            f"WARC-Date: 2026-12-04T09:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
            f"WARC-Block-Digest: {sha1(block)}\r\nWARC-Payload-Digest: {sha1(body)}\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(block)}\r\n\r\n")
    data = gzip.compress(head.encode() + block + b"\r\n\r\n")
    submitted: list[int] = []
    real_worker = verify._worker

    def worker() -> object:
        submitted.append(1)
        return real_worker()

    monkeypatch.setattr(verify, "cpu_count", lambda: cpus)
    monkeypatch.setattr(verify, "_worker", worker)
    record = next(iter(warckit.open(io.BytesIO(data))))
    assert record.content_length >= verify.BUFFERED_MAX > verify.OFFLOAD_THRESHOLD
    report = verify.verify_digests(record)
    assert report.ok and report.block is not None and report.block.ok
    assert report.payload is not None and report.payload.convention == verify.WARC11
    assert bool(submitted) == (cpus > 1)
