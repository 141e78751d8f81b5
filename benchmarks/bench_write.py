"""Write the same records with warckit and warcio; compare speed and size.

Records: the HTTP responses of the corpus file pywb/iana.warc.gz (real HTML, CSS, JS,
images), written ``--rounds`` times each as request+response pairs.

    PYTHONPATH=. python benchmarks/bench_write.py [--rounds 10] [--repeat 5] [--corpus DIR]

``--corpus`` defaults to ``$WARCKIT_CORPUS`` (as the tests do), else ``../shared/corpus``.

Every configuration is timed ``--repeat`` times, the configurations alternating
(warcio, warckit default, the others, warcio, ...), and the median is reported, so a
neighbour's load hits all of them alike. Output size is compared with a reference:
every record of warckit's own output compressed as one gzip member by stdlib zlib at
level 6 (warcio's setting). The target of the writer: the default configuration at
least 5x warcio's throughput with output at most 3 % larger than that reference.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import warckit
from warckit.write import writer as _writer
from warckit.write.guided import WarcWriter

Records = list[tuple[str, bytes, bytes]]


def load(corpus: Path) -> Records:
    out = []
    for rec in warckit.open(corpus / "pywb" / "iana.warc.gz"):
        if rec.type != "response":
            continue
        block = rec.read_block()
        end = block.find(b"\r\n\r\n") + 4
        out.append((rec.target_uri or "", block[:end], block[end:]))
    return out


def _write(d: str, records: Records, rounds: int, config: dict[str, Any]) -> WarcWriter:
    w = WarcWriter(d, fsync=False, max_bytes=None, level=config.get("level"),
                   gzip_backend=config.get("backend"), threads=config.get("threads"))
    with w:
        for _ in range(rounds):
            for uri, head, body in records:
                req = w.request(uri, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                w.response(uri, head, body, concurrent_to=req)
    return w


def bench_warckit(records: Records, rounds: int, config: dict[str, Any]) -> tuple[float, int]:
    t, _cpu, size = bench_warckit_cpu(records, rounds, config)
    return t, size


def bench_warckit_cpu(records: Records, rounds: int,
                      config: dict[str, Any]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the process, bytes written)."""
    with tempfile.TemporaryDirectory() as d:
        c = time.process_time()
        t = time.perf_counter()
        w = _write(d, records, rounds, config)
        elapsed = time.perf_counter() - t
        cpu = time.process_time() - c
        return elapsed, cpu, sum(os.path.getsize(f) for f in w.files)


def bench_warcio(records: Records, rounds: int) -> tuple[float, int]:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    t = time.perf_counter()
    writer = WARCWriter(out, gzip=True)
    writer.write_record(writer.create_warcinfo_record("x.warc.gz", {"software": "warcio"}))
    for _ in range(rounds):
        for uri, head, body in records:
            req_h = StatusAndHeaders("GET / HTTP/1.1", [("Host", "x")], is_http_request=True)
            req = writer.create_warc_record(uri, "request", payload=io.BytesIO(b""), http_headers=req_h)
            lines = head.decode("iso-8859-1").split("\r\n")
            hdrs = [tuple(x.split(":", 1)) for x in lines[1:] if ":" in x]
            http = StatusAndHeaders(lines[0].split(" ", 1)[1], [(k, v.strip()) for k, v in hdrs],
                                    protocol=lines[0].split(" ", 1)[0])
            resp = writer.create_warc_record(uri, "response", payload=io.BytesIO(body),
                                             length=len(body), http_headers=http)
            writer.write_request_response_pair(req, resp)
    return time.perf_counter() - t, len(out.getvalue())


def reference_zlib6(path_size_from: str) -> int:
    """Size of the file's records, each compressed as one gzip member by zlib level 6."""
    total = 0
    for rec in warckit.open(path_size_from):
        buf = io.BytesIO()
        rec.write_to(buf)
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        total += len(c.compress(buf.getvalue()) + c.flush())
    return total


