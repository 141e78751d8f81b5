"""``check``: a cut file is one error, an empty file fails, and check.rst lists every code."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from corpus_paths import ROOT

from warckit.check.report import check_file
from warckit.cli import main


def _b32(data: bytes) -> str:
    import base64

    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def _record(i: int, body: bytes) -> bytes:
    block = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body
    head = (
        f"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{i:08d}>\r\n"
        f"WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: http://example.com/{i}\r\n"
        f"WARC-Block-Digest: {_b32(block)}\r\nWARC-Payload-Digest: {_b32(body)}\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(block)}\r\n\r\n"
    ).encode()
    return head + block + b"\r\n\r\n"


def _warcinfo() -> bytes:
    block = b"software: test\r\n"
    return (
        "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:warcinfo>\r\n"
        "WARC-Date: 2026-12-01T09:00:00Z\r\nContent-Type: application/warc-fields\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode() + block + b"\r\n\r\n"


RECORDS = [_warcinfo(), _record(1, b"a" * 3000), _record(2, random.Random(7).randbytes(10_000))]
HEAD = RECORDS[-1].index(b"\r\n\r\n") + 4  # size of the last record's head


def _errors(path: Path) -> list[tuple[str, int | None]]:
    return [(i.code, i.offset) for i in check_file(path).issues if i.severity == "error"]


@pytest.mark.parametrize("keep", [10, HEAD - 1, HEAD + 10, 4000, len(RECORDS[-1]) - 5])  # of the last record
def test_plain_file_cut_inside_its_last_record_is_one_error(tmp_path: Path, keep: int) -> None:
    data = b"".join(RECORDS)
    last = len(data) - len(RECORDS[-1])
    path = tmp_path / "cut.warc"
    path.write_bytes(data[: last + keep])
    assert _errors(tmp_path / "cut.warc") == [("truncated-head" if keep < HEAD else "truncated-block", last)]
    whole = tmp_path / "whole.warc"
    whole.write_bytes(data)
    assert _errors(whole) == []


@pytest.mark.parametrize("cut", [8, 12, 40, 300, 5000, 10_000])  # bytes cut off the end
def test_gzip_file_cut_inside_its_last_record_is_one_error(tmp_path: Path, cut: int) -> None:
    members = [gzip.compress(r, mtime=0) for r in RECORDS]
    data = b"".join(members)
    last = len(data) - len(members[-1])
    assert len(members[-1]) > 10_200
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:-cut])
    report = check_file(path)
    errors = [i for i in report.issues if i.severity == "error"]
    assert [(i.code, i.offset) for i in errors] == [("truncated-member", last)]
    assert errors[0].message.startswith("the last gzip member is truncated")
    # Before the fold, a cut inside the block also gave short-trailer, multi-record-member
    # and digest mismatches on the same record.
    if cut >= 300:
        assert errors[0].message.endswith("bytes missing)")
    assert [r.offset for r in report.records] == [0, len(members[0]), last]


def test_whole_file_gzip_cut_keeps_the_other_records_findings(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(RECORDS), mtime=0)
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:-300])
    errors = _errors(path)
    # The first two records really share a member; only the cut record's findings fold.
    assert errors == [("multi-record-member", 0), ("multi-record-member", 0), ("truncated-member", 0)]


def test_a_record_cut_in_the_middle_of_a_file_is_not_folded(corpus: Path) -> None:
    # warcio's example-trunc.warc: a record shorter than declared, records follow it.
    assert sorted(c for c, _ in _errors(corpus / "warcio/example-trunc.warc")) == [
        "block-digest-mismatch", "missing-trailer", "payload-digest-mismatch"]


def test_empty_file_fails_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    report = check_file(empty)
    assert [(i.code, i.severity) for i in report.issues] == [("empty-file", "error")]
    assert not report.ok
    assert main(["check", str(empty)]) == 1
    gz = tmp_path / "empty.warc.gz"
    gz.write_bytes(gzip.compress(b""))
    assert [(i.code, i.severity) for i in check_file(gz).issues] == [("empty-file", "error")]


def _codes_in_sources() -> set[str]:
    """Every finding code check can emit, from the sources: its own, the rule table's,
    and the recoveries of the lenient reader (both twins) and of the record head."""
    codes: set[str] = set()
    src = ROOT / "warckit"
    for path in [*(src / "check").glob("*.py"), src / "record/rules.py"]:
        codes |= set(re.findall(r'\badd\(\(?\s*"([a-z0-9-]+)"', path.read_text()))
    for path in [*(src / "read").glob("*.py"), src / "_speedups/_readercore_py.py", ROOT / "_speedups/readercore.pyx"]:
        codes |= set(re.findall(r'_warn\(\s*"([a-z0-9-]+)"', path.read_text()))
    for path in (src / "record").glob("*.py"):
        codes |= set(re.findall(r'_report\(\s*"([a-z0-9-]+)"', path.read_text()))
    codes |= set(re.findall(r'^[A-Z_]+ = "([a-z0-9-]+)"$', (src / "_speedups/_headers_py.py").read_text(), re.MULTILINE))
    return codes


def test_check_rst_lists_every_code_check_can_emit() -> None:
    text = (ROOT / "docs/check.rst").read_text()
    table = text.split("code                        severity meaning", 1)[1].split("\n\n", 1)[0]
    documented = set(re.findall(r"^([a-z0-9-]+)\s{2,}(?:error|warning|err/warn)\b", table, re.MULTILINE))
    emitted = _codes_in_sources()
    assert {"empty-file", "truncated-head", "bare-lf", "bad-http-head", "multi-record-member"} <= emitted
    assert emitted - documented == set()
    assert documented - emitted == set()


def test_header_bytes_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes that are not UTF-8 in a head are one ``not-utf8`` error naming the fields; a
    head in UTF-8 beyond ASCII (an IRI) is fine; pieces checked at once say the same."""
    iri = _record(3, b"x").replace(b"http://example.com/3", "http://example.com/café".encode())
    latin1 = _record(4, b"y").replace(b"http://example.com/4", b"http://example.com/caf\xe9").replace(
        b"<urn:uuid:00000004>", b"<urn:uuid:\xff>")
    records = [_warcinfo(), iri, latin1, _record(5, b"z")]
    plain = tmp_path / "latin1.warc"
    plain.write_bytes(b"".join(records))
    at = len(records[0]) + len(records[1])
    report = check_file(plain)
    found = [i for i in report.issues if i.code == "not-utf8"]
    assert [(i.severity, i.offset, i.field) for i in found] == [("error", at, "WARC-Record-ID")]
    assert found[0].message == ("WARC-Record-ID, WARC-Target-URI: bytes that are not UTF-8 (ISO 28500 §4: "
                                "header fields are UTF-8), as %XX: '<urn:uuid:%FF>'")
    assert not report.ok
    gz = tmp_path / "latin1.warc.gz"
    gz.write_bytes(b"".join(gzip.compress(r, mtime=0) for r in records * 50))
    one = check_file(gz)
    assert [i.offset for i in one.issues if i.code == "not-utf8"] == [
        sum(len(gzip.compress(r, mtime=0)) for r in (records * 50)[:k]) for k in range(2, 200, 4)]
    assert check_file(gz, jobs=2, min_split_size=0) == one
    assert main(["check", str(plain)]) == 1
    assert "error: not-utf8 [WARC-Record-ID]: WARC-Record-ID, WARC-Target-URI: " in capsys.readouterr().out
    # JSON text is UTF-8: the record ID is written with its byte as %XX.
    assert main(["check", "--json", str(plain)]) == 1
    out = capsys.readouterr().out
    out.encode("utf-8")
    assert json.loads(out)["records"][2]["record_id"] == "<urn:uuid:%FF>"
