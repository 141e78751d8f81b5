"""HTTP bodies as real files have them: ``Transfer-Encoding: chunked`` over bodies that
are not chunked, chunked bodies that break, and the errors bodies raise while they stream."""

from __future__ import annotations

import gzip
import hashlib
import io
import subprocess
import warnings
from pathlib import Path

import child
import pytest
from corpus_paths import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

import warckit
from warckit.errors import (
    ChunkedEncodingError,
    Issue,
    ParseError,
    RecordParseError,
    StaleRecordError,
)
from warckit.io.chunked import ChunkedReader, Dechunker

IANA = CORPUS / "pywb/iana.warc.gz"
needs_corpus = pytest.mark.skipif(not IANA.exists(), reason="shared corpus not available")


def _record(block: bytes, *, rtype: str = "response", ctype: str = "application/http; msgtype=response") -> bytes:
    head = (
        f"WARC/1.1\r\nWARC-Type: {rtype}\r\n"
        f"WARC-Record-ID: <urn:uuid:{hashlib.md5(block).hexdigest()}>\r\n"
        "WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
        f"Content-Type: {ctype}\r\nContent-Length: {len(block)}\r\n\r\n"
    ).encode()
    return head + block + b"\r\n\r\n"


def _http(body: bytes, *, chunked: bool = True, extra: bytes = b"") -> bytes:
    te = b"Transfer-Encoding: chunked\r\n" if chunked else b""
    return b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + te + extra + b"\r\n" + body


WARCINFO = _record(b"software: test\r\n", rtype="warcinfo", ctype="application/warc-fields")
#: Offset of the first record after the warcinfo record (uncompressed).
SECOND = len(WARCINFO)


def _warc(tmp_path: Path, *blocks: bytes, gz: bool = False) -> Path:
    path = tmp_path / ("t.warc.gz" if gz else "t.warc")
    first = WARCINFO
    records = [first, *(_record(b) for b in blocks)]
    path.write_bytes(b"".join(gzip.compress(r) for r in records) if gz else b"".join(records))
    return path


def _responses(path: Path, **options: object) -> list[tuple[warckit.WarcRecord, bytes | Exception]]:
    out: list[tuple[warckit.WarcRecord, bytes | Exception]] = []
    with warckit.open(path, **options) as reader:  # type: ignore[arg-type]
        for rec in reader:
            if rec.type == "response":
                try:
                    out.append((rec, rec.content_stream().read()))
                except ParseError as exc:
                    out.append((rec, exc))
    return out


# -- pywb iana.warc.gz: 25 of its 48 responses lie about their transfer coding ----------


@needs_corpus
def test_iana_every_response_reads_in_strict_mode_and_matches_warcio() -> None:
    from warcio.archiveiterator import ArchiveIterator

    expected: dict[int, bytes] = {}
    with open(IANA, "rb") as f:
        it = ArchiveIterator(f)
        for r in it:
            if r.rec_type == "response":
                expected[it.get_record_offset()] = r.content_stream().read()
    seen: list[Issue] = []
    got: dict[int, bytes] = {}
    with warckit.open(IANA, on_warning=seen.append) as reader:
        for rec in reader:
            if rec.type == "response":
                got[rec.offset] = rec.content_stream(decode_content=True).read()
        assert reader.issues == seen
    assert len(expected) == 48
    assert got == expected
    assert len(seen) == 25
    assert {i.code for i in seen} == {"not-chunked"}
    assert seen[0] == Issue(
        "not-chunked",
        "Transfer-Encoding is chunked but its first line is not a chunk size; the body is served as stored",
        "warning", 334, str(IANA),
    )
    assert [i.offset for i in seen][:4] == [334, 4009, 41238, 50482]
    # The body served is the body as stored after the HTTP head.
    with warckit.read_record_at(IANA, 334) as rec:
        body = rec.content_stream().read()
        assert body == rec.read_block()[len(rec.http.raw):]  # type: ignore[union-attr]
        assert len(body) == 5678 and body.startswith(b"<!doctype html>")
        assert rec.content_stream().read() == body  # read twice, reported once
        assert [i.code for i in rec.issues] == ["not-chunked"]


