"""Look-ups in a WACZ whose index is a plain ``indexes/index.cdx`` (small packages)."""

from __future__ import annotations

from pathlib import Path

from corpus_paths import corpus_path

from warckit.cdx.query import Query, run_query
from warckit.wacz import WaczIndex, create_wacz
from warckit.wacz.query import CDX


def test_domain_lookup_runs_two_scans_on_the_plain_index(tmp_path: Path) -> None:
    # A domain look-up merges two prefix scans of the one member; each scan once closed
    # the shared member when its buffer was dropped ("seek of closed file") and both
    # moved one file position.
    wacz = tmp_path / "iana.wacz"
    create_wacz([corpus_path("pywb/iana.warc.gz")], wacz)
    with WaczIndex(wacz) as index:
        assert index.index_member == CDX
        lines = [e.format() for e in run_query([index], Query("iana.org", "domain"))]
        again = [e.format() for e in run_query([index], Query("iana.org", "domain"))]
        exact = [e.format() for e in run_query([index], Query("http://www.iana.org/", "exact"))]
    with WaczIndex(wacz) as index:
        plain = tmp_path / "index.cdx"
        plain.write_bytes(b"".join(index.iter_all()))
    expected = [e.format() for e in run_query([str(plain)], Query("iana.org", "domain"))]
    assert len(lines) > 12 and lines == expected == again
    assert exact and all(" http://www.iana.org/ " in f" {line} " or '"url": "http://www.iana.org/"' in line
                         for line in exact)
