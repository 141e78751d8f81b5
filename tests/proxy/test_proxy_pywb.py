"""pywb replays the test site from what ``warckit proxy`` recorded (indexed by ``warckit
index -f cdxj`` into a pywb collection): HTTP and HTTPS URLs, the 30 MiB download, and a
revisit, which resolves to its original's payload; bytes identical to what the site sent."""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin

import pytest
from captures import Exchange, exchanges, read_records
from local_site import Site
from proxy_process import TIMEOUT, ProxyProcess, free_port, proxied_session, venv_command

from warckit.cli import main

pytest.importorskip("pywb")

COLL = "proxy"
SCHEMES = ("http", "https")
PATHS = ("/", "/style.css", "/image.png", "/chunked", "/gzip", "/text/pywb")
REVISITED = "/text/pywb-revisit"
POSTED = ("/echo?pywb", b"name=warckit&kind=proxy")


@dataclass
class Replay:
    port: int
    site: Site
    captures: list[Exchange]
    log: Path

    def get(self, path: str, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2 * TIMEOUT)
        try:
            # (pywb decodes a gzip payload for a client that does not take gzip: ask as
            # browsers do)
            conn.request(method, path, body=body,
                         headers={"Accept-Encoding": "gzip, deflate, br", **(headers or {})})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def capture(self, url: str, kind: str | None = None) -> Exchange:
        """The capture of *url* (of *kind*: response or revisit; either when ``None``)."""
        (found,) = [e for e in self.captures if e.response.target_uri == url
                    and kind in (None, e.response.type)]
        return found


def _timestamp(warc_date: str) -> str:
    return "".join(c for c in warc_date if c.isdigit())[:14]


def _next_second() -> None:
    """Wait (at most 2 s) for the clock's second to change: two captures of one URL then
    have different 14-digit timestamps, so pywb can be asked for each."""
    start = int(time.time())
    deadline = time.monotonic() + 2
    while int(time.time()) == start and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.fixture(scope="module")
