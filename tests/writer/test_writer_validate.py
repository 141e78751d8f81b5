"""The rule table refuses every missing mandatory field, per type and version, writing nothing."""

from __future__ import annotations

import io

import pytest

from warckit.errors import ValidationError
from warckit.record.headers import Headers
from warckit.record.rules import RECORD_TYPES, forbidden_fields, mandatory_fields, validate_headers
from warckit.write.writer import RecordWriter

RID = "<urn:uuid:12345678-1234-1234-1234-123456789abc>"
ORIGIN = "<urn:uuid:87654321-1234-1234-1234-123456789abc>"


def full_headers(version: str, rtype: str) -> list[tuple[str, str]]:
    """A valid head for *rtype*: every mandatory field plus what conditions require."""
    date = "2024-01-02T03:04:05Z"
    h = [("WARC-Type", rtype), ("WARC-Record-ID", RID), ("WARC-Date", date)]
    if rtype != "warcinfo" and rtype != "metadata":
        h.append(("WARC-Target-URI", "https://example.com/"))
    if rtype == "revisit":
        h += [("WARC-Profile", f"http://netpreserve.org/warc/{version}/revisit/server-not-modified")]
    if rtype == "continuation":
        h += [("WARC-Segment-Origin-ID", ORIGIN), ("WARC-Segment-Number", "2")]
    else:
        h.append(("Content-Type", "text/plain"))
    h.append(("Content-Length", "3"))
    return h


CASES = [
    (version, rtype, name)
    for version in ("1.1", "1.0")
    for rtype in RECORD_TYPES
    for name in mandatory_fields(version, rtype)
]


def test_table_matches_spec_digest() -> None:
    assert mandatory_fields("1.1", "warcinfo") == (
        "WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type")
    assert mandatory_fields("1.1", "revisit") == (
        "WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type", "WARC-Target-URI",
        "WARC-Profile")
    assert mandatory_fields("1.0", "continuation") == (
        "WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type", "WARC-Target-URI",
        "WARC-Segment-Number", "WARC-Segment-Origin-ID")
    assert "WARC-Target-URI" in forbidden_fields("1.1", "warcinfo")
    assert "WARC-Refers-To-Date" in forbidden_fields("1.1", "response")
    assert "WARC-Refers-To-Date" not in forbidden_fields("1.0", "response")  # undefined in 1.0
    assert len(CASES) == 2 * (4 + 5 + 5 + 5 + 4 + 6 + 5 + 7) == 82


@pytest.mark.parametrize("version,rtype", [(v, t) for v in ("1.1", "1.0") for t in RECORD_TYPES])
def test_complete_record_is_accepted(version: str, rtype: str) -> None:
    out = io.BytesIO()
    offset, length = RecordWriter(out, compression="none").write_record(
        Headers(full_headers(version, rtype)), b"abc", version=version)
    assert offset == 0 and length == len(out.getvalue())
    assert out.getvalue().startswith(f"WARC/{version}\r\nWARC-Type: {rtype}\r\n".encode())
    assert out.getvalue().endswith(b"\r\n\r\nabc\r\n\r\n")


@pytest.mark.parametrize("version,rtype,name", CASES)
def test_missing_mandatory_field_is_refused(version: str, rtype: str, name: str) -> None:
    headers = Headers([(k, v) for k, v in full_headers(version, rtype) if k != name])
    out = io.BytesIO()
    writer = RecordWriter(out, compression="gzip")
    with pytest.raises(ValidationError) as exc:
        writer.write_record(headers, b"abc", version=version)
    assert out.getvalue() == b""
    assert (name, "missing-field") in [(i.field, i.code) for i in exc.value.issues]
    assert name in str(exc.value) and "mandatory" in str(exc.value)


