"""Inflating ahead on a native thread gives exactly the records of in-thread reading,
and reading through a memory map of the file those of reading copies of it."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
from pathlib import Path

import pytest
from corpus_paths import CORPUS
from test_reader_corpus import ARCHIVES

import warckit
from warckit import _speedups
from warckit.errors import WarckitError

COMPILED = _speedups.IMPLEMENTATION == "c"
GZ_ARCHIVES = [n for n in ARCHIVES if n.endswith((".gz", ".arc", ".warc"))]
#: In the pure run ``readahead=True`` reads in-thread: comparing it with in-thread
#: reading would compare one code path with itself.
compares_readahead = pytest.mark.skipif(
    not COMPILED, reason="pure run: no read-ahead decoder to compare with in-thread reading"
)


def _records(path: Path, readahead: bool, lenient: bool = False,
             mapped: bool = True) -> list[tuple[object, ...]]:
    """Everything observable about each record, its block and how reading ended
    (*mapped*: the reader's default, read a gzip file through a memory map of it)."""
    from warckit.read import reader as reader_mod

    out: list[tuple[object, ...]] = []
    saved = reader_mod._MAPPED_DEFAULT
    reader_mod._MAPPED_DEFAULT = mapped
    try:
        with warckit.ArchiveReader(path, readahead=readahead, lenient=lenient) as reader:
            gzip_c = COMPILED and reader.compression == "gzip"
            assert getattr(reader._dec, "readahead", False) == (readahead and gzip_c)
            assert getattr(reader._dec, "mapped", False) == (mapped and gzip_c and path.stat().st_size > 0)
            records = []
            for i, rec in enumerate(reader):
                digest = None
                if i % 2:  # every other block is read, the rest skipped
                    digest = hashlib.sha1(rec.raw_stream().read()).hexdigest()
                out.append((rec.offset, rec.type, rec.content_length, digest, [i.code for i in rec.issues]))
                records.append(rec)
            # (lengths are known once the reader has moved past each record)
            out.append(("end", [i.code for i in reader.issues], [r.length for r in records]))
    except WarckitError as exc:
        out.append(("error", type(exc).__name__, exc.offset))
    finally:
        reader_mod._MAPPED_DEFAULT = saved
    return out


@compares_readahead
@pytest.mark.parametrize("lenient", [False, True])
def test_corpus_same_with_and_without_readahead(lenient: bool) -> None:
    """In-thread or ahead, mapped or read: the same records, errors and issues."""
    if not CORPUS.is_dir():
        pytest.skip("shared corpus not available")
    compared = 0
    for name in GZ_ARCHIVES:
        path = CORPUS / name
        expect = _records(path, False, lenient, mapped=False)
        assert _records(path, False, lenient) == expect, name
        assert _records(path, True, lenient) == expect, name
        assert _records(path, True, lenient, mapped=False) == expect, name
        compared += 1
    assert compared > 50


def _member(body: bytes) -> bytes:
    head = (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:0>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    return gzip.compress(head + body + b"\r\n\r\n", mtime=0)


def _offsets_and_lengths(path: Path, readahead: bool) -> list[tuple[int, int | None, bytes]]:
    with warckit.ArchiveReader(path, readahead=readahead) as reader:
        got = []
        for rec in reader:
            block = rec.raw_stream().read()
            got.append((rec.offset, rec, block))
        return [(o, r.length, hashlib.sha1(b).digest()) for o, r, b in got]


def _many_members(tmp_path: Path) -> tuple[Path, list[tuple[int, int, bytes]]]:
    """Thousands of small members, and each one's offset, length and block digest."""
    bodies = [os.urandom(i % 700) * 2 for i in range(3000)]
    members = [_member(b) for b in bodies]
    path = tmp_path / "many.warc.gz"
    path.write_bytes(b"".join(members))
    expect, at = [], 0
    for m, body in zip(members, bodies, strict=True):
        expect.append((at, len(m), hashlib.sha1(body).digest()))
        at += len(m)
    return path, expect


@pytest.mark.parametrize("readahead", [False, pytest.param(True, marks=compares_readahead)])
def test_many_small_members(tmp_path: Path, readahead: bool) -> None:
    """Thousands of members: with read-ahead, slot ends fall inside heads and between members."""
    path, expect = _many_members(tmp_path)
    got = _offsets_and_lengths(path, readahead)
    assert got == expect


def test_large_block_streams_in_bounded_pieces(tmp_path: Path) -> None:
    """A block larger than all slots together is handed out piece by piece."""
    body = os.urandom(1 << 20) * 7  # 7 MiB of incompressible-per-MiB data
    path = tmp_path / "big.warc.gz"
    path.write_bytes(_member(b"small") + _member(body) + _member(b"after"))
    with warckit.ArchiveReader(path, readahead=True) as reader:
        recs = []
        for rec in reader:
            stream = rec.raw_stream()
            h = hashlib.sha1()
            biggest = 0
            while chunk := stream.read(1 << 22):
                biggest = max(biggest, len(chunk))
                h.update(chunk)
            recs.append((rec.offset, rec.content_length, h.hexdigest(), biggest <= 1 << 20))
    sizes = [len(_member(b"small")), len(_member(body))]
    assert recs == [
        (0, 5, hashlib.sha1(b"small").hexdigest(), True),
        (sizes[0], len(body), hashlib.sha1(body).hexdigest(), True),
        (sizes[0] + sizes[1], 5, hashlib.sha1(b"after").hexdigest(), True),
    ]


def _cut_file(tmp_path: Path) -> Path:
    data = b"".join(_member(b"x" * 5000) for _ in range(5))
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:-7])
    return path


