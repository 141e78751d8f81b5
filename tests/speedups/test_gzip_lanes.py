"""LaneDecoder (gzip inflated in lanes, on two threads in the compiled twin) hands out
what one GzipDecoder hands out: the same bytes, member ends, member starts, errors and
lenient stops, in both twins, whatever the spans, read sizes, skips and damage."""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import child
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from gzip_members import member
from twins import compiled_or_reason, impl_params

import warckit
from warckit.errors import CompressionError

GZIP_PARAMS = impl_params("gzipmember")
HAVE_COMPILED = compiled_or_reason("gzipmember")[0] is not None
_compiled = pytest.mark.skipif(not HAVE_COMPILED, reason=compiled_or_reason("gzipmember")[1] or "")


def _impls() -> list[Any]:
    return [p.values[0] for p in GZIP_PARAMS]


def _decode(dec: Any, limits: tuple[int, ...] = (1 << 20,), skip_every: int = 0) -> tuple[Any, ...]:
    """Everything *dec* hands out: the stream (its length when some reads are skips),
    member ends with the ``member_start`` seen there, member starts, and how it ended."""
    out = bytearray()
    n = 0
    bounds = []
    starts = []
    i = 0
    try:
        while True:
            limit = limits[i % len(limits)]
            i += 1
            if skip_every and i % skip_every == 0:
                count, boundary = dec.skip(limit)
                n += count
                got = count > 0
            else:
                chunk, boundary = dec.read(limit)
                out += chunk
                n += len(chunk)
                got = bool(chunk)
            if got and (not starts or starts[-1] != dec.member_start):
                starts.append(dec.member_start)
            if boundary is not None:
                bounds.append((n, boundary, dec.member_start))
            if not got and boundary is None:
                break
        end: tuple[Any, ...] = ("ok", dec.trailing_garbage, dec.truncated_member, dec.stop_reason)
    except CompressionError as exc:
        end = ("err", exc.offset, exc.message, exc.snippet, dec.member_start)
        with pytest.raises(CompressionError):  # (the error repeats)
            dec.read(100)
    stream = n if skip_every else bytes(out)
    return stream, bounds, starts, end


def _run(impl: Any, path: Path, cls: str, trailing: str, limits: tuple[int, ...] = (1 << 20,),
         skip_every: int = 0, readahead: bool = True, **kw: Any) -> tuple[tuple[Any, ...], Any]:
    with open(path, "rb") as f:
        dec = getattr(impl, cls)(f, 0, "x", trailing, 1 << 18, readahead, **kw)
        try:
            return _decode(dec, limits, skip_every), dec
        finally:
            dec.close()


def _agree(path: Path, span: int, trailing: str, limits: tuple[int, ...] = (1 << 20,),
           skip_every: int = 0) -> tuple[tuple[Any, ...], list[Any]]:
    """Read *path* with one GzipDecoder and with LaneDecoders (both twins): the same
    results. Returns them and the lane decoders."""
    expect, _ = _run(_impls()[0], path, "GzipDecoder", trailing, limits, skip_every)
    lanes = []
    for impl in _impls():
        single, _ = _run(impl, path, "GzipDecoder", trailing, limits, skip_every)
        assert single == expect, impl.__name__
        got, dec = _run(impl, path, "LaneDecoder", trailing, limits, skip_every, span=span)
        assert got == expect, (impl.__name__, span, trailing, limits, skip_every)
        lanes.append(dec)
    assert {(d.switches, d.dropped) for d in lanes} == {(lanes[0].switches, lanes[0].dropped)}
    return expect, lanes


