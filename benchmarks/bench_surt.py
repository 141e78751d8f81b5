"""Throughput of warckit's cdx-style SURT key vs python ``surt`` 0.3.1, side by side.

Generates a deterministic corpus of realistic URLs (3,000 hosts, ~10% IDN hosts in
several scripts, ``www.``/``WWW.``/``www2.``/``m.`` prefixes, ports, queries with
session ids and percent-escapes, fragments), then times both implementations in
alternating runs and prints medians and the ratio.

Usage::

    python benchmarks/bench_surt.py                  # 200,000 URLs, 3 runs each
    python benchmarks/bench_surt.py --count 50000 --runs 5
    WARCKIT_NO_EXTENSIONS=1 python benchmarks/bench_surt.py   # the pure-Python twin
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run from a checkout without installing: the repository root holds the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_WORDS = ["news", "blog", "shop", "archive", "media", "static", "img", "cdn", "api", "forum", "wiki", "data", "maps", "docs", "mail", "video", "music", "sport", "travel", "food", "health", "science", "library", "museum", "gov", "city", "school"]
_IDN_WORDS = ["bücher", "café", "münchen", "zürich", "straße", "crème", "españa", "façade", "ελλάδα", "москва", "пример", "例子", "東京", "ひらがな", "한국", "landsbókasafn", "fußball", "smörgås", "øresund"]
_TLDS = ["com", "org", "net", "de", "fr", "uk", "is", "ru", "jp", "cn", "gr", "ch", "at", "nl", "se", "info", "io"]
_PREFIXES = ("", "", "", "www.", "www.", "WWW.", "www2.", "m.", "blog.")
_PATH_WORDS = ["index.html", "about", "contact", "article", "page", "2024", "01", "img", "logo.png", "a", "b", "c", "~user", "search"]


def _host(rng: random.Random) -> str:
    if rng.random() < 0.1:
        name = rng.choice(_IDN_WORDS) + (str(rng.randint(1, 99)) if rng.random() < 0.3 else "")
    else:
        name = rng.choice(_WORDS) + rng.choice(_WORDS) + str(rng.randint(0, 999))
    return rng.choice(_PREFIXES) + name + "." + rng.choice(_TLDS)


def make_urls(count: int, seed: int = 20240301) -> list[str]:
    """Return *count* realistic URLs, the same list for the same seed."""
    rng = random.Random(seed)
    hosts = [_host(rng) for _ in range(3000)]
    urls = []
    for _ in range(count):
        scheme = "https" if rng.random() < 0.6 else "http"
        host = rng.choice(hosts)
        if rng.random() < 0.5:
            host = host.lower()
        port = rng.choice(("", "", "", "", "", "", ":80", ":443", ":8080"))
        segs = [rng.choice(_PATH_WORDS) for _ in range(rng.randint(0, 5))]
        if rng.random() < 0.1:
            segs.append("%C3%A4%20x%2Fy")
        if rng.random() < 0.05:
            segs.append("..")
        path = "/" + "/".join(segs) + ("/" if rng.random() < 0.3 else "")
        query = ""
        r = rng.random()
        if r < 0.4:
            args = [
                f"{rng.choice('abcdefqxyzPQ')}{rng.randint(0, 9)}={rng.randint(0, 99999)}"
                for _ in range(rng.randint(1, 5))
            ]
            if rng.random() < 0.1:
                args.append("jsessionid=" + "".join(rng.choice("0123456789ABCDEF") for _ in range(32)))
            if rng.random() < 0.1:
                args.append("q=caf%C3%A9+au+lait")
            query = "?" + "&".join(args)
        frag = "#top" if rng.random() < 0.05 else ""
        urls.append(f"{scheme}://{host}{port}{path}{query}{frag}")
    return urls


def _time(func: Callable[[str], str], urls: list[str]) -> float:
    gc.collect()
    start = time.perf_counter()
    for url in urls:
        func(url)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print per-run times, medians and the speed ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)

    import surt as surt_pkg

    from warckit import _speedups
    from warckit.url import surt

    urls = make_urls(args.count)
    mismatches = sum(1 for u in urls[:20000] if surt(u, style="cdx") != surt_pkg.surt(u))
    print(f"{len(urls)} URLs; warckit implementation: {_speedups.load('surt').__name__}")
    print(f"output mismatches vs surt on the first 20,000: {mismatches}")

    def ours(url: str) -> str:
        return surt(url, style="cdx")

    timings: dict[str, list[float]] = {"warckit": [], "surt": []}
    for run in range(args.runs):
        for name, func in (("warckit", ours), ("surt", surt_pkg.surt)):
            seconds = _time(func, urls)
            timings[name].append(seconds)
            print(f"run {run + 1} {name:8s} {seconds:7.3f} s  {len(urls) / seconds:12,.0f} URLs/s")
    med = {name: statistics.median(values) for name, values in timings.items()}
    for name, seconds in med.items():
        print(f"median {name:8s} {seconds:7.3f} s  {len(urls) / seconds:12,.0f} URLs/s")
    print(f"ratio warckit/surt: {med['surt'] / med['warckit']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
