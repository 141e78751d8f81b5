"""WACZ interoperability against real oracles: py-wacz validates what we write and
writes what we read; pywb imports what we write and replays it byte for byte."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import ROOT, corpus_path

import warckit
from warckit.cdx.query import Query, run_query
from warckit.wacz import WaczIndex, create_wacz, validate_wacz

SAMPLE = ROOT / "examples" / "sample.warc.gz"

needs_py_wacz = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="py-wacz (the WACZ oracle) needs Python >= 3.11")


def _py_wacz(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wacz", *args], capture_output=True, text=True,
                          timeout=300, check=False, cwd=cwd)


def _records(source: Any) -> list[tuple[int, str, str | None, bytes]]:
    with warckit.open(source) as reader:
        return [(r.offset, r.type, r.record_id, r.content_stream().read()) for r in reader]


def _warcs() -> list[Path]:
    return [corpus_path("pywb/iana.warc.gz"), corpus_path("pywb/example.warc.gz"), SAMPLE,
            corpus_path("warcio/example.warc")]


@needs_py_wacz
@pytest.mark.parametrize("options", [{}, {"plain_max_lines": 10}, {"force_zip64": True},
                                     {"detect_pages": False}])
def test_py_wacz_validates_ours(tmp_path: Path, options: dict[str, Any]) -> None:
    out = tmp_path / "ours.wacz"
    create_wacz(_warcs(), out, **options)
    result = _py_wacz("validate", "-f", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation succeeded, the passed WACZ is valid" in result.stdout


@needs_py_wacz
@pytest.mark.parametrize("detect", [False, True])
def test_we_read_and_validate_py_wacz_output(tmp_path: Path, detect: bool) -> None:
    warcs = _warcs()[:3]
    out = tmp_path / "theirs.wacz"
    result = _py_wacz("create", "-o", str(out), *(["--detect-pages"] if detect else []), *map(str, warcs))
    assert result.returncode == 0, result.stdout + result.stderr
    # Records: those of the WARCs, in the package's order.
    assert _records(out) == [rec for w in warcs for rec in _records(w)]
    report = validate_wacz(out, check=True, verify_digests=False)
    assert report.ok, report.issues
    assert report.version == "1.1.1" and report.resources >= 5
    assert report.index_lines > 30  # every line checked against its record
    # Every line of their (ZipNum) index is found by a look-up of its URL, and its record read.
    with WaczIndex(out) as index:
        assert index.index_member == "indexes/index.cdx.gz"
        lines = list(index.iter_all())
        for raw in lines[::7]:
            fields = json.loads(raw.split(b" ", 2)[2])
            found = [e for e in run_query([index], Query(fields["url"])) if e.fields == fields]
            assert found, fields
            with index.record(found[0]) as record:
                assert record.target_uri == fields["url"]


# pywb's app monkey-patches the whole process with gevent when imported: it runs in a
# child, called in-process there through WSGI, and reports each body's digest and size.
_PYWB_CHILD = """
import hashlib, json, sys
from wsgiref.util import setup_testing_defaults
from pywb.apps.frontendapp import FrontEndApp
app = FrontEndApp()
out = []
for path in json.load(sys.stdin):
    environ = {}
    setup_testing_defaults(environ)
    environ["PATH_INFO"] = path
    status = []
    body = b"".join(app(environ, lambda s, h, exc_info=None: status.append(s)))
    out.append([status[0], hashlib.sha256(body).hexdigest(), len(body)])
print(json.dumps(out))
"""


def _pywb(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    result = subprocess.run([sys.executable, *args], cwd=cwd, input=stdin, capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_pywb_imports_ours_and_replays_byte_identical(tmp_path: Path) -> None:
    pytest.importorskip("pywb", reason="pywb imports cgi, removed in Python 3.13 (the test extra skips it there)")
    warcs = [corpus_path("pywb/iana.warc.gz"), SAMPLE]
    out = tmp_path / "ours.wacz"
    create_wacz(warcs, out, plain_max_lines=10)
    _pywb(["-m", "pywb.manager.manager", "init", "coll"], tmp_path)
    _pywb(["-m", "pywb.manager.manager", "add", "--unpack-wacz", "coll", str(out)], tmp_path)
    paths, expected = [], []
    with WaczIndex(out) as index:
        for raw in index.iter_all():
            _key, ts, js = raw.decode().split(" ", 2)
            fields = json.loads(js)
            if fields.get("mime") == "warc/revisit" or fields.get("status") != "200":
                continue
            with index.record(next(run_query([index], Query(fields["url"], from_=ts, to=ts)))) as rec:
                payload = rec.payload_stream().read()
                if "chunked" in (rec.http.headers.get("Transfer-Encoding") or "").lower():
                    continue  # pywb replays the de-chunked body
            paths.append(f"/coll/{ts}id_/{fields['url']}")
            expected.append(["200 OK", hashlib.sha256(payload).hexdigest(), len(payload)])
    assert len(paths) >= 5
    replayed = json.loads(_pywb(["-c", _PYWB_CHILD], tmp_path, json.dumps(paths)).splitlines()[-1])
    assert replayed == expected
