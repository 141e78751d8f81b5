"""The compiled and pure builds read every damaged gzip file alike.

Several hundred generated files (gzip per record and whole-file gzip, with empty
members, flipped bytes, cut ends, garbage and bad header CRCs) are read by each build
in its own process (``WARCKIT_NO_EXTENSIONS=1`` for the pure one), strict and lenient,
the compiled one with and without its read-ahead thread, each reading the file through
a memory map of it (the default) and through copies (``WARCKIT_MMAP=0``), and both in lanes of a few
KB (LaneDecoder: many lane switches per file). A caller that catches an
error and calls ``next()`` again is simulated. Records (offset, length, block digest),
errors (type, offset, message) and issues must be the same in every run.
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import child
import pytest
from gzip_members import member
from twins import compiled_or_reason, impl_params

ROOT = Path(__file__).parents[2]

HAVE_COMPILED = compiled_or_reason("gzipmember")[0] is not None
_twins = pytest.mark.skipif(
    not HAVE_COMPILED or compiled_or_reason("readercore")[0] is None,
    reason=compiled_or_reason("gzipmember")[1] or compiled_or_reason("readercore")[1] or "",
)

_SCRIPT = r"""
import hashlib, json, os, sys
import warckit, warckit._speedups
assert warckit._speedups.implementations()["gzipmember"] == os.environ["EXPECT_GZIPMEMBER"], (
    "child runs", warckit.__file__, warckit._speedups.implementations())
from warckit.errors import WarckitError

switches = []
mapped = 0
if sys.argv[1] == "lanes":  # every gzip file in lanes of a few KB (both twins)
    import functools
    from warckit._speedups.gzipmember import impl
    from warckit.io import compression

    class Lanes(impl.LaneDecoder):
        def close(self):
            switches.append(self.switches)
            super().close()

    compression._lanes_pay = lambda fileobj, start: True
    compression.LaneDecoder = functools.partial(Lanes, span=int(os.environ["LANE_SPAN"]))

out = []
for path in sys.argv[2:]:
    for lenient in (False, True):
        result = {"records": [], "errors": [], "issues": []}
        reader = warckit.open(path, lenient=lenient, readahead=sys.argv[1] != "0",
                              on_warning=lambda i: result["issues"].append([i.code, i.offset, i.message]))
        mapped += bool(getattr(reader._dec, "mapped", False))
        for _ in range(200):
            try:
                rec = next(reader)
                h = hashlib.sha1()
                stream = rec.raw_stream()
                while chunk := stream.read(3000):
                    h.update(chunk)
                result["records"].append([rec.offset, rec.stream_offset, h.hexdigest()])
            except StopIteration:
                break
            except WarckitError as exc:
                result["errors"].append([type(exc).__name__, exc.offset, str(exc)])
        reader.close()
        out.append(result)
