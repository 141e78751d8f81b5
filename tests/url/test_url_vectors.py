"""Every vector of SPEC-DIGEST §4.4 / §4.5, from tests/url/cases_surt.tsv."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from warckit import _speedups
from warckit.errors import UrlError
from warckit.url import canonicalize, surt, surt_from_uri, surt_key
from warckit.url.canonicalize import RULE_SETS, lowercase_query

TABLE = Path(__file__).with_name("cases_surt.tsv")
_ESC = re.compile(r"\\(u[0-9a-fA-F]{4}|t|n|r|\\)")
_SIMPLE = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}


def _unescape(field: str) -> str | None:
    if field == "<None>":
        return None
    return _ESC.sub(lambda m: _SIMPLE.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), field)


def _options(field: str) -> dict[str, bool]:
    if not field:
        return {}
    return {k: v == "1" for k, v in (item.split("=") for item in field.split(";"))}


def _load() -> list[Any]:
    cases = []
    header = None
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line:
            continue
        cols = line.split("\t")
        if header is None:
            header = cols
            continue
        row = dict(zip(header, cols, strict=True))
        cases.append(pytest.param(row, id=f"{row['id']}-{row['fn']}"))
    return cases


CASES = _load()
#: The functions that run the selected SURT twin (``surt_key``); every other row
#: (canonicalize, surt_from_uri, the helpers) runs code that exists once, in pure Python.
TWIN_FNS = frozenset({"cdx", "new-style", "heritrix"})
TWIN_CASES = [p for p in CASES if p.values[0]["fn"] in TWIN_FNS]  # type: ignore[union-attr]
ONCE_CASES = [p for p in CASES if p.values[0]["fn"] not in TWIN_FNS]  # type: ignore[union-attr]
_KEEP_QUERY_CASE = tuple(r for r in RULE_SETS["ia-only"] if r is not lowercase_query)


def _run(row: dict[str, str], impl: ModuleType) -> str:
    url = _unescape(row["input"])
    fn = row["fn"]
    opts = _options(row["options"])
    calls: dict[str, Callable[[], str]] = {
        "cdx": lambda: surt_key(url, **opts),
        "new-style": lambda: surt(url, style="new-style", **opts),
        "heritrix": lambda: surt(url, style="heritrix", **opts),
        "google": lambda: canonicalize(str(url), rules="google"),
        "ia-only": lambda: canonicalize(str(url), rules="ia-only"),
        "ia-keep-query-case": lambda: canonicalize(str(url), rules=_KEEP_QUERY_CASE),
        "none": lambda: canonicalize(str(url), rules="none"),
        "heritrix-fixup": lambda: canonicalize(str(url), rules="heritrix"),
        "fromuri": lambda: surt_from_uri(str(url)),
        "ip": lambda: impl.attempt_ip(str(url).encode()).decode(),
        "massage": lambda: impl.strip_www_label(str(url).encode()).decode(),
        "sortq": lambda: impl.sort_query(str(url).encode()).decode(),
    }
    return calls[fn]()


def test_table_covers_every_digest_vector() -> None:
    ids = {re.match(r"\d+", p.values[0]["id"]).group() for p in CASES if p.values[0]["id"][0].isdigit()}  # type: ignore[union-attr]
    assert ids == {str(i) for i in range(1, 86)}


def _check(row: dict[str, str], impl: ModuleType) -> None:
    if row["expected"] == "<UrlError>":
        with pytest.raises(UrlError):
            _run(row, impl)
    else:
        assert _run(row, impl) == _unescape(row["expected"])


@pytest.mark.parametrize("row", TWIN_CASES)
def test_vector(row: dict[str, str], surt_impl: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows whose function runs ``surt_key``: once per twin."""
    # the package attribute warckit.url.surt is the function; the module is in sys.modules
    monkeypatch.setattr(importlib.import_module("warckit.url.surt"), "_impl", surt_impl)
    _check(row, surt_impl)


@pytest.mark.parametrize("row", ONCE_CASES)
def test_vector_single_implementation(row: dict[str, str]) -> None:
    """The rows whose code has no compiled twin: once."""
    _check(row, _speedups.pure("surt"))


def test_rows_split_by_implementation() -> None:
    assert len(TWIN_CASES) + len(ONCE_CASES) == len(CASES) == 147
    assert len(TWIN_CASES) == 63