@needs_corpus
def test_iana_lenient_reports_every_recovery() -> None:
    seen: list[Issue] = []
    per_record: list[Issue] = []
    with warckit.open(IANA, lenient=True, on_warning=seen.append) as reader:
        for rec in reader:
            if rec.type == "response":
                rec.content_stream().read()
                per_record.extend(rec.issues)
        assert reader.issues == seen == per_record
    assert len(seen) == 25


@needs_corpus
def test_extract_payload_of_a_lying_body(tmp_path: Path) -> None:
    out = subprocess.run(
        child.warckit_cli("extract", str(IANA), "334", "--payload"),
        capture_output=True, env=child.env(), check=False,
    )
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) == 5678 and out.stdout.startswith(b"<!doctype html>")


# -- where the line is drawn ----------------------------------------------------------------

CHUNKED = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n"


@pytest.mark.parametrize("body,why", [
    (b"<!doctype html>\n<html></html>", "its first line is not a chunk size"),
    (b"", "the body is empty"),
    (b"no line end at all", "its first line is not a chunk size"),
    (b"0x3\r\nabc\r\n0\r\n\r\n", "its first line is not a chunk size"),  # int(x, 16) took these
    (b"1_0\r\n" + b"a" * 16 + b"\r\n0\r\n\r\n", "its first line is not a chunk size"),
    (b" +3\r\nabc\r\n0\r\n\r\n", "its first line is not a chunk size"),
    (b"\r\n" * 1000 + b"3\r\nabc\r\n0\r\n\r\n", "its first line is not a chunk size"),
    (b"a" * 5000 + b"\r\n", "its first line is not a chunk size"),
    (b" 10000000000000000\n", "its first line is not a chunk size"),  # too large, then whitespace
])
@pytest.mark.parametrize("lenient", [False, True])
def test_not_chunked_is_served_as_stored(body: bytes, why: str, lenient: bool) -> None:
    issues: list[tuple[str, str]] = []
    got = ChunkedReader(io.BytesIO(body), lenient=lenient, on_issue=lambda *a: issues.append(a)).read()
    assert got == body
    assert issues == [("not-chunked", f"Transfer-Encoding is chunked but {why}; the body is served as stored")]


@pytest.mark.parametrize("bad", [b"0x3", b"1_0", b" +3", b"-3", b"", b"3 3", b"g"])
def test_invalid_chunk_size_after_the_first_chunk(bad: bytes) -> None:
    body = b"3\r\nabc\r\n" + bad + b"\r\nxyz\r\n0\r\n\r\n"
    with pytest.raises(ChunkedEncodingError) as err:
        ChunkedReader(io.BytesIO(body), source="f.warc", offset=12).read()
    assert (err.value.source, err.value.offset) == ("f.warc", 12)
    assert err.value.message == f"bad chunk size {bad!r} at byte 8 of the body"
    issues: list[tuple[str, str]] = []
    got = ChunkedReader(io.BytesIO(body), lenient=True, on_issue=lambda *a: issues.append(a)).read()
    if bad == b"":  # lenient: a blank line between chunks is skipped, then xyz is no size
        assert got == b"abcxyz\r\n0\r\n\r\n"
        assert issues == [
            ("bad-chunked", "skipped 1 blank line(s) before a chunk-size line"),
            ("bad-chunked", "bad chunk size b'xyz' at byte 10 of the body; the rest is served as stored"),
        ]
    else:
        assert got == b"abc" + body[8:]
        assert issues == [
            ("bad-chunked", f"bad chunk size {bad!r} at byte 8 of the body; the rest is served as stored")
        ]


