"""Reading over HTTP and S3 (real servers on loopback): the same records, offsets and
index lines as the local file; one ranged request per random record."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from remote_files import local
from remote_servers import CountingS3, RangeServer

import warckit
from warckit.cdx.build import write_index
from warckit.cdx.indexer import IndexOptions
from warckit.errors import RemoteError
from warckit.io.remote import FIRST_READ, READ_AHEAD, RemoteFile, is_url
from warckit.io.sources import open_source

NAMES = ["sample.warc.gz", "iana.warc.gz", "wget.warc", "cc.warc.gz", "blackbook.arc.gz"]


def _records(source: Any, **kw: Any) -> list[tuple[Any, ...]]:
    with warckit.open(source, **kw) as reader:
        return [(r.offset, r.length, r.type, r.target_uri, r.content_stream().read()) for r in reader]


def _index(source: str, **kw: Any) -> bytes:
    out = io.BytesIO()
    write_index([source], out, IndexOptions(format="cdxj"), **kw)
    return out.getvalue()


@pytest.mark.parametrize("name", NAMES)
def test_http_listing_and_index_equal_local(http: RangeServer, served: Path, name: str) -> None:
    path = local(served, name)
    expected = _records(path)
    assert expected
    assert _records(http.url(name)) == expected
    assert _index(http.url(name)).replace(http.url(name).encode(), str(path).encode()) \
        == _index(str(path))


@pytest.mark.parametrize("name", NAMES)
def test_s3_listing_equal_local(s3: CountingS3, served: Path, name: str) -> None:
    path = local(served, name)
    assert _records(f"s3://bucket/{name}", storage_options=s3.storage_options) == _records(path)


def test_sequential_reading_streams_in_growing_ranges(http: RangeServer, served: Path) -> None:
    path = local(served, "iana.warc.gz")
    size = path.stat().st_size
    _records(http.url("iana.warc.gz"))
    # Every byte once (no whole-file GET, no re-reads), in ranges that start small and double.
    assert http.sent == size
    starts = [a for a, _ in http.ranges]
    assert starts == sorted(starts)
    lengths = [b - a for a, b in http.ranges]
    assert lengths[0] == FIRST_READ and lengths[1] >= 2 * FIRST_READ
    assert all(b <= READ_AHEAD for b in lengths)
    assert all(a >= b for a, b in zip(lengths[1:-2], lengths[:-3]))  # (the last is the rest)


@pytest.mark.parametrize("name", ["iana.warc.gz", "wget.warc", "blackbook.arc.gz"])
def test_random_record_is_one_exact_range_http(http: RangeServer, served: Path, name: str) -> None:
    records = _records(local(served, name))
    for offset, length, _, _, content in records[1::7]:
        http.reset_counts()
        with warckit.read_record_at(http.url(name), offset, length=length) as record:
            assert record.offset == offset
            assert record.content_stream().read() == content
        assert http.ranges == [(offset, offset + length)]
        assert (http.heads, http.gets, http.sent) == (0, 1, length)  # one request, no HEAD


def test_random_record_is_one_exact_range_s3(s3: CountingS3, served: Path) -> None:
    records = _records(local(served, "iana.warc.gz"))
    for offset, length, _, _, content in records[1::9]:
        s3.reset_counts()
        with warckit.read_record_at("s3://bucket/iana.warc.gz", offset, length=length,
                                    storage_options=s3.storage_options) as record:
            assert record.content_stream().read() == content
        # One GET; s3fs also asks the object's metadata (a HEAD, no body) to pin its ETag.
        assert (s3.requests, s3.gets, s3.sent) == (2, 1, length)


def test_random_record_without_length_is_bounded(http: RangeServer, served: Path) -> None:
    records = _records(local(served, "iana.warc.gz"))
    # A small record: the first range (64 KiB) holds it.
    offset, length, _, _, content = records[5]
    with warckit.read_record_at(http.url("iana.warc.gz"), offset) as record:
        assert record.content_stream().read() == content
    assert http.ranges == [(offset, offset + FIRST_READ)]
    # A large one (the fonts are > 100 KB): then growing ranges, not the file's rest.
    offset, length, _, _, content = max(records, key=lambda r: r[1])
    assert length > FIRST_READ
    http.reset_counts()
    with warckit.read_record_at(http.url("iana.warc.gz"), offset) as record:
        assert record.content_stream().read() == content
    assert http.sent <= 2 * length + FIRST_READ
    assert http.sent < local(served, "iana.warc.gz").stat().st_size // 2


def test_payload_range_over_http(http: RangeServer, served: Path) -> None:
    path = local(served, "wget.warc")
    records = [r for r in _records(path) if r[2] == "response"]
    offset, length = records[0][:2]
    want = b"".join(warckit.read_payload_range(str(path), offset, 10, 60))
    assert len(want) == 50
    assert b"".join(warckit.read_payload_range(http.url("wget.warc"), offset, 10, 60,
                                               length=length)) == want
    assert http.sent == length


def test_memory_and_file_urls(served: Path, tmp_path: Path) -> None:
    import fsspec

    path = local(served, "sample.warc.gz")
    expected = _records(path)
    fsspec.filesystem("memory").pipe("/warckit-test/sample.warc.gz", path.read_bytes())
    try:
        assert _records("memory://warckit-test/sample.warc.gz") == expected
    finally:
        fsspec.filesystem("memory").rm("/warckit-test", recursive=True)
    assert _records(path.as_uri()) == expected


def test_local_paths_do_not_take_the_remote_path(served: Path) -> None:
    # (The check is one string test; a local path stays a plain file.)
    assert not is_url(str(served / "sample.warc.gz"))
    assert not is_url("C:\\warcs\\a.warc") and not is_url("weird:name.warc")
    assert is_url("s3://b/k") and is_url("https://h/x") and is_url("git+ssh://h/x")
    with open_source(served / "sample.warc.gz") as src:
        assert isinstance(src.file, io.BufferedReader)
    with open_source(str(served / "sample.warc.gz")) as src:
        assert isinstance(src.file, io.BufferedReader)


def test_remote_file_is_a_seekable_binary_file(http: RangeServer, served: Path) -> None:
    data = local(served, "wget.warc").read_bytes()
    with open_source(http.url("wget.warc")) as src:
        f = src.file
        assert isinstance(f, RemoteFile) and src.seekable and f.size == len(data)
        assert f.read(10) == data[:10] and f.tell() == 10
        f.seek(-20, io.SEEK_END)
        assert f.read() == data[-20:]
        f.seek(100)
        assert f.peek(5)[:5] == data[100:105] and f.tell() == 100
        buf = bytearray(7)
        assert f.readinto(buf) == 7 and bytes(buf) == data[100:107]
        with pytest.raises(io.UnsupportedOperation):
            f.fileno()
    assert f.closed


@pytest.mark.slow
def test_streaming_reads_ahead_on_a_thread(bench_warc: Any, tmp_path: Path) -> None:
    import threading

    from remote_servers import RangeServer

    path = bench_warc("cc", 20)  # ~7 MB of gzip members
    size = path.stat().st_size
    expected = _records(path)
    with RangeServer(path.parent) as http:
        url = http.url(path.name)
        seen: set[str] = set()
        with warckit.open(url) as reader:
            got = []
            for r in reader:
                got.append((r.offset, r.length, r.type, r.target_uri, r.content_stream().read()))
                seen.update(t.name for t in threading.enumerate())
        assert got == expected
        assert any(name.startswith("warckit-readahead") for name in seen)
        # Every byte once, though a range is fetched ahead while the last is parsed.
        assert http.sent == size
        assert max(b - a for a, b in http.ranges) <= READ_AHEAD and len(http.ranges) < 12
        assert [a for a, _ in http.ranges] == sorted(a for a, _ in http.ranges)
        # Stopping early (a range in flight) leaves no thread behind.
        with warckit.open(url) as reader:
            for _, _ in zip(range(len(expected) // 3), reader):
                pass
        # A refusal met by the range fetched ahead is raised where it is read, with its offset.
        with warckit.open(url) as reader:
            for _, _ in zip(range(len(expected) // 20), reader):
                pass
            assert http.ranges[-1][1] < size  # (more to fetch)
            http.status = 403
            with pytest.raises(RemoteError) as err:
                for _ in reader:
                    pass
        assert err.value.offset == http.ranges[-1][1] and "HTTP 403" in str(err.value)
    assert not [t for t in threading.enumerate() if t.name.startswith("warckit-readahead")]


def test_zstd_over_http(served: Path, tmp_path: Path) -> None:
    from remote_servers import RangeServer

    from warckit.tools.recompress import recompress

    recompress(local(served, "iana.warc.gz"), tmp_path / "iana.warc.zst", compression="zstd")
    path = tmp_path / "iana.warc.zst"
    records = _records(path)
    with RangeServer(tmp_path) as http:
        url = http.url("iana.warc.zst")
        assert _records(url) == records
        for offset, length, _, _, content in records[1::25]:
            with warckit.read_record_at(url, offset, length=length) as record:
                assert record.content_stream().read() == content
            with warckit.read_record_at(url, offset) as record:
                assert record.content_stream().read() == content
