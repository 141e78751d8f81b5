"""Round trip: every record of every valid corpus file, written back raw, is byte-identical."""

from __future__ import annotations

import gzip
import io
import zlib

import pytest
from corpus_paths import CORPUS
from corpus_table import NOT_ARCHIVES, STRICT_ERRORS
from test_reader_corpus import ARCHIVES

import warckit

#: These tests read the shared corpus by name (CI has it; see the README).
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available (set WARCKIT_CORPUS)")

VALID = [n for n in ARCHIVES if n not in NOT_ARCHIVES and n not in STRICT_ERRORS]


def _decompressed(data: bytes) -> bytes:
    if data[:2] == b"\x1f\x8b":
        out = []
        while data:
            d = zlib.decompressobj(31)
            out.append(d.decompress(data))
            data = d.unused_data
        return b"".join(out)
    return data


@pytest.mark.parametrize("name", VALID)
def test_raw_write_back_is_byte_identical(name: str) -> None:
    path = CORPUS / name
    original = _decompressed(path.read_bytes())
    out = io.BytesIO()
    with warckit.open(path) as reader:
        for rec in reader:
            start = out.tell()
            rec.write_to(out)
            # Each record on its own reproduces its exact bytes in the stream.
            assert out.getvalue()[start:] == original[rec.stream_offset : rec.stream_offset + (out.tell() - start)]
    written = out.getvalue()
    assert written == original[: len(written)]
    # Only inter-record padding (blank lines) may be left over.
    assert original[len(written) :].strip(b"\r\n\x00 ") == b""


def test_per_record_gzip_members_round_trip() -> None:
    """Recompressing each record on its own gives members that read back identically."""
    path = CORPUS / "warcio/example.warc.gz"
    with warckit.open(path) as reader:
        members = []
        for rec in reader:
            buf = io.BytesIO()
            rec.write_to(buf)
            members.append(gzip.compress(buf.getvalue()))
    again = b"".join(members)
    with warckit.open(io.BytesIO(again)) as reader:
        offsets = [r.offset for r in reader]
    expected, pos = [], 0
    for m in members:
        expected.append(pos)
        pos += len(m)
    assert offsets == expected