def test_whitespace_around_the_digits_is_lenient_only() -> None:
    body = b" 3 \r\nabc\r\n0\r\n\r\n"
    with pytest.raises(ChunkedEncodingError, match="whitespace around the digits"):
        ChunkedReader(io.BytesIO(body)).read()
    issues: list[tuple[str, str]] = []
    assert ChunkedReader(io.BytesIO(body), lenient=True, on_issue=lambda *a: issues.append(a)).read() == b"abc"
    assert issues == [("bad-chunked", "chunk size b' 3 ' has whitespace around the digits")]
    # Uppercase digits, leading zeros, BWS before a chunk-ext and bare LF are all valid.
    ok = b"0000A ;name=value\r\n0123456789\r\n0\n\r\n"
    assert ChunkedReader(io.BytesIO(ok)).read() == b"0123456789"


def test_many_blank_lines_no_recursion() -> None:
    body = b"3\r\nabc\r\n" + b"\r\n" * 100_000 + b"3\r\nxyz\r\n0\r\n\r\n"
    with pytest.raises(ChunkedEncodingError, match=r"bad chunk size b'' at byte 8"):
        ChunkedReader(io.BytesIO(body)).read()
    issues: list[tuple[str, str]] = []
    got = ChunkedReader(io.BytesIO(body), lenient=True, on_issue=lambda *a: issues.append(a)).read()
    assert got == b"abcxyz"
    assert issues == [("bad-chunked", "skipped 100000 blank line(s) before a chunk-size line")]


@pytest.mark.parametrize("body,message,served", [
    (b"3\r\nabc\r\n", "chunked body ends without the last chunk at byte 8 of the body", b"abc"),
    (b"3\r\nabc", "chunked body ends without the last chunk at byte 6 of the body", b"abc"),
    (b"3\r\nabc\r", "chunked body ends inside the CRLF after chunk data at byte 6 of the body", b"abc"),
    (b"a\r\nabc", "chunked body ends inside a chunk at byte 6 of the body", b"abc"),
    (b"3\r\nabc\r\n1", "chunked body ends inside a chunk-size line at byte 8 of the body", b"abc"),
    (b"3\r\nabcd\r\n0\r\n\r\n", "chunk data is not followed by CRLF at byte 6 of the body", b"abcd\r\n0\r\n\r\n"),
    (b"3\r\nabc\r\n" + b"1" * 5000, "chunk-size line is too long at byte 8 of the body", b"abc" + b"1" * 5000),
])
def test_chunked_body_that_breaks(body: bytes, message: str, served: bytes) -> None:
    with pytest.raises(ChunkedEncodingError) as err:
        ChunkedReader(io.BytesIO(body)).read()
    assert err.value.message == message
    issues: list[tuple[str, str]] = []
    assert ChunkedReader(io.BytesIO(body), lenient=True, on_issue=lambda *a: issues.append(a)).read() == served
    assert len(issues) == 1 and issues[0][0] == "bad-chunked" and issues[0][1].startswith(message)


def test_dechunker_takes_the_same_sizes() -> None:
    class Sink:
        def __init__(self) -> None:
            self.data = b""

        def update(self, data: bytes) -> None:
            self.data += data

    for bad in (b"0x3", b"1_0", b" +3"):
        d, sink = Dechunker(), Sink()
        d.feed(b"3\r\nabc\r\n" + bad + b"\r\nxyz\r\n0\r\n\r\n", sink)
        assert d.failed
    d, sink = Dechunker(), Sink()
    d.feed(CHUNKED, sink)
    assert (d.failed, d.state, sink.data) == (False, 4, b"Wikipedia")


# -- records: issues, strict raising, source and offset on every streaming error ---------------


