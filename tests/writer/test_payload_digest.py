"""The shared pieces the writer, the verifier, dedup and the indexer use: base32, the
push de-chunker and the payload digester."""

from __future__ import annotations

import base64
import hashlib
import io
import os
from pathlib import Path

import pytest

import warckit
from warckit.check.verify import verify_digests
from warckit.errors import ChunkedEncodingError, UsageError
from warckit.io.chunked import DONE, FAILED, ChunkedReader, Dechunker
from warckit.record.digests import Digest, b32encode, format_digest
from warckit.record.payload import LEGACY, WARC11, PayloadDigester, payload_convention
from warckit.write.guided import WarcWriter

HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
BODY = b"5\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n"


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def test_b32encode_every_length() -> None:
    for n in range(66):
        raw = os.urandom(n)
        assert b32encode(raw) == base64.b32encode(raw).decode()
    assert format_digest("sha1", b"\0" * 20) == "sha1:" + "A" * 32
    assert format_digest("sha256", b"\1" * 32) == "sha256:" + "01" * 32
    assert format_digest("md5", b"\1" * 16, "base64") == "md5:AQEBAQEBAQEBAQEBAQEBAQ=="
    with pytest.raises(UsageError):
        format_digest("sha1", b"", "base58")
    assert str(Digest.from_bytes("sha-1", b"\xff" * 20)) == "sha1:" + "7" * 32


class Sink:
    def __init__(self) -> None:
        self.data = b""

    def update(self, data: bytes) -> None:
        self.data += data


@pytest.mark.parametrize("step", [1, 2, 7, len(BODY)])
def test_dechunker_done_whatever_the_pieces(step: int) -> None:
    d, sink = Dechunker(), Sink()
    for i in range(0, len(BODY), step):
        assert not d.done
        d.feed(BODY[i : i + step], sink)
    assert (d.done, d.failed, d.state, sink.data, d.consumed) == (True, False, DONE, b"hello world", len(BODY))
    d.feed(b"after the end", sink)  # ignored
    assert sink.data == b"hello world"


@pytest.mark.parametrize("body", [
    b"5\r\nhello\r\n0\r\n",  # trailer section not ended
    b"5\r\nhello\r\n",  # no last chunk
    b"5\r\nhellox\r\n0\r\n\r\n",  # no CRLF after the data
    b"<html>",  # not chunked at all
])
def test_dechunker_digest_mode_fails_on_damage(body: bytes) -> None:
    d, sink = Dechunker(), Sink()
    d.feed(body, sink)
    d.finish()
    assert (d.done, d.failed, d.state) == (False, True, FAILED)


def test_dechunker_reading_modes() -> None:
    with pytest.raises(UsageError):
        Dechunker(mode="loose")  # type: ignore[arg-type]
    out: list[bytes] = []
    d = Dechunker(mode="strict", source="f.warc", offset=9)
    d.feed(b"3\r\nabc\r\n", out)
    with pytest.raises(ChunkedEncodingError) as err:
        d.finish()
    assert (err.value.message, err.value.offset) == ("chunked body ends without the last chunk at byte 8 of the body", 9)
    assert out == [b"abc"]
    issues: list[tuple[str, str]] = []
    d = Dechunker(mode="lenient", on_issue=lambda *a: issues.append(a))
    d.feed(b"3\r\nabc\r\nzz\r\nrest", out)
    assert out == [b"abc", b"abc", b"zz\r\nrest"] and d.state == 5
    assert issues == [("bad-chunked", "bad chunk size b'zz' at byte 8 of the body; the rest is served as stored")]


def test_chunked_reader_is_the_push_decoder_pulled() -> None:
    r = ChunkedReader(io.BytesIO(BODY))
    assert r.read(3) == b"hel" and r.read() == b"lo world"
    assert r.consumed == len(BODY) - len(b"X-T: 1\r\n\r\n")  # the trailer is not content


def test_payload_convention_spellings() -> None:
    assert payload_convention("warc1.1") == payload_convention("WARC-1.1") == WARC11 == "warc1.1"
    assert payload_convention("legacy") == LEGACY == "legacy"
    with pytest.raises(UsageError, match="'warc1.1' or 'legacy'"):
        payload_convention("entity")


@pytest.mark.parametrize("step", [1, 5, 1000])
def test_payload_digester_finds_the_head(step: int) -> None:
    block = HEAD + BODY
    d = PayloadDigester()
    for i in range(0, len(block), step):
        d.update(block[i : i + step])
    assert str(d.digest()) == sha1_b32(b"hello world") and d.convention == "warc1.1"
    assert str(d.stored_digest()) == sha1_b32(BODY) and d.length == len(BODY)
    given = PayloadDigester(chunked=True)
    given.update(BODY)
    assert given.text() == sha1_b32(b"hello world") and given.entity_raw() == hashlib.sha1(b"hello world").digest()
    legacy = PayloadDigester(convention="legacy")
    legacy.update(block)
    assert (legacy.text(), legacy.convention, legacy.entity_raw()) == (sha1_b32(BODY), "legacy", None)


def test_payload_digester_falls_back_to_the_stored_bytes() -> None:
    broken = b"5\r\nhello\r\n0\r\n"  # no empty line after the last chunk
    d = PayloadDigester()
    d.update(HEAD + broken)
    assert (d.text(), d.convention) == (sha1_b32(broken), "legacy")
    plain = PayloadDigester(algorithm="sha256")
    plain.update(b"HTTP/1.1 200 OK\r\n\r\nbody")
    assert (plain.text(), plain.convention) == ("sha256:" + hashlib.sha256(b"body").hexdigest(), "warc1.1")
    no_head = PayloadDigester()
    no_head.update(b"no HTTP head at all")
    assert no_head.text() == sha1_b32(b"no HTTP head at all")


def test_writer_and_verifier_agree_with_the_digester(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, prefix="p", fsync=False) as w:
        ok = w.response("https://example.com/", HEAD, BODY)
        broken = w.response("https://example.com/b", HEAD, b"5\r\nhello\r\n0\r\n")
    assert (ok.payload_digest, ok.payload_convention) == (sha1_b32(b"hello world"), "warc1.1")
    assert (broken.payload_digest, broken.payload_convention) == (sha1_b32(b"5\r\nhello\r\n0\r\n"), "legacy")
    for record in warckit.open(w.files[0]):
        if record.type != "response":
            continue
        d = PayloadDigester()
        assert record.http is not None
        d.update(record.http.raw)
        d.update(record.payload_stream().read())
        assert str(record.payload_digest) == d.text()
    with warckit.open(w.files[0]) as reader:
        reports = [verify_digests(r) for r in reader if r.type == "response"]
    assert [r.payload.convention for r in reports] == ["warc-1.1", "legacy"]  # type: ignore[union-attr]
