"""``warckit check`` on one file in pieces, and its fast digest path: the same report,
finding for finding, as the sequential check and as the check before either existed.

``check_reports.json`` holds a hash of the report of every corpus file as the check
made it before the pieces and the fast path (commit ab01501); regenerate it only for
a deliberate change of findings: ``python tests/verify/test_check_pieces.py``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import CORPUS

from warckit.check import pieces as check_pieces
from warckit.check import report as check_report
from warckit.check import verify as check_verify
from warckit.check.report import check_file
from warckit.cli import main
from warckit.read.pieces import split_points

GOLDEN = Path(__file__).with_name("check_reports.json")


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md", ".tsv"))


def _canonical(path: Path, **kwargs: Any) -> dict[str, Any]:
    report = check_file(path, **kwargs).as_dict()
    report["file"] = str(path.relative_to(CORPUS)) if CORPUS in path.parents else path.name
    return report


def _digest(report: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(report, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]


def test_golden_covers_the_corpus() -> None:
    files = _corpus_files()
    if not files:
        pytest.skip("corpus not available")
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(str(p.relative_to(CORPUS)) for p in files)


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_reports_are_as_before_in_one_piece_and_in_several(path: Path) -> None:
    expected = json.loads(GOLDEN.read_text())[str(path.relative_to(CORPUS))]
    one = _canonical(path)
    assert _digest(one) == expected
    assert _canonical(path, jobs=2, min_split_size=0) == one
    assert _canonical(path, jobs=4, min_split_size=0) == one


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_fast_digest_path_reports_as_the_streaming_one(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = check_file(path)
    monkeypatch.setattr(check_report, "_scan", lambda record, block=None: None)
    assert check_file(path) == fast


def _records(path: Path) -> list[bytes]:
    """The gzip members of a gzip-per-record file, each decompressed (one record each)."""
    data = path.read_bytes()
    out = []
    import zlib

    while data:
        d = zlib.decompressobj(31)
        out.append(d.decompress(data))
        data = d.unused_data
    return out


def _damaged(tmp_path: Path, bench_warc: Callable[[str, float], Path]) -> Path:
    """A generated file with findings in every piece: a tampered block and payload, a
    repeated record ID (its first use in another piece), garbage between members, a
    lowercase version line, a multi-record member, a cut last record, and a bare-LF
    field line (a finding the reader makes before it yields the record) in the three
    records from the middle one on."""
    records = _records(bench_warc("small", 1.0))
    assert len(records) > 200
    n = len(records)
    first_id = records[1].split(b"WARC-Record-ID: ", 1)[1].split(b"\r\n", 1)[0]
    tampered = []
    for i, rec in enumerate(records):
        head, sep, block = rec.partition(b"\r\n\r\n")
        if n // 2 <= i < n // 2 + 3:
            head = head.replace(b"\r\nWARC-Date:", b"\r\nX-Note: bare\nWARC-Date:", 1)
        if i == n // 3:
            block = block[:-20] + b"X" + block[-19:]  # block and payload digests fail
        if i == n // 2:
            old = head.split(b"WARC-Record-ID: ", 1)[1].split(b"\r\n", 1)[0]
            head = head.replace(old, first_id)
        if i == 2 * n // 3:
            head = b"warc/" + head[5:]
        tampered.append(head + sep + block)
    out = bytearray()
    for i, rec in enumerate(tampered):
        if i == 3 * n // 4:
            out += b"garbage between members"
        if i == 4 * n // 5:
            out += gzip.compress(rec + tampered[i + 1], 1)
            continue
        if i == 4 * n // 5 + 1:
            continue
        out += gzip.compress(rec, 1)
    path = tmp_path / "damaged.warc.gz"
    path.write_bytes(bytes(out[:-3000]))
    return path


@pytest.mark.parametrize("jobs", [2, 3, 5])
def test_findings_in_every_piece(tmp_path: Path, bench_warc: Callable[[str, float], Path], jobs: int) -> None:
    path = _damaged(tmp_path, bench_warc)
    one = check_file(path)
    codes = one.codes()
    assert {"block-digest-mismatch", "payload-digest-mismatch", "duplicate-record-id", "lowercase-version",
            "skipped-garbage", "multi-record-member", "truncated-member", "bare-lf"} <= codes
    dup = next(i for i in one.issues if i.code == "duplicate-record-id")
    assert dup.message.endswith("already used at offset " + str(one.records[1].offset))
    points = split_points(str(path), jobs, lambda r: True, min_size=0)
    assert len(points) == jobs - 1  # really in pieces
    assert check_file(path, jobs=jobs, min_split_size=0) == one


def test_fast_digest_path_reports_mismatches_as_the_streaming_one(
    tmp_path: Path, bench_warc: Callable[[str, float], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _damaged(tmp_path, bench_warc)
    fast = check_file(path)
    assert "fail" in [r.block_digest for r in fast.records]
    assert {r.payload_digest for r in fast.records} >= {"pass", "fail", "unchecked"}
    monkeypatch.setattr(check_report, "_scan", lambda record, block=None: None)
    assert check_file(path) == fast


def test_failed_child_is_redone_here(
    tmp_path: Path, bench_warc: Callable[[str, float], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _damaged(tmp_path, bench_warc)
    one = check_file(path)
    monkeypatch.setattr(check_pieces, "_check_piece", lambda *args: 1 // 0)
    assert check_file(path, jobs=3, min_split_size=0) == one


def test_split_point_out_of_step_reads_on(
    tmp_path: Path, bench_warc: Callable[[str, float], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _damaged(tmp_path, bench_warc)
    one = check_file(path)
    size = path.stat().st_size
    monkeypatch.setattr(check_pieces, "split_points", lambda *a, **k: [(size // 2 - 7, size // 2 - 3)])
    assert check_file(path, jobs=2) == one


def test_a_split_at_a_record_with_head_findings(
    tmp_path: Path, bench_warc: Callable[[str, float], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Split points are records the strict reader reads, so the record at one has no
    # finding of the lenient reader's; one put there anyway is reported once.
    path = _damaged(tmp_path, bench_warc)
    one = check_file(path)
    middle = len(one.records) // 2
    before, at = one.records[middle].offset, one.records[middle + 1].offset
    assert "bare-lf" in [i.code for i in one.issues if i.offset == at]
    monkeypatch.setattr(check_pieces, "split_points", lambda *a, **k: [(before, at)])
    assert check_file(path, jobs=2) == one


def test_cli_checks_one_file_in_pieces(
    tmp_path: Path, bench_warc: Callable[[str, float], Path], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _damaged(tmp_path, bench_warc)
    assert main(["check", "--json", "-j", "1", str(path)]) == 1
    one = capsys.readouterr().out
    calls: list[int] = []
    real = check_pieces.check_in_pieces

    def spy(span: Any, path: str, state: Any, verify: bool, jobs: int,
            min_split_size: int | None = None) -> None:
        calls.append(jobs)
        real(span, path, state, verify, jobs, 0)

    monkeypatch.setattr(check_report, "check_in_pieces", spy)
    monkeypatch.setattr("warckit.cli.check.cpu_count", lambda: 2)
    assert main(["check", "--json", str(path)]) == 1  # default: the CPUs this process may use
    assert capsys.readouterr().out == one
    assert calls == [2]


def test_children_do_not_use_the_parents_digest_thread(
    tmp_path: Path, bench_warc: Callable[[str, float], Path]
) -> None:
    # A block of 1 MiB or more has its digest computed on a worker thread; a child forked
    # after the parent made that thread (a piece, a worker of the pool of files) had an
    # executor whose thread is not there.
    import subprocess

    one = bench_warc("domain", 6.0).read_bytes()
    path = tmp_path / "twice.warc.gz"
    path.write_bytes(one + one)  # (the second half has large blocks too)
    from warckit import open as open_archive

    with open_archive(path) as reader:
        big = [r.offset for r in reader if r.content_length >= (1 << 20)]
    assert big and big[-1] > path.stat().st_size // 2  # one in the child's piece
    code = (f"from warckit.check import report, verify\n"
            f"report._STREAMED = verify.BUFFERED_MAX = 1 << 20  # (these blocks stream)\n"
            f"from warckit.check.report import check_file\n"
            f"one = check_file({str(path)!r})\n"
            f"two = check_file({str(path)!r}, jobs=2, min_split_size=0)\n"
            f"assert two == one, 'reports differ'\n"
            f"from warckit.check.report import check_files\n"
            f"assert check_files([{str(path)!r}] * 2, jobs=2) == [one, one], 'pool reports differ'\n"
            f"print(len(two.records))")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(check_file(path).records)


def _large_block_variants(tmp_path: Path, bench_warc: Callable[[str, float], Path]) -> list[Path]:
    """A generated file with blocks of 1 MiB or more, and copies with one of those cut
    (the file ends inside it), tampered, or with an HTTP head that does not parse."""
    records = _records(bench_warc("domain", 6.0))
    big = [i for i, r in enumerate(records) if len(r) > (1 << 20) + 4096 and b"HTTP/1" in r[:4096]]
    assert len(big) >= 2
    i = big[0]
    out = []
    for name, change in (("tampered", lambda r: r[:-100] + b"Z" + r[-99:]),
                         ("bad-http", lambda r: r.replace(b"HTTP/1.1 ", b"HTTQ/1.1 ", 1)),
                         ("as-is", lambda r: r)):
        data = b"".join(gzip.compress(change(r) if k == i else r, 1) for k, r in enumerate(records))
        path = tmp_path / f"{name}.warc.gz"
        path.write_bytes(data)
        out.append(path)
    cut = tmp_path / "cut.warc.gz"
    data = b"".join(gzip.compress(r, 1) for r in records[: big[-1] + 1])
    cut.write_bytes(data[: len(data) - 200_000])  # inside the last large block
    out.append(cut)
    # Uncompressed, cut inside a large block whose HTTP head does not parse: the cut is
    # reported where the block is read, before what the head and digests say.
    plain = tmp_path / "plain-cut.warc"
    data = b"".join(records[: big[-1]]) + records[big[-1]].replace(b"HTTP/1.1 ", b"HTTQ/1.1 ", 1)
    plain.write_bytes(data[: len(data) - 200_000])
    out.append(plain)
    return out


def test_large_blocks_stream_and_report_as_when_read_whole(
    tmp_path: Path, bench_warc: Callable[[str, float], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Blocks of 1 MiB or more go through the digests before the record's length is asked
    # for; their findings keep the places they have when the block is read whole first.
    for path in _large_block_variants(tmp_path, bench_warc):
        # (these blocks are 1 MiB or more: below the thresholds, they stream)
        monkeypatch.setattr(check_report, "_STREAMED", 1 << 20)
        monkeypatch.setattr(check_verify, "BUFFERED_MAX", 1 << 20)
        streamed = check_file(path)
        monkeypatch.setattr(check_report, "_STREAMED", 1 << 62)
        whole = check_file(path)
        monkeypatch.undo()
        assert streamed == whole, path.name
        if path.name != "as-is.warc.gz":
            assert not streamed.ok or streamed.warnings, path.name
    codes = {p.name: check_file(p).codes() for p in _large_block_variants(tmp_path, bench_warc)}
    assert "block-digest-mismatch" in codes["tampered.warc.gz"]
    assert "truncated-member" in codes["cut.warc.gz"]
    assert {"truncated-block", "bad-http-head"} <= codes["plain-cut.warc"]


def _regenerate() -> None:
    files = _corpus_files()
    golden = {str(p.relative_to(CORPUS)): _digest(_canonical(p)) for p in files}
    GOLDEN.write_text(json.dumps(golden, indent=0, sort_keys=True) + "\n")
    print(f"{len(golden)} reports written to {GOLDEN}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    _regenerate()