def test_record_reports_not_chunked_in_both_modes(tmp_path: Path) -> None:
    path = _warc(tmp_path, _http(b"<html>lies</html>"), _http(CHUNKED))
    for lenient in (False, True):
        seen: list[Issue] = []
        (lying, a), (honest, b) = _responses(path, lenient=lenient, on_warning=seen.append)
        assert (a, b) == (b"<html>lies</html>", b"Wikipedia")
        assert [i.code for i in lying.issues] == ["not-chunked"] and honest.issues == []
        assert seen == lying.issues and seen[0].offset == lying.offset and seen[0].source == str(path)


@pytest.mark.parametrize("gz", [False, True])
def test_strict_raises_with_source_and_offset_lenient_reports(tmp_path: Path, gz: bool) -> None:
    path = _warc(tmp_path, _http(b"3\r\nabc\r\nzz\r\n"), gz=gz)
    ((rec, err),) = _responses(path)
    assert isinstance(err, ChunkedEncodingError)
    assert (err.source, err.offset) == (str(path), rec.offset)
    assert rec.offset == (len(gzip.compress(WARCINFO)) if gz else SECOND)
    assert str(err).startswith(f"{path}, offset {rec.offset}: bad chunk size b'zz' at byte 8")
    seen: list[Issue] = []
    ((rec, body),) = _responses(path, lenient=True, on_warning=seen.append)
    assert body == b"abczz\r\n"
    assert [(i.code, i.offset) for i in seen] == [("bad-chunked", rec.offset)] and rec.issues == seen


def test_decoding_error_names_source_and_offset(tmp_path: Path) -> None:
    path = _warc(tmp_path, _http(b"not gzip at all", chunked=False, extra=b"Content-Encoding: gzip\r\n"))
    with warckit.open(path) as reader:
        rec = next(r for r in reader if r.type == "response")
        with pytest.raises(ChunkedEncodingError) as err:
            rec.content_stream(decode_content=True).read()
    assert (err.value.source, err.value.offset) == (str(path), rec.offset) == (str(path), SECOND)


@pytest.mark.parametrize("kind", ["raw_stream", "payload_stream", "content_stream"])
@pytest.mark.parametrize("gz", [False, True])
def test_truncated_block_error_names_source_and_offset(tmp_path: Path, kind: str, gz: bool) -> None:
    full = _warc(tmp_path, _http(b"x" * 5000, chunked=False))
    data = full.read_bytes()
    cut = data[: len(data) - 1000]
    path = tmp_path / ("cut.warc.gz" if gz else "cut.warc")
    path.write_bytes(gzip.compress(cut) if gz else cut)
    with warckit.open(path) as reader:
        rec = next(r for r in reader if r.type == "response")
        with pytest.raises(RecordParseError) as err:
            getattr(rec, kind)().read()
    assert (err.value.source, err.value.offset) == (str(path), rec.offset)
    assert rec.offset == (0 if gz else SECOND)


@pytest.mark.parametrize("kind", ["raw_stream", "payload_stream", "content_stream"])
def test_stale_error_names_source_and_offset(tmp_path: Path, kind: str) -> None:
    path = _warc(tmp_path, _http(b"x" * 300_000, chunked=False), _http(CHUNKED))
    with warckit.open(path) as reader:
        first = None
        for rec in reader:
            if rec.type == "response":
                first = rec
                first.http  # noqa: B018 - the head is kept; the body stays in the file
                break
        next(reader)
        assert first is not None
        with pytest.raises(StaleRecordError) as err:
            getattr(first, kind)().read()
    assert (err.value.source, err.value.offset) == (str(path), SECOND)


@needs_corpus
def test_read_record_at_errors_name_source_and_offset(tmp_path: Path) -> None:
    with pytest.raises(RecordParseError) as err:
        warckit.read_record_at(IANA, 335)
    assert (err.value.source, err.value.offset) == (str(IANA), 335)
    path = _warc(tmp_path, _http(b"3\r\nabc\r\nzz\r\n"))
    with warckit.read_record_at(path, SECOND) as rec, pytest.raises(ChunkedEncodingError) as err2:
        rec.content_stream().read()
    assert (err2.value.source, err2.value.offset) == (str(path), SECOND)


