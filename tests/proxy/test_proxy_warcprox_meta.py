"""The ``Warcprox-Meta`` request header through ``warckit proxy``: warc-prefix (file series),
blocks (403, nothing sent or written), limits and soft-limits (420 / 430 once reached),
metadata (a metadata record), and a malformed header (400)."""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from typing import Any

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
from local_site import Site
from proxy_process import TIMEOUT, StartProxy, proxied_session

SCHEMES = ("http", "https")


def _meta(value: dict[str, Any]) -> dict[str, str]:
    return {"Warcprox-Meta": json.dumps(value)}


def test_warc_prefix_gives_file_series(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy()
    s = proxied_session(proxy)
    urls: dict[str, list[str]] = {"alpha": [], "beta": [], "WARC": []}
    for scheme in SCHEMES:
        for prefix in ("alpha", "beta", None):
            path = f"/text/prefix-{prefix or 'default'}"
            url = site.url(path, scheme)
            r = s.get(url, timeout=TIMEOUT,
                      headers=_meta({"warc-prefix": prefix}) if prefix else {})
            assert r.content == site.entity(path)
            name = warcprox_meta(r.headers.get("Warcprox-Meta"))["capture-metadata"][
                "warc-filename"]
            assert name.startswith(f"{prefix or 'WARC'}-"), name
            urls[prefix or "WARC"].append(url)
    files = proxy.finish()
    assert sorted(re.sub(r"-.*", "", f.name) for f in files) == ["WARC", "alpha", "beta"]
    records = read_records(files)
    for f in files:
        held = sorted(e.response.target_uri or "" for e in exchanges(
            [r for r in records if r.file == f]))
        assert held == sorted(urls[f.name.split("-", 1)[0]]), f.name
    assert_warckit_check(files)
    assert_warcio_check(files, records)


def _block_rules(site: Site, scheme: str) -> list[tuple[str, dict[str, str]]]:
    """(path, the rule that blocks it): one of each kind of rule."""
    port = site.http_port if scheme == "http" else site.https_port
    surt = f"{scheme}://(127.0.0.1:{port})"  # a Heritrix SURT keeps an IP address as it is
    return [
        ("/text/blocked-string", {"url_match": "STRING_MATCH",
                                  "value": site.url("/text/blocked-", scheme)}),
        ("/text/blocked-regex", {"url_match": "REGEX_MATCH",
                                 "value": r"https?://127\.0\.0\.1:\d+/text/bl.*-regex"}),
        ("/text/blocked-surt", {"surt": surt + "/text/blocked-surt"}),
        ("/text/blocked-surt-match", {"url_match": "SURT_MATCH",
                                      "value": surt + "/text/blocked-surt-m"}),
        ("/text/blocked-domain", {"domain": "127.0.0.1"}),
    ]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_blocks(site: Site, start_proxy: StartProxy, scheme: str) -> None:
    proxy = start_proxy()
    s = proxied_session(proxy)
    allowed = []
    rules = _block_rules(site, scheme)
    for path, rule in rules:
        other = "/text/allowed" + path  # a URL no rule (but the domain rule) matches
        blocked_url = site.url(path, scheme)
        r = s.get(blocked_url, headers=_meta({"blocks": [rule]}), timeout=TIMEOUT)
        assert r.status_code == 403, (path, r.status_code, r.text)
        assert warcprox_meta(r.headers.get("Warcprox-Meta")) == {"blocked-by-rule": rule}
        if "domain" not in rule:
            r = s.get(site.url(other, scheme), headers=_meta({"blocks": [rule]}),
                      timeout=TIMEOUT)
            assert (r.status_code, r.content) == (200, site.entity(other)), path
            allowed.append(site.url(other, scheme))
    files = proxy.finish()
    sent = site.seen_paths(scheme)
    assert not [p for p, _ in rules if p in sent]  # never sent upstream
    captured = sorted(e.response.target_uri or "" for e in exchanges(read_records(files)))
    assert captured == sorted(allowed)  # nothing written for a blocked URL


def _stats_urls(meta: dict[str, Any], bucket: str) -> int:
    return int(meta["stats"][bucket]["total"]["urls"])


@pytest.mark.parametrize(("key", "status", "reason", "reached"), [
    ("limits", 420, "Reached limit", "reached-limit"),
    ("soft-limits", 430, "Reached soft limit", "reached-soft-limit"),
])
def test_limits(site: Site, start_proxy: StartProxy, key: str, status: int, reason: str,
                reached: str) -> None:
    proxy = start_proxy()
    s = proxied_session(proxy)
    bucket = f"bucket-{key}"
    meta = {"stats": {"buckets": [bucket]}, key: {f"{bucket}/total/urls": 2}}
    got = []
    for n, scheme in enumerate(("http", "https", "http", "https")):
        url = site.url(f"/text/{key}-{n}", scheme)
        r = s.get(url, headers=_meta(meta), timeout=TIMEOUT)
        got.append((r.status_code, r.reason))
    assert got == [(200, "OK"), (200, "OK"), (status, reason), (status, reason)]
    refusal = warcprox_meta(r.headers.get("Warcprox-Meta"))
    assert refusal[reached] == {f"{bucket}/total/urls": 2}
    assert _stats_urls(refusal, bucket) == 2
    # Other buckets are not limited; "__all__" counts every capture of this proxy.
    r = s.get(site.url(f"/text/{key}-free"), timeout=TIMEOUT,
              headers=_meta({key: {"__all__/total/urls": 4}}))
    assert r.status_code == 200
    r = s.get(site.url(f"/text/{key}-all"), timeout=TIMEOUT,
              headers=_meta({key: {"__all__/total/urls": 3}}))
    assert r.status_code == status
    assert warcprox_meta(r.headers.get("Warcprox-Meta"))[reached] == {"__all__/total/urls": 3}
    files = proxy.finish()
    captured = sorted(e.response.target_uri or "" for e in exchanges(read_records(files)))
    assert captured == sorted([site.url(f"/text/{key}-0"), site.url(f"/text/{key}-1", "https"),
                               site.url(f"/text/{key}-free")])
    sent = site.seen_paths()
    assert f"/text/{key}-2" not in sent and f"/text/{key}-3" not in sent
    assert f"/text/{key}-all" not in sent


def test_metadata_record(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy()
    s = proxied_session(proxy)
    value = {"seed": "http://example.com/", "hop-path": "LL", "n": 3}
    for scheme in SCHEMES:
        r = s.get(site.url("/text/with-metadata", scheme), headers=_meta({"metadata": value}),
                  timeout=TIMEOUT)
        assert r.status_code == 200
    files = proxy.finish()
    records = read_records(files)
    captures = exchanges(records)
    for scheme in SCHEMES:
        e = capture_by_url(captures, site.url("/text/with-metadata", scheme))
        assert len(e.others) == 1, [r.type for r in e.others]
        (md,) = e.others
        assert md.type == "metadata" and md.target_uri == e.response.target_uri
        assert e.response.record_id in (md.refers_to, *md.concurrent_to)
        assert md.block is not None
        text = md.block.decode("utf-8")
        for k, v in value.items():
            assert k in text and str(v) in text, (k, text)
    assert_warckit_check(files)
    assert_warcio_check(files, records)


@pytest.mark.parametrize("bad", ["not json", "[1, 2]", '{"warc-prefix": 7}',
                                 '{"blocks": [{"url_match": "NO_SUCH_MATCH", "value": "x"}]}',
                                 '{"limits": {"b/total/urls": "two"}}'])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_malformed_warcprox_meta_is_400(site: Site, start_proxy: StartProxy, bad: str,
                                        scheme: str) -> None:
    proxy = start_proxy()
    path = f"/text/malformed-{zlib.crc32(bad.encode())}-{scheme}"
    r = proxied_session(proxy).get(site.url(path, scheme), headers={"Warcprox-Meta": bad},
                                   timeout=TIMEOUT)
    assert r.status_code == 400, (bad, r.status_code, r.text)
    assert path not in site.seen_paths()
    assert exchanges(read_records(proxy.finish())) == []


def test_capture_metadata_of_a_post_and_a_404(site: Site, start_proxy: StartProxy) -> None:
    proxy = start_proxy()
    s = proxied_session(proxy)
    answers = {site.url("/echo?meta"): s.post(site.url("/echo?meta"), data=b"abc",
                                              timeout=TIMEOUT),
               site.url("/nowhere", "https"): s.get(site.url("/nowhere", "https"),
                                                    timeout=TIMEOUT)}
    files = proxy.finish()
    records = read_records(files)
    for url, r in answers.items():
        rec = assert_capture_metadata(warcprox_meta(r.headers.get("Warcprox-Meta")), records,
                                      "response")
        assert (rec.target_uri, rec.status) == (url, r.status_code)
        assert rec.payload_digest == sha1_label(hashlib.sha1(r.content).digest())
