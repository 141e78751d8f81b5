"""Beyond one machine: Spark (local[2]) against ``warckit index -j 2``, Parquet against CDXJ.

Makes ``--files`` gzip-per-record WARCs of ``--size``/``--files`` MB each (uncompressed;
``../shared/bench/make_corpus.py``, ``--mix``, seeds 1…N), then reports, median of
``--runs``:

* build: wall time and rows/s of ``warckit index -j 2 -f cdxj --sort`` and
  ``warckit index -j 2 -f parquet`` against ``python -m warckit.spark index --master
  local[2]`` in the same two formats (the command's wall time includes starting the
  JVM), and the Spark job alone in a session that is already up;
* size: the Parquet index (zstd) against the sorted CDXJ, gzipped (level 6) and as
  ZipNum;
* query: a domain's captures, for ``--queries`` domains drawn from the index: DuckDB on
  the Parquet index (``query_parquet(..., match="domain")``, and CC's SQL on
  ``url_host_registered_domain``) against ``warckit query --match domain`` on the
  CDXJ, in one process (no start-up), median per query.

Usage::

    python benchmarks/bench_scale.py                      # 1 GB in 8 files, cc mix, 3 runs
    python benchmarks/bench_scale.py --size 200 --runs 1  # a quick look
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "benchmarks"
MAKE_CORPUS = ROOT.parent / "shared" / "bench" / "make_corpus.py"
sys.path.insert(0, str(ROOT))

from _precompile import precompile


def make_corpus(workdir: Path, size: int, files: int, mix: str) -> list[Path]:
    workdir.mkdir(parents=True, exist_ok=True)
    each = max(1, size // files)
    out = []
    for seed in range(1, files + 1):
        base = workdir / f"{mix}-{each}-{seed}"
        path = base.with_suffix(".warc.gz")
        if not path.exists():
            subprocess.run([sys.executable, str(MAKE_CORPUS), str(base), str(each), "--mix", mix,
                            "--seed", str(seed), "--compress", "gzip"], check=True,
                           stdout=subprocess.DEVNULL)
        out.append(path)
    return out


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def timed_runs(make_cmd: Callable[[Path], list[str]], out: Path, runs: int) -> list[float]:
    """Run the command *runs* times, each into a fresh *out*; wall seconds."""
    times = []
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        if out.suffix:
            out.unlink(missing_ok=True)
        t0 = time.perf_counter()
        # cwd "/": -m puts the cwd first on sys.path, which would shadow PYTHONPATH.
        subprocess.run(make_cmd(out), env=_env(), cwd="/", check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
    return times


def tree_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def parquet_rows(path: Path) -> int:
    import duckdb

    from warckit.columnar.query import parquet_files

    (count,) = duckdb.connect().execute("SELECT count(*) FROM read_parquet(?)",
                                        [parquet_files(str(path))]).fetchone()
    return int(count)


def spark_in_session(files: list[Path], workdir: Path, runs: int) -> dict[str, list[float]]:
    """index_warcs in one warm local[2] session (start-up excluded)."""
    from pyspark.sql import SparkSession

    from warckit.spark import index_warcs

    spark = (SparkSession.builder.master("local[2]").appName("bench_scale")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.pyspark.python", sys.executable)
             .config("spark.executorEnv.PYTHONPATH", str(ROOT))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    out: dict[str, list[float]] = {}
    try:
        for fmt in ("cdxj", "parquet"):
            target = workdir / f"spark-warm-{fmt}"
            index_warcs(spark, [str(f) for f in files], str(target), format=fmt, crawl="BENCH", overwrite=True)
            times = []
            for _ in range(runs):
                shutil.rmtree(target, ignore_errors=True)
                t0 = time.perf_counter()
                index_warcs(spark, [str(f) for f in files], str(target), format=fmt, crawl="BENCH")
                times.append(time.perf_counter() - t0)
            out[fmt] = times
    finally:
        spark.stop()
    return out


def query_times(parquet: Path, cdxj: Path, domains: list[str], runs: int) -> dict[str, Any]:
    import duckdb

    from warckit.cdx.query import Query, run_query
    from warckit.columnar.query import parquet_files, query_parquet

    files = parquet_files(str(parquet))
    con = duckdb.connect()
    sql = ("SELECT url, warc_filename, warc_record_offset, warc_record_length FROM read_parquet(?, "
           "hive_partitioning = true) WHERE url_host_registered_domain = ?")
    names = ("warckit query (CDXJ)", "query_parquet (DuckDB)", "DuckDB SQL, registered domain")
    per: dict[str, list[float]] = {name: [] for name in names}
    matches = []
    for domain in domains:
        url = "http://" + domain + "/"
        best: dict[str, float] = {}
        for _ in range(runs):
            t0 = time.perf_counter()
            a = list(run_query(str(cdxj), Query(url, "domain")))
            t1 = time.perf_counter()
            b = query_parquet(str(parquet), url, match="domain")
            t2 = time.perf_counter()
            c = con.execute(sql, [files, domain]).fetchall()
            t3 = time.perf_counter()
            assert [e.format() for e in a] == [e.format() for e in b], domain
            for name, t in zip(names, (t1 - t0, t2 - t1, t3 - t2)):
                best[name] = min(best.get(name, float("inf")), t)
        for name, t in best.items():
            per[name].append(t)
        assert len(a) == len(c), (domain, len(a), len(c))
        matches.append((len(a), len(c)))
    return {"per": per, "matches": matches}


def domains_of(parquet: Path, count: int) -> list[str]:
    """*count* registered domains of the index, drawn with a fixed seed."""
    import duckdb

    from warckit.columnar.query import parquet_files

    found = duckdb.connect().execute(
        "SELECT DISTINCT url_host_registered_domain FROM read_parquet(?, hive_partitioning = true) "
        "WHERE url_host_registered_domain IS NOT NULL ORDER BY 1", [parquet_files(str(parquet))]).fetchall()
    rng = random.Random(20261202)
    registered = [d for (d,) in found]
    return rng.sample(registered, min(count, len(registered)))


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1000, help="MB of uncompressed WARC in all (default 1000)")
    ap.add_argument("--files", type=int, default=8, help="files the corpus is cut into (default 8)")
    ap.add_argument("--mix", default="cc", choices=("cc", "domain", "small"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", type=int, default=20, help="domains queried (default 20)")
    ap.add_argument("--workdir", default="/tmp/warckit-scale")
    ap.add_argument("--out", default=str(HERE / "RESULTS-scale.md"))
    args = ap.parse_args()
    precompile()
    workdir = Path(args.workdir)
    files = make_corpus(workdir / "corpus", args.size, args.files, args.mix)
    inputs = [str(f) for f in files]
    compressed = sum(f.stat().st_size for f in files)
    py = sys.executable
    cdxj = workdir / "index.cdxj"
    pq = workdir / "parquet"
    zipnum = workdir / "zipnum"
    cmds: dict[str, tuple[Callable[[Path], list[str]], Path]] = {
        "warckit index -j 2 -f cdxj --sort": (
            lambda o: [py, "-m", "warckit", "index", "-j", "2", "-f", "cdxj", "--sort", "-o", str(o), *inputs], cdxj),
        "warckit index -j 2 -f parquet": (
            lambda o: [py, "-m", "warckit", "index", "-j", "2", "-f", "parquet", "--crawl", "BENCH",
                       "-o", str(o), *inputs], pq),
        "warckit index -j 2 -f parquet --no-detect": (
            lambda o: [py, "-m", "warckit", "index", "-j", "2", "-f", "parquet", "--crawl", "BENCH",
                       "--no-detect", "-o", str(o), *inputs], workdir / "parquet-no-detect"),
        "spark index local[2] -f cdxj": (
            lambda o: [py, "-m", "warckit.spark", "index", "--master", "local[2]", "-f", "cdxj",
                       "-o", str(o), *inputs], workdir / "spark-cdxj"),
        "spark index local[2] -f parquet": (
            lambda o: [py, "-m", "warckit.spark", "index", "--master", "local[2]", "-f", "parquet",
                       "--crawl", "BENCH", "-o", str(o), *inputs], workdir / "spark-parquet"),
    }
    build = {name: timed_runs(make, out, args.runs) for name, (make, out) in cmds.items()}
    warm = spark_in_session(files, workdir, args.runs)
    rows = parquet_rows(pq)
    assert rows == parquet_rows(workdir / "spark-parquet"), "Spark and one-machine row counts differ"
    with open(cdxj, encoding="utf-8") as f:
        lines = sum(1 for line in f if not line.startswith("!"))

    # sizes
    gz = workdir / "index.cdxj.gz"
    with open(cdxj, "rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(zipnum, ignore_errors=True)
    zipnum.mkdir()
    subprocess.run([py, "-m", "warckit", "index", "-j", "2", "-f", "cdxj", "--zipnum",
                    str(zipnum / "index"), *inputs], env=_env(), cwd="/", check=True)
    sizes = {"CDXJ, sorted": tree_bytes(cdxj), "CDXJ, gzip -6": tree_bytes(gz),
             "ZipNum (cdxj)": tree_bytes(zipnum), "Parquet (zstd)": tree_bytes(pq)}

    domains = domains_of(pq, args.queries)
    q = query_times(pq, cdxj, domains, args.runs)

    report = [
        "# Spark and Parquet at one machine's scale (`benchmarks/bench_scale.py`)",
        "",
        (f"`python benchmarks/bench_scale.py --size {args.size} --files {args.files} --mix {args.mix} "
         f"--runs {args.runs} --queries {args.queries}`"),
        "",
        (f"Machine: {os.cpu_count()} cores; Python {platform.python_version()}; corpus: {len(files)} "
         f"gzip-per-record WARCs, {args.size} MB uncompressed, {compressed / 1e6:.0f} MB on disk; "
         f"{lines} CDXJ lines, {rows} Parquet rows."),
        "",
        "## Build (median of runs; rows/s = rows / wall)",
        "",
        "| job | median s | rows/s | vs warckit index -j 2 (same format) |",
        "|---|---|---|---|",
    ]
    ref = {"cdxj": median(build["warckit index -j 2 -f cdxj --sort"]),
           "parquet": median(build["warckit index -j 2 -f parquet"])}
    for name, times in build.items():
        fmt = "parquet" if "parquet" in name else "cdxj"
        m = median(times)
        report.append(f"| {name} | {m:.2f} | {rows / m:,.0f} | {m / ref[fmt]:.2f} |")
    for fmt, times in warm.items():
        m = median(times)
        report.append(f"| index_warcs {fmt}, session already up | {m:.2f} | {rows / m:,.0f} | "
                      f"{m / ref[fmt]:.2f} |")
    report += ["", "## Index size", "", "| index | bytes | vs CDXJ gzip |", "|---|---|---|"]
    for name, size in sizes.items():
        report.append(f"| {name} | {size:,} | {size / sizes['CDXJ, gzip -6']:.2f} |")
    report += ["", (f"## A domain's captures ({len(domains)} domains; per query: best of {args.runs}, "
                    "then the median over domains; in one process)"), "",
               "| query | median ms | max ms |", "|---|---|---|"]
    for name, times in q["per"].items():
        report.append(f"| {name} | {median(times) * 1e3:.1f} | {max(times) * 1e3:.1f} |")
    counts = [a for a, _ in q["matches"]]
    report += ["", (f"Captures per domain: median {median(counts):.0f}, max {max(counts)}; "
                    "query_parquet's answers equal warckit query's (asserted).")]
    text = "\n".join(report) + "\n"
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
