"""``warckit ls --json`` of a header byte that is not UTF-8: JSON text is UTF-8, so strict
listing stops with an error at the record (after the records before it), lenient listing
writes the byte as ``%XX`` and says so; the tab-separated listing writes the bytes back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import child
import pytest

from warckit.cli import main


def _record(i: int, uri: bytes) -> bytes:
    return (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\n" % i
            + b"WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: " + uri + b"\r\n"
            b"Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n")


@pytest.fixture
def warc(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.warc"
    path.write_bytes(_record(1, b"http://example.com/") + _record(2, b"http://example.com/caf\xe9"))
    return path


def test_strict_json_stops_at_the_record(warc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    second = len(_record(1, b"http://example.com/"))
    assert main(["ls", "--json", str(warc)]) == 1
    out, err = capsys.readouterr()
    assert [json.loads(line)["offset"] for line in out.splitlines()] == [0]
    assert err == (f"warckit ls: error: {warc}, offset {second}: a header field holds bytes that are "
                   "not UTF-8 (target_uri, those bytes as %XX: 'http://example.com/caf%E9'); --lenient "
                   "lists it with %XX\n")


def test_lenient_json_percent_escapes(warc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    second = len(_record(1, b"http://example.com/"))
    assert main(["ls", "--json", "--lenient", str(warc)]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["offset"], r["target_uri"]) for r in rows] == [
        (0, "http://example.com/"), (second, "http://example.com/caf%E9")]
    assert err == (f"warckit ls: warning: {warc}, offset {second}: bytes that are not UTF-8 written "
                   "as %XX (target_uri) [not-utf8]\n")


def test_tab_separated_writes_the_bytes_and_no_traceback(warc: Path) -> None:
    done = subprocess.run(child.warckit_cli("ls", str(warc)), capture_output=True, env=child.env(), check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].endswith(b"\thttp://example.com/caf\xe9")
    strict = subprocess.run(child.warckit_cli("ls", "--json", str(warc)), capture_output=True, env=child.env(),
                            check=False)
    assert strict.returncode == 1
    assert b"Traceback" not in strict.stderr
