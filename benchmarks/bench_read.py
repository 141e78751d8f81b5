"""Read benchmark: warckit vs warcio vs FastWARC vs a bare isal gunzip, side by side.

Usage::

    python benchmarks/bench_read.py FILE.warc.gz [FILE ...] [--runs 5] [--mode headers|payload|all]

Make inputs with ``python ../shared/bench/make_corpus.py OUT 1000 --mix domain`` (and
``--mix cc``). Each contender runs in its own subprocess (whole-process wall time,
start-up included, as in ../shared/bench/BASELINE.md), alternating A B A B…; the
report gives medians and the paired median ratio against FastWARC and the isal floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _precompile import precompile
from suite import READ_CONTENDERS as CONTENDERS


def run_once(name: str, path: str, payload: bool) -> float:
    code = f"PATH = {path!r}\nPAYLOAD = {payload}\n" + CONTENDERS[name]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if name == "warckit-py":
        env["WARCKIT_NO_EXTENSIONS"] = "1"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mode", choices=["headers", "payload", "all"], default="all")
    ap.add_argument("--contenders", default="isal-gunzip,fastwarc,warcio,warckit,warckit-py")
    args = ap.parse_args()
    precompile()
    precompile()
    names = args.contenders.split(",")
    modes = ["headers", "payload"] if args.mode == "all" else [args.mode]
    for path in args.files:
        size = os.path.getsize(path)
        for mode in modes:
            payload = mode == "payload"
            times: dict[str, list[float]] = {n: [] for n in names}
            for name in names:  # warm-up
                run_once(name, path, payload)
            for _ in range(args.runs):
                for name in names:
                    times[name].append(run_once(name, path, payload))
            print(f"\n{os.path.basename(path)} ({size / 1e6:.0f} MB), {mode}, {args.runs} runs")
            print(f"{'contender':<14}{'median s':>10}{'MB/s':>9}{'vs fastwarc':>13}{'vs isal':>9}")
            for name in names:
                med = statistics.median(times[name])
                row = f"{name:<14}{med:>10.3f}{size / 1e6 / med:>9.0f}"
                for ref in ("fastwarc", "isal-gunzip"):
                    if ref in times:
                        ratios = [a / b for a, b in zip(times[name], times[ref])]
                        row += f"{statistics.median(ratios):>{13 if ref == 'fastwarc' else 9}.2f}"
                print(row)


if __name__ == "__main__":
    main()