# The "shall not" (✗) cells of SPEC-DIGEST §1.3 (WARC 1.1), transcribed by hand so that
# a rule missing from warckit's table is a failing case, not a case never generated.
_TYPES = ("warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion", "continuation")
_SPEC_1_3 = """
WARC-Target-URI            x - - - - - - -
WARC-Concurrent-To         x - - - - - x x
WARC-Payload-Digest        x - - - x - - -
WARC-IP-Address            x - - - - - x x
WARC-Refers-To             x x x x - - - x
WARC-Refers-To-Target-URI  x x x x x - x x
WARC-Refers-To-Date        x x x x x - x x
WARC-Warcinfo-ID           x - - - - - - -
WARC-Filename              - x x x x x x x
WARC-Identified-Payload-Type x - - - x - - -
WARC-Segment-Origin-ID     x x x x x x x -
WARC-Segment-Total-Length  x x x x x x x -
"""
SPEC_FORBIDDEN_1_1 = {
    (rtype, cols[0])
    for cols in (line.split() for line in _SPEC_1_3.strip().splitlines())
    for rtype, cell in zip(_TYPES, cols[1:], strict=True)
    if cell == "x"
}
# WARC-Refers-To-Target-URI and WARC-Refers-To-Date are new in 1.1 (§1.2): undefined,
# so not forbidden, in 1.0. Every other cell is the same in 1.0.
SPEC_FORBIDDEN = {
    "1.1": SPEC_FORBIDDEN_1_1,
    "1.0": {(t, n) for t, n in SPEC_FORBIDDEN_1_1 if n not in ("WARC-Refers-To-Target-URI", "WARC-Refers-To-Date")},
}
FORBIDDEN_CASES = sorted((v, t, n) for v, cells in SPEC_FORBIDDEN.items() for t, n in cells)


def test_spec_transcription() -> None:
    assert len(SPEC_FORBIDDEN["1.1"]) == 52 and len(SPEC_FORBIDDEN["1.0"]) == 38
    assert set(_TYPES) == set(RECORD_TYPES)


@pytest.mark.parametrize("version", ["1.1", "1.0"])
@pytest.mark.parametrize("rtype", _TYPES)
def test_forbidden_fields_are_the_spec_cells(version: str, rtype: str) -> None:
    """No rule missing, none added."""
    assert set(forbidden_fields(version, rtype)) == {n for t, n in SPEC_FORBIDDEN[version] if t == rtype}


@pytest.mark.parametrize("version,rtype,name", FORBIDDEN_CASES)
def test_forbidden_field_is_refused(version: str, rtype: str, name: str) -> None:
    values = {"WARC-Concurrent-To": ORIGIN, "WARC-Refers-To": ORIGIN, "WARC-Warcinfo-ID": ORIGIN,
              "WARC-Segment-Origin-ID": ORIGIN, "WARC-Target-URI": "https://e.com/",
              "WARC-Refers-To-Target-URI": "https://e.com/", "WARC-IP-Address": "10.0.0.1",
              "WARC-Refers-To-Date": "2024-01-02T03:04:05Z", "WARC-Filename": "a.warc.gz",
              "WARC-Segment-Total-Length": "3", "WARC-Segment-Number": "1",
              "WARC-Payload-Digest": "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
              "WARC-Identified-Payload-Type": "text/plain"}
    base = [(k, v) for k, v in full_headers(version, rtype) if k != name]
    issues = validate_headers(Headers(base + [(name, values[name])]), version)
    assert ("forbidden-field", name) in [(i.code, i.field) for i in issues]


@pytest.mark.parametrize("name,value,version,code", [
    ("WARC-Date", "2024-01-02T03:04:05.123Z", "1.0", "bad-syntax"),
    ("WARC-Date", "2024-01-02 03:04:05", "1.1", "bad-syntax"),
    ("WARC-Record-ID", "urn:uuid:12345678-1234-1234-1234-123456789abc", "1.1", "bad-syntax"),
    ("WARC-Target-URI", "<https://e.com/>", "1.1", "bad-syntax"),
    ("WARC-Target-URI", "file:///with space.png", "1.0", "bad-syntax"),
    ("WARC-Block-Digest", "sha1", "1.1", "bad-syntax"),
    ("WARC-IP-Address", "10.0.0", "1.1", "bad-syntax"),
    ("Content-Length", "3a", "1.1", "bad-syntax"),
    ("WARC-Date", "2024-01-02T03:04:06Z", "1.1", "repeated-field"),
])
def test_field_syntax_and_repeatability(name: str, value: str, version: str, code: str) -> None:
    base = full_headers(version, "resource")
    if code != "repeated-field":
        base = [(k, v) for k, v in base if k != name]
    issues = validate_headers(Headers(base + [(name, value)]), version)
    assert [(i.code, i.field, i.severity) for i in issues] == [(code, name, "error")]


def test_concurrent_to_may_repeat_and_1_0_brackets_tolerated() -> None:
    base = full_headers("1.0", "response") + [("WARC-Concurrent-To", RID), ("WARC-Concurrent-To", ORIGIN)]
    base = [(k, "<https://example.com/>" if k == "WARC-Target-URI" else v) for k, v in base]
    assert validate_headers(Headers(base), "1.0") == ()
