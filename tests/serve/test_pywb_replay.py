"""pywb replays corpus captures through ``warckit serve``: its index source (the CDX API) and its
WARC source (``/warcs/`` by range), byte-identical to the payloads warckit reads."""

from __future__ import annotations

import http.client
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("pywb")

from corpus_paths import CORPUS
from serve_process import Server, free_port

import warckit
from warckit.cli import main

WARCS = ("pywb/example.warc.gz", "pywb/iana.warc.gz", "warcio/example.warc",
         "pywb/example-wget-1-14.warc.gz")

#: pywb's config for a collection whose index and WARCs are both this service (docs/serve.rst).
CONFIG = """\
collections:
  {name}:
    index:
      type: cdx
      api_url: "http://127.0.0.1:{port}/{name}/cdx?url={{url}}&closest={{closest}}&sort=closest"
      replay_url: ""
    archive_paths: "http://127.0.0.1:{port}/{name}/warcs/"
"""


def _wayback() -> str:
    found = shutil.which("wayback") or str(Path(sys.executable).with_name("wayback"))
    if not os.path.exists(found):
        pytest.skip("pywb's wayback command is not installed")
    return found


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    wayback = _wayback()
    root = tmp_path_factory.mktemp("pywb")
    warcs = root / "warcs"
    warcs.mkdir()
    names = []
    for rel in WARCS:
        name = rel.replace("/", "-")
        shutil.copyfile(CORPUS / rel, warcs / name)
        names.append(name)
    assert main(["index", "-f", "cdxj", "--sort", "-o", str(warcs / "index.cdxj"),
                 *(str(warcs / n) for n in names)]) == 0
    server = Server([f"corpus={warcs / 'index.cdxj'}"], cwd=root)
    site = root / "site"
    site.mkdir()
    (site / "config.yaml").write_text(CONFIG.format(name="corpus", port=server.port))
    port = free_port()
    log = open(root / "wayback.log", "w+b")  # noqa: SIM115
    proc = subprocess.Popen([wayback, "-p", str(port), "-b", "127.0.0.1"], cwd=site,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (root / "wayback.log").read_text()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/")
                conn.getresponse().read()
                conn.close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield port, warcs
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
        assert server.stop() == 0
        assert "Traceback" not in server.stderr()


def _server_log(warcs: Path) -> list[str]:
    return [ln for p in warcs.parent.glob("serve-*.log") for ln in p.read_text().splitlines()]


def _captures(warcs: Path) -> list[tuple[str, str, str, int, bytes]]:
    """(timestamp, url, file, offset, payload) of each HTTP 200 response with a body."""
    out = []
    for path in sorted(warcs.glob("*.warc*")):
        with warckit.open(str(path), lenient=True) as reader:
            for record in reader:
                if record.type != "response" or record.http_status != 200:
                    continue
                payload = record.payload_stream().read()
                if not payload:
                    continue
                date = record.headers.first("WARC-Date") or ""
                ts = "".join(c for c in date if c.isdigit())[:14]
                out.append((ts, record.target_uri, path.name, record.offset, payload))
    return out


def test_pywb_replays_corpus_captures_byte_identical(replay: tuple[int, Path]) -> None:
    port, warcs = replay
    captures = _captures(warcs)
    # Several captures of each file (not all: pywb takes ~0.1 s a request).
    chosen = []
    for name in {c[2] for c in captures}:
        chosen.extend([c for c in captures if c[2] == name][:6])
    assert len(chosen) >= 8, [(c[2], c[1]) for c in captures]
    for ts, url, name, offset, payload in chosen:
        target = f"/corpus/{ts}id_/{url}"
        for _hop in range(3):  # pywb redirects to its canonical form of the URL (adds a '/')
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            # (pywb decodes a gzip payload for a client that does not take gzip: ask as browsers do)
            conn.request("GET", target, headers={"Accept-Encoding": "gzip, deflate, br"})
            resp = conn.getresponse()
            body = resp.read()
            conn.close()
            location = resp.getheader("Location") or ""
            if resp.status not in (302, 307) or f"/corpus/{ts}id_/" not in location:
                break
            target = location.split(f"127.0.0.1:{port}", 1)[-1]
        assert resp.status == 200, (name, offset, url, resp.getheader("Location"), body[:300])
        assert resp.getheader("Memento-Datetime") is not None
        assert body == payload, (name, offset, url, len(body), len(payload))
    # pywb read the records by range from warckit serve, and found them through its CDX API.
    log = (warcs.parent / "wayback.log").read_text(errors="replace")
    served = [ln for ln in _server_log(warcs) if '"GET /corpus/' in ln]
    assert any("/corpus/warcs/" in ln and " 206 " in ln for ln in served), log[-2000:]
    assert any("/corpus/cdx?url=" in ln and " 200 " in ln for ln in served)


def test_pywb_finds_nothing_for_an_unknown_url(replay: tuple[int, Path]) -> None:
    port, _ = replay
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/corpus/2014id_/http://not-archived.example.org/")
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 404