# -- read_record_at: a record that closes its file ----------------------------------------------


def _open_fds() -> int:
    import os

    return len(os.listdir("/proc/self/fd"))


@needs_corpus
def test_read_record_at_context_manager_and_close() -> None:
    import gc

    gc.collect()
    before = _open_fds()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        with warckit.read_record_at(IANA, 334) as rec:
            assert _open_fds() == before + 1
            assert len(rec.content_stream().read()) == 5678
        assert _open_fds() == before
        rec.close()  # idempotent
        rec2 = warckit.read_record_at(IANA, 0)
        rec2.close()
        assert _open_fds() == before
        for bad in (335, 10**9):
            with pytest.raises(ParseError):
                warckit.read_record_at(IANA, bad)
            assert _open_fds() == before
        del rec, rec2
        gc.collect()


def test_read_record_at_error_path_closes_the_file(tmp_path: Path) -> None:
    lz4 = tmp_path / "x.warc.lz4"
    lz4.write_bytes(b"\x04\x22\x4d\x18" + b"\0" * 64)  # LZ4 frame magic: refused at open
    before = _open_fds()
    with pytest.raises(ParseError) as err:
        warckit.read_record_at(lz4, 0)
    assert _open_fds() == before
    assert (err.value.source, err.value.offset) == (str(lz4), 0)


# -- properties ---------------------------------------------------------------------------------


def _encode(pieces: list[bytes], ext: bool) -> bytes:
    out = b"".join(b"%x%s\r\n%s\r\n" % (len(p), b";a=b" if ext else b"", p) for p in pieces if p)
    return out + b"0\r\nTrailer: x\r\n\r\n"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=8), st.booleans(), st.integers(1, 50))
def test_valid_chunked_bodies_decode_in_both_modes(pieces: list[bytes], ext: bool, step: int) -> None:
    body = _encode(pieces, ext)
    for lenient in (False, True):
        issues: list[tuple[str, str]] = []
        reader = ChunkedReader(io.BytesIO(body), lenient=lenient, on_issue=lambda *a: issues.append(a))  # noqa: B023
        got = b"".join(iter(lambda: reader.read(step), b""))  # noqa: B023
        assert got == b"".join(pieces) and issues == []

    class Sink:
        data = b""

        def update(self, data: bytes) -> None:
            self.data += data

    d, sink = Dechunker(), Sink()
    d.feed(body, sink)
    assert (d.failed, sink.data) == (False, b"".join(pieces))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200) | st.lists(st.sampled_from(
    [b"3", b"\r\n", b"\n", b"abc", b"0", b";x", b" ", b"0x3", b"ffffffffffffffffff"]), max_size=20).map(b"".join))
def test_any_body_either_decodes_or_raises_chunked_encoding_error(body: bytes) -> None:
    try:
        strict = ChunkedReader(io.BytesIO(body)).read()
    except ChunkedEncodingError:
        strict = None
    issues: list[tuple[str, str]] = []
    lenient = ChunkedReader(io.BytesIO(body), lenient=True, on_issue=lambda *a: issues.append(a)).read()
    if strict is not None:
        assert lenient == strict  # lenient differs only where strict raises
    else:
        assert issues and all(code == "bad-chunked" for code, _ in issues)
    assert len(lenient) <= len(body)


def test_unsupported_content_encoding_names_source_and_offset(tmp_path: Path) -> None:
    path = _warc(tmp_path, _http(b"data", chunked=False, extra=b"Content-Encoding: sdch\r\n"))
    with warckit.open(path) as reader:
        rec = next(r for r in reader if r.type == "response")
        assert rec.content_stream().read() == b"data"  # without decoding, the body as stored
        with pytest.raises(ChunkedEncodingError) as err:
            rec.content_stream(decode_content=True)
    assert (err.value.source, err.value.offset, err.value.message) == (
        str(path), SECOND, "unsupported Content-Encoding 'sdch'")
