"""Large batches stream through the store in bounded memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from store_fixtures import many_lines

from warckit.serve.store import CdxStore

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import json, os, resource, sys
sys.path.insert(0, os.path.join(sys.argv[3], "tests", "serve"))
from store_fixtures import many_lines
from warckit.cdx.query import Query, run_query
from warckit.serve.store import CdxStore

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

n = int(sys.argv[2])
store = CdxStore(sys.argv[1])
before = rss()
added = store.add(many_lines(n)).count
after_add = rss()
scanned = sum(len(line) for line in store.iter_prefix(b""))
after_scan = rss()
hit = [e.format() for e in run_query([store], Query(f"http://example.com/p{n - 1:08d}"))]
print(json.dumps({"before": before, "after_add": after_add, "after_scan": after_scan,
                  "added": added, "scanned": scanned, "hit": hit}))
"""


@pytest.mark.slow
def test_a_million_line_batch_in_bounded_memory(tmp_path: Path) -> None:
    n = 1_000_000
    db = tmp_path / "big.sqlite"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(db), str(n), str(ROOT)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
                         check=False)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    text_bytes = sum(len(line) for line in many_lines(n))
    assert got["added"] == n and got["scanned"] == text_bytes  # about 128 MB of lines
    assert got["hit"] == [(f'com,example)/p{n - 1:08d} 20200101000000 {{"url": '
                          f'"http://example.com/p{n - 1:08d}", "offset": "{n - 1}", '
                          f'"filename": "big.warc.gz"}}')]
    # the peak resident size grows by a few MB (SQLite's page caches), not by the batch
    assert got["after_add"] - got["before"] < 40 << 20, got
    assert got["after_scan"] - got["before"] < 40 << 20, got


def _peak(run: object) -> int:
    tracemalloc.start()
    try:
        run()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_python_memory_does_not_grow_with_the_batch(tmp_path: Path) -> None:
    small, large = CdxStore(tmp_path / "s.sqlite"), CdxStore(tmp_path / "l.sqlite")
    small.add(many_lines(10))  # connections and statements made before measuring
    large.add(many_lines(10))
    peak_small = _peak(lambda: small.add(many_lines(1_000)))
    peak_large = _peak(lambda: large.add(many_lines(20_000)))  # 20 times more, 2.6 MB
    assert peak_large < 1 << 20 and peak_large < 2 * peak_small + (256 << 10), (peak_small, peak_large)
    scan_peak = _peak(lambda: sum(1 for _ in large.iter_prefix(b"")))
    assert scan_peak < 512 << 10
    assert _peak(lambda: large.delete(many_lines(20_000))) < 1 << 20
    assert list(large.iter_prefix(b"")) == []
    small.close()
    large.close()
