"""Shared helpers of the CDX API and Memento tests: indexes built with ``warckit index``
from pywb's corpus WARCs, ``warckit query`` run in-process, and pywb's own CDX
operations run in-process on the same index files.

Imported by name (``from cdxapi_fixtures import …``), never through ``conftest``.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import CORPUS

from warckit.cdx.query import Index
from warckit.cli import main as warckit_main
from warckit.serve.cdxapi import cdx_response, parse_cdx_request

#: The WARCs indexed (pywb's test data: several captures per URL, revisits, redirects).
WARCS = ("dupes.warc.gz", "example.warc.gz", "example2.warc.gz", "iana.warc.gz",
         "example-url-agnostic-orig.warc.gz", "example-url-agnostic-revisit.warc.gz")


@dataclass(frozen=True)
class Built:
    """Index files of the same WARCs, one per form."""

    cdx: Path       # new-style (warckit index default), sorted
    cdxj: Path      # pywb CDXJ
    cdx11: Path     # classic CDX-11
    zipnum: Path    # ZipNum .idx of the CDXJ lines, 5 lines a block
    cdxj_a: Path    # the CDXJ of the first half of WARCS
    cdxj_b: Path    # ... and of the second half
    warcs: Path     # the directory the WARCs are in


def run_warckit(*argv: str) -> tuple[int, bytes]:
    """Run the ``warckit`` command line in-process: ``(exit status, standard output)``."""
    out = io.BytesIO()
    wrapper = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(wrapper):
        old = sys.stdout
        try:
            status = warckit_main(list(argv))
        finally:
            sys.stdout = old
        wrapper.flush()
    return status, out.getvalue()


def _index(fmt: str, out: Path, *warcs: Path, extra: tuple[str, ...] = ()) -> None:
    status, _ = run_warckit("index", "-s", "-j", "1", "-f", fmt, *extra, "-o", str(out),
                            *map(str, warcs))
    assert status == 0, (fmt, out)


def build(tmp: Path) -> Built:
    """Index :data:`WARCS` in every form under *tmp*."""
    src = CORPUS / "pywb"
    warcs = [src / name for name in WARCS]
    for w in warcs:
        if not w.exists():
            pytest.skip(f"corpus file {w} not available")
    built = Built(tmp / "all.cdx", tmp / "all.cdxj", tmp / "all.cdx11", tmp / "zn.idx",
                  tmp / "a.cdxj", tmp / "b.cdxj", src)
    _index("cdx", built.cdx, *warcs)
    _index("cdxj", built.cdxj, *warcs)
    _index("cdx11", built.cdx11, *warcs)
    _index("cdxj", tmp / "zn-unused.cdxj", *warcs, extra=("--zipnum", str(tmp / "zn"), "--block-lines", "5"))
    _index("cdxj", built.cdxj_a, *warcs[:3])
    _index("cdxj", built.cdxj_b, *warcs[3:])
    return built


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The indexes of :data:`WARCS` (built once per session)."""
    return build(tmp_path_factory.mktemp("cdxapi"))


def ours(sources: list[Any], params: list[tuple[str, str]]) -> tuple[str, bytes]:
    """``cdx_response`` on *sources* (paths become :class:`Index`; a str with no suffix
    stays a Parquet path), the body joined."""
    opened = [Index(s) if isinstance(s, Path) else s for s in sources]
    ctype, body = cdx_response(opened, parse_cdx_request(params))
    return ctype, b"".join(body)


def query_cli(index: Path, url: str, *options: str) -> bytes:
    """``warckit query`` output (empty when it finds nothing)."""
    status, out = run_warckit("query", *options, str(index), url)
    assert status in (0, 1), status
    return out


# -- pywb, in-process ---------------------------------------------------------------


class _PywbSource:
    """A pywb index source as ``cdx_load`` wants it (``load_cdx(query)``)."""

    def __init__(self, path: Path) -> None:
        from pywb.warcserver.index.indexsource import FileIndexSource
        from pywb.warcserver.index.zipnum import ZipNumIndexSource

        self.inner: Any = (ZipNumIndexSource(str(path)) if path.suffix == ".idx"
                           else FileIndexSource(str(path)))

    def load_cdx(self, query: Any) -> Iterator[Any]:
        """The lines as text again: ``cdx_load`` makes the ``CDXObject``s itself."""
        for obj in self.inner.load_index(query.params):
            yield obj if query.page_count else obj.cdxline


def pywb(paths: list[Path], params: list[tuple[str, str]]) -> bytes:
    """pywb's answer (``cdx_load`` with the same parameters, rendered as its
    warcserver's ``IndexHandler`` renders each output form)."""
    from pywb.warcserver.index.cdxops import cdx_load
    from pywb.warcserver.index.query import CDXQuery

    d: dict[str, Any] = {}
    for name, value in params:
        if name == "filter":
            d.setdefault("filter", []).append(value)
        else:
            d[name] = value
    output = d.get("output", "cdxj")
    d["output"] = output
    query = CDXQuery(d)
    fields = query.fields
    results = cdx_load([_PywbSource(p) for p in paths], query)
    if query.page_count:
        return b"".join(r.to_json().encode() + b"\n" for r in results)
    if output == "cdxj":
        return "".join(r.to_cdxj(fields) for r in results).encode()
    return "".join(results).encode()
