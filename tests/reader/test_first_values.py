"""Headers.first_values: the one public way to read every field's first value in one pass."""

from __future__ import annotations

import pytest

from warckit.record.headers import Headers

RAW = [
    b"WARC-Type: response\r\nWARC-Concurrent-To: <urn:a>\r\nwarc-type: other\r\n"
    b"X-Folded: one\r\n  two\r\nWARC-Concurrent-To: <urn:b>\r\nContent-Length: 5",
    b"Content-Length:  12 \r\nwarc-concurrent-to:<urn:c>",
    b"",
]


@pytest.mark.parametrize("raw", RAW)
@pytest.mark.parametrize("lenient", [False, True])
def test_unparsed_and_parsed_agree_with_first_and_all(raw: bytes, lenient: bool) -> None:
    unparsed = Headers._unparsed(raw, lenient)
    first, concurrent = unparsed.first_values()
    parsed = Headers(Headers._unparsed(raw, lenient).fields)
    assert parsed.first_values() == (first, concurrent)
    assert first == {n.lower(): parsed.first(n) for n in parsed.names()}
    assert concurrent == list(parsed.all("WARC-Concurrent-To"))


def test_values() -> None:
    first, concurrent = Headers._unparsed(RAW[0], False).first_values()
    assert first["warc-type"] == "response" and first["content-length"] == "5"
    assert first["x-folded"] == Headers._unparsed(RAW[0], False).first("X-Folded")
    assert concurrent == ["<urn:a>", "<urn:b>"]
    assert Headers._unparsed(RAW[1], False).first_values() == (
        {"content-length": "12", "warc-concurrent-to": "<urn:c>"}, ["<urn:c>"])
