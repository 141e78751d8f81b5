"""CDX timestamps of WARC-Dates with a UTC offset are converted to UTC (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

import warckit
from warckit.cdx import index
from warckit.cdx._timestamps import digits_of, record_key, to_14_digits, utc_w3c
from warckit.record.headers import Headers
from warckit.write.writer import RecordWriter

BLOCK = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhi"
DATES = [
    "2020-01-01T00:30:00+01:00",     # crosses back into the previous year
    "2020-01-01T00:30:00.5-05:30",   # negative half-hour offset, fraction kept
    "2020-03-01T00:30:00+0100",      # offset without colon (ClueWeb09 style), leap year
    "2020-01-01T00:30:00Z",          # already UTC: unchanged
]


def _warc(tmp_path: Path) -> Path:
    path = tmp_path / "tz.warc"
    with open(path, "wb") as out:
        w = RecordWriter(out, compression="none")
        for n, date in enumerate(DATES):
            w.write_record(Headers([
                ("WARC-Type", "response"),
                ("WARC-Record-ID", f"<urn:uuid:3e4a3e50-8e3a-4c7b-a2a2-3f2b0c6f1d1{n}>"),
                ("WARC-Date", date),
                ("WARC-Target-URI", "http://example.com/"),
                ("Content-Type", "application/http;msgtype=response"),
                ("Content-Length", str(len(BLOCK))),
            ]), BLOCK, validate=False)
    return path


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("cdx", ["2019-12-31T23:30:00Z", "2020-01-01T06:00:00.5Z", "2020-02-29T23:30:00Z",
                 "2020-01-01T00:30:00Z"]),
        ("cdxj", ["20191231233000", "20200101060000", "20200229233000", "20200101003000"]),
        ("cdx11", ["20191231233000", "20200101060000", "20200229233000", "20200101003000"]),
        ("cdx9", ["20191231233000", "20200101060000", "20200229233000", "20200101003000"]),
    ],
)
def test_index_timestamps_are_utc(tmp_path: Path, fmt: str, expected: list[str]) -> None:
    path = _warc(tmp_path)
    stamps = [line.split(" ")[1] for line in index([path], format=fmt)]  # type: ignore[arg-type]
    assert stamps == expected
    # The same instant record.date gives.
    dates = [r.date for r in warckit.open(path)]
    assert [d.strftime("%Y%m%d%H%M%S") for d in dates if d is not None] == [
        to_14_digits(s) for s in expected]


def test_timestamp_helpers_apply_the_offset() -> None:
    assert digits_of("2020-01-01T00:30:00+01:00") == "20191231233000"
    assert digits_of("2020-01-01T00:30:00.25-05:30") == "2020010106000025"
    assert digits_of("2020-03-01T00:30+01:00") == "202002292330"
    # A leap second keeps its 60 when the minute moves.
    assert digits_of("2017-01-01T00:59:60+01:00") == "20161231235960"
    assert record_key("2020-01-01T00:30:00+01:00") == "20191231233000"
    assert to_14_digits("2020-01-01T00:30:00+01:00") == "20191231233000"
    assert utc_w3c("2020-01-01T00:30:00.123456789+14:00") == "2019-12-31T10:30:00.123456789Z"
    assert utc_w3c("2016-01") == "2016-01"
    assert utc_w3c("2019-08-15T01:02") == "2019-08-15T01:02"  # no zone: read as UTC
    with pytest.raises(ValueError):
        digits_of("2020-02-30T00:30:00+01:00")


@pytest.mark.parametrize("text", [
    "2024-03-01T08:00:02Z", "2024-03-01T08:00:02.7Z", "2024-03-01T08:00:02.123456789Z",
    "2024-03-01T08:00:02.1234567890Z", "2024-03-01T08:00:02.Z", " 2024-03-01T08:00:02Z",
    "2024-03-01T08:00:02Z\n", "2024-03-01T08:00:02z", "2024-03-01T08:00:02\u0661Z",
    "2024-13-45T99:99:99Z", "2024-03-01 08:00:02Z", "2016-12-31T23:59:60Z",
])
def test_utc_w3c_quick_form_is_the_full_rules(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The W3C UTC form returned as written without the full rules gives what they give."""
    import warckit.cdx._timestamps as ts

    def outcome() -> str:
        try:
            return ts.utc_w3c(text)
        except ValueError as exc:
            return f"ValueError: {exc}"

    quick = outcome()
    monkeypatch.setattr(ts, "_UTC_W3C_RE", ts.re.compile(r"(?!)"))  # never matches
    assert quick == outcome()
