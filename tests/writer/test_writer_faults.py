"""Writer failures: disk full, a torn record that cannot be cut off, leaving the
``with`` block by an exception, a failing body, and rolling with every compression."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import child
import pytest

import warckit
from warckit.write.guided import WarcWriter

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"

# Runs in a child process: RLIMIT_FSIZE stands in for a full disk (writes past the
# limit are cut short, then fail with EFBIG once SIGXFSZ is ignored).
_DISK_FULL = r"""
import errno, json, resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
from warckit.write.guided import WarcWriter
out, compression, threads, limit, torn = sys.argv[1:6]
if torn == "1":
    def ftruncate(fd, size):
        raise OSError(errno.EIO, "cannot truncate")
    os.ftruncate = ftruncate
kwargs = {} if threads == "default" else {"threads": threads == "on"}
w = WarcWriter(out, compression=compression, fsync=False, max_bytes=None, **kwargs)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), resource.RLIM_INFINITY))
records, errors = [], []
try:
    for i in range(1000):
        records.append(w.resource(f"https://e.example/{i}", os.urandom(30_000),
                                  content_type="application/octet-stream"))
except OSError as exc:
    errors.append(exc.errno)
if torn == "1":
    # The torn file takes no more records: the next one goes into a new file.
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    try:
        records.append(w.resource("https://e.example/after", b"after", content_type="text/plain"))
    except OSError as exc:
        errors.append(exc.errno)
try:
    w.close()
except OSError as exc:
    errors.append(exc.errno)
placed, lost = [], []
for r in records:
    try:
        placed.append([r.record_id, r.path, r.offset, r.length])
    except OSError as exc:
        lost.append([r.record_id, exc.errno])
print(json.dumps({"errors": errors, "placed": placed, "lost": lost, "files": w.files,
                  "abandoned": getattr(w, "abandoned_files", None),
                  "issues": [[i.code, i.source, i.offset] for i in getattr(w, "issues", ())]}))