def _records(rng: random.Random, n: int) -> list[bytes]:
    out = []
    for i in range(n):
        size = rng.choice([0, 30, 700, 5000, 40_000, 300_000])
        body = rng.choice([rng.randbytes(size), (b"record %d " % i) * (size // 10 + 1)])[:size]
        out.append(b"WARC/1.0\r\nContent-Length: %d\r\n\r\n" % len(body) + body + b"\r\n\r\n")
    return out


def _members(parts: list[bytes]) -> tuple[bytes, list[int]]:
    data = b""
    ends = []
    for p in parts:
        data += gzip.compress(p, mtime=0)
        ends.append(len(data))
    return data, ends


@pytest.mark.parametrize("trailing", ["error", "stop"])
@pytest.mark.parametrize("span", [1, 700, 5000, 60_000])
def test_lanes_on_a_good_file(tmp_path: Path, span: int, trailing: str) -> None:
    """Member ends are the file's, however often the lanes switch."""
    parts = _records(random.Random(span), 60)
    data, ends = _members(parts)
    path = tmp_path / "good.warc.gz"
    path.write_bytes(data)
    for limits, skip_every in (((1 << 20,), 0), ((7, 300, 4096), 0), ((1000,), 2)):
        expect, lanes = _agree(path, span, trailing, limits, skip_every)
        assert [b for _, b, _ in expect[1]] == ends
        assert expect[0] == (b"".join(parts) if not skip_every else sum(map(len, parts)))
        assert expect[3] == ("ok", None, None, None)
        assert lanes[0].switches >= (5 if span <= 5000 else 1)


@pytest.mark.parametrize("trailing", ["error", "stop"])
def test_false_candidates_are_dropped(tmp_path: Path, trailing: str) -> None:
    """A stored member holding gzip members verbatim (a gzip-encoded payload, say): a
    lane started inside it is never used; the stream is one decoder's."""
    rng = random.Random(5)
    inner, _ = _members([rng.randbytes(3000), b"inner " * 500, rng.randbytes(2000)])
    parts = []
    for i in range(30):
        if i % 3 == 1:
            parts.append(member(b"WARC/1.0\r\n\r\n" + rng.randbytes(1000) + inner + inner + b"\r\n\r\n", level=0))
        else:
            parts.append(gzip.compress(_records(rng, 1)[0], mtime=0))
    path = tmp_path / "false.warc.gz"
    path.write_bytes(b"".join(parts))
    ends = [sum(map(len, parts[: k + 1])) for k in range(len(parts))]
    total = 0
    for span in (1, 500, 2000, 6000):
        for limits, skip_every in (((1 << 20,), 0), ((9, 5000), 3)):
            expect, lanes = _agree(path, span, trailing, limits, skip_every)
            assert [b for _, b, _ in expect[1]] == ends
            assert lanes[0].switches > 0
            total += lanes[0].dropped
    assert total > 0  # (lanes did start inside the stored members)


def _write(tmp_path: Path, files: dict[str, bytes]) -> list[tuple[Path, str]]:
    """Each of *files* as ``NAME.warc.gz`` in *tmp_path*: ``(path, name)`` pairs."""
    out = []
    for name, content in files.items():
        path = tmp_path / f"{name}.warc.gz"
        path.write_bytes(content)
        out.append((path, name))
    return out


def _damaged_files(tmp_path: Path) -> list[tuple[Path, str]]:
    rng = random.Random(11)
    data, ends = _members(_records(rng, 40))
    k = max(range(15, 25), key=lambda j: ends[j + 1] - ends[j])
    mid = (ends[k] + ends[k + 1]) // 2  # inside a large member
    files = {
        "flip": data[:mid] + bytes([data[mid] ^ 0x20]) + data[mid + 1:],
        "truncated": data[: ends[30] + 25],
        "garbage-between": data[: ends[25]] + b"not gzip at all" + data[ends[25]:],
        "garbage-at-end": data + b"\0\0\0trailing",
        "zero-run": data[:mid] + bytes(400) + data[mid + 400:],
        "bad-crc": data[: ends[10] - 6] + bytes([data[ends[10] - 6] ^ 1]) + data[ends[10] - 5:],
        "cut-at-member": data[: ends[35]] + data[ends[35]: ends[35] + 1],
    }
    return _write(tmp_path, files)


@pytest.mark.parametrize("trailing", ["error", "stop"])
def test_lanes_on_damaged_files(tmp_path: Path, trailing: str) -> None:
    """Damage (a flipped byte, a cut end, garbage, a bad CRC): the same bytes, the same
    error (offset, message, snippet) or lenient stop, whichever lane meets it."""
    for path, name in _damaged_files(tmp_path):
        for span in (1, 3000, 50_000):
            for limits, skip_every in (((1 << 20,), 0), ((5, 777), 0), ((20_000,), 2)):
                expect, _ = _agree(path, span, trailing, limits, skip_every)
                assert expect[3][0] == ("ok" if trailing == "stop" else "err"), name
                if trailing == "stop":
                    assert expect[3][1] is not None or expect[3][2] is not None, name


@_compiled
@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=4000), min_size=0, max_size=12),
       st.sampled_from(["none", "garbage", "truncate", "corrupt"]), st.integers(1, 60),
       st.sampled_from(["error", "stop"]), st.integers(1, 9000),
       st.sampled_from([(1 << 20,), (1, 5, 300), (4096, 3)]), st.sampled_from([0, 3]))