def size_vs_zlib6(records: Records, config: dict[str, Any]) -> tuple[int, int]:
    """(warckit bytes, zlib-6 reference bytes) for one round."""
    with tempfile.TemporaryDirectory() as d:
        w = _write(d, records, 1, config)
        return os.path.getsize(w.files[0]), reference_zlib6(w.files[0])


def configurations() -> list[tuple[str, dict[str, Any]]]:
    backend = _writer.DEFAULT_GZIP_BACKEND
    level = _writer.BACKEND_DEFAULT_LEVEL[backend]
    threads = "worker thread" if _writer.THREADS_DEFAULT else "no thread"
    out: list[tuple[str, dict[str, Any]]] = [
        (f"DEFAULT ({backend} {level}, {threads})", {}),
        (f"{backend} {level}, no thread", {"threads": False}),
    ]
    if "libdeflate" in _writer.GZIP_BACKENDS:
        out += [(f"libdeflate {n}", {"backend": "libdeflate", "level": n})
                for n in (4, 5, 6) if (backend, n) != ("libdeflate", level)]
    if "isal" in _writer.GZIP_BACKENDS:
        out.append(("isal 3", {"backend": "isal", "level": 3}))
    if "zlib-ng" in _writer.GZIP_BACKENDS:
        out.append(("zlib-ng 6", {"backend": "zlib-ng", "level": 6}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per configuration (median)")
    ap.add_argument("--corpus", default=os.environ.get("WARCKIT_CORPUS")
                    or str(Path(__file__).resolve().parents[2] / "shared" / "corpus"),
                    help="the shared corpus (default: $WARCKIT_CORPUS, else ../shared/corpus)")
    args = ap.parse_args()
    records = load(Path(args.corpus))
    raw = sum(len(h) + len(b) for _, h, b in records) * args.rounds
    print(f"{len(records)} responses x {args.rounds} rounds (+ a request each), "
          f"{raw / 1e6:.1f} MB of blocks; {os.cpu_count()} CPUs; "
          f"median of {args.repeat} alternating runs")
    configs = configurations()
    times: dict[str, list[float]] = {name: [] for name, _ in configs}
    cpus: dict[str, list[float]] = {name: [] for name, _ in configs}
    sizes: dict[str, int] = {}
    wio_times: list[float] = []
    wio_size = 0
    for _ in range(args.repeat):
        t, wio_size = bench_warcio(records, args.rounds)
        wio_times.append(t)
        for name, config in configs:
            t, cpu, sizes[name] = bench_warckit_cpu(records, args.rounds, config)
            times[name].append(t)
            cpus[name].append(cpu)
    wio_t = statistics.median(wio_times)
    print(f"{'':44s}{'wall':>7s} {'CPU':>7s}")
    print(f"{'warcio WARCWriter(gzip)':44s}{wio_t:7.3f} {'':7s} s {raw / wio_t / 1e6:6.1f} MB/s "
          f"{wio_size:>11,} B")
    for name, config in configs:
        t = statistics.median(times[name])
        ours, ref = size_vs_zlib6(records, config)
        cpu = statistics.median(cpus[name])
        print(f"{'warckit ' + name:44s}{t:7.3f} {cpu:7.3f} s {raw / t / 1e6:6.1f} MB/s {sizes[name]:>11,} B"
              f"  x{wio_t / t:4.1f} vs warcio  size {100 * (ours - ref) / ref:+5.2f} % vs zlib-6")
    name = configs[0][0]
    ratio = wio_t / statistics.median(times[name])
    ours, ref = size_vs_zlib6(records, configs[0][1])
    excess = 100 * (ours - ref) / ref
    ok = ratio >= 5 and excess <= 3
    print(f"default: x{ratio:.2f} warcio's throughput, {excess:+.2f} % size vs per-record zlib-6 "
          f"({ours:,} vs {ref:,} B, one round); target x5 and <= +3 %: {'MET' if ok else 'NOT MET'}")


if __name__ == "__main__":
    main()
