"""``warckit serve`` under load against pywb's own CDX server, on the same index, loopback only.

Makes a sorted pywb CDXJ index of ``--lines`` lines (deterministic: 20 lines per host,
10 paths with 2 captures each; about 230 bytes a line) and a small one of
``--small-lines``, then for each server (``warckit serve`` with ``--workers 1`` and
``--workers 2``; pywb 2's ``warcserver``, the CDX server of its ``wayback``, one gevent
process) runs the same seeded request sequence from ``--concurrency`` keep-alive
connections (one aiohttp client process) and reports, per query kind:

* **exact**: ``url=http://benchNNNNNNN.com/pNNN`` (2 captures each);
* **prefix**: ``url=benchNNNNNNN.com/*`` (the host's 20 captures);

the queries per second over ``--requests`` requests (after ``--warmup``), p50 and p99
latency, and the servers' peak RSS (the process and its children, ``VmHWM``) on the large
and on the small index. Answers are compared before timing: each server's lines for the
first queries must hold the same captures (pywb adds its ``source`` fields).

Both get ``output=cdxj``. The machine's 2 cores are shared by the servers and the
client, as they would be on one small box.

Usage::

    python benchmarks/bench_serve.py                          # 10 M lines, 5000 requests a kind
    python benchmarks/bench_serve.py --lines 1000000 --requests 2000   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT))

from _precompile import precompile
from _procs import tree_pids

PATHS_PER_HOST = 10
TIMESTAMPS = ("20240101120000", "20250615083000")
LINES_PER_HOST = PATHS_PER_HOST * len(TIMESTAMPS)


def host(n: int) -> str:
    return f"bench{n:07d}"


def make_index(path: Path, lines: int) -> int:
    """Write a sorted pywb CDXJ index of about *lines* lines at *path* (kept when present)."""
    hosts = max(1, lines // LINES_PER_HOST)
    if path.exists():
        return hosts
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="ascii", buffering=1 << 20) as out:
        for h in range(hosts):
            name = host(h)
            chunk = []
            for p in range(PATHS_PER_HOST):
                url = f"http://{name}.com/p{p:03d}"
                for i, ts in enumerate(TIMESTAMPS):
                    offset = (h * LINES_PER_HOST + p * 2 + i) * 1531
                    chunk.append(
                        f'com,{name})/p{p:03d} {ts} {{"url": "{url}", "mime": "text/html", '
                        f'"status": "200", "digest": "SHA{h:07d}{p:03d}{i}AAAAAAAAAAAAAAAAAAAA", '
                        f'"length": "1531", "offset": "{offset}", '
                        f'"filename": "bench-{h // 5000:05d}.warc.gz"}}\n')
            out.write("".join(chunk))
    tmp.rename(path)
    return hosts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {url}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                r.read()
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"server not ready after {timeout} s: {url}")


def peak_rss_mb(pid: int) -> float:
    """Sum of VmHWM over the process and its children, MiB."""
    total = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


class Server:
    """A server subprocess: its name, base URL, and the query URL for (url, kind)."""

    def __init__(self, name: str, cmd: list[str], cwd: Path, port: int, path: str,
                 extra: str) -> None:
        self.name, self.cmd, self.cwd, self.port = name, cmd, cwd, port
        self.path, self.extra = path, extra
        self.base = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, target: str) -> str:
        from urllib.parse import quote

        return f"{self.path}?url={quote(target, safe=':/*')}{self.extra}"

    def __enter__(self) -> Server:  # noqa: PYI034 - a script's class, never subclassed
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(self.cmd, cwd=self.cwd, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        wait_ready(self.base + self.url(f"http://{host(0)}.com/p000"), self.proc)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def warckit_server(index: Path, workers: int, workdir: Path) -> Server:
    port = free_port()
    cmd = [sys.executable, "-m", "warckit", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--workers", str(workers), f"bench={index}"]
    return Server(f"warckit serve --workers {workers}", cmd, workdir, port, "/bench/cdx",
                  "&output=cdxj")


def pywb_server(index: Path, workdir: Path) -> Server:
    port = free_port()
    home = workdir / "pywb"
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text(f"collections:\n  bench:\n    index: {index}\n")
    exe = shutil.which("warcserver") or str(Path(sys.executable).with_name("warcserver"))
    cmd = [exe, "-p", str(port), "-b", "127.0.0.1"]
    return Server("pywb warcserver (gevent)", cmd, home, port, "/bench/index", "&output=cdxj")


def targets(kind: str, hosts: int, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        h = host(rng.randrange(hosts))
        if kind == "exact":
            out.append(f"http://{h}.com/p{rng.randrange(PATHS_PER_HOST):03d}")
        else:
            out.append(f"{h}.com/*")
    return out


async def _load(base: str, paths: list[str], concurrency: int) -> tuple[float, list[float], int]:
    import aiohttp

    latencies: list[float] = []
    lines = 0
    queue: Iterator[str] = iter(paths)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(base, connector=connector) as session:

        async def worker() -> None:
            nonlocal lines
            for path in queue:
                t0 = time.perf_counter()
                async with session.get(path) as r:
                    body = await r.read()
                    if r.status != 200:
                        raise RuntimeError(f"{base}{path}: HTTP {r.status}: {body[:200]!r}")
                latencies.append(time.perf_counter() - t0)
                lines += body.count(b"\n")

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - start
    return wall, latencies, lines


def load(server: Server, urls: list[str], warmup: int, concurrency: int) -> dict[str, Any]:
    paths = [server.url(u) for u in urls]
    asyncio.run(_load(server.base, paths[:warmup], concurrency))
    wall, lat, lines = asyncio.run(_load(server.base, paths[warmup:], concurrency))
    lat.sort()
    n = len(lat)
    return {"qps": n / wall, "p50": lat[n // 2] * 1000, "p99": lat[min(n - 1, int(n * 0.99))] * 1000,
            "lines": lines / n}


def captures(server: Server, target: str) -> list[tuple[str, str, str, str]]:
    import urllib.request

    with urllib.request.urlopen(server.base + server.url(target), timeout=30) as r:
        body = r.read().decode()
    out = []
    for line in body.splitlines():
        key, ts, js = line.split(" ", 2)
        fields = json.loads(js)
        out.append((key, ts, fields["filename"], fields["offset"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--small-lines", type=int, default=100_000)
    ap.add_argument("--requests", type=int, default=5000, help="timed requests per kind and server")
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--workdir", default=os.environ.get("BENCH_WORKDIR", "/tmp/warckit-bench-serve"))
    ap.add_argument("--out", default=str(HERE / "RESULTS-serve.md"))
    ap.add_argument("--no-pywb", action="store_true")
    args = ap.parse_args()
    precompile()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    big = workdir / f"index-{args.lines}.cdxj"
    small = workdir / f"index-{args.small_lines}.cdxj"
    t0 = time.perf_counter()
    hosts = make_index(big, args.lines)
    small_hosts = make_index(small, args.small_lines)
    print(f"indexes ready in {time.perf_counter() - t0:.0f} s: {big} ({big.stat().st_size:,} bytes)",
          flush=True)

    count = args.warmup + args.requests
    kinds = ("exact", "prefix")
    urls = {k: targets(k, hosts, count, seed) for k, seed in zip(kinds, (1, 2))}
    small_urls = {k: targets(k, small_hosts, count, seed) for k, seed in zip(kinds, (1, 2))}
    makers = [lambda ix: warckit_server(ix, 1, workdir), lambda ix: warckit_server(ix, 2, workdir)]
    if not args.no_pywb:
        makers.append(lambda ix: pywb_server(ix, workdir))

    results: dict[str, dict[str, Any]] = {}
    reference: dict[str, list[Any]] | None = None
    for make in makers:
        with make(big) as server:
            answers = {k: [captures(server, u) for u in urls[k][:20]] for k in kinds}
            if reference is None:
                reference = answers
            elif answers != reference:
                raise SystemExit(f"{server.name}: answers differ from {next(iter(results))}")
            row: dict[str, Any] = {}
            for k in kinds:
                row[k] = load(server, urls[k], args.warmup, args.concurrency)
                print(server.name, k, {a: round(b, 1) for a, b in row[k].items()}, flush=True)
            assert server.proc is not None
            row["rss_big"] = peak_rss_mb(server.proc.pid)
        with make(small) as server:
            for k in kinds:
                load(server, small_urls[k], args.warmup, args.concurrency)
            assert server.proc is not None
            row["rss_small"] = peak_rss_mb(server.proc.pid)
        results[server.name] = row

    write_results(args, results, big, hosts)


def write_results(args: argparse.Namespace, results: dict[str, dict[str, Any]], big: Path,
                  hosts: int) -> None:
    names = list(results)
    peer = next((n for n in names if n.startswith("pywb")), None)
    cmd = "python benchmarks/bench_serve.py " + " ".join(sys.argv[1:])
    out = [
        "# `warckit serve` against pywb's CDX server (`benchmarks/bench_serve.py`)",
        "",
        f"`{cmd.strip()}`",
        "",
        (f"Machine: {os.cpu_count()} cores; Python {platform.python_version()}; index: "
         f"{args.lines:,} pywb CDXJ lines ({big.stat().st_size / 1e9:.2f} GB, {hosts:,} hosts); "
         f"{args.requests:,} timed requests per kind after {args.warmup} warm-up, "
         f"{args.concurrency} keep-alive connections from one aiohttp client on the same "
         "machine; output=cdxj."),
        "",
    ]
    for kind in ("exact", "prefix"):
        out += [f"## {kind} queries", "",
                "| server | queries/s | p50 ms | p99 ms | lines/answer | vs pywb |",
                "|---|---|---|---|---|---|"]
        for name in names:
            r = results[name][kind]
            ratio = (f"{r['qps'] / results[peer][kind]['qps']:.2f}×" if peer else "")
            out.append(f"| {name} | {r['qps']:,.0f} | {r['p50']:.1f} | {r['p99']:.1f} | "
                       f"{r['lines']:.0f} | {ratio} |")
        out.append("")
    out += ["## Peak RSS (process and children, VmHWM)", "",
            f"| server | {args.lines:,}-line index MiB | {args.small_lines:,}-line index MiB |",
            "|---|---|---|"]
    for name in names:
        out.append(f"| {name} | {results[name]['rss_big']:.0f} | {results[name]['rss_small']:.0f} |")
    out += ["", "Notes: with 2 workers, uvicorn's processes accept from one listening socket, so the",
            "kernel shares out the 8 keep-alive connections when they are opened (once per query",
            "kind), not request by request: a kind whose connections land mostly on one worker",
            "runs near one worker's speed. The peak RSS of 2 workers includes uvicorn's supervisor",
            "process. Answers were compared before timing (the same captures from every server).",
            ""]
    Path(args.out).write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
