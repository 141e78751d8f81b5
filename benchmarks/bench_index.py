"""Indexing throughput: ``warckit index`` vs ``fastwarc index`` vs ``cdxj-indexer``, side by side.

Makes (or reuses) a synthetic corpus with ``/work/shared/bench/make_corpus.py OUT SIZE
--mix domain --compress gzip`` and times whole processes, alternating the tools run by run
(A B C A B C …), output to ``/dev/null``. Prints medians, MB/s, records/s, peak RSS, the
lines each tool wrote and the ratios against warckit. ``--profile`` adds an in-process
cProfile of warckit's indexer (top functions by own time).

What is compared: ``warckit index`` writes the new-style CDX with SURT keys (default record
types: response, resource, revisit, metadata, conversion; POST bodies appended);
``fastwarc index`` writes its default CDXJ fields (offset, type, URI) for every record,
no SURT; ``cdxj-indexer`` writes pywb CDXJ with SURT keys for response/revisit/resource/
metadata. ``--format cdxj`` makes warckit do cdxj-indexer's job exactly.

Usage::

    python benchmarks/bench_index.py                        # 1000 MB corpus, 3 runs
    python benchmarks/bench_index.py --size 300 --runs 5 --profile
    python benchmarks/bench_index.py --corpus /tmp/c.warc.gz
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKE_CORPUS = Path("/work/shared/bench/make_corpus.py")


def _corpus(args: argparse.Namespace) -> Path:
    if args.corpus:
        return Path(args.corpus)
    base = Path(args.workdir) / f"bench-index-{args.size}"
    path = base.with_suffix(".warc.gz")
    if not path.exists():
        print(f"making {args.size} MB corpus at {path} …", file=sys.stderr)
        subprocess.run(
            [sys.executable, str(MAKE_CORPUS), str(base), str(args.size), "--mix", "domain",
             "--compress", "gzip"],
            check=True,
        )
    return path


def _commands(corpus: Path, fmt: str) -> dict[str, list[str]]:
    cmds = {
        "warckit index": [sys.executable, "-m", "warckit", "index", "-f", fmt, "-o", os.devnull, str(corpus)],
        "fastwarc index": ["fastwarc", "index", "-o", os.devnull, str(corpus)],
        "cdxj-indexer": ["cdxj-indexer", "-o", os.devnull, str(corpus)],
    }
    return {name: cmd for name, cmd in cmds.items() if shutil.which(cmd[0]) or cmd[0] == sys.executable}


def _run(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process (``os.wait4`` rusage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return elapsed, usage.ru_maxrss / 1024


def _lines(cmd: list[str]) -> int:
    out = [c if c != os.devnull else "-" for c in cmd]
    if out[0] == "cdxj-indexer":
        out = [c for c in out if c not in ("-o", "-")]
    if out[:2] == ["fastwarc", "index"]:
        out = [c for c in out if c not in ("-o", "-")]
    result = subprocess.run(out, check=True, cwd=ROOT, capture_output=True)
    return result.stdout.count(b"\n")


def _profile(corpus: Path, fmt: str) -> None:
    sys.path.insert(0, str(ROOT))
    from warckit.cdx import IndexOptions, index_file

    prof = cProfile.Profile()
    prof.enable()
    count = sum(1 for _ in index_file(corpus, IndexOptions(format=fmt)))  # type: ignore[arg-type]
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
    print(f"\ncProfile of warckit's indexer ({count} lines), top 15 by own time:")
    print(buf.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1000, help="corpus size in MB (default 1000)")
    parser.add_argument("--corpus", help="use this WARC instead of generating one")
    parser.add_argument("--workdir", default="/tmp", help="where the corpus is made")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--format", default="cdx", choices=["cdx", "cdxj", "cdx11", "cdx9"],
                        help="warckit output format (default: new-style CDX)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _precompile import precompile

    precompile()

    corpus = _corpus(args)
    size_mb = corpus.stat().st_size / 1e6
    cmds = _commands(corpus, args.format)
    for cmd in cmds.values():  # warm-up: page cache, imports
        _run(cmd)
    times: dict[str, list[float]] = {name: [] for name in cmds}
    rss: dict[str, float] = {name: 0.0 for name in cmds}
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            elapsed, peak = _run(cmd)
            times[name].append(elapsed)
            rss[name] = max(rss[name], peak)
    lines = {name: _lines(cmd) for name, cmd in cmds.items()}

    base = statistics.median(times["warckit index"])
    print(f"corpus: {corpus} ({size_mb:.0f} MB compressed), {args.runs} runs each, median wall time")
    print(f"{'tool':<16}{'seconds':>9}{'MB/s':>8}{'lines':>9}{'peak MB':>9}{'warckit / tool':>16}")
    for name in cmds:
        med = statistics.median(times[name])
        print(
            f"{name:<16}{med:>9.3f}{size_mb / med:>8.0f}{lines[name]:>9}{rss[name]:>9.0f}"
            f"{base / med:>16.2f}"
        )
    if "fastwarc index" in times:
        print(f"target warckit/fastwarc <= 0.67: {base / statistics.median(times['fastwarc index']):.2f}")
    if "cdxj-indexer" in times:
        print(f"target warckit/cdxj-indexer <= 0.25: {base / statistics.median(times['cdxj-indexer']):.2f}")
    if args.profile:
        _profile(corpus, args.format)
    return 0


if __name__ == "__main__":
    sys.exit(main())
