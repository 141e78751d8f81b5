"""``warckit proxy --dedup DB``: a payload already archived is written as a ``revisit``
(identical-payload-digest) referring to the first capture, within a run and across runs;
dedup buckets keep their captures apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from captures import (
    Exchange,
    assert_capture_metadata,
    assert_warcio_check,
    assert_warckit_check,
    exchanges,
    read_records,
    sha1_label,
    warcprox_meta,
)
from local_site import Site
from proxy_process import TIMEOUT, StartProxy, proxied_session

PROFILE = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
PROFILE_10 = "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"


def _of(captures: list[Exchange], url: str) -> list[Exchange]:
    return [e for e in captures if e.response.target_uri == url]


def _assert_revisit_of(revisit: Exchange, original: Exchange, site: Site, path: str,
                       profile: str = PROFILE) -> None:
    r, o = revisit.response, original.response
    assert (o.type, r.type) == ("response", "revisit")
    assert r.profile == profile
    assert r.refers_to == o.record_id
    assert r.payload_digest == o.payload_digest == sha1_label(site.entity_sha1(path))
    fields = dict(r.warc_headers)
    assert fields.get("WARC-Refers-To-Target-URI") == o.target_uri
    assert fields.get("WARC-Refers-To-Date") == o.date
    # The revisit keeps the HTTP head, not the payload.
    assert (r.status, r.entity_len) == (200, 0)
    assert r.ip == "127.0.0.1"
    assert revisit.request.concurrent_to == (r.record_id,)


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_second_fetch_is_a_revisit(site: Site, start_proxy: StartProxy, tmp_path: Path,
                                   scheme: str) -> None:
    proxy = start_proxy("--dedup", str(tmp_path / "dedup.db"))
    s = proxied_session(proxy)
    path = f"/text/dedup-{scheme}"
    url = site.url(path, scheme)
    first, second = s.get(url, timeout=TIMEOUT), s.get(url, timeout=TIMEOUT)
    assert first.content == second.content == site.entity(path)
    files = proxy.finish()
    records = read_records(files)
    captures = _of(exchanges(records), url)
    assert len(captures) == 2
    _assert_revisit_of(captures[1], captures[0], site, path)
    assert_capture_metadata(warcprox_meta(first.headers.get("Warcprox-Meta")), records,
                            "response")
    assert_capture_metadata(warcprox_meta(second.headers.get("Warcprox-Meta")), records,
                            "revisit")
    assert_warckit_check(files)
    assert_warcio_check(files, records)


def test_revisit_across_runs(site: Site, start_proxy: StartProxy, tmp_path: Path) -> None:
    db = tmp_path / "dedup.db"
    path = "/text/dedup-across-runs"
    url = site.url(path)
    first = start_proxy("--dedup", str(db), out=tmp_path / "run1")
    proxied_session(first).get(url, timeout=TIMEOUT)
    files1 = first.finish()
    second = start_proxy("--dedup", str(db), out=tmp_path / "run2")
    proxied_session(second).get(url, timeout=TIMEOUT)
    files2 = second.finish()
    (original,) = _of(exchanges(read_records(files1)), url)
    (revisit,) = _of(exchanges(read_records(files2)), url)
    _assert_revisit_of(revisit, original, site, path)


def test_changed_payload_is_not_a_revisit(site: Site, start_proxy: StartProxy,
                                          tmp_path: Path) -> None:
    """Two URLs, two payloads, two responses; the same payload at another URL (the
    digest alone) is a revisit of the first URL's capture."""
    proxy = start_proxy("--dedup", str(tmp_path / "dedup.db"))
    s = proxied_session(proxy)
    for path in ("/text/dedup-a", "/text/dedup-b", "/style.css", "/style.css?again"):
        s.get(site.url(path), timeout=TIMEOUT)
    captures = exchanges(read_records(proxy.finish()))
    kinds = {e.response.target_uri: e.response.type for e in captures}
    assert kinds == {site.url("/text/dedup-a"): "response", site.url("/text/dedup-b"): "response",
                     site.url("/style.css"): "response", site.url("/style.css?again"): "revisit"}
    (css,) = _of(captures, site.url("/style.css"))
    (again,) = _of(captures, site.url("/style.css?again"))
    _assert_revisit_of(again, css, site, "/style.css")


def test_dedup_buckets(site: Site, start_proxy: StartProxy, tmp_path: Path) -> None:
    proxy = start_proxy("--dedup", str(tmp_path / "dedup.db"))
    s = proxied_session(proxy)
    path = "/text/dedup-buckets"
    url = site.url(path)

    def get(meta: dict[str, object] | None) -> str:
        headers = {"Warcprox-Meta": json.dumps(meta)} if meta is not None else {}
        r = s.get(url, headers=headers, timeout=TIMEOUT)
        assert r.content == site.entity(path)
        return str(warcprox_meta(r.headers.get("Warcprox-Meta"))["capture-metadata"]["type"])

    # The default bucket, then bucket "one": each first capture is a response.
    assert [get(None), get(None)] == ["response", "revisit"]
    assert [get({"dedup-buckets": {"one": "rw"}}), get({"dedup-bucket": "one"})] == [
        "response", "revisit"]
    # A read-only bucket finds what "one" holds, and adds nothing to an empty one.
    assert get({"dedup-buckets": {"one": "ro"}}) == "revisit"
    assert [get({"dedup-buckets": {"two": "ro"}}), get({"dedup-buckets": {"two": "ro"}})] == [
        "response", "response"]
    captures = exchanges(read_records(proxy.finish()))
    types = [e.response.type for e in _of(captures, url)]
    assert types == ["response", "revisit", "response", "revisit", "revisit", "response",
                     "response"]


def test_warc_10_and_no_compression(site: Site, start_proxy: StartProxy, tmp_path: Path) -> None:
    """--warc-version 1.0 --compression none: WARC/1.0 records, the 1.0 revisit profile,
    uncompressed ``.warc`` files."""
    proxy = start_proxy("--dedup", str(tmp_path / "dedup.db"), "--warc-version", "1.0",
                        "--compression", "none")
    s = proxied_session(proxy)
    path = "/text/dedup-warc10"
    for scheme in ("http", "https", "http"):
        assert s.get(site.url(path, scheme), timeout=TIMEOUT).content == site.entity(path)
    files = proxy.finish()
    assert [f.suffix for f in files] == [".warc"]
    assert files[0].read_bytes().startswith(b"WARC/1.0\r\n")
    assert files[0].read_bytes().count(b"WARC/1.1\r\n") == 0
    records = read_records(files)
    captures = exchanges(records)
    http_ = _of(captures, site.url(path))
    https_ = _of(captures, site.url(path, "https"))
    assert [e.response.type for e in http_ + https_] == ["response", "revisit", "revisit"]
    _assert_revisit_of(http_[1], http_[0], site, path, PROFILE_10)
    _assert_revisit_of(https_[0], http_[0], site, path, PROFILE_10)
    assert_warckit_check(files)
    assert_warcio_check(files, records)
