"""A refused, missing, Range-ignoring, dropping or silent server: a RemoteError naming the
URL and the byte offset, promptly; never a hang, never the whole body in memory."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import child
import pytest
from corpus_paths import ROOT
from remote_files import local
from remote_servers import RangeServer

import warckit
from warckit.errors import RemoteError, UsageError


def test_missing_object(http: RangeServer) -> None:
    url = http.url("nope.warc.gz")
    with pytest.raises(RemoteError) as err:
        warckit.open(url)
    assert err.value.source == url and err.value.offset is None
    assert str(err.value) == f"{url}: HTTP 404 Not Found"
    assert isinstance(err.value, OSError)


def test_refused_connection_is_not_called_not_found() -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/a.warc.gz"
        with pytest.raises(RemoteError, match=r"a\.warc\.gz: cannot connect \(") as err:
            warckit.open(url)
    assert err.value.source == url and "not found" not in str(err.value)


def test_missing_s3_key(s3) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RemoteError, match=r"^s3://bucket/nope\.warc: not found"):
        warckit.open("s3://bucket/nope.warc", storage_options=s3.storage_options)


def test_forbidden_at_open(http: RangeServer) -> None:
    http.status = 403
    url = http.url("iana.warc.gz")
    with pytest.raises(RemoteError, match=r": HTTP 403") as err:
        warckit.read_record_at(url, 4009, length=2809)
    assert err.value.source == url


def test_forbidden_mid_file_names_the_offset(http: RangeServer, served: Path) -> None:
    local(served, "iana.warc.gz")
    url = http.url("iana.warc.gz")
    with warckit.open(url) as reader:
        next(reader)
        fetched = http.ranges[-1][1]  # where the next range starts
        assert 0 < fetched < local(served, "iana.warc.gz").stat().st_size
        http.status = 403
        with pytest.raises(RemoteError) as err:
            for _ in reader:
                pass
    assert (err.value.source, err.value.offset) == (url, fetched)
    assert str(err.value).startswith(f"{url}, offset {fetched}: HTTP 403")


def test_server_ignoring_range(http: RangeServer, served: Path) -> None:
    path = local(served, "iana.warc.gz")
    http.ignore_range = True
    # Random access past the start cannot work: a clear error, not the whole body.
    url = http.url("iana.warc.gz")
    with pytest.raises(RemoteError, match=r"offset 4009: the server ignores Range requests"):
        warckit.read_record_at(url, 4009, length=2809)
    with pytest.raises(RemoteError, match=r"offset 4009: the server ignores Range requests"):
        warckit.read_record_at(url, 4009)
    # Sequential reading gets the first range (its answer cut off there), then streams
    # the whole body once and reads on from where it was.
    http.reset_counts()
    assert _records(url) == _records(path)
    # The first range, the one answered whole, the stream; under load the read-ahead
    # thread may have asked for the next range before the fallback began (one more GET,
    # cut off like the others).
    assert http.gets in (3, 4), http.ranges
    assert all(r == (0, path.stat().st_size) for r in http.ranges)
    # A file that fits the first range is read whole.
    small = local(served, "sample.warc.gz")
    assert _records(http.url("sample.warc.gz")) == _records(small)


def _records(source: object) -> list[tuple[object, ...]]:
    with warckit.open(source) as reader:  # type: ignore[arg-type]
        return [(r.offset, r.type, r.content_stream().read()) for r in reader]


def test_connection_dropped_mid_record(http: RangeServer, served: Path) -> None:
    local(served, "iana.warc.gz")
    http.drop_after = 100
    url = http.url("iana.warc.gz")
    started = time.monotonic()
    with pytest.raises(RemoteError, match=r"offset 4009: the connection dropped") as err, \
            warckit.read_record_at(url, 4009, length=2809) as record:
        record.content_stream().read()
    assert (err.value.source, err.value.offset) == (url, 4009)
    assert time.monotonic() - started < 5


def test_silent_server_times_out(http: RangeServer, served: Path) -> None:
    import aiohttp

    local(served, "iana.warc.gz")
    http.stall = 30  # (until the server stops)
    options = {"client_kwargs": {"timeout": aiohttp.ClientTimeout(sock_connect=2, sock_read=0.3)}}
    started = time.monotonic()
    with pytest.raises(RemoteError, match=r"offset 4009: timed out|offset 4009: .*Timeout"):
        warckit.read_record_at(http.url("iana.warc.gz"), 4009, length=2809,
                               storage_options=options)
    assert time.monotonic() - started < 10


def test_unknown_protocol_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"nosuchproto://x/y\.warc: .*warckit\[remote\]"):
        warckit.open("nosuchproto://x/y.warc")


_BLOCK_FSSPEC = """
import os, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "fsspec" or name.startswith("fsspec."):
            raise ImportError("blocked for the test: " + name)
