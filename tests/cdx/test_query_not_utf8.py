"""An index line holding bytes that are not UTF-8 (another tool's index, e.g. Latin-1 URLs
from an old CDX writer) is answered as it is: ``warckit query`` writes the line's own bytes,
``--json`` writes those bytes as ``%XX`` with a warning, and :func:`warckit.cdx.query`
keeps them as surrogate escapes (never U+FFFD)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import child
import pytest

from warckit.cdx.query import query
from warckit.record.fields import escape_not_utf8

#: Per format: the header, a line for http://example.com/, and one for a URL whose
#: path holds the Latin-1 byte E9 (sorted after it).
INDEXES = {
    "cdx": (
        b"!warckit-cdx 1.0 urlkey timestamp url digest type filename offset json\n",
        b'com,example,)/ 2020-01-01T00:00:01Z http://example.com/ - response g.warc 0 {"status":200}\n',
        b'com,example,)/caf\xe9 2020-01-01T00:00:02Z http://example.com/caf\xe9 - response g.warc 300 '
        b'{"status":200,"title":"caf\xe9"}\n',
    ),
    "cdxj": (
        b"",
        b'com,example)/ 20200101000001 {"url": "http://example.com/", "status": "200"}\n',
        b'com,example)/caf\xe9 20200101000002 {"url": "http://example.com/caf\xe9", "status": "200"}\n',
    ),
    "cdx11": (
        b" CDX N b a m s k r M S V g\n",
        b"com,example)/ 20200101000001 http://example.com/ - 200 AAAA - - 242 0 g.warc\n",
        b"com,example)/caf\xe9 20200101000002 http://example.com/caf\xe9 - 200 BBBB - - 242 300 g.warc\n",
    ),
}


@pytest.fixture(params=sorted(INDEXES))
def index(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, bytes, bytes]:
    head, good, bad = INDEXES[request.param]
    path = tmp_path / f"latin1.{request.param}"
    path.write_bytes(head + good + bad)
    return path, good, bad


def _query(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(child.warckit_cli("query", "--match", "prefix", *args, "http://example.com/"),
                          capture_output=True, env=child.env(), check=False)


def test_lines_are_written_as_they_are(index: tuple[Path, bytes, bytes]) -> None:
    path, good, bad = index
    run = _query(str(path))
    assert run.returncode == 0, run.stderr
    assert run.stdout == good + bad
    assert run.stderr == b""


def test_json_writes_the_bytes_as_percent_escapes_with_a_warning(index: tuple[Path, bytes, bytes]) -> None:
    path, _, _ = index
    run = _query("--json", str(path))
    assert run.returncode == 0, run.stderr
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert first["url"] == "http://example.com/"
    assert second["url"] == "http://example.com/caf%E9"
    stderr = run.stderr.decode()
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert stderr.startswith("warckit query: warning: a header field holds bytes that are not UTF-8 (")
    assert "caf%E9" in stderr and stderr.rstrip().endswith("[not-utf8]")


def test_the_library_keeps_surrogate_escapes(index: tuple[Path, bytes, bytes]) -> None:
    path, _, bad = index
    found = query(path, "http://example.com/", match="prefix")
    assert [escape_not_utf8(e.original_url) for e in found] == ["http://example.com/", "http://example.com/caf%E9"]
    assert found[1].original_url == "http://example.com/caf\udce9"
    assert found[1].format().encode("utf-8", "surrogateescape") + b"\n" == bad