def replay(site: Site, ca_cert: Path,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replay]:
    wayback = venv_command("wayback")
    if wayback is None:
        pytest.skip("pywb's wayback command is not installed")
    root = tmp_path_factory.mktemp("pywb")
    proxy = ProxyProcess(root / "warcs", ca_cert, "--dedup", str(root / "dedup.db"))
    try:
        s = proxied_session(proxy)
        for scheme in SCHEMES:
            # (in its own dedup bucket, HTTPS gets responses, not revisits of its HTTP twins)
            meta = {"Warcprox-Meta": json.dumps({"dedup-buckets": {scheme: "rw"}})}
            for path in PATHS:
                assert s.get(site.url(path, scheme), headers=meta,
                             timeout=TIMEOUT).status_code == 200
        r = s.post(site.url(POSTED[0]), data=POSTED[1], timeout=TIMEOUT,
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert r.content == POSTED[1]
        r = s.get(site.url("/redirect/301"), timeout=TIMEOUT)
        assert r.content == site.entity("/redirect/final")
        r = s.get(site.url("/large"), timeout=TIMEOUT)
        assert r.status_code == 200 and len(r.content) == site.large_size
        assert s.get(site.url(REVISITED), timeout=TIMEOUT).status_code == 200
        _next_second()
        assert s.get(site.url(REVISITED), timeout=TIMEOUT).status_code == 200
    finally:
        files = proxy.finish()
    captures = exchanges(read_records(files))
    archive = root / "collections" / COLL / "archive"
    indexes = root / "collections" / COLL / "indexes"
    archive.mkdir(parents=True)
    indexes.mkdir()
    for f in files:
        shutil.copyfile(f, archive / f.name)
    assert main(["index", "-f", "cdxj", "--sort", "-o", str(indexes / "index.cdxj"),
                 *(str(archive / f.name) for f in files)]) == 0
    port = free_port()
    log_path = root / "wayback.log"
    log = open(log_path, "w+b")  # noqa: SIM115
    proc = subprocess.Popen([wayback, "-p", str(port), "-b", "127.0.0.1"], cwd=root,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert proc.poll() is None, log_path.read_text(errors="replace")
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
        yield Replay(port, site, captures, log_path)
    finally:
        proc.terminate()
        try:
            proc.wait(TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
            log.close()


def test_pywb_replays_http_and_https_byte_identical(replay: Replay) -> None:
    site = replay.site
    kinds = {replay.capture(site.url(p, scheme)).response.type for p in PATHS for scheme in SCHEMES}
    assert kinds == {"response"}
    for scheme in SCHEMES:
        for path in PATHS:
            url = site.url(path, scheme)
            ts = _timestamp(replay.capture(url).response.date)
            status, headers, body = replay.get(f"/{COLL}/{ts}id_/{url}")
            assert status == 200, (url, status, body[:500])
            assert body == site.entity(path), (url, len(body))
            assert "memento-datetime" in headers


def test_pywb_mp_replay(replay: Replay) -> None:
    """The ``mp_`` (frame content) modifier: non-HTML bytes as sent; the HTML page
    rewritten by pywb, its content intact."""
    site = replay.site
    for scheme in SCHEMES:
        status, _, body = replay.get(f"/{COLL}/mp_/{site.url('/image.png', scheme)}")
        assert (status, body) == (200, site.entity("/image.png"))
        status, _, body = replay.get(f"/{COLL}/mp_/{site.url('/', scheme)}")
        assert status == 200
        text = body.decode("utf-8")
        assert '<h1 id="title">The proxy test site</h1>' in text
        assert f"/{COLL}/" in text  # pywb's rewriting: links point into the collection


def test_pywb_replays_the_large_download(replay: Replay) -> None:
    site = replay.site
    url = site.url("/large")
    ts = _timestamp(replay.capture(url).response.date)
    for modifier in (f"{ts}id_", "mp_"):
        status, _, body = replay.get(f"/{COLL}/{modifier}/{url}")
        assert status == 200, modifier
        assert (len(body), hashlib.sha1(body).digest()) == (site.large_size,
                                                            site.entity_sha1("/large"))


def test_pywb_resolves_a_revisit_to_the_original_payload(replay: Replay) -> None:
    site = replay.site
    url = site.url(REVISITED)
    original = replay.capture(url, "response").response
    revisit = replay.capture(url, "revisit").response
    assert revisit.refers_to == original.record_id
    assert revisit.entity_len == 0  # the revisit holds no payload: pywb must fetch it
    ts = _timestamp(revisit.date)
    assert ts != _timestamp(original.date)
    status, headers, body = replay.get(f"/{COLL}/{ts}id_/{url}")
    assert (status, body) == (200, site.entity(REVISITED))
    when = email.utils.parsedate_to_datetime(headers["memento-datetime"])
    assert when.strftime("%Y%m%d%H%M%S") == ts  # the revisit's capture, not the original's
    assert datetime.strptime(ts, "%Y%m%d%H%M%S")


def test_pywb_replays_a_post(replay: Replay) -> None:
    """pywb finds a POST capture by its body (the index key appends it; the proxy's
    request record holds it) and replays it."""
    site = replay.site
    url = site.url(POSTED[0])
    ts = _timestamp(replay.capture(url).response.date)
    status, _, body = replay.get(f"/{COLL}/{ts}id_/{url}", "POST", POSTED[1],
                                 {"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, body) == (200, POSTED[1])


def test_pywb_replays_the_redirect_chain(replay: Replay) -> None:
    """(``mp_``: pywb rewrites the captured Location into the collection; ``id_`` would
    leave the site's relative ``/redirect/302`` as it is.)"""
    site = replay.site
    hops = []
    target = f"/{COLL}/mp_/{site.url('/redirect/301')}"
    for _ in range(6):
        status, headers, body = replay.get(target)
        hops.append((status, target.split("mp_/", 1)[-1]))
        if status not in (301, 302, 307):
            break
        target = urljoin(target, headers["location"].split(f"127.0.0.1:{replay.port}", 1)[-1])
    assert [(status, url.split("/", 3)[3]) for status, url in hops if status != 307] == [
        (301, "redirect/301"), (302, "redirect/302"), (200, "redirect/final")], hops
    assert body == site.entity("/redirect/final")