def test_lanes_agree_with_one_decoder(tmp_path_factory: Any, parts: list[bytes], damage: str, cut: int,
                                      trailing: str, span: int, limits: tuple[int, ...],
                                      skip_every: int) -> None:
    data, _ = _members(parts)
    if damage == "garbage":
        data += b"GARBAGE" * cut
    elif damage == "truncate" and data:
        data = data[: max(0, len(data) - cut)]
    elif damage == "corrupt" and len(data) > 20:
        i = (len(data) * cut) // 61
        data = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]
    path = tmp_path_factory.mktemp("lanes") / "f.gz"
    path.write_bytes(data)
    _agree(path, span, trailing, limits, skip_every)


@_compiled
def test_compiled_lanes_run_on_threads(tmp_path: Path) -> None:
    """The compiled LaneDecoder reads ahead; a lane started before fork() is refused in
    the child (as one read-ahead decoder is), and close() stops every lane."""
    impl = _impls()[1]
    data, ends = _members(_records(random.Random(3), 50))
    path = tmp_path / "f.warc.gz"
    path.write_bytes(data)
    with open(path, "rb") as f:
        dec = impl.LaneDecoder(f, 0, "x", "error", 1 << 18, True, span=2000)
        assert dec.readahead
        first = dec.read(10)
        assert first == (gzip.decompress(data[: ends[0]])[:10], None)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                while dec.read(1 << 20)[0]:
                    pass
            except OSError as exc:
                code = 0 if "fork" in str(exc) else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        dec.close()
        assert dec.read(10) == (b"", None)


