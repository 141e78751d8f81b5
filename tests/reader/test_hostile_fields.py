"""Hostile field values: every one ends in a WarckitError (or a documented recovery), never another exception."""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import pytest
import zstandard

import warckit
from warckit import Issue, UsageError
from warckit._util.dates import parse_warc_date
from warckit.errors import CompressionError, RecordParseError


def _warc(content_length: str, block: bytes = b"abc") -> bytes:
    return (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Length: " + content_length.encode("utf-8")
        + b"\r\n\r\n" + block + b"\r\n\r\n"
    )


def _read(data: bytes, **options: object) -> list[tuple[int, int | None, bytes]]:
    with warckit.open(io.BytesIO(data), **options) as reader:
        return [(r.offset, r.content_length, r.read_block()) for r in reader]


@pytest.mark.parametrize("value", ["²", "2\x1d", "١٢", "٣", "1 2", "0x3", "-3", "+3"])
def test_content_length_takes_only_ascii_digits(value: str) -> None:
    data = _warc(value)
    with pytest.raises(RecordParseError) as info:
        _read(data)
    assert info.value.offset == 0 and "is not a number" in str(info.value)
    issues: list[Issue] = []
    with warckit.open(io.BytesIO(data), lenient=True, on_warning=issues.append) as reader:
        first = next(reader)
        assert first.content_length == 0
    assert "bad-content-length" in [i.code for i in issues]


def test_content_length_with_spaces_and_leading_zeros_is_still_a_number() -> None:
    assert _read(_warc(" 3 ")) == [(0, 3, b"abc")]
    assert _read(_warc("0" * 30 + "3")) == [(0, 3, b"abc")]


def test_content_length_of_5000_digits_is_too_large_not_a_crash() -> None:
    with pytest.raises(RecordParseError, match="too large") as info:
        _read(_warc("9" * 5000))
    assert info.value.offset == 0


def _arc(length: str) -> bytes:
    legend = b"1 0 x\nURL IP-address Archive-date Content-type Archive-length\n"
    head = b"filedesc://a.arc 0.0.0.0 20240101000000 text/plain " + str(len(legend)).encode() + b"\n"
    return head + legend + b"\nhttp://a/ 1.2.3.4 20240101000000 text/plain " + length.encode() + b"\nabc\n"


@pytest.mark.parametrize("length", ["9" * 20, "1" + "0" * 19, "١٢", "9" * 5000])
def test_arc_length_that_is_no_usable_number_is_a_parse_error(length: str) -> None:
    data = _arc(length)
    with pytest.raises(RecordParseError) as info:
        _read(data)
    assert info.value.offset == 117
    issues: list[Issue] = []
    rows = _read(data, lenient=True, on_warning=issues.append)
    assert rows[1] == (117, 4, b"abc\n")
    assert "arc-bad-length" in [i.code for i in issues]


