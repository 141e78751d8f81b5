"""Bad input raises UrlError — never another exception — in bounded time."""

from __future__ import annotations

import time
from collections.abc import Callable
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


#: Largest accepted time(10 n) / time(n): linear work gives about 10, quadratic about 100.
MAX_RATIO = 30.0


def _time_per_call(run: Callable[[], object], window: float = 0.01) -> float:
    """Best of three: the mean time of one call over calls lasting at least *window* s."""
    best = float("inf")
    for _ in range(3):
        calls = 0
        start = time.perf_counter()
        while True:
            run()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= window:
                break
        best = min(best, elapsed / calls)
    return best


def _scaling(run: Callable[[int], object], n: int) -> float:
    """time(10 n) / time(n) (a wall-clock limit fails on a loaded machine; the ratio
    does not, and still catches quadratic work)."""
    return _time_per_call(lambda: run(10 * n)) / _time_per_call(lambda: run(n))


def _raises(call: Callable[[], object], match: str) -> None:
    with pytest.raises(UrlError, match=match):
        call()


@pytest.mark.parametrize("style", STYLES)
def test_100_kb_url(style: str) -> None:
    def run(size: int) -> None:
        url = "http://example.com/" + "a" * size
        _raises(lambda: surt(url, style=style), "too long")  # type: ignore[arg-type]
        _raises(lambda: canonicalize(url), "too long")

    assert _scaling(run, 100_000) < MAX_RATIO


def test_limit_counts_utf8_bytes(surt_impl: ModuleType) -> None:
    url = "http://example.com/" + "\u00e9" * 40_000  # 40,000 characters, 80,000 bytes
    with pytest.raises(UrlError, match="bytes"):
        surt_impl.surt_key(url)


#: Pathological URL of size parameter k, and the k at which it is timed (10 k is the
#: size that matters: close to the 65,536-byte limit, so it is processed, not refused).
_PATHOLOGICAL: list[tuple[Callable[[int], str], int]] = [
    (lambda k: "http://example.com/" + "%25" * k + "41", 2000),  # quadratic in surt's repeated unescape
    (lambda k: "http://example.com/" + "/(a(aaaaaaaaaaaaaaaaaaaaaaaa))" * k + "/x.aspx", 200),
    (lambda k: "http://example.com/" + "/(aaaaaaaaaaaaaaaaaaaaaaaa)" * k + "?.aspx", 200),
    (lambda k: "http://example.com/?" + "jsessionid=" * k + "x" * 31, 500),
    (lambda k: "http://example.com/?" + "cfid=1&cftoken" * k, 300),
    (lambda k: "http://example.com/?" + "&".join(f"k{i % 97}={i}" for i in range(k)), 600),
    (lambda k: "http://example.com/" + "../" * k, 1500),
    (lambda k: "http://" + "a." * k + "com/", 2000),
    (lambda k: "http://" + "@" * k + "example.com/", 3000),
    (lambda k: "http://" + "[" * k, 3000),
    (lambda k: "http://a:" + "1" * k + "x", 6000),
    (lambda k: "http://" + ":1" * k, 3000),
    (lambda k: "http://" + "a@" * k + "/", 3000),
    (lambda k: "http://" + "a" * k, 6000),
]


@pytest.mark.parametrize(("make", "n"), _PATHOLOGICAL, ids=range(len(_PATHOLOGICAL)))
def test_pathological_inputs_are_fast(surt_impl: ModuleType, make: Callable[[int], str], n: int) -> None:
    def run(k: int) -> None:
        url = make(k)
        for args in ((), (True, False, False)):
            try:
                surt_impl.surt_key(url, *args)
            except UrlError:
                pass

    assert _scaling(run, n) < MAX_RATIO


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


@pytest.mark.parametrize(("make", "n"), _PATHOLOGICAL, ids=range(len(_PATHOLOGICAL)))
def test_pathological_inputs_all_styles(make: Callable[[int], str], n: int) -> None:
    def run(k: int) -> None:
        url = make(k)
        for style in STYLES:
            try:
                surt(url, style=style)  # type: ignore[arg-type]
            except UrlError:
                pass
        try:
            canonicalize(url, rules="heritrix")
        except UrlError:
            pass

    assert _scaling(run, n) < MAX_RATIO