sys.meta_path.insert(0, Block())
"""


def test_without_fsspec_a_url_names_the_extra(tmp_path: Path) -> None:
    script = _BLOCK_FSSPEC + """
import warckit
from warckit.cli import main
try:
    warckit.open("https://example.org/a.warc.gz")
except warckit.errors.UsageError as exc:
    print("library:", exc)
print("local:", len(list(warckit.open(os.environ["SAMPLE"]))))
sys.exit(main(["ls", "s3://bucket/a.warc.gz"]))
"""
    # The warckit under test (child.env), not the checkout's; started away from the checkout.
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path,
                         env=child.env(SAMPLE=str(ROOT / "examples" / "sample.warc.gz")),
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2, run.stderr
    assert ("library: https://example.org/a.warc.gz: reading URLs needs fsspec: "
            "pip install 'warckit[remote]'") in run.stdout
    assert "local: 6" in run.stdout
    assert run.stderr.strip() == ("warckit ls: error: s3://bucket/a.warc.gz: reading URLs needs "
                                  "fsspec: pip install 'warckit[remote]'")


def test_range_past_the_end(http: RangeServer, served: Path) -> None:
    size = local(served, "iana.warc.gz").stat().st_size
    url = http.url("iana.warc.gz")
    with pytest.raises(RemoteError) as err:
        warckit.read_record_at(url, size + 10, length=500)
    assert str(err.value) == f"{url}, offset {size + 10}: no data at this offset (the object ends before it?)"


@pytest.mark.slow
def test_server_ignoring_range_never_buffers_the_body(bench_warc, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import tracemalloc

    from warckit.io import remote

    # Smaller ranges than the default 8 MiB, so that two of them are well under the file.
    monkeypatch.setattr(remote, "READ_AHEAD", 256 << 10)
    monkeypatch.setattr(remote, "PREFETCH_FROM", 128 << 10)
    path = bench_warc("cc", 20)  # ~7 MB
    size = path.stat().st_size
    with RangeServer(path.parent) as http:
        http.ignore_range = True
        with warckit.open(http.url(path.name)) as reader:  # (imports and first use: untraced)
            for _, _ in zip(range(200), reader):
                pass
        tracemalloc.start()
        try:
            with warckit.open(http.url(path.name)) as reader:
                count = sum(1 for _ in reader)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    with warckit.open(path) as reader:
        assert count == sum(1 for _ in reader)
    assert size > 6_000_000 and peak < 2_500_000, peak  # (aiohttp and fsspec hold ~1 MiB chunks)


def test_a_length_too_short_is_an_error_not_a_short_record(http: RangeServer, served: Path) -> None:
    from warckit.errors import ParseError

    local(served, "iana.warc.gz")
    url = http.url("iana.warc.gz")
    with pytest.raises(ParseError) as err, warckit.read_record_at(url, 4009, length=2000) as record:
        record.content_stream().read()  # (a gzip member cut short: raised here or at the head)
    assert (err.value.source, err.value.offset) == (url, 4009)
    assert http.ranges == [(4009, 6009)]


@pytest.mark.parametrize(("reason", "missing"), [
    ("HTTP 404 Not Found", True),
    ("not found (404 or no such key)", True),
    ("HTTP 500 Internal Server Error", False),
    ("HTTP 403 Forbidden", False),
    ("cannot connect (Connection refused)", False),
])
def test_not_found_is_read_from_the_reason_not_the_url(reason: str, missing: bool) -> None:
    """A server on a port holding "404" that fails is a failure (502 from `warckit serve`),
    not a missing file: `serve`'s archive lookup once matched "404" in the whole message."""
    from warckit.errors import RemoteError
    from warckit.io.remote import is_not_found

    exc = RemoteError("http://127.0.0.1:40404/web/iana-404.warc.gz", None, reason)
    assert "404" in str(exc)
    assert is_not_found(exc) is missing
