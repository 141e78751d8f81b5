"""Bad input raises UrlError — never another exception — in bounded time."""

from __future__ import annotations

import time
from types import ModuleType

import pytest

from warckit.errors import UrlError
from warckit.url import canonicalize, host_to_ascii, host_to_unicode, surt

STYLES = ("cdx", "new-style", "heritrix")


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("url", ["http://", "https:///", "http://.../", "ftp://@:21/", "ws://"])
def test_no_host(style: str, url: str) -> None:
    with pytest.raises(UrlError):
        surt(url, style=style)  # type: ignore[arg-type]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("url", ["", "   ", None])
def test_empty(style: str, url: str | None) -> None:
    if style == "heritrix":
        with pytest.raises(UrlError):
            surt(url, style=style)
    elif url is None or url == "":
        assert surt(url, style=style) == "-"  # type: ignore[arg-type]  # python surt's "-"
    else:
        with pytest.raises(UrlError, match="empty"):
            surt(url, style=style)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "url",
    [
        "http://" + "\u00fc" * 64 + ".de/",  # label too long (IDNA 2003 and 2008)
        "http://a..\u00fc.de/x",  # empty label
    ],
)
def test_invalid_idn_strict_styles(url: str) -> None:
    with pytest.raises(UrlError, match="internationalized host"):
        surt(url, style="new-style")
    with pytest.raises(UrlError, match="internationalized host"):
        surt(url, style="heritrix")
    with pytest.raises(UrlError, match="internationalized host"):
        surt(url, style="cdx", idna="2008")


@pytest.mark.parametrize(
    ("url", "heritrix"),
    [
        ("http://\u0378.com/", "http://(com,xn--zva,)/"),  # unassigned: IDNA 2003 allows it
        ("http://\u00fc\u0301\u200d.de/", "http://(de,xn--3ja,)/"),  # ZWJ: nameprep drops it
    ],
)
def test_invalid_only_under_idna2008(url: str, heritrix: str) -> None:
    with pytest.raises(UrlError, match="internationalized host"):
        surt(url, style="new-style")
    with pytest.raises(UrlError, match="internationalized host"):
        surt(url, style="cdx", idna="2008")
    assert surt(url, style="heritrix") == heritrix


def test_invalid_idn_cdx_keeps_surt_fallback() -> None:
    # Quirk (python surt): a host IDNA 2003 rejects is percent-encoded, not an error.
    assert surt("http://a..\u00fc.de/x") == "de,%c3%bc,a)/x"


@pytest.mark.parametrize("host", ["exa\x00mple.com", "exa\x01mple.com", "exa%7Fmple.com", "a b.com"])
def test_control_characters_in_host(host: str) -> None:
    url = f"http://{host}/"
    with pytest.raises(UrlError, match="control character"):
        surt(url, style="new-style")
    with pytest.raises(UrlError, match="control character"):
        surt(url, style="heritrix")
    with pytest.raises(UrlError, match="control character"):
        host_to_ascii(host)


def test_control_characters_cleaned_or_escaped_in_cdx() -> None:
    # \t \r \n are removed anywhere (they cannot be cleaned in a host for strict
    # styles only if they remain, which they never do); others are escaped as surt does.
    assert surt("http://exa\tmple.com/a\nb") == "com,example)/ab"
    assert surt("http://example.com/a\x00b\x7f") == "com,example)/a%00b%7f"


@pytest.mark.parametrize("style", STYLES)
def test_lone_surrogate(style: str) -> None:
    with pytest.raises(UrlError, match="not valid Unicode"):
        surt("http://example.com/\ud800", style=style)  # type: ignore[arg-type]


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("port", ["abc", "70000", "-1", "1" * 5000])
def test_bad_port(style: str, port: str) -> None:
    with pytest.raises(UrlError, match="bad port"):
        surt(f"http://example.com:{port}/", style=style)  # type: ignore[arg-type]


def test_huge_numeric_host(surt_impl: ModuleType) -> None:
    with pytest.raises(UrlError, match="numeric host too long"):
        surt_impl.surt_key("http://" + "9" * 5000 + "/")


@pytest.mark.parametrize("style", STYLES)
def test_100_kb_url(style: str) -> None:
    url = "http://example.com/" + "a" * 100_000
    start = time.perf_counter()
    with pytest.raises(UrlError, match="too long"):
        surt(url, style=style)  # type: ignore[arg-type]
    with pytest.raises(UrlError, match="too long"):
        canonicalize(url)
    assert time.perf_counter() - start < 1.0


def test_limit_counts_utf8_bytes(surt_impl: ModuleType) -> None:
    url = "http://example.com/" + "\u00e9" * 40_000  # 40,000 characters, 80,000 bytes
    with pytest.raises(UrlError, match="bytes"):
        surt_impl.surt_key(url)


_PATHOLOGICAL = [
    "http://example.com/" + "%25" * 20_000 + "41",  # quadratic in surt's repeated unescape
    "http://example.com/" + "/(a(aaaaaaaaaaaaaaaaaaaaaaaa))" * 2000 + "/x.aspx",
    "http://example.com/" + "/(aaaaaaaaaaaaaaaaaaaaaaaa)" * 2000 + "?.aspx",
    "http://example.com/?" + "jsessionid=" * 5000 + "x" * 31,
    "http://example.com/?" + "cfid=1&cftoken" * 3000,
    "http://example.com/?" + "&".join(f"k{i % 97}={i}" for i in range(6000)),
    "http://example.com/" + "../" * 15_000,
    "http://" + "a." * 20_000 + "com/",
    "http://" + "@" * 30_000 + "example.com/",
    "http://" + "[" * 30_000,
    "http://a:" + "1" * 60_000 + "x",
    "http://" + ":1" * 30_000,
    "http://" + "a@" * 30_000 + "/",
    "http://" + "a" * 60_000,
]


@pytest.mark.parametrize("url", _PATHOLOGICAL, ids=range(len(_PATHOLOGICAL)))
def test_pathological_inputs_are_fast(surt_impl: ModuleType, url: str) -> None:
    start = time.perf_counter()
    for args in ((), (True, False, False)):
        try:
            surt_impl.surt_key(url, *args)
        except UrlError:
            pass
    assert time.perf_counter() - start < 2.0


def test_host_to_unicode_bad_punycode() -> None:
    with pytest.raises(UrlError, match="punycode"):
        host_to_unicode("xn--a-ecp.xn--\u00e9")


def test_unknown_style_and_rules() -> None:
    with pytest.raises(UrlError, match="style"):
        surt("http://example.com/", style="bogus")  # type: ignore[arg-type]
    with pytest.raises(UrlError, match="rule set"):
        canonicalize("http://example.com/", rules="bogus")
    with pytest.raises(UrlError, match="IDNA"):
        surt("http://example.com/", idna="2019")  # type: ignore[arg-type]


@pytest.mark.parametrize("url", _PATHOLOGICAL, ids=range(len(_PATHOLOGICAL)))
def test_pathological_inputs_all_styles(url: str) -> None:
    start = time.perf_counter()
    for style in STYLES:
        try:
            surt(url, style=style)  # type: ignore[arg-type]
        except UrlError:
            pass
    try:
        canonicalize(url, rules="heritrix")
    except UrlError:
        pass
    assert time.perf_counter() - start < 3.0
