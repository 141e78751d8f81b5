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


@pytest.mark.parametrize("name", ["pywb/iana.warc.gz", "warcio/example.warc.gz",
                                  "jwat/warc/valid-warcfile-utf8.warc"])
def test_lookups_by_name_match_a_scan_of_the_fields_on_real_heads(name: str) -> None:
    # first/get/in/all are served from the one-pass map the reader's scanner builds;
    # on every head of real files they must answer what a scan of the parsed fields does.
    import warckit
    from corpus_paths import corpus_path

    seen = 0
    with warckit.open(corpus_path(name), lenient=True) as reader:
        for record in reader:
            headers = record.headers
            lookups = {n: (headers.first(n), headers.get(n, "-"), n.upper() in headers)
                       for n in {n for n, _ in record.headers.fields} | {"No-Such-Field"}}
            concurrent = headers.all("WARC-Concurrent-To")
            scan = Headers(headers.fields)
            for n, (first, got, present) in lookups.items():
                values = [v for k, v in scan.fields if k.lower() == n.lower()]
                assert first == (values[0] if values else None)
                assert got == (values[0] if values else "-")
                assert present == bool(values)
            assert list(concurrent) == [v for k, v in scan.fields if k.lower() == "warc-concurrent-to"]
            seen += 1
    assert seen >= 1
