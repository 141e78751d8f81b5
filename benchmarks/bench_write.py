"""Write the same records with warckit, warcio and (if it can) FastWARC; compare speed and size.

Records: the HTTP responses of the corpus file pywb/iana.warc.gz (real HTML, CSS, JS,
images), written ``--rounds`` times each as request+response pairs.

    python benchmarks/bench_write.py [--rounds 20] [--corpus ../shared/corpus]

Output size is compared with a reference: every record compressed as its own gzip
member by stdlib zlib at level 6 (warcio's setting).
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
import zlib
from pathlib import Path

import warckit
from warckit.guided import WarcWriter


def load(corpus: Path) -> list[tuple[str, bytes, bytes]]:
    out = []
    for rec in warckit.open(corpus / "pywb" / "iana.warc.gz"):
        if rec.type != "response":
            continue
        block = rec.read_block()
        end = block.find(b"\r\n\r\n") + 4
        out.append((rec.target_uri or "", block[:end], block[end:]))
    return out


def bench_warckit(records: list[tuple[str, bytes, bytes]], rounds: int, level: int | None) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        with WarcWriter(d, fsync=False, level=level, max_bytes=None) as w:
            for _ in range(rounds):
                for uri, head, body in records:
                    req = w.request(uri, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    w.response(uri, head, body, concurrent_to=req)
        elapsed = time.perf_counter() - t
        return elapsed, sum(os.path.getsize(f) for f in w.files)


def bench_warcio(records: list[tuple[str, bytes, bytes]], rounds: int) -> tuple[float, int]:
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
    total = 0
    for rec in warckit.open(path_size_from):
        buf = io.BytesIO()
        rec.write_to(buf)
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        total += len(c.compress(buf.getvalue()) + c.flush())
    return total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    args = ap.parse_args()
    records = load(Path(args.corpus))
    raw = sum(len(h) + len(b) for _, h, b in records) * args.rounds
    print(f"{len(records)} responses x {args.rounds} rounds (+ a request each), {raw / 1e6:.1f} MB of blocks")
    wio_t, wio_size = bench_warcio(records, args.rounds)
    print(f"warcio WARCWriter(gzip)   {wio_t:7.3f} s  {raw / wio_t / 1e6:7.1f} MB/s  {wio_size:>11,} bytes")
    try:
        import fastwarc.warc as fw  # noqa: F401

        print("fastwarc                 (no record-building writer API in FastWARC 2.0; skipped)")
    except ImportError:
        pass
    for level in (1, 2, 3):
        t, size = bench_warckit(records, args.rounds, level)
        print(f"warckit gzip (isal {level})     {t:7.3f} s  {raw / t / 1e6:7.1f} MB/s  {size:>11,} bytes"
              f"  speed x{wio_t / t:4.1f} vs warcio")
    with tempfile.TemporaryDirectory() as d:
        with WarcWriter(d, fsync=False, max_bytes=None) as w:
            for uri, head, body in records:
                req = w.request(uri, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                w.response(uri, head, body, concurrent_to=req)
        ours = sum(os.path.getsize(f) for f in w.files)
        ref = reference_zlib6(w.files[0])
    print(f"one round, default level: warckit {ours:,} bytes vs same records at zlib level 6 "
          f"{ref:,} bytes: {100 * (ours - ref) / ref:+.2f} %")


if __name__ == "__main__":
    main()
