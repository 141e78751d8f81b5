"""A 30 MiB download through ``warckit proxy`` over HTTP and HTTPS: the client gets it
whole, and the WARC holds it whole (length and digest), checked by warckit and warcio."""

from __future__ import annotations

import hashlib

import pytest
from captures import (
    assert_capture_metadata,
    assert_warcio_check,
    assert_warckit_check,
    capture_by_url,
    exchanges,
    read_records,
    sha1_label,
    warcprox_meta,
)
from local_site import LARGE_SIZE, Site, large_sha1
from proxy_process import TIMEOUT, StartProxy, proxied_session


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_large_download_is_recorded_whole(site: Site, start_proxy: StartProxy,
                                          scheme: str) -> None:
    proxy = start_proxy()
    url = site.url("/large", scheme)
    r = proxied_session(proxy).get(url, stream=True, timeout=TIMEOUT)
    assert (r.status_code, r.headers["Content-Length"]) == (200, str(LARGE_SIZE))
    h, n = hashlib.sha1(), 0
    for block in r.iter_content(1 << 20):
        h.update(block)
        n += len(block)
    assert (n, h.digest()) == (LARGE_SIZE, large_sha1())
    meta = warcprox_meta(r.headers.get("Warcprox-Meta"))
    files = proxy.finish()
    records = read_records(files)
    e = capture_by_url(exchanges(records), url)
    assert (e.response.entity_len, e.response.entity_sha1) == (LARGE_SIZE, large_sha1())
    assert e.response.payload_digest == sha1_label(large_sha1())
    assert e.response.http_header("Content-Length") == str(LARGE_SIZE)
    assert assert_capture_metadata(meta, records, "response") is e.response
    assert_warckit_check(files)
    assert_warcio_check(files, records)
