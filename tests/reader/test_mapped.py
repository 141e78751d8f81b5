"""Reading a gzip file through a memory map of it (the compiled decoder, for files the
reader opened): when it is used, a file that shrinks or grows while it is read, and
the resident memory a long file leaves behind. (That mapped reading gives the records
of reading copies is tested on the corpus in test_readahead and on damaged files in
tests/speedups/test_gzip_twins_fuzz.)"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
from pathlib import Path

import child
import pytest

import warckit
from warckit import _speedups
from warckit.read import reader as reader_mod

COMPILED = _speedups.IMPLEMENTATION == "c"
compiled_only = pytest.mark.skipif(not COMPILED, reason="the pure decoder reads copies, never a map")


def _member(i: int, body: bytes) -> bytes:
    head = (
        f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{i}>\r\n"
        f"WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + body + b"\r\n\r\n", compresslevel=1, mtime=0)


@compiled_only
@pytest.mark.parametrize("readahead", [False, True])
def test_mapped_when_the_reader_opened_the_file(tmp_path: Path, readahead: bool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.warc.gz"
    path.write_bytes(_member(0, b"abc") + _member(1, b"def"))
    with warckit.open(path, readahead=readahead) as r:
        assert r._dec.mapped and r._dec.readahead == readahead
        assert [rec.offset for rec in r] == [0, len(_member(0, b"abc"))]
    with open(path, "rb") as f, warckit.open(f, readahead=readahead) as r:
        assert not r._dec.mapped  # a caller's file object: its position is the caller's
    with warckit.open(io.BytesIO(path.read_bytes())) as r:
        assert not r._dec.mapped
    rec = warckit.read_record_at(path, 0)  # random access reads little of one record
    assert not rec._body.reader._dec.mapped
    rec.close()
    monkeypatch.setattr(reader_mod, "_MAPPED_DEFAULT", False)  # (WARCKIT_MMAP=0)
    with warckit.open(path, readahead=readahead) as r:
        assert not r._dec.mapped


_SHRINK = r"""
import json, os, sys
from warckit.errors import WarckitError

path, readahead, lenient = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
issues, offsets, error = [], [], None
try:
    with warckit.open(path, readahead=readahead, lenient=lenient,
                      on_warning=lambda i: issues.append([i.code, i.offset, i.message])) as r:
        mapped = r._dec.mapped
        for rec in r:
            offsets.append(rec.offset)
            if len(offsets) == 2:
                os.truncate(path, int(sys.argv[4]))
except WarckitError as exc:
    error = [type(exc).__name__, exc.offset, exc.message]
print(json.dumps({"mapped": mapped, "offsets": offsets, "error": error, "issues": issues}))
"""


@pytest.mark.parametrize("readahead", [False, True])
@pytest.mark.parametrize("lenient", [False, True])
def test_a_file_that_shrinks_while_read_is_an_error_not_a_crash(
        tmp_path: Path, readahead: bool, lenient: bool) -> None:
    """Pages of a map past the file's new end fault (SIGBUS): the reader reports where
    the input ended, strict or lenient, and the process lives on."""
    members = [_member(i, os.urandom(1 << 20)) for i in range(24)]  # 24 MB: more than read ahead
    path = tmp_path / "shrinks.warc.gz"
    path.write_bytes(b"".join(members))
    cut = sum(map(len, members[:20])) + 1000  # (inside the 21st member, after what is read ahead)
    run = subprocess.run(child.python(_SHRINK) + [str(path), str(int(readahead)), str(int(lenient)), str(cut)],
                         capture_output=True, env=child.env(), timeout=120, check=False)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    got = json.loads(run.stdout)
    assert got["mapped"] == COMPILED
    starts = [sum(map(len, members[:i])) for i in range(21)]
    ends_at = starts[20]  # the member the file now ends in
    if COMPILED:
        reason = "the file could not be read here (it shrank while being read, or its device failed)"
    else:
        reason = "gzip member is truncated"  # (read copies: the file ends early)
    assert got["offsets"] == starts[: len(got["offsets"])] and len(got["offsets"]) >= 20
    if lenient:
        assert got["error"] is None
        assert [i[1] for i in got["issues"]][-1] == ends_at
        assert reason in got["issues"][-1][2]
    else:
        assert got["error"] == ["CompressionError", ends_at, reason]


@pytest.mark.parametrize("readahead", [False, True])
def test_a_file_that_grew_after_it_was_opened_is_read_to_its_end(tmp_path: Path, readahead: bool) -> None:
    """The map is as long as the file was when the reader opened it; past its end,
    reading goes on with copies, so records appended since are read."""
    path = tmp_path / "grows.warc.gz"
    first = [_member(i, os.urandom(3000)) for i in range(3)]
    path.write_bytes(b"".join(first))
    more = [_member(i, os.urandom(3000)) for i in range(3, 6)]
    with warckit.open(path, readahead=readahead) as r:
        assert r._dec.mapped == COMPILED
        with open(path, "ab") as f:
            f.write(b"".join(more))
        offsets = [rec.offset for rec in r]
    assert offsets == [sum(map(len, (first + more)[:i])) for i in range(6)]


_RESIDENT = r"""
import json, sys

def resident():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return sum(int(fields[k].split()[0]) for k in ("RssFile", "RssShmem")) * 1024

path = sys.argv[1]
base = resident()
most = 0
with warckit.open(path, readahead=sys.argv[2] == "1") as r:
    mapped = r._dec.mapped
    for n, rec in enumerate(r):
        most = max(most, resident() - base)
print(json.dumps({"mapped": mapped, "records": n + 1, "most": most}))
"""


@compiled_only
@pytest.mark.slow
@pytest.mark.parametrize("readahead", [False, True])
def test_resident_memory_stays_bounded(tmp_path: Path, readahead: bool) -> None:
    """The pages of the map read are let go of as reading goes on: a 128 MB file leaves
    a few MB resident, not 128 (one map's last 8-16 MiB; two lanes' at most)."""
    path = tmp_path / "long.warc.gz"
    body = os.urandom(1 << 20)
    with open(path, "wb") as f:
        for i in range(128):
            f.write(_member(i, body[i:] + body[:i]))  # (incompressible: 128 MB of file)
    assert path.stat().st_size > 128 << 20
    run = subprocess.run(child.python(_RESIDENT) + [str(path), str(int(readahead))],
                         capture_output=True, env=child.env(), timeout=120, check=False)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    got = json.loads(run.stdout)
    assert got["mapped"] and got["records"] == 128
    assert got["most"] < 32 << 20, got