out.append(sum(switches))
out.append(mapped)
json.dump(out, sys.stdout)
"""


def _record(rng: random.Random, i: int) -> bytes:
    kind = rng.choice(["text", "random", "zeros"])
    size = rng.choice([0, 10, 500, 5000, 40_000, 150_000])
    if kind == "text":
        body = (b"line %d of record %d\n" % (i, i)) * (size // 20 + 1)
    elif kind == "random":
        body = rng.randbytes(size)
    else:
        body = bytes(size)
    body = body[:size]
    head = (f"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://x/{i}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    return head + body + b"\r\n\r\n"


def _case(rng: random.Random) -> bytes:
    records = [_record(rng, i) for i in range(rng.randint(1, 6))]
    layout = rng.choice(["per-record", "per-record", "whole", "split"])
    if layout == "whole":
        data = gzip.compress(b"".join(records), mtime=0)
    else:
        members = []
        for raw in records:
            if layout == "split" and len(raw) > 50:
                cut = rng.randrange(1, len(raw))
                members += [raw[:cut], raw[cut:]]
            else:
                members.append(raw)
        parts = []
        for m in members:
            if rng.random() < 0.1:
                parts.append(gzip.compress(b"", mtime=0))  # an empty member
            if rng.random() < 0.1:
                parts.append(member(m, header_crc=rng.random() < 0.5))
            else:
                parts.append(gzip.compress(m, mtime=0))
        data = b"".join(parts)
    damage = rng.choice(["none", "flip", "flip", "flip", "truncate", "garbage", "zero-run"])
    if damage == "flip":
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(data))
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    elif damage == "truncate":
        data = data[: rng.randrange(len(data))]
    elif damage == "garbage":
        i = rng.randrange(len(data) + 1)
        data = data[:i] + rng.randbytes(rng.randint(1, 40)) + data[i:]
    elif damage == "zero-run":
        i = rng.randrange(len(data))
        data = data[:i] + bytes(rng.randint(1, 300)) + data[i + 300 :]
    return data


def _run(paths: list[str], *, pure: bool, readahead: bool, lanes: int = 0,
         mapped: bool = True) -> list[dict]:  # type: ignore[type-arg]
    """What each build reads (*lanes*: gzip read in LaneDecoder lanes of that span)."""
    # The installed (or built) warckit the tests import, not the checkout cwd would give.
    env = child.env(EXPECT_GZIPMEMBER="py" if pure else "c", LANE_SPAN=str(lanes),
                    WARCKIT_MMAP="1" if mapped else "0")
    env.pop("WARCKIT_REQUIRE_EXTENSIONS", None)
    if pure:
        env["WARCKIT_NO_EXTENSIONS"] = "1"
    else:
        env.pop("WARCKIT_NO_EXTENSIONS", None)
    mode = "lanes" if lanes else "1" if readahead else "0"
    run = subprocess.run([sys.executable, "-c", _SCRIPT, mode, *paths],
                         capture_output=True, cwd=child.PACKAGE_PARENT, env=env, timeout=1200,
                         check=False)
    assert run.returncode == 0, run.stderr.decode()[-3000:]
    result: list[dict] = json.loads(run.stdout)  # type: ignore[type-arg]
    maps = result.pop()
    assert (maps > 0) == (mapped and not pure)  # (the files were read through maps, or not)
    switches = result.pop()
    assert (switches > 0) == bool(lanes)  # (lanes did switch)
    return result


@_twins
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_twins_agree_on_damaged_gzip(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    paths = []
    for n in range(150):
        path = tmp_path / f"case{n:03d}.warc.gz"
        path.write_bytes(_case(rng))
        paths.append(str(path))
    pure = _run(paths, pure=True, readahead=False)
    compiled = _run(paths, pure=False, readahead=False)
    threaded = _run(paths, pure=False, readahead=True)
    copied = _run(paths, pure=False, readahead=False, mapped=False)
    threaded_copied = _run(paths, pure=False, readahead=True, mapped=False)
    lanes = _run(paths, pure=False, readahead=True, lanes=997 * seed)
    pure_lanes = _run(paths, pure=True, readahead=True, lanes=1000 * seed)
    damaged = 0
    for k, path in enumerate(paths):
        for j, mode in enumerate(("strict", "lenient")):
            i = 2 * k + j
            assert compiled[i] == pure[i], (path, mode, compiled[i], pure[i])
            assert threaded[i] == pure[i], (path, mode, threaded[i], pure[i])
            assert copied[i] == pure[i], (path, mode, copied[i], pure[i])
            assert threaded_copied[i] == pure[i], (path, mode, threaded_copied[i], pure[i])
            assert lanes[i] == pure[i], (path, mode, lanes[i], pure[i])
            assert pure_lanes[i] == pure[i], (path, mode, pure_lanes[i], pure[i])
            damaged += bool(pure[i]["errors"] or pure[i]["issues"])
    assert damaged > 50  # the cases do exercise damage


@_twins
def test_twins_agree_on_a_damaged_whole_file_gzip(tmp_path: Path) -> None:
    """One member for the whole file, damaged in the middle: both builds yield the records
    that inflated cleanly before the damage (the compiled one used to yield none)."""
    rng = random.Random(7)
    raw = b"".join(
        (f"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: {20_000}\r\n\r\n").encode()
        + rng.randbytes(5_000) * 4 + b"\r\n\r\n"
        for _ in range(40)
    )
    data = gzip.compress(raw, mtime=0)
    path = tmp_path / "whole.warc.gz"
    i = len(data) // 2
    path.write_bytes(data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1 :])
    runs = [_run([str(path)], pure=True, readahead=False), _run([str(path)], pure=False, readahead=False),
            _run([str(path)], pure=False, readahead=True)]
    assert runs[1] == runs[0] and runs[2] == runs[0]
    strict, lenient = runs[0]
    assert len(strict["records"]) == 20
    assert strict["errors"][0][1] == 0  # (the member's offset)
    assert len(lenient["records"]) == len(strict["records"])
    assert [i[0] for i in lenient["issues"]] == ["missing-trailer", "damaged-member"]
    assert [r[0] for r in lenient["records"]] == [0] * len(lenient["records"])


@pytest.mark.parametrize("impl", impl_params("gzipmember"))
def test_header_crc_is_checked_and_errors_repeat(impl) -> None:  # type: ignore[no-untyped-def]
    """FHCRC: a wrong header CRC is damage in both builds; once a decoder reported an
    error, every later read reports it again (never a clean end of file)."""
    import io

    from warckit.errors import CompressionError

    good = member(b"hello" * 100, header_crc=True)
    bad = gzip.compress(b"first", mtime=0) + member(b"hello" * 100, header_crc=False)
    dec = impl.GzipDecoder(io.BytesIO(good), 0, "x")
    assert dec.read() == (b"hello" * 100, len(good))
    dec = impl.GzipDecoder(io.BytesIO(bad), 0, "x")
    assert dec.read() == (b"first", 25)
    for _ in range(3):
        with pytest.raises(CompressionError) as info:
            dec.read()
        assert info.value.offset == 25 and "damaged" in info.value.message
