"""The library's look-up refuses what ``warckit query`` refuses, before reading an index."""

from __future__ import annotations

from pathlib import Path

import pytest

from warckit.cdx.query import Query, check_url, query
from warckit.errors import UsageError


@pytest.mark.parametrize("url, problem", [
    ("", "empty or has white space"),
    ("http://exa mple.com/", "empty or has white space"),
    ("http:///path", "no host"),
    ("http://example.com:99999/", "Port out of range"),
])
def test_bad_urls_are_refused_by_query_and_query_objects(tmp_path: Path, url: str, problem: str) -> None:
    missing = tmp_path / "never-opened.cdxj"  # the check comes first: no file error
    for call in (lambda: check_url(url), lambda: Query(url), lambda: query([missing], url)):
        with pytest.raises(UsageError, match=problem):
            call()


def test_good_urls_pass() -> None:
    for url in ("example.com", "http://example.com:8080/a?b", "dns:example.com", "urn:uuid:1"):
        check_url(url)
        assert Query(url).url == url
