"""IDN conversion both ways and IDN-aware SURT prefixes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warckit.errors import UrlError
from warckit.url import (
    SurtPrefix,
    SurtPrefixSet,
    host_to_ascii,
    host_to_unicode,
    prefix_from_url,
    surt,
    surt_to_unicode,
)

LANDS = "http://landsb\u00f3kasafn.is/"
LANDS_PUNY = "xn--landsbkasafn-5hb"


@pytest.mark.parametrize(
    ("host", "v2003", "v2008"),
    [
        ("fa\u00df.de", "fass.de", "xn--fa-hia.de"),
        ("josef\u00dfon.org", "josefsson.org", "xn--josefon-4va.org"),
        ("B\u00fccher.CH", "xn--bcher-kva.ch", "xn--bcher-kva.ch"),
        ("\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com", "example.com", "example.com"),
        ("Example.COM", "example.com", "example.com"),
    ],
)
def test_host_to_ascii(host: str, v2003: str, v2008: str) -> None:
    assert host_to_ascii(host) == v2003
    assert host_to_ascii(host, idna="2003") == v2003
    assert host_to_ascii(host, idna="2008") == v2008


def test_symbols_valid_in_2003_only() -> None:
    assert host_to_ascii("%E2%98%83.com") == "xn--n3h.com"
    with pytest.raises(UrlError, match="not allowed"):
        host_to_ascii("%E2%98%83.com", idna="2008")
    assert surt("http://\u2603.com/") == "com,xn--n3h)/"
    with pytest.raises(UrlError):
        surt("http://\u2603.com/", style="new-style")


def test_host_to_unicode() -> None:
    assert host_to_unicode("www.xn--bcher-kva.ch") == "www.b\u00fccher.ch"
    assert host_to_unicode("xn--fa-hia.de") == "fa\u00df.de"
    assert host_to_unicode(LANDS_PUNY + ".is") == "landsb\u00f3kasafn.is"
    assert host_to_unicode("example.com") == "example.com"


def test_idna_switch_per_call() -> None:
    url = "http://www.fa\u00df.de/"
    assert surt(url) == "de,fass)/"
    assert surt(url, idna="2008") == "de,xn--fa-hia)/"
    assert surt(url, style="new-style") == "de,xn--fa-hia,www,)/"
    assert surt(url, style="new-style", idna="2003") == "de,fass,www,)/"
    assert surt(url, style="new-style", strip_www=True) == "de,xn--fa-hia,)/"
    assert surt(url, style="heritrix") == "http://(de,fass,www,)/"
    assert surt(url, style="heritrix", idna="2008") == "http://(de,xn--fa-hia,www,)/"


def test_surt_to_unicode() -> None:
    assert surt_to_unicode(f"http://(is,{LANDS_PUNY},)/a") == "http://(is,landsb\u00f3kasafn,)/a"
    assert surt_to_unicode(f"is,{LANDS_PUNY})/a") == "is,landsb\u00f3kasafn)/a"
    assert surt_to_unicode(f"http://(is,{LANDS_PUNY},:8080@u:p)/") == (
        "http://(is,landsb\u00f3kasafn,:8080@u:p)/"
    )


def test_single_prefix_matches_unicode_and_punycode() -> None:
    assert SurtPrefix("http://(is,l").matches(LANDS)
    assert SurtPrefix("http://(is,xn--").matches(LANDS)
    assert SurtPrefix("http://(is,landsb\u00f3k").matches(LANDS)
    assert not SurtPrefix("http://(is,m").matches(LANDS)


def test_punycode_only_is_heritrix_behaviour() -> None:
    assert not SurtPrefix("http://(is,l", match_unicode=False).matches(LANDS)
    assert SurtPrefix("http://(is,xn--", match_unicode=False).matches(LANDS)


def test_prefix_set_bisect_lookup() -> None:
    prefixes = SurtPrefixSet(
        [
            "http://(is,l",
            "http://(is,landsb",  # redundant: starts with the one above
            "http://(org,archive,",
            "HTTP://(ORG,EXAMPLE,)/docs/",
            "https://(de,",
        ]
    )
    assert prefixes.prefixes == (
        "http://(is,l",
        "http://(org,archive,",
        "http://(org,example,)/docs/",
        "https://(de,",
    )
    assert prefixes.matching_prefix(LANDS) == "http://(is,l"
    assert prefixes.matching_prefix("http://www.archive.org/x") == "http://(org,archive,"
    assert prefixes.matching_prefix("http://example.org/docs/a") == "http://(org,example,)/docs/"
    assert prefixes.matching_prefix("http://example.org/doc") is None
    assert prefixes.matching_prefix("https://b\u00fccher.de/") == "https://(de,"
    assert prefixes.matching_prefix("http://b\u00fccher.de/") is None
    assert prefixes.matches("http://www.archive.org/")
    assert not prefixes.matches("http://")  # invalid URL never matches
    assert len(prefixes) == 4
    strict = SurtPrefixSet(["http://(is,l"], match_unicode=False)
    assert not strict.matches(LANDS)


def test_prefix_set_many() -> None:
    prefixes = SurtPrefixSet(f"http://(com,site{i:04d}," for i in range(5000))
    assert prefixes.matches("http://www.site0042.com/x")
    assert not prefixes.matches("http://www.site5042.com/x")


@pytest.mark.parametrize(
    ("url", "prefix"),
    [
        ("http://example.com", "http://(com,example,"),
        ("http://example.com/", "http://(com,example,)/"),
        ("http://www.example.com/dir/page.html", "http://(com,example,www,)/dir/"),
        ("http://landsb\u00f3kasafn.is", f"http://(is,{LANDS_PUNY},"),
    ],
)
def test_prefix_from_url(url: str, prefix: str) -> None:
    assert prefix_from_url(url) == prefix


def test_from_urls() -> None:
    scope = SurtPrefixSet.from_urls(["http://landsb\u00f3kasafn.is", "http://example.com/a/"])
    assert scope.matches("http://sub.landsb\u00f3kasafn.is/x")
    assert scope.matches("http://example.com/a/b")
    assert not scope.matches("http://example.com/b")


def test_bad_url_in_matching_prefix_raises() -> None:
    with pytest.raises(UrlError):
        SurtPrefixSet(["http://(is,"]).matching_prefix("http://")


@settings(max_examples=200, deadline=None)
@given(
    prefixes=st.lists(st.text("(),abc:/", min_size=1, max_size=6), max_size=12),
    probes=st.lists(st.text("(),abc:/", max_size=10), max_size=10),
)
def test_bisect_lookup_equals_linear_scan(prefixes: list[str], probes: list[str]) -> None:
    scope = SurtPrefixSet(prefixes)
    for probe in probes:
        found = scope.prefix_of_surt(probe)
        linear = [p for p in prefixes if probe.startswith(p)]
        assert (found is not None) == bool(linear)
        if found is not None:
            assert found in linear
            assert len(found) == min(len(p) for p in linear)