def test_make_decoder_uses_lanes_only_when_they_pay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lanes for a large regular gzip file read ahead by the compiled build with more
    than one CPU; otherwise the one-thread GzipDecoder, exactly as before."""
    import io

    from warckit.io import compression

    big = tmp_path / "big.gz"
    with open(big, "wb") as f:
        f.truncate(compression.LANES_MIN_SIZE)
    small = tmp_path / "small.gz"
    small.write_bytes(gzip.compress(b"x"))
    monkeypatch.setattr(compression, "cpu_count", lambda: 2)
    monkeypatch.setattr(compression, "_LANES", True)  # (WARCKIT_LANES=1)
    with open(big, "rb") as f:
        dec = compression.make_decoder(f, "gzip", readahead=True)
        expect = compression.LaneDecoder if compression._gzipmember.LANES_THREADED else compression.GzipDecoder
        assert type(dec) is expect
        dec.close()  # type: ignore[attr-defined]
        for kwargs in ({"readahead": False}, {"readahead": True, "direct": False}):
            assert type(compression.make_decoder(f, "gzip", **kwargs)) is compression.GzipDecoder
        f.seek(1)  # (less than LANES_MIN_SIZE to go)
        assert type(compression.make_decoder(f, "gzip", readahead=True, start=1)) is compression.GzipDecoder
    with open(small, "rb") as f:
        assert type(compression.make_decoder(f, "gzip", readahead=True)) is compression.GzipDecoder
    data = io.BytesIO(big.read_bytes())
    assert type(compression.make_decoder(data, "gzip", readahead=True)) is compression.GzipDecoder
    monkeypatch.setattr(compression, "cpu_count", lambda: 1)
    with open(big, "rb") as f:
        assert type(compression.make_decoder(f, "gzip", readahead=True)) is compression.GzipDecoder
    monkeypatch.setattr(compression, "cpu_count", lambda: 2)
    monkeypatch.setattr(compression, "_LANES", False)  # (WARCKIT_LANES=0)
    with open(big, "rb") as f:
        assert type(compression.make_decoder(f, "gzip", readahead=True)) is compression.GzipDecoder


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork()")
def test_no_lanes_for_small_members_nor_beside_the_processes_own_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many small members (the reader's own thread is the floor), or a CPU taken by a
    parallel job of this process (read.pieces.Forked): one read-ahead thread."""
    from warckit.io import compression
    from warckit.read.pieces import Forked

    if not compression._gzipmember.LANES_THREADED:
        pytest.skip("lanes need the compiled decoder")
    monkeypatch.setattr(compression, "cpu_count", lambda: 2)
    monkeypatch.setattr(compression, "_LANES", True)
    member = gzip.compress(b"WARC/1.1\r\n" + b"x" * 200)
    dense = tmp_path / "dense.gz"
    with open(dense, "wb") as f:
        f.write(member * ((1 << 20) // len(member) + 1))
        f.truncate(compression.LANES_MIN_SIZE + (1 << 20))
    assert (1 << 20) // len(member) >= compression.LANES_MAX_MEMBERS
    sparse = tmp_path / "sparse.gz"
    with open(sparse, "wb") as f:
        f.write(member * (compression.LANES_MAX_MEMBERS - 1))
        f.truncate(compression.LANES_MIN_SIZE + (1 << 20))

    def decoder(path: Path) -> type:
        with open(path, "rb") as f:
            dec = compression.make_decoder(f, "gzip", readahead=True)
            dec.close()  # type: ignore[attr-defined]
            return type(dec)

    assert decoder(dense) is compression.GzipDecoder
    assert decoder(sparse) is compression.LaneDecoder
    import time

    child = Forked(time.sleep, 0.5)  # a parallel job of this process takes the other CPU
    assert decoder(sparse) is compression.GzipDecoder
    assert child.result() is None  # (time.sleep returns None; reaped)
    assert decoder(sparse) is compression.LaneDecoder


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork()")
def test_parallel_jobs_inflate_large_members_in_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One of parallel jobs (a forked child, or a process whose children take the other
    CPUs) inflates a file of large members in its own thread by default, small members
    still ahead; a process on its own reads ahead (in lanes) as before, and read-ahead
    asked for (``readahead=True``, not the reader's default) is kept."""
    import time

    from warckit.io import compression
    from warckit.read.pieces import Forked

    if not compression._gzipmember.LANES_THREADED:
        pytest.skip("read-ahead needs the compiled decoder")
    monkeypatch.setattr(compression, "cpu_count", lambda: 2)
    monkeypatch.setattr(compression, "_LANES", True)
    small = gzip.compress(b"WARC/1.1\r\n" + b"x" * 200)
    large = gzip.compress(os.urandom(64 << 10))
    files = {}
    for name, m in (("small", small), ("large", large)):
        files[name] = tmp_path / f"{name}.gz"
        with open(files[name], "wb") as f:
            f.write(m * ((2 << 20) // len(m) + 1))
            f.truncate(compression.LANES_MIN_SIZE + (1 << 20))

    def ahead(name: str, default: bool = True) -> tuple[type, bool]:
        with open(files[name], "rb") as f:
            dec = compression.make_decoder(f, "gzip", readahead=True, readahead_default=default)
            try:
                return type(dec), bool(dec.readahead)  # type: ignore[attr-defined]
            finally:
                dec.close()  # type: ignore[attr-defined]

    def reader_ahead(name: str, **kwargs: Any) -> bool:
        with warckit.open(files[name], **kwargs) as reader:
            return bool(reader._dec.readahead)

    assert ahead("large") == (compression.LaneDecoder, True)
    assert ahead("small") == (compression.GzipDecoder, True)
    child = Forked(time.sleep, 0.5)  # a parallel job of this process takes the other CPU
    try:
        assert ahead("large") == (compression.GzipDecoder, False)
        assert ahead("small") == (compression.GzipDecoder, True)
        assert ahead("large", default=False) == (compression.GzipDecoder, True)
    finally:
        assert child.result() is None
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        ok = (ahead("large") == (compression.GzipDecoder, False) and ahead("small") == (compression.GzipDecoder, True)
              and ahead("large", default=False) == (compression.GzipDecoder, True)
              and not reader_ahead("large") and reader_ahead("large", readahead=True))
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert ahead("large") == (compression.LaneDecoder, True)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork()")
def test_forked_children_read_with_one_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked child (a parallel job of index -j, verify or check, one per CPU) keeps
    to one read-ahead thread; its parent still reads in lanes."""
    from warckit.io import compression

    big = tmp_path / "big.gz"
    with open(big, "wb") as f:
        f.truncate(compression.LANES_MIN_SIZE)
    monkeypatch.setattr(compression, "cpu_count", lambda: 2)
    monkeypatch.setattr(compression, "_LANES", True)
    monkeypatch.setattr(compression._gzipmember, "LANES_THREADED", True)
    with open(big, "rb") as f:
        assert compression._lanes_pay(f, 0)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child reports through its exit status
            os._exit(0 if not compression._lanes_pay(f, 0) else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert compression._lanes_pay(f, 0)


@_compiled
def test_one_cpu_reads_with_one_thread(tmp_path: Path) -> None:
    """Pinned to one CPU (``taskset -c 0``), a reader keeps to today's one decoder."""
    big = tmp_path / "big.warc.gz"
    with open(big, "wb") as f:
        f.write(gzip.compress(b"WARC/1.0\r\nContent-Length: 0\r\n\r\n\r\n\r\n", mtime=0))
        f.truncate(64 << 20)
    script = (
        "import os, sys, warckit\n"
        "cpus = os.sched_getaffinity(0)\n"
        "os.sched_setaffinity(0, {min(cpus)})\n"
        "r = warckit.open(sys.argv[1], readahead=True)\n"
        "print(type(r._dec).__name__)\n"
        "os.sched_setaffinity(0, cpus)\n"
        "print(type(warckit.open(sys.argv[1], readahead=True)._dec).__name__)\n"
    )
    env = child.env(WARCKIT_LANES="1")
    env.pop("WARCKIT_NO_EXTENSIONS", None)
    run = subprocess.run([sys.executable, "-c", script, str(big)], capture_output=True, env=env,
                         cwd=child.PACKAGE_PARENT, timeout=120, check=True)
    lines = run.stdout.decode().split()
    assert lines[0] == "GzipDecoder"
    assert lines[1] == ("LaneDecoder" if len(os.sched_getaffinity(0)) > 1 else "GzipDecoder")


@pytest.mark.parametrize("impl", GZIP_PARAMS)
def test_candidates_are_member_starts_followed_by_a_member(impl: Any) -> None:
    """A candidate's member inflates to its end (one of 300 KB of zeros too: zlib keeps
    its unused bytes as the unconsumed tail at the end) and a gzip header follows."""
    zeros = gzip.compress(bytes(300_000), mtime=0)
    text = gzip.compress(b"text " * 100, mtime=0)
    data = b"junk\x1f\x8b\x08\xe0" + zeros + text + b"garbage" + text

    def read(pos: int, n: int) -> bytes:
        return data[pos:pos + n]

    end = len(data)
    assert impl._member_end(read, 8) == 8 + len(zeros)
    assert impl._member_end(read, 8 + len(zeros)) == 8 + len(zeros) + len(text)
    assert impl._candidate(read, 0, end, end) == (8, -1)  # (not 4: reserved flag bits)
    # The first text member is followed by garbage, the second by the end of the file.
    assert impl._candidate(read, 9, end, end) == (end - len(text), -1)
    cand, where = impl._candidate(read, 9, end - len(text), end)
    assert cand == -1 and where >= end - len(text)
    # A member larger than the probe that inflates cleanly is a candidate.
    large = gzip.compress(random.Random(1).randbytes(impl.LANE_PROBE + 1000), mtime=0)
    head = b"\x1f\x8b\x08\x00 not a member"
    data = head + large[:-100]
    assert impl._member_end(read, 0) is None
    assert impl._member_end(read, len(head)) == 0
    assert impl._candidate(read, 0, len(data), len(data)) == (len(head), -1)
    # Looking back from inside the large member finds its start (not the false header).
    assert impl._candidate_before(read, 0, len(data) - 5000, len(data)) == len(head)
    assert impl._candidate_before(read, len(head) + 1, len(data) - 5000, len(data)) == -1
    data = large[: impl.LANE_PROBE // 2]  # (cut by the end of the file)
    assert impl._member_end(read, 0) is None


@pytest.mark.parametrize("impl", GZIP_PARAMS)
def test_lanes_where_offsets_are_not_file_positions(impl: Any, tmp_path: Path) -> None:
    """A decoder started at file position 1000 that calls it offset 50 (offsets are
    the caller's): every lane reads from the right place."""
    data, ends = _members(_records(random.Random(8), 40))
    path = tmp_path / "f.gz"
    path.write_bytes(os.urandom(1000) + data)
    got = []
    for cls, kw in (("GzipDecoder", {}), ("LaneDecoder", {"span": 1500})):
        with open(path, "rb") as f:
            f.seek(1000)
            dec = getattr(impl, cls)(f, 50, "x", "error", 1 << 18, True, **kw)
            got.append(_decode(dec, (3000,)))
            switches = getattr(dec, "switches", None)
            dec.close()
    assert got[0] == got[1]
    assert [b for _, b, _ in got[0][1]] == [50 + e for e in ends]
    assert switches is not None and switches > 5


@_compiled
def test_lanes_retire_on_small_records(tmp_path: Path) -> None:
    """Members that inflate to less than LANE_MEMBER on average (parsing costs more than
    inflating): after the first lane, one last lane reads to the end, started when the
    one before ends at its start; the stream is one decoder's."""
    impl = _impls()[1]
    rng = random.Random(4)
    parts = [b"WARC/1.0\r\n\r\n" + rng.randbytes(rng.randrange(200, 3000)) for _ in range(4000)]
    data, ends = _members(parts)
    path = tmp_path / "small.warc.gz"
    path.write_bytes(data)
    expect, _ = _run(impl, path, "GzipDecoder", "error")
    got, dec = _run(impl, path, "LaneDecoder", "error")
    assert got == expect
    assert [b for _, b, _ in got[1]] == ends
    assert dec.switches == 2


def _large_member_files(tmp_path: Path) -> list[tuple[Path, str]]:
    """Members past the compiled decoder's bound for inflating a member whole (256 KiB:
    larger ones stream through ISA-L), up to and past a slot (1 MiB) and 4 MiB, after
    small ones that part fill a slot; damage inside a large member."""
    rng = random.Random(19)

    def body(size: int, text: bool) -> bytes:
        return (b"large %d " % size * (size // 8 + 1))[:size] if text else rng.randbytes(size)

    sizes = [(300 << 10, False), (200 << 10, True), (1 << 20, False), ((4 << 20) - 40, False),
             ((4 << 20) - 20, True), (4 << 20, False), ((4 << 20) + 1, False), (5 << 20, False), (3 << 20, True)]
    parts: list[bytes] = []
    for size, text in sizes:
        parts += [b"%d small " % i * 90 for i in range(rng.randint(1, 40))]
        parts.append(body(size, text))
    data, ends = _members(parts)
    big = max(range(1, len(parts)), key=lambda k: len(parts[k]) if len(parts[k]) < (4 << 20) else 0)
    lo, hi = ends[big - 1], ends[big]
    mid = (lo + hi) // 2
    files = {
        "good": data,
        "flip-in-large": data[:mid] + bytes([data[mid] ^ 0x20]) + data[mid + 1:],
        "cut-in-large": data[:mid],
        "bad-crc-of-large": data[: hi - 6] + bytes([data[hi - 6] ^ 1]) + data[hi - 5:],
        "header-crc-large": data[:lo] + member(parts[big], header_crc=True) + data[hi:],
        "bad-header-crc-large": data[:lo] + member(parts[big], header_crc=False) + data[hi:],
    }
    return _write(tmp_path, files)


@pytest.mark.parametrize("trailing", ["error", "stop"])
def test_large_members(tmp_path: Path, trailing: str) -> None:
    """Large members hand out what the pure twin hands out, read ahead or in the
    calling thread, in lanes or not, good or damaged."""
    for path, name in _large_member_files(tmp_path):
        for limits, skip_every in (((1 << 20,), 0), ((65_536, 777), 0), ((300_000,), 2)):
            expect, _ = _agree(path, 1 << 20, trailing, limits, skip_every)
            for impl in _impls():
                got, _ = _run(impl, path, "GzipDecoder", trailing, limits, skip_every, readahead=False)
                assert got == expect, (impl.__name__, name)
            if name.startswith(("good", "header-crc")):
                assert expect[3] == ("ok", None, None, None), name
            else:
                assert expect[3][0] == ("ok" if trailing == "stop" else "err"), name
