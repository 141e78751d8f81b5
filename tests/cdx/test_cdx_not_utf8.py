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
