"""WACZ creation throughput: ``warckit wacz create`` vs py-wacz's ``wacz create``.

Makes (once) a gzip-per-record WARC with ``../shared/bench/make_corpus.py``, then
packages it with each tool in its own process, alternating for ``--runs`` rounds, and
prints the median wall time, MB/s (input WARC bytes, 10^6, per second) and the peak
RSS of each. Both write the same things: WARC stored, a sorted CDXJ index compressed
in 1024-line blocks, ``index.idx``, page list, ``datapackage.json``.

Usage::

    python benchmarks/wacz.py                       # 100 MB of the cc mix, 3 runs
    python benchmarks/wacz.py --mix domain --size 300 --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MAKE_CORPUS = ROOT.parent / "shared" / "bench" / "make_corpus.py"

# Each contender packages WARC into OUT; py-wacz writes its ZipNum index always, so
# warckit is asked for the same (plain_max_lines=0) and both detect pages.
_RUN = """
import resource, sys, time
sys.path.insert(0, {root!r})
t = time.perf_counter()
{code}
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(elapsed, peak)
"""
CONTENDERS = {
    # py-wacz titles pages by URL (without --text), as warckit does by default.
    "warckit": ("from warckit.wacz import create_wacz\n"
                "create_wacz([WARC], OUT, plain_max_lines=0)"),
    "warckit-titles": ("from warckit.wacz import create_wacz\n"
                       "create_wacz([WARC], OUT, plain_max_lines=0, titles=True)"),
    "py-wacz": ("from wacz.main import main\n"
                "import contextlib, io\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n"
                "    assert main(['create', '--detect-pages', '-o', OUT, WARC]) == 0"),
}


def _corpus(mix: str, size: int, work: Path) -> Path:
    base = work / f"{mix}-{size}"
    path = base.with_suffix(".warc.gz")
    if not path.exists():
        subprocess.run([sys.executable, str(MAKE_CORPUS), str(base), str(size), "--mix", mix,
                        "--compress", "gzip"], check=True, capture_output=True)
    return path


def _once(name: str, warc: Path, out: Path) -> tuple[float, int]:
    if out.exists():
        out.unlink()
    code = f"WARC, OUT = {str(warc)!r}, {str(out)!r}\n" + CONTENDERS[name]
    result = subprocess.run([sys.executable, "-c", _RUN.format(root=str(ROOT), code=code)],
                            check=True, capture_output=True, text=True)
    elapsed, peak = result.stdout.split()[-2:]
    return float(elapsed), int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mix", default="cc", choices=("cc", "domain", "small"))
    parser.add_argument("--size", type=int, default=100, help="MB of uncompressed WARC (default: 100)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (default: 3)")
    parser.add_argument("--work", default=None, help="directory for the corpus and outputs")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="wacz-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    warc = _corpus(args.mix, args.size, work)
    size = warc.stat().st_size
    times: dict[str, list[float]] = {n: [] for n in CONTENDERS}
    peaks: dict[str, int] = {n: 0 for n in CONTENDERS}
    for _ in range(args.runs):
        for name in CONTENDERS:
            elapsed, peak = _once(name, warc, work / f"{name}.wacz")
            times[name].append(elapsed)
            peaks[name] = max(peaks[name], peak)
    print(f"input: {warc.name}, {size / 1e6:.1f} MB (gzip), {args.runs} runs, "
          f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    base = statistics.median(times["py-wacz"])
    for name in CONTENDERS:
        median = statistics.median(times[name])
        print(f"{name:17s} {median:7.2f} s  {size / 1e6 / median:7.1f} MB/s  "
              f"x{base / median:5.2f} vs py-wacz  peak RSS {peaks[name] / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