@pytest.mark.parametrize("date", ["9999-12-31T23:59:60Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_warc_dates_outside_datetime_range_are_unparsable_not_a_crash(date: str, tmp_path: Path) -> None:
    assert parse_warc_date(date) is None
    data = _warc("3").replace(b"2024-01-01T00:00:00Z", date.encode())
    with warckit.open(io.BytesIO(data)) as reader:
        assert next(reader).date is None
    path = tmp_path / "d.warc"
    path.write_bytes(data)
    from warckit.check.report import check_file

    report = check_file(path)
    assert [(r.offset, r.block_digest) for r in report.records] == [(0, "absent")]
    assert all(isinstance(i, Issue) for i in report.issues)


def test_leap_second_inside_the_range_still_parses() -> None:
    assert str(parse_warc_date("2016-12-31T23:59:60Z")) == "2017-01-01 00:00:00+00:00"


def test_dedup_build_keeps_undecodable_crawl_log_urls(tmp_path: Path) -> None:
    log = tmp_path / "crawl.log"
    log.write_bytes(
        b"2024-01-01T00:00:01.000Z   200       1234 http://example.com/caf\xe9 - - text/html #001 "
        b"20240101000000000+10 sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2 - -\n"
    )
    from warckit.tools.dedup import DedupIndex

    with DedupIndex(tmp_path / "d.sqlite") as index:
        assert index.add_crawl_log(log) == 1
        [original] = list(index)
        assert original.url == "http://example.com/caf%E9"
        found = index.lookup("http://example.com/caf\udce9", "sha1:UZY6ND6CCHXETFVJD2MSS7ZENMWF7KQ2")
        assert found is not None and found.url == "http://example.com/caf%E9"


def test_rolling_prefix_with_nul_is_a_usage_error(tmp_path: Path) -> None:
    from warckit.write.rolling import RollingFile

    with pytest.raises(UsageError, match="NUL"):
        RollingFile(tmp_path, prefix="a\x00b")
    rolling = RollingFile(tmp_path, prefix="a")
    rolling.prefix = "a\x00b"  # (set after construction: the name is checked too)
    with pytest.raises(UsageError, match="NUL"):
        rolling.next_name()
    from warckit import WarcWriter

    with pytest.raises(UsageError, match="NUL"):
        WarcWriter(tmp_path, prefix="W\x00")
    assert os.listdir(tmp_path) == []


# --- warc-zstd dictionary frames -------------------------------------------------------


def _dict_frame(payload: bytes) -> bytes:
    return b"\x5d\x2a\x4d\x18" + len(payload).to_bytes(4, "little") + payload


def _zstd_records(dict_data: zstandard.ZstdCompressionDict | None = None) -> bytes:
    c = zstandard.ZstdCompressor(level=3, dict_data=dict_data) if dict_data else zstandard.ZstdCompressor(level=3)
    return c.compress(_warc("3"))


_TRAINED = zstandard.train_dictionary(4096, [_warc(str(n), b"x" * n) for n in range(3, 400)])


def test_zstd_dictionary_compressed_without_a_content_size_is_read() -> None:
    cobj = zstandard.ZstdCompressor(write_content_size=False).compressobj()
    packed = cobj.compress(_TRAINED.as_bytes()) + cobj.flush()
    data = _dict_frame(packed) + _zstd_records(_TRAINED)
    rows = _read(data)
    assert rows == [(len(packed) + 8, 3, b"abc")]


@pytest.mark.parametrize(
    "payload",
    [
        _TRAINED.as_bytes()[:40],  # a damaged trained dictionary
        zstandard.ZstdCompressor().compress(_TRAINED.as_bytes())[:-9],  # compressed, damaged
        b"\x28\xb5\x2f\xfd" + b"\x00" * 12,  # compressed, nonsense
    ],
    ids=["damaged", "compressed-damaged", "compressed-nonsense"],
)
def test_damaged_zstd_dictionary_is_a_compression_error(payload: bytes) -> None:
    data = _dict_frame(payload) + _zstd_records(_TRAINED)
    with pytest.raises(CompressionError) as info:
        _read(data)
    assert info.value.offset == 0 and "dictionary" in str(info.value)


def test_record_at_in_a_zstd_file_with_a_huge_declared_dictionary_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.warc.zst"
    frame = _zstd_records()
    path.write_bytes(b"\x5d\x2a\x4d\x18" + (0xFFFFFFF0).to_bytes(4, "little") + b"\x00" * 16 + frame)
    with pytest.raises(CompressionError, match="larger than"):
        warckit.read_record_at(path, 24)


def test_gzip_seed_still_reads() -> None:  # (the fields above, gzipped per record)
    assert _read(gzip.compress(_warc(" 3")))[0][1:] == (3, b"abc")


def test_lenient_arc_reading_skips_thousands_of_bad_lines_without_recursion() -> None:
    """Found by the fuzz campaign: each skipped line was one level of recursion."""
    good = _arc("4")
    data = good.replace(b"\nhttp://a/", b"\n" + b"garbage line\n" * 5000 + b"http://a/", 1)
    issues: list[Issue] = []
    rows = _read(data, lenient=True, on_warning=issues.append)
    assert rows[1] == (117 + 13 * 5000, 4, b"abc\n")
    assert [i.code for i in issues] == ["arc-bad-line"] * 5000


def test_warc_date_takes_only_ascii_digits(tmp_path: Path) -> None:
    arabic = "٢٠٢٤-01-01T00:00:00Z"
    assert parse_warc_date(arabic) is None
    assert str(parse_warc_date("2024-01-01T00:00:00Z")) == "2024-01-01 00:00:00+00:00"
    from warckit.record.rules import validate_headers

    fields = [("WARC-Type", "resource"), ("WARC-Date", arabic)]
    issues = validate_headers(warckit.Headers(fields), "1.1")
    assert [i.field for i in issues if i.code == "bad-syntax"] == ["WARC-Date"]


def test_arc_length_messages_say_which_problem() -> None:
    for length, what in (("9" * 20, "is too large"), ("١٢", "is not a number")):
        issues: list[Issue] = []
        _read(_arc(length), lenient=True, on_warning=issues.append)
        assert [i.message for i in issues if i.code == "arc-bad-length"] == [
            f"ARC length {length.encode().decode('latin-1')!r} {what}; block taken up to the next record"
        ]  # (ARC lines are read as latin-1)
