"""Header bytes that are not UTF-8 (WARC 1.1 section 4: fields are UTF-8) in an index line:
strict indexing names the file and offset, lenient indexing writes them as ``%XX``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import child
import pytest

from warckit.cdx import IndexOptions, index_file
from warckit.errors import Issue, ParseError

#: A well-formed record after one whose WARC-Target-URI holds Latin-1 bytes.
GOOD = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:2>\r\n"
        b"WARC-Date: 2020-01-01T00:00:01Z\r\nWARC-Target-URI: http://example.com/\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: 38\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
BAD = GOOD.replace(b"urn:uuid:2", b"urn:uuid:1").replace(b"00:00:01Z", b"00:00:00Z").replace(
    b"http://example.com/", b"http://example.com/caf\xe9?q=\xff")


@pytest.fixture
def warc(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.warc"
    path.write_bytes(GOOD + BAD)
    return path


@pytest.mark.parametrize("fmt", ["cdx", "cdxj", "cdx11", "cdx9"])
def test_strict_names_file_and_offset(warc: Path, fmt: str) -> None:
    with pytest.raises(ParseError) as caught:
        list(index_file(warc, IndexOptions(format=fmt)))  # type: ignore[arg-type]
    assert caught.value.offset == len(GOOD)
    assert caught.value.source == str(warc)
    assert "http://example.com/caf%E9?q=%FF" in str(caught.value)


def test_lenient_writes_the_bytes_as_percent_escapes(warc: Path) -> None:
    issues: list[Issue] = []
    lines = list(index_file(warc, IndexOptions(format="cdxj", lenient=True), on_warning=issues.append))
    assert lines[0].startswith('com,example)/ 20200101000001 {"url": "http://example.com/"')
    assert lines[1].startswith('com,example)/caf%e9?q=%ff 20200101000000 '
                               '{"url": "http://example.com/caf%E9?q=%FF"')
    assert [(i.code, i.offset) for i in issues] == [("not-utf8", len(GOOD))]
    for line in lines:
        line.encode("utf-8")


def test_cli_exit_status_and_no_traceback(warc: Path) -> None:
    strict = subprocess.run(child.warckit_cli("index", "-f", "cdxj", str(warc)),
                            capture_output=True, text=True, env=child.env(), check=False)
    assert strict.returncode == 1
    assert f"{warc}, offset {len(GOOD)}: a header field holds bytes that are not UTF-8" in strict.stderr
    assert "Traceback" not in strict.stderr
    lenient = subprocess.run(child.warckit_cli("index", "--lenient", "-f", "cdxj", str(warc)),
                             capture_output=True, text=True, env=child.env(), check=False)
    assert lenient.returncode == 0, lenient.stderr
    assert "[not-utf8]" in lenient.stderr
    assert lenient.stdout.splitlines()[1].startswith("com,example)/caf%e9?q=%ff 20200101000000 ")


def _record(rtype: bytes, fields: bytes, http_type: bytes = b"text/html") -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: " + http_type + b"\r\nContent-Length: 0\r\n\r\n"
    block_type = b"application/http; msgtype=response" if rtype != b"metadata" else b"text/plain"
    block = http if rtype != b"metadata" else b"a: b\r\n"
    return (b"WARC/1.1\r\nWARC-Type: " + rtype + b"\r\nWARC-Record-ID: <urn:uuid:9>\r\n"
            b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n" + fields
            + b"Content-Type: " + block_type + b"\r\nContent-Length: " + str(len(block)).encode()
            + b"\r\n\r\n" + block + b"\r\n\r\n")


TYPES = frozenset({"response", "revisit", "metadata"})
PROFILE = b"WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n"
#: A byte that is not UTF-8 in each header field an index line may show (label, record).
FIELDS = {
    "WARC-Record-ID": _record(b"response", b"").replace(b"urn:uuid:9", b"urn:uuid:\xff9"),
    "WARC-Payload-Digest": _record(b"response", b"WARC-Payload-Digest: sha1:AB\xffC\r\n"),
    "WARC-Block-Digest": _record(b"metadata", b"WARC-Block-Digest: sha1:AB\xffC\r\n"),
    "HTTP Content-Type": _record(b"response", b"", b"text/ht\xffml"),
    "WARC-Refers-To": _record(b"metadata", b"WARC-Refers-To: <urn:uuid:\xff1>\r\n"),
    "WARC-Concurrent-To": _record(b"metadata", b"WARC-Concurrent-To: <urn:uuid:\xff1>\r\n"),
    "WARC-Truncated": _record(b"response", b"WARC-Truncated: leng\xffth\r\n"),
    "WARC-Refers-To-Target-URI": _record(
        b"revisit", PROFILE + b"WARC-Refers-To-Target-URI: http://example.com/\xff\r\n"),
    "WARC-Refers-To-Date": _record(b"revisit", PROFILE + b"WARC-Refers-To-Date: 2019-\xff\r\n"),
}


@pytest.mark.parametrize("label", sorted(FIELDS))
@pytest.mark.parametrize("fmt", ["cdx", "cdxj", "cdx11", "cdx9"])
def test_every_field_strict_or_percent_escaped(tmp_path: Path, label: str, fmt: str) -> None:
    """Whichever field holds the byte: a typed error naming the field and offset (no
    TypeError from the JSON encoder, no ``\\udcff`` written into CDXJ), or ``%FF``."""
    path = tmp_path / "field.warc"
    path.write_bytes(GOOD + FIELDS[label])
    issues: list[Issue] = []
    options = IndexOptions(format=fmt, types=TYPES, lenient=True)  # type: ignore[arg-type]
    lenient = list(index_file(path, options, on_warning=issues.append))
    assert len(lenient) == 2
    for line in lenient:
        line.encode("utf-8")
        assert "\\udc" not in line
    shown = "%FF" in lenient[1].upper()
    assert [(i.code, i.offset) for i in issues] == ([("not-utf8", len(GOOD))] if shown else [])
    strict = IndexOptions(format=fmt, types=TYPES)  # type: ignore[arg-type]
    if not shown:  # (a field this format does not write)
        assert list(index_file(path, strict)) == lenient
        return
    with pytest.raises(ParseError) as caught:
        list(index_file(path, strict))
    assert caught.value.offset == len(GOOD)
    assert caught.value.source == str(path)
    assert f"not UTF-8 ({label}, those bytes as %XX: " in str(caught.value)


@pytest.mark.parametrize("label", sorted(FIELDS))
def test_new_style_writes_every_field(tmp_path: Path, label: str) -> None:
    """The default format shows each of these fields: each one is caught."""
    path = tmp_path / "field.warc"
    path.write_bytes(FIELDS[label])
    with pytest.raises(ParseError, match=f"not UTF-8 \\({label}, "):
        list(index_file(path, IndexOptions(types=TYPES)))


def test_cli_other_field_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "id.warc"
    path.write_bytes(GOOD + FIELDS["WARC-Record-ID"])
    strict = subprocess.run(child.warckit_cli("index", str(path)), capture_output=True, text=True,
                            env=child.env(), check=False)
    assert strict.returncode == 1
    assert (f"{path}, offset {len(GOOD)}: a header field holds bytes that are not UTF-8 "
            "(WARC-Record-ID, those bytes as %XX: 'urn:uuid:%FF9')") in strict.stderr
    assert "Traceback" not in strict.stderr
    lenient = subprocess.run(child.warckit_cli("index", "--lenient", str(path)), capture_output=True,
                             text=True, env=child.env(), check=False)
    assert lenient.returncode == 0, lenient.stderr
    assert '"id":"urn:uuid:%FF9"' in lenient.stdout.splitlines()[2]
    assert "(record_id) [not-utf8]" in lenient.stderr


def test_cdxj_character_outside_the_bmp_is_not_taken_for_a_byte(tmp_path: Path) -> None:
    """CDXJ's JSON writes U+10000 as the pair \\ud800\\udc00, which looks like a byte that is
    not UTF-8 (\\udcXX): the line is kept as it is, strict or lenient."""
    path = tmp_path / "astral.warc"
    path.write_bytes(GOOD.replace(b"http://example.com/", "http://example.com/\U00010000".encode()))
    issues: list[Issue] = []
    strict = list(index_file(path, IndexOptions(format="cdxj")))
    assert '"url": "http://example.com/\\ud800\\udc00"' in strict[0]
    assert list(index_file(path, IndexOptions(format="cdxj", lenient=True), on_warning=issues.append)) == strict
    assert issues == []