"""


def _disk_full(tmp_path: Path, compression: str, threads: str, limit: int,
               torn: bool = False) -> dict:  # type: ignore[type-arg]
    proc = subprocess.run(
        [*child.python(_DISK_FULL), str(tmp_path), compression, threads, str(limit),
         "1" if torn else "0"], env=child.env(), capture_output=True, text=True, timeout=120,
        check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("compression", "threads"), [
    ("gzip", "default"), ("gzip", "off"), ("zstd", "default"), ("none", "default")])
def test_disk_full_keeps_only_complete_records(tmp_path: Path, compression: str,
                                               threads: str) -> None:
    limit = 200_000
    got = _disk_full(tmp_path, compression, threads, limit)
    assert got["errors"] and set(got["errors"]) == {errno.EFBIG}
    # The file got its final name, and it ends at its last complete record.
    assert sorted(os.listdir(tmp_path)) == [os.path.basename(f) for f in got["files"]]
    (path,) = got["files"]
    size = os.path.getsize(path)
    assert 0 < size < limit
    recs = list(warckit.open(path))  # strict: any torn bytes would raise
    assert recs[-1].offset + recs[-1].length == size
    assert [r.type for r in recs] == ["warcinfo"] + ["resource"] * (len(recs) - 1)
    # Every record reported written is there, at its place; the others are lost.
    assert len(got["placed"]) == len(recs) - 1 >= 4
    for (rid, rpath, offset, length), rec in zip(got["placed"], recs[1:]):
        assert (rid, rpath, offset, length) == (rec.record_id, path, rec.offset, rec.length)
    assert all(code == errno.EFBIG for _, code in got["lost"])
    assert got["abandoned"] == []
    # What was cut off is reported: the first failure at the end of the file.
    assert got["issues"][0] == ["record-not-written", os.path.basename(path) + ".open", size]


def test_torn_record_that_cannot_be_cut_keeps_open_name(tmp_path: Path) -> None:
    got = _disk_full(tmp_path, "gzip", "off", 200_000, torn=True)
    assert got["errors"] == [errno.EFBIG]  # the next record went into a new file
    (abandoned,) = got["abandoned"]
    assert abandoned.endswith(".warc.gz.open") and os.path.exists(abandoned)
    assert not os.path.exists(abandoned[: -len(".open")])
    assert got["issues"][0][:2] == ["torn-record", os.path.basename(abandoned)]
    (final,) = got["files"]
    assert [r.type for r in warckit.open(final)] == ["warcinfo", "resource"]
    assert got["placed"][-1][1] == final
    assert sorted(os.listdir(tmp_path)) == sorted(
        [os.path.basename(abandoned), os.path.basename(final)])


def test_leaving_the_with_block_by_an_exception(tmp_path: Path) -> None:
    """The records written so far (some still in flight) reach the file, which gets
    its final name; the exception goes on."""
    with pytest.raises(KeyError), WarcWriter(tmp_path, fsync=False) as w:
        recs = [w.resource(f"file:///{i}", os.urandom(3000), content_type="image/png")
                for i in range(20)]
        raise KeyError("caller failed")
    assert not list(tmp_path.glob("*.open"))
    (path,) = w.files
    read = list(warckit.open(path))
    assert [(r.record_id, r.offset, r.length) for r in read[1:]] == [
        (r.record_id, r.offset, r.length) for r in recs]
    with pytest.raises(warckit.UsageError, match="closed"):
        w.resource("file:///late", b"x", content_type="text/plain")


def test_failing_body_writes_nothing_and_writing_goes_on(tmp_path: Path) -> None:
    def body() -> object:
        yield os.urandom(5000)
        raise OSError(errno.ECONNRESET, "peer reset")

    with WarcWriter(tmp_path, fsync=False, compression="none") as w:
        a = w.resource("file:///a", b"a" * 100, content_type="text/plain")
        with pytest.raises(OSError, match="peer reset"):
            w.response("https://e.example/", HEAD, body())  # type: ignore[arg-type]
        b = w.resource("file:///b", b"b" * 100, content_type="text/plain")
    (path,) = w.files
    read = list(warckit.open(path))
    assert [r.record_id for r in read[1:]] == [a.record_id, b.record_id]
    assert b.offset == a.offset + a.length
    assert w.issues == []


@pytest.mark.parametrize("compression", ["none", "zstd", "zstd-dictionary"])
def test_rolling_without_gzip(tmp_path: Path, compression: str) -> None:
    import zstandard

    dictionary = None
    if compression == "zstd-dictionary":
        samples = [f"<html><p>sample {i} {'x' * (i % 50)}</p></html>".encode() * 3
                   for i in range(400)]
        dictionary = zstandard.train_dictionary(2048, samples).as_bytes()
    limit = 30_000
    written = []
    with WarcWriter(tmp_path, compression=compression.split("-")[0], zstd_dictionary=dictionary,
                    max_bytes=limit, fsync=False) as w:
        for i in range(40):
            body = os.urandom(2000) + b"<p>text</p>" * (i * 20)
            written.append((w.response(f"https://e.example/{i}", HEAD, body), body))
    files = w.files
    ext = ".warc" if compression == "none" else ".warc.zst"
    assert len(files) >= 3 and all(f.endswith(ext) for f in files)
    assert not list(tmp_path.glob("*.open"))
    for path in files:
        size = os.path.getsize(path)
        recs = list(warckit.open(path))
        assert size <= limit or len(recs) == 2
        assert recs[0].type == "warcinfo"
        assert recs[0].headers.first("WARC-Filename") == os.path.basename(path)
        assert all(r.warcinfo_id == recs[0].record_id for r in recs[1:])
        assert recs[-1].offset + recs[-1].length == size
        if dictionary is not None:
            assert recs[0].offset == 8 + len(dictionary)  # the dictionary frame in each file
    assert sum(len(list(warckit.open(f))) - 1 for f in files) == 40
    for rec, body in written:
        got = warckit.read_record_at(rec.path, rec.offset)
        assert got.record_id == rec.record_id and got.length == rec.length
        assert got.payload_stream().read() == body


#: A small input whose index is larger than _limit_file_size lets a file grow.
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample.warc.gz"


def _limit_file_size() -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (then a write past the limit fails: EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_named_as_the_output() -> None:
    done = subprocess.run(child.warckit_cli("index", str(SAMPLE), "-o", "/dev/full"), env=child.env(),
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "warckit index: error: /dev/full: No space left on device\n")


def test_an_output_that_cannot_grow_is_named_and_left_out(tmp_path: Path) -> None:
    """A write that fails for want of space names the output (the error of a write names
    no file) and leaves neither the output nor its temporary file."""
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(child.warckit_cli("index", str(SAMPLE), "-o", str(out / "index.cdxj")), env=child.env(),
                          capture_output=True, text=True, timeout=60, preexec_fn=_limit_file_size)
    assert done.returncode == 1
    assert done.stderr == f"warckit index: error: {out / 'index.cdxj'}: {os.strerror(errno.EFBIG)}\n"
    assert list(out.iterdir()) == []
