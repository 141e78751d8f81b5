"""Remote reading on loopback: bytes moved for one random record, time to list a file.

Makes a gzip-per-record WARC with ``../shared/bench/make_corpus.py`` (``--size`` MB,
``--mix``), serves it from the loopback HTTP server that honours ``Range`` and from
moto's S3 server (the test suite's, ``tests/remote/remote_servers.py``), and reports:

* bytes: for ``--records`` random records, the bytes the server sent for
  ``read_record_at(url, offset, length=L)`` (L from the listing, as a CDX line gives it)
  and for ``read_record_at(url, offset)`` without a length, against L;
* time: listing every record (offset, type, target URI; bodies skipped) of the local
  file, over HTTP and over S3, and ``index -j 2`` of the local file and over HTTP
  (pieces read by ranges), median of ``--runs`` (the servers run in a child process,
  so they do not share this process's interpreter lock).

Usage::

    python benchmarks/remote.py                 # 100 MB, cc mix, 3 runs
    python benchmarks/remote.py --size 20 --runs 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "remote")]

from remote_servers import CountingS3, RangeServer

import warckit
from warckit.cdx.build import write_index


def make(out: Path, size: int, mix: str) -> Path:
    base = out / f"{mix}-{size}"
    path = base.with_suffix(".warc.gz")
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT.parent / "shared" / "bench" / "make_corpus.py"),
                        str(base), str(size), "--mix", mix, "--compress", "gzip"], check=True,
                       capture_output=True)
    return path


def listing(source: str, **kw: object) -> int:
    n = 0
    with warckit.open(source, **kw) as reader:  # type: ignore[arg-type]
        for record in reader:
            _ = (record.offset, record.type, record.target_uri)
            n += 1
    return n


def serve(root: Path) -> None:
    """Child process: both servers over *root*; print their addresses, serve until stdin closes."""
    with RangeServer(root) as http, CountingS3() as s3:
        s3.put("bench", {p.name: p for p in root.iterdir() if p.is_file()})
        print(json.dumps({"http": http.url(""), "s3": s3.storage_options}), flush=True)
        sys.stdin.read()


def bytes_per_record(path: Path, records: list[tuple[int, int]], count: int, seed: int) -> list[str]:
    rows = []
    picks = random.Random(seed).sample(records, min(count, len(records)))
    with RangeServer(path.parent) as http, CountingS3() as s3:
        s3.put("bench", {path.name: path})
        for label, url, server, opts in (
            ("HTTP", http.url(path.name), http, {}),
            ("S3 (moto)", f"s3://bench/{path.name}", s3, {"storage_options": s3.storage_options}),
        ):
            for with_length in (True, False):
                extra, reqs = [], []
                for offset, length in picks:
                    server.reset_counts()
                    kw = dict(opts, length=length) if with_length else dict(opts)
                    with warckit.read_record_at(url, offset, **kw) as record:  # type: ignore[arg-type]
                        record.content_stream().read()
                    extra.append(server.sent - length)
                    reqs.append(server.gets)
                rows.append(f"| {label} | {'with' if with_length else 'without'} length | "
                            f"{len(picks)} | {min(extra)} | {max(extra)} | {max(reqs)} |")
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=100, help="MB of uncompressed WARC (default 100)")
    p.add_argument("--mix", default="cc")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--records", type=int, default=50)
    p.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "warckit-bench-remote"))
    p.add_argument("--serve", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        serve(Path(args.serve))
        return
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    path = make(out, args.size, args.mix)
    size = path.stat().st_size
    with warckit.open(path) as reader:
        records = [(r.offset, r.length) for r in reader]
    print(f"# {path.name}: {size:,} bytes, {len(records):,} records; "
          f"warckit {warckit.__version__}, compiled: {warckit._speedups.IMPLEMENTATION}\n")
    print("Bytes the server sent for one random record beyond its length L\n")
    print("| server | read_record_at | records | min extra | max extra | requests |")
    print("|---|---|---|---|---|---|")
    for row in bytes_per_record(path, records, args.records, 1):
        print(row)

    child = subprocess.Popen([sys.executable, __file__, "--serve", str(out)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        info = json.loads(child.stdout.readline())
        sources = [("local", str(path), {}), ("HTTP", info["http"] + path.name, {}),
                   ("S3 (moto)", f"s3://bench/{path.name}", {"storage_options": info["s3"]})]
        times: dict[str, list[float]] = {label: [] for label, _, _ in sources}
        index_times: dict[str, list[float]] = {label: [] for label, _, _ in sources[:2]}
        for _ in range(args.runs):
            for label, src, kw in sources:
                started = time.perf_counter()
                n = listing(src, **kw)
                times[label].append(time.perf_counter() - started)
                assert n == len(records), (label, n)
            for label, src, _ in sources[:2]:
                started = time.perf_counter()
                with open(os.devnull, "wb") as null:
                    write_index([src], null, jobs=2)
                index_times[label].append(time.perf_counter() - started)
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)
    print(f"\nListing every record, median of {args.runs} (seconds)\n")
    print("| source | time | MB/s | vs local |")
    print("|---|---|---|---|")
    for title, table in (("Listing every record", times), ("warckit index -j 2 (CDX)", index_times)):
        if table is index_times:
            print(f"\n{title}, median of {args.runs} (seconds)\n")
            print("| source | time | MB/s | vs local |")
            print("|---|---|---|---|")
        base = statistics.median(table["local"])
        for label, values in table.items():
            t = statistics.median(values)
            print(f"| {label} | {t:.2f} | {size / t / 1e6:.0f} | {t / base:.1f}x |")


if __name__ == "__main__":
    main()
