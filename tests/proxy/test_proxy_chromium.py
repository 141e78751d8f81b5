"""A headless Chromium browses the test site through ``warckit proxy``, over HTTP and HTTPS
(trusting the proxy's CA by its SPKI hash): the page runs its script, and the page and every
subresource the browser loaded are recorded, digests right."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from captures import assert_warcio_check, assert_warckit_check, exchanges, read_records, sha1_label
from local_site import Site
from proxy_process import TIMEOUT, StartProxy, chromium, clean_env, spki_sha256

SUBRESOURCES = ("/style.css", "/script.js", "/image.png")


def dump_dom(exe: str, proxy_url: str, spki: str, url: str, profile: Path) -> str:
    """``chromium --headless=new ... --dump-dom URL`` through the proxy: the DOM after load."""
    argv = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-default-apps",
            f"--proxy-server={proxy_url}", "--proxy-bypass-list=<-loopback>",
            f"--ignore-certificate-errors-spki-list={spki}", "--dump-dom", url]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=clean_env(), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=2 * TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the browser and its helper processes
        proc.communicate(timeout=TIMEOUT)
        raise
    assert proc.returncode == 0, (url, proc.returncode, err.decode(errors="replace")[-3000:])
    return out.decode("utf-8", "replace")


def test_chromium_records_the_site(site: Site, start_proxy: StartProxy,
                                   tmp_path: Path) -> None:
    exe = chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (.ci/run installs the Debian package chromium)")
    proxy = start_proxy()
    spki = spki_sha256(proxy.ca_cert.read_bytes())
    for scheme in ("http", "https"):
        dom = dump_dom(exe, proxy.url, spki, site.url("/", scheme), tmp_path / f"profile-{scheme}")
        # The page came through, its script ran (and read the page).
        assert "<h1 id=\"title\">The proxy test site</h1>" in dom, dom[:2000]
        assert '<p id="script-ran">script ran: The proxy test site</p>' in dom, dom[:2000]
    files = proxy.finish()
    records = read_records(files)
    captures = exchanges(records)
    by_url = {e.response.target_uri or "": e for e in captures}
    for scheme in ("http", "https"):
        for path in ("/", *SUBRESOURCES):
            e = by_url.get(site.url(path, scheme))
            assert e is not None, (path, scheme, sorted(by_url))
            assert (e.response.status, e.response.ip) == (200, "127.0.0.1")
            assert e.response.entity == site.entity(path)
            assert e.response.payload_digest == sha1_label(site.entity_sha1(path))
            assert e.request.first_line.startswith("GET "), e.request.first_line
            assert e.request.http_header("User-Agent") is not None
    # Nothing but the site went through the proxy (a favicon.ico request at most).
    others = {u for u in by_url if u not in {site.url(p, s) for p in ("/", *SUBRESOURCES)
                                             for s in ("http", "https")}}
    assert others <= {site.url("/favicon.ico", s) for s in ("http", "https")}, others
    assert_warckit_check(files)
    assert_warcio_check(files, records)


def test_chromium_without_the_pin_does_not_trust_the_proxy(site: Site, start_proxy: StartProxy,
                                                           tmp_path: Path) -> None:
    """The control for the test above: without the CA's SPKI pin the intercepted HTTPS page
    is refused by the browser (its certificate is the proxy's), so nothing is recorded."""
    exe = chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (.ci/run installs the Debian package chromium)")
    proxy = start_proxy()
    other_pin = spki_sha256(site.cert_path.read_bytes())  # a pin, but not the proxy CA's
    dom = dump_dom(exe, proxy.url, other_pin, site.url("/", "https"), tmp_path / "profile")
    assert "The proxy test site" not in dom
    assert exchanges(read_records(proxy.finish())) == []