def test_truncated_file_error(tmp_path: Path) -> None:
    """The last member lost its gzip trailer: four records, then the error at the fifth."""
    got = _records(_cut_file(tmp_path), False)
    size = len(_member(b"x" * 5000))
    assert [r[0] for r in got[:-1]] == [0, size, 2 * size, 3 * size, 4 * size]
    assert got[-1] == ("error", "CompressionError", 4 * size)


@compares_readahead
def test_truncated_file_reports_the_same_error(tmp_path: Path) -> None:
    path = _cut_file(tmp_path)
    assert _records(path, True) == _records(path, False)
    assert _records(path, True)[-1][0] == "error"
    assert _records(path, True, lenient=True) == _records(path, False, lenient=True)


@pytest.mark.skipif(not COMPILED, reason="read-ahead is the compiled decoder's")
def test_defaults_and_opt_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.warc.gz"
    path.write_bytes(_member(b"abc"))
    from warckit.read import reader as reader_mod

    monkeypatch.setattr(reader_mod, "_READAHEAD_DEFAULT", True)
    with warckit.open(path) as r:
        assert r._dec.readahead  # opened by path: inflated ahead
    with open(path, "rb") as f, warckit.open(f) as r:
        assert not r._dec.readahead  # a caller's file object is read in-thread
    with warckit.open(io.BytesIO(path.read_bytes())) as r:
        assert not r._dec.readahead
    rec = warckit.read_record_at(path, 0)  # random access reads one record
    assert not rec._body.reader._dec.readahead
    rec.close()
    monkeypatch.setattr(reader_mod, "_READAHEAD_DEFAULT", False)
    with warckit.open(path) as r:
        assert not r._dec.readahead


def test_decoder_hands_out_whole_small_members(tmp_path: Path) -> None:
    """The reader's decoder (either way) hands a small member out in one piece."""
    member = _member(b"x" * 5000)
    path = tmp_path / "two.warc.gz"
    path.write_bytes(member * 2)
    whole = len(gzip.decompress(member))
    for readahead in (True, False):
        with warckit.ArchiveReader(path, readahead=readahead) as r:
            next(r)
            assert len(r._buf) == whole, readahead


@pytest.mark.skipif(not COMPILED or not hasattr(os, "fork"), reason="compiled read-ahead, fork()")
def test_inherited_decoder_refuses_in_a_forked_child(tmp_path: Path) -> None:
    """A child cannot use the parent's thread: reading raises instead of hanging."""
    path = tmp_path / "a.warc.gz"
    path.write_bytes(b"".join(_member(os.urandom(600_000) * 2) for _ in range(3)))  # 3 MB+: several slots
    reader = warckit.ArchiveReader(path, readahead=True)
    next(reader)
    reader._dec.read()  # the thread is running
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        import signal

        signal.alarm(30)  # a hang ends the child (exit status: killed)
        try:
            while reader._dec.read()[0]:
                pass
            code = 1
        except OSError:
            code = 0
        except BaseException:  # noqa: BLE001 - the child must always reach os._exit
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    reader.close()
    assert os.waitstatus_to_exitcode(status) == 0
