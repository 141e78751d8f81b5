"""Rolling files: size limit on bytes written, warcinfo per file, .open handling, crashes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import child

import warckit
from warckit.check.report import check_file
from warckit.write.guided import WarcWriter
from warckit.write.rolling import timestamp17

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"


def test_50mb_in_10mb_files(tmp_path: Path) -> None:
    # Incompressible random bytes keep this fast: gzip cannot shrink them, so ~50 MB is written.
    rnd = os.urandom(1 << 20)
    limit = 10_000_000
    written = []
    with WarcWriter(tmp_path, prefix="roll", max_bytes=limit, fsync=False, host="h", port=7) as w:
        for i in range(50):
            body = rnd[i * 1000:] + rnd[: i * 1000]  # 1 MiB each, all different
            written.append((w.response(f"https://example.com/{i}", HEAD, body), body))
    files = sorted(w.files)
    assert len(files) == 6  # 9 records of ~1 MiB fit in 10 MB
    assert not list(tmp_path.glob("*.open"))
    for serial, f in enumerate(files):
        name = Path(f).name
        assert name.startswith("roll-") and name.endswith(f"-{serial:05d}-{os.getpid()}~h~7.warc.gz")
        assert len(name.split("-")[1]) == 17
        assert os.path.getsize(f) <= limit
        recs = list(warckit.open(f))
        assert recs[0].type == "warcinfo" and recs[0].headers.first("WARC-Filename") == name
        assert all(r.warcinfo_id == recs[0].record_id for r in recs[1:])
    assert sum(os.path.getsize(f) for f in files) > 50 * (1 << 20)
    for wr, body in written:
        rec = warckit.read_record_at(wr.path, wr.offset)
        assert rec.record_id == wr.record_id
        assert rec.payload_stream().read() == body
        assert rec.length == wr.length


def test_record_count_limit_and_oversized_record(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, max_records=2, max_bytes=2000, fsync=False) as w:
        a = w.resource("file:///a", b"a", content_type="text/plain")
        b = w.resource("file:///b", b"b", content_type="text/plain")
        c = w.resource("file:///c", b"c", content_type="text/plain")
        big = w.resource("file:///big", os.urandom(5000), content_type="application/octet-stream")
        d = w.resource("file:///d", b"d", content_type="text/plain")
    assert a.path == b.path != c.path
    assert big.path not in (c.path, d.path)  # alone in its file, larger than the limit
    assert os.path.getsize(big.path) > 2000
    assert [r.type for r in warckit.open(big.path)] == ["warcinfo", "resource"]
    assert len(w.files) == 4


def test_timestamp17() -> None:
    from datetime import datetime, timezone

    assert timestamp17(datetime(2024, 1, 2, 3, 4, 5, 678999, tzinfo=timezone.utc)) == "20240102030405678"


CHILD = r"""
import time
from warckit.write.guided import WarcWriter
w = WarcWriter({out!r}, prefix="crash")
for i in range(5):
    r = w.resource("file:///%d" % i, os.urandom(10000) + b"%d" % i, content_type="application/octet-stream")
    print(r.offset, r.length, r.record_id, flush=True)
def endless():
    yield b"partial body " * 1000
    print("STREAMING", flush=True)
    while True:
        time.sleep(0.05)
        yield b"more"
w.resource("file:///never", endless(), content_type="application/octet-stream")
"""


def test_sigkill_leaves_readable_open_file(tmp_path: Path) -> None:
    code = CHILD.format(out=str(tmp_path))
    # the child runs the writer the tests import (compiled or pure), and checks it does
    proc = subprocess.Popen(child.python(code), stdout=subprocess.PIPE, text=True, env=child.env())
    assert proc.stdout is not None
    lines = []
    deadline = time.time() + 20
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line or line.startswith("STREAMING"):
            break
        lines.append(line.split())
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert len(lines) == 5
    opened = list(tmp_path.glob("*.warc.gz.open"))
    assert len(opened) == 1
    recs = [r for r in warckit.open(opened[0])]
    assert [r.type for r in recs] == ["warcinfo"] + ["resource"] * 5
    for (offset, length, rid), rec in zip(lines, recs[1:]):
        assert (rec.offset, rec.length, rec.record_id) == (int(offset), int(length), rid)
    report = check_file(opened[0])
    assert report.ok and report.issues == []
    assert [r.block_digest for r in report.records] == ["pass"] * 6
