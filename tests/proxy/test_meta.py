"""The Warcprox-Meta header: warcprox's keys parsed, bad values refused, block rules matched."""

from __future__ import annotations

import pytest

from warckit.proxy.meta import DEFAULT_BUCKET, MetaError, WarcproxMeta, block_matching, parse_meta


def test_no_header_is_the_defaults() -> None:
    assert parse_meta(None) == WarcproxMeta()
    assert parse_meta(None).dedup_buckets == ((DEFAULT_BUCKET, "rw"),)


def test_every_key() -> None:
    meta = parse_meta(b'{"warc-prefix": "job-1.a", "dedup-buckets": {"a": "rw", "b": "ro"}, '
                      b'"metadata": {"seed": "http://e.org/", "hops": 2}, '
                      b'"blocks": [{"domain": "ads.example"}], '
                      b'"limits": {"job/total/urls": 10}, "soft-limits": {"job/new/wire_bytes": 5}, '
                      b'"stats": {"buckets": ["job", {"bucket": "other", "tally-domains": ["x"]}]}, '
                      b'"unknown-key": [1]}')
    assert meta.warc_prefix == "job-1.a"
    assert meta.dedup_buckets == (("a", "rw"), ("b", "ro"))
    assert meta.metadata == {"seed": "http://e.org/", "hops": 2}
    assert meta.blocks == ({"domain": "ads.example"},)
    assert meta.limits == {"job/total/urls": 10}
    assert meta.soft_limits == {"job/new/wire_bytes": 5}
    assert meta.stats_buckets == ("job", "other")


def test_the_older_dedup_bucket_key() -> None:
    assert parse_meta('{"dedup-bucket": "x"}').dedup_buckets == (("x", "rw"),)


@pytest.mark.parametrize(("value", "fragment"), [
    (b"{not json", "is not JSON"),
    (b"[1, 2]", "must be a JSON object"),
    (b'{"warc-prefix": "../etc"}', "warc-prefix '../etc'"),
    (b'{"warc-prefix": 5}', "warc-prefix 5"),
    (b'{"dedup-buckets": {"a": "rwx"}}', "dedup-buckets must be"),
    (b'{"dedup-bucket": ""}', "dedup-bucket must be a string"),
    (b'{"metadata": "x"}', "metadata must be an object"),
    (b'{"blocks": {"domain": "x"}}', "blocks must be a list"),
    (b'{"blocks": [{"url_match": "GLOB", "value": "x"}]}', "a rule needs"),
    (b'{"blocks": [{"url_match": "REGEX_MATCH", "value": "("}]}', "bad regular expression"),
    (b'{"limits": {"job/urls": 3}}', "limits: 'job/urls'"),
    (b'{"limits": {"job/total/urls": "3"}}', "limits: 'job/total/urls'"),
    (b'{"stats": {"buckets": [{"tally-domains": []}]}}', "has no name"),
])
def test_bad_values_are_refused(value: bytes, fragment: str) -> None:
    with pytest.raises(MetaError, match="Warcprox-Meta") as caught:
        parse_meta(value)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(("rule", "url", "blocked"), [
    ({"domain": "example.com"}, "http://example.com/x", True),
    ({"domain": "example.com"}, "https://www.EXAMPLE.com:8443/x", True),
    ({"domain": "example.com"}, "http://notexample.com/", False),
    ({"surt": "http://(com,example,"}, "http://www.example.com/a", True),
    ({"surt": "http://(com,example,)/a"}, "http://example.com/b", False),
    ({"url_match": "SURT_MATCH", "value": "http://(org,"}, "http://a.org/", True),
    ({"url_match": "STRING_MATCH", "value": "http://e.org/private/"}, "http://e.org/private/1", True),
    ({"url_match": "STRING_MATCH", "value": "http://e.org/private/"}, "http://e.org/public", False),
    ({"url_match": "REGEX_MATCH", "value": r"https?://[^/]+/login"}, "https://e.org/login?x", True),
    ({"url_match": "REGEX_MATCH", "value": r"login"}, "https://e.org/login", False),  # at the start
])
def test_block_rules(rule: dict[str, str], url: str, blocked: bool) -> None:
    meta = parse_meta(__import__("json").dumps({"blocks": [{"domain": "other.net"}, rule]}))
    assert block_matching(meta.blocks, url) == (rule if blocked else None)
