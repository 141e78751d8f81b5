"""``warckit proxy`` against warcprox: archiving-proxy throughput on the same loopback site.

An nginx origin (started here on 127.0.0.2: warcprox refuses upstreams at 127.0.0.1 and
has no option to allow them) serves fixed HTML-like bodies of ``--sizes`` (default 2 KB,
50 KB and 1 MB; about 2.2:1 under gzip, like real pages) over HTTP and HTTPS. For each
mode, size and round, each proxy (a fresh process writing gzipped WARCs, dedup off) gets:

* a warm-up of ``--warmup`` seconds, then a timed load of ``--duration`` seconds from
  ``--connections`` concurrent clients: ``wrk`` with a Lua script sending absolute-form
  requests (HTTP), or this script's asyncio client through ``CONNECT`` tunnels (HTTPS,
  TLS intercepted by the proxy); every request a new URL (``/SIZE?n=N``);
* after the load, the wait until the proxy has archived every answered request (warcprox
  answers while its writer thread lags behind; ``/status`` says when it has caught up),
  counted in the timed window: requests/s = answered requests / (load + catch-up time);
* the CPU time of the proxy's process tree (``/proc/PID/stat`` utime + stime, children
  included) over that window, per 1,000 requests;
* after a clean stop (SIGTERM), a check of its WARCs (read with ``warckit.open``): one
  ``response`` and one ``request`` record per answered request (plus at most one per
  connection for requests the client gave up on at the end of a load), no ``.open`` file.

Proxies alternate within each round (A B, then B A), ratios are paired round by round,
and the tables give medians. The machine's cores are shared by origin, client and proxy,
as on one small box; the origin's and client's CPU per 1,000 requests are reported so
that neither can pass unnoticed as the bottleneck.

Usage::

    python benchmarks/bench_proxy.py                       # HTTP and HTTPS, 3 rounds
    python benchmarks/bench_proxy.py --modes http --sizes 2k --runs 1 --duration 5
    python benchmarks/bench_proxy.py --warcprox /work/venvs/warcprox/bin/warcprox
    python benchmarks/bench_proxy.py --workers 1,2          # warckit proxy and --workers 2

warckit is the checkout's (build it in place first: ``python setup.py build_ext
--inplace``); warcprox is ``--warcprox`` (default ``/work/venvs/warcprox/bin/warcprox``
or ``warcprox`` on PATH), skipped with a printed reason when missing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import resource
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT))

from _precompile import precompile
from _procs import tree_pids
from suite import build_status, describe_build

ORIGIN_HOST = "127.0.0.2"
SIZES = {"2k": 2048, "50k": 50 * 1024, "1m": 1 << 20}
CLK_TCK = os.sysconf("SC_CLK_TCK")
DEFAULT_WARCPROX = "/work/venvs/warcprox/bin/warcprox"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """utime + stime (+ reaped children's) of *pid* and its live descendants, seconds."""
    ticks = 0
    for p in tree_pids(pid):
        try:
            with open(f"/proc/{p}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return ticks / CLK_TCK


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


# ---------------------------------------------------------------- the site

def make_bodies(www: Path) -> None:
    """Deterministic HTML-like bodies (about 2.2:1 under gzip)."""
    www.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10)))
             for _ in range(5000)]
    for name, size in SIZES.items():
        parts, total = [], 0
        while total < size:
            line = f'<p class="c{rng.randrange(50)}">{" ".join(rng.choice(words) for _ in range(20))}</p>\n'
            parts.append(line)
            total += len(line)
        (www / name).write_bytes("".join(parts)[:size].encode())


def make_cert(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for the origin's HTTPS server."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    cert_path, key_path = directory / "origin.crt", directory / "origin.key"
    if cert_path.exists() and key_path.exists():
        return cert_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ORIGIN_HOST)])
    now = datetime.datetime.now(datetime.timezone.utc)
    import ipaddress

    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address(ORIGIN_HOST))]), critical=False)
            .sign(key, hashes.SHA256()))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


class Origin:
    """nginx (one worker) serving the bodies on ORIGIN_HOST over HTTP and HTTPS."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "origin"
        self.http_port = free_port(ORIGIN_HOST)
        self.https_port = free_port(ORIGIN_HOST)
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Origin:  # noqa: PYI034 - a script's class, never subclassed
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(nginx):
            raise SystemExit("nginx is needed for the origin: apt-get install -y -qq nginx-light")
        (self.dir / "logs").mkdir(parents=True, exist_ok=True)
        make_bodies(self.dir / "www")
        cert, key = make_cert(self.dir)
        os.chmod(self.dir, 0o755)
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""daemon off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  keepalive_requests 1000000;
  default_type text/html;
  sendfile on;
  server {{ listen {ORIGIN_HOST}:{self.http_port}; root {self.dir}/www; }}
  server {{
    listen {ORIGIN_HOST}:{self.https_port} ssl;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    ssl_session_cache shared:SSL:10m;
    root {self.dir}/www;
  }}
}}
""")
        self.proc = subprocess.Popen([nginx, "-p", str(self.dir), "-c", str(conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://{ORIGIN_HOST}:{self.http_port}/2k", timeout=2) as r:
                    r.read()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"nginx did not start: see {self.dir}/logs/error.log") from None
                time.sleep(0.1)
        return self

    def url(self, mode: str, size: str) -> str:
        port = self.http_port if mode == "http" else self.https_port
        return f"{mode}://{ORIGIN_HOST}:{port}/{size}"

    def cpu(self) -> float:
        assert self.proc is not None
        return cpu_seconds(self.proc.pid)

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------- the proxies

def _get_json(url: str) -> Any:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as r:
        return json.loads(r.read())


class Proxy:
    """One proxy process writing gzipped WARCs into its own fresh directory."""

    name = ""

    def __init__(self, workdir: Path, tag: str) -> None:
        self.workdir = workdir
        self.out = workdir / "warcs" / tag
        if self.out.exists():
            shutil.rmtree(self.out)
        self.out.mkdir(parents=True)
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = workdir / f"{tag}.log"

    def command(self) -> list[str]:
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        return dict(os.environ)

    def wait_ready(self) -> None:
        raise NotImplementedError

    def archived(self) -> int | None:
        """How many captures the proxy has written so far, or None if it cannot say."""
        return None

    def start(self) -> None:
        self.logfh = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(self.command(), cwd=self.workdir, env=self.env(),
                                     stdout=subprocess.DEVNULL, stderr=self.logfh)
        self.wait_ready()

    def cpu(self) -> float:
        assert self.proc is not None
        return cpu_seconds(self.proc.pid)

    def wait_caught_up(self, answered: int, timeout: float = 300.0) -> None:
        """Wait until at least *answered* captures are written (when the proxy can say)."""
        deadline = time.monotonic() + timeout
        while True:
            n = self.archived()
            if n is None or n >= answered:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: {n} of {answered} captures written after {timeout} s")
            time.sleep(0.02)

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"{self.name} did not stop within 120 s of SIGTERM") from None
        finally:
            self.logfh.close()

    def records(self) -> tuple[Counter[str], list[str]]:
        import warckit

        counts: Counter[str] = Counter()
        leftovers = []
        for path in sorted(self.out.rglob("*")):
            if path.is_dir():
                continue
            if not re.search(r"\.warc(\.gz)?$", path.name):
                leftovers.append(path.name)
                continue
            with warckit.open(str(path)) as reader:
                for rec in reader:
                    counts[str(rec.headers.get("WARC-Type"))] += 1
        return counts, leftovers


class Warcprox(Proxy):
    name = "warcprox"

    def __init__(self, workdir: Path, tag: str, exe: str) -> None:
        super().__init__(workdir, tag)
        self.exe = exe
        self.port = free_port()

    def command(self) -> list[str]:
        ca = self.workdir / "warcprox-ca.pem"
        # dedup and the stats database off: the fastest warcprox, and the same work as warckit's
        return [self.exe, "-p", str(self.port), "-b", "127.0.0.1", "-d", str(self.out), "-z",
                "--cacert", str(ca), "--certs-dir", str(self.workdir / "warcprox-certs"),
                "-j", "/dev/null", "--stats-db-file", "/dev/null", "-q"]

    def status(self) -> Any:
        return _get_json(f"http://127.0.0.1:{self.port}/status")

    def wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + 120
        while True:
            try:
                self.status()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"warcprox did not start: see {self.log}") from None
                time.sleep(0.1)

    def archived(self) -> int | None:
        st = self.status()
        queued = st["queued_urls"] + sum(p["queued_urls"] for p in st.get("postfetch_chain", []))
        n = int(st["urls_processed"])
        # urls_processed counts after the writer (RunningStats ends the chain)
        return n if queued == 0 else min(n, -1)


class WarckitProxy(Proxy):
    name = "warckit proxy"

    def __init__(self, workdir: Path, tag: str, workers: int = 1) -> None:
        super().__init__(workdir, tag)
        self.workers = workers

    def command(self) -> list[str]:
        return [sys.executable, "-m", "warckit", "proxy", "--host", "127.0.0.1", "--port", "0",
                "--out-dir", str(self.out), "--ca-cert", str(self.workdir / "warckit-ca.pem"),
                "--workers", str(self.workers)]

    def env(self) -> dict[str, str]:
        return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + 120
        while True:
            text = self.log.read_text(errors="replace")
            m = re.search(r"listening on http://[^:/]+:(\d+)/", text)
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"warckit proxy did not start: {text[-2000:]}")
            time.sleep(0.05)

    def archived(self) -> int | None:
        # (it answers only once a capture is written: this is the answered count already)
        stats = _get_json(f"http://127.0.0.1:{self.port}/status")["stats"]
        return int(stats["__all__"]["total"]["urls"])


# ---------------------------------------------------------------- the clients

WRK_LUA = """
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "%(url)s?n=" .. n, {["Host"] = "%(host)s"})
end
done = function(summary, latency, requests)
  io.write(string.format('WRK {"requests": %%d, "duration_us": %%d, "bytes": %%d, "connect": %%d, "read": %%d, "write": %%d, "status": %%d, "timeout": %%d}\\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
end
"""


def load_wrk(proxy_port: int, url: str, seconds: float, connections: int,
             workdir: Path) -> dict[str, Any]:
    host = url.split("/")[2]
    script = workdir / "proxy.lua"
    script.write_text(WRK_LUA % {"url": url, "host": host})
    before = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "60s",
                           "-s", str(script), f"http://127.0.0.1:{proxy_port}/"],
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("WRK "))
    stats = json.loads(line[4:])
    errors = sum(stats[k] for k in ("connect", "read", "write", "status", "timeout"))
    return {"answered": stats["requests"] - stats["status"], "errors": errors, "wall": wall,
            "client_cpu": children_cpu() - before, "detail": stats}


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, int, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length, chunked, close = None, False, False
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        k, v = k.strip().lower(), v.strip().lower()
        if k == "content-length":
            length = int(v)
        elif k == "transfer-encoding" and "chunked" in v:
            chunked = True
        elif k == "connection" and "close" in v:
            close = True
    got = 0
    if chunked:
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            got += len(await reader.readexactly(size + 2)) - 2
    elif length is not None:
        await reader.readexactly(length)
        got = length
    else:
        got = len(await reader.read())
        close = True
    return status, got, close


async def _load_py(proxy_port: int, url: str, seconds: float, connections: int) -> dict[str, Any]:
    scheme, _, hostport, path = url.split("/", 3)
    tls = scheme == "https:"
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    counter = iter(range(1, 1 << 62))
    answered = errors = 0
    deadline = time.perf_counter() + seconds

    async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
        if tls:
            writer.write(f"CONNECT {hostport} HTTP/1.1\r\nHost: {hostport}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0] + b" ":
                raise ConnectionError(head[:200])
            if not hasattr(writer, "start_tls"):
                raise SystemExit("the HTTPS load needs Python 3.11 or later (StreamWriter.start_tls)")
            await writer.start_tls(ctx, server_hostname=hostport.split(":")[0])
        return reader, writer

    async def worker() -> None:
        nonlocal answered, errors
        conn: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        while time.perf_counter() < deadline:
            try:
                if conn is None:
                    conn = await connect()
                reader, writer = conn
                target = f"/{path}?n={next(counter)}" if tls else f"{url}?n={next(counter)}"
                writer.write(f"GET {target} HTTP/1.1\r\nHost: {hostport}\r\n\r\n".encode())
                status, _, close = await _read_response(reader)
                if status == 200:
                    answered += 1
                else:
                    errors += 1
                if close:
                    writer.close()
                    conn = None
            except (OSError, asyncio.IncompleteReadError, ssl.SSLError, ConnectionError):
                errors += 1
                if conn is not None:
                    conn[1].close()
                conn = None
        if conn is not None:
            conn[1].close()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return {"answered": answered, "errors": errors, "wall": time.perf_counter() - t0}


def load_py(proxy_port: int, url: str, seconds: float, connections: int) -> dict[str, Any]:
    before = self_cpu()
    result = asyncio.run(_load_py(proxy_port, url, seconds, connections))
    result["client_cpu"] = self_cpu() - before
    return result


# ---------------------------------------------------------------- one measurement

def measure(proxy: Proxy, origin: Origin, mode: str, size: str, args: argparse.Namespace,
            workdir: Path) -> dict[str, Any]:
    url = origin.url(mode, size)

    def load(seconds: float) -> dict[str, Any]:
        if mode == "http" and args.client == "wrk":
            return load_wrk(proxy.port, url, seconds, args.connections, workdir)
        return load_py(proxy.port, url, seconds, args.connections)

    proxy.start()
    try:
        warm = load(args.warmup)
        proxy.wait_caught_up(warm["answered"])
        cpu0, origin0 = proxy.cpu(), origin.cpu()
        t0 = time.perf_counter()
        timed = load(args.duration)
        loaded = time.perf_counter()
        proxy.wait_caught_up(warm["answered"] + timed["answered"])
        t1 = time.perf_counter()
        cpu1, origin1 = proxy.cpu(), origin.cpu()
    finally:
        proxy.stop()
    counts, leftovers = proxy.records()
    answered = warm["answered"] + timed["answered"]
    slack = 2 * args.connections + warm["errors"] + timed["errors"]
    problems = []
    for rtype in ("response", "request"):
        if not answered <= counts[rtype] <= answered + slack:
            problems.append(f"{counts[rtype]} {rtype} records for {answered} answered requests")
    if counts["revisit"]:
        problems.append(f"{counts['revisit']} revisit records with dedup off")
    if leftovers:
        problems.append(f"files left that are not WARCs: {leftovers[:3]}")
    if timed["errors"]:
        problems.append(f"{timed['errors']} failed requests in the timed load")
    n = timed["answered"]
    window = t1 - t0
    return {
        "rps": n / window, "mbps": n * SIZES[size] / window / 1e6,
        "cpu_per_k": (cpu1 - cpu0) / n * 1000 if n else float("nan"),
        "client_per_k": timed["client_cpu"] / n * 1000 if n else float("nan"),
        "origin_per_k": (origin1 - origin0) / n * 1000 if n else float("nan"),
        "catch_up": t1 - loaded, "answered": n, "records": counts["response"],
        "problems": problems,
    }


# ---------------------------------------------------------------- the report

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=3, help="rounds (proxies alternate in each)")
    ap.add_argument("--duration", type=float, default=10.0, help="seconds of timed load")
    ap.add_argument("--warmup", type=float, default=2.0, help="seconds of load before timing")
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--sizes", default="2k,50k,1m", help=f"of {','.join(SIZES)}")
    ap.add_argument("--modes", default="http,https")
    ap.add_argument("--client", choices=("wrk", "python"), default="wrk" if shutil.which("wrk") else "python",
                    help="HTTP load client (HTTPS always uses the asyncio client)")
    ap.add_argument("--warcprox", default=os.path.exists(DEFAULT_WARCPROX) and DEFAULT_WARCPROX
                    or shutil.which("warcprox") or DEFAULT_WARCPROX)
    ap.add_argument("--workers", default="1,2",
                    help="warckit proxy's --workers values, each measured as a contender")
    ap.add_argument("--no-warckit", action="store_true", help="measure warcprox alone")
    ap.add_argument("--allow-pure", action="store_true",
                    help="measure a warckit whose hot modules are on their pure-Python twins")
    ap.add_argument("--workdir", default=os.environ.get("BENCH_WORKDIR", "/tmp/warckit-bench-proxy"))
    ap.add_argument("--out", default=str(HERE / "RESULTS-proxy.md"))
    ap.add_argument("--from-json", metavar="FILE",
                    help="only write the report again from a run's raw results (RESULTS-proxy.json)")
    args = ap.parse_args()
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        write_results(saved["meta"], saved["results"], args.out)
        return
    precompile()
    status = build_status()
    build = describe_build(status)
    pure = [n for n, (impl, _, _) in status.items() if impl != "c"]
    if pure and not args.no_warckit:
        if not args.allow_pure:
            raise SystemExit(f"the warckit under test ({ROOT}) runs {', '.join(pure)} in pure Python: "
                             "build it (python setup.py build_ext --inplace) or pass --allow-pure")
        build += f" (**partly pure Python: {', '.join(pure)}**)"
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    sizes = [s for s in args.sizes.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]

    makers: dict[str, Any] = {}
    if not args.no_warckit:
        for n in (int(w) for w in args.workers.split(",") if w):
            label = "warckit proxy" + (f" --workers {n}" if n != 1 else "")
            makers[label] = lambda tag, n=n: WarckitProxy(workdir, tag, n)
    if os.path.exists(args.warcprox):
        makers["warcprox"] = lambda tag: Warcprox(workdir, tag, args.warcprox)
    else:
        print(f"warcprox skipped: {args.warcprox} not found (install it in its own venv: "
              "python3 -m venv /work/venvs/warcprox && /work/venvs/warcprox/bin/pip install warcprox)",
              flush=True)
    if not makers:
        raise SystemExit("nothing to measure")
    names = list(makers)

    meta: dict[str, Any] = {
        "command": ("python benchmarks/bench_proxy.py " + " ".join(sys.argv[1:])).strip(),
        "machine": f"{os.cpu_count()} cores ({platform.machine()})", "python": platform.python_version(),
        "commit": _commit(), "build": build, "names": names, "modes": modes, "sizes": sizes,
        "warcprox": _warcprox_version(args.warcprox) if "warcprox" in names else None,
        "connections": args.connections, "warmup": args.warmup, "duration": args.duration,
        "client": args.client, "load_before": os.getloadavg()[0],
    }
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    with Origin(workdir) as origin:
        for run in range(args.runs):
            for mode in modes:
                for size in sizes:
                    order = names if run % 2 == 0 else names[::-1]
                    cell = results.setdefault(f"{mode} {size}", {n: [] for n in names})
                    for name in order:
                        tag = re.sub(r"[^a-z0-9]+", "-", name).strip("-")
                        r = measure(makers[name](tag), origin, mode, size, args, workdir)
                        cell[name].append(r)
                        print(f"run {run + 1} {mode} {size} {name}: {r['rps']:,.0f} req/s "
                              f"{r['mbps']:.1f} MB/s, {r['cpu_per_k']:.2f} CPU s/1000, "
                              f"catch-up {r['catch_up']:.2f} s, {r['records']} responses for "
                              f"{r['answered']}+warm-up" + (f"  PROBLEMS: {r['problems']}" if r["problems"] else ""),
                              flush=True)
    meta["load_after"] = os.getloadavg()[0]
    raw = Path(args.out).with_suffix(".json")
    raw.write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    print(f"raw results: {raw}", flush=True)
    write_results(meta, results, args.out)


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def _warcprox_version(exe: str) -> str:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().split()[-1]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "?"


def write_results(meta: dict[str, Any], results: dict[str, dict[str, list[dict[str, Any]]]],
                  out_path: str) -> None:
    """RESULTS-proxy.md from *meta* (the run's settings) and *results* ("MODE SIZE" → proxy → rounds)."""
    med = statistics.median
    names: list[str] = meta["names"]
    peer = "warcprox" if "warcprox" in names else None
    out = [
        "# `warckit proxy` against warcprox (`benchmarks/bench_proxy.py`)",
        "",
        f"`{meta['command']}`",
        "",
        (f"Machine: {meta['machine']}, shared by origin, client and proxy (and, here, by other "
         f"jobs: load average {meta['load_before']:.1f} at the start, {meta['load_after']:.1f} at "
         f"the end); Python {meta['python']}; warckit {meta['commit']}"
         + (f"; warcprox {meta['warcprox']}" if peer else "") + "."),
        f"warckit build: {meta['build']}.",
        (f"Origin: nginx, one worker, on {ORIGIN_HOST}; bodies 2.2:1 under gzip. Load: "
         f"{meta['connections']} connections, {meta['warmup']:g} s warm-up then "
         f"{meta['duration']:g} s timed, every request a new URL; HTTP through "
         f"`{meta['client']}` (absolute-form), HTTPS through an asyncio client over CONNECT "
         "tunnels (TLS intercepted). Both proxies write gzipped WARCs with dedup off "
         "(warcprox: `-z -j /dev/null --stats-db-file /dev/null`), each run a fresh process. "
         "`warckit proxy --workers N` is N processes on the port (warcprox has no such "
         "option: it is one process); its `/status` adds up the workers' counts every 0.2 s, "
         "which the catch-up column includes."),
        "",
        ("requests/s and MB/s (payload) are answered requests over the load plus the time the "
         "proxy then needed to have every capture written (catch-up; warcprox answers before "
         "its writer thread has written); proxy CPU is its process tree's utime + stime over "
         "that window. Medians of the rounds; ratios are medians of per-round ratios "
         "(proxies alternating within each round)."),
        "",
    ]
    for other in (n for n in names if peer and n != peer):
        out += [f"## Summary: {other} ÷ warcprox", "",
                "| | " + " | ".join(meta["sizes"]) + " |",
                "|---|" + "---|" * len(meta["sizes"])]
        for mode in meta["modes"]:
            thr, cpu = [], []
            for size in meta["sizes"]:
                cell = results[f"{mode} {size}"]
                pairs = list(zip(cell[other], cell[peer]))
                thr.append(f"{med(a['rps'] / b['rps'] for a, b in pairs):.2f}×")
                cpu.append(f"{med(b['cpu_per_k'] / a['cpu_per_k'] for a, b in pairs):.2f}×")
            out.append(f"| {mode.upper()} throughput | " + " | ".join(thr) + " |")
            out.append(f"| {mode.upper()} requests per CPU second | " + " | ".join(cpu) + " |")
        out.append("")
    for mode in meta["modes"]:
        for size in meta["sizes"]:
            cell = results[f"{mode} {size}"]
            out += [f"## {mode.upper()}, {size} bodies", "",
                    "| proxy | requests/s | MB/s | proxy CPU s / 1000 req | catch-up s | "
                    "origin CPU s / 1000 | client CPU s / 1000 | records checked | vs warcprox |",
                    "|---|---|---|---|---|---|---|---|---|"]
            for name in names:
                rs = cell[name]
                ratio = ""
                if peer:
                    ratio = f"{med([a['rps'] / b['rps'] for a, b in zip(rs, cell[peer])]):.2f}×"
                ok = "yes" if not any(r["problems"] for r in rs) else "NO: " + "; ".join(
                    p for r in rs for p in r["problems"])
                out.append(
                    f"| {name} | {med(r['rps'] for r in rs):,.0f} | {med(r['mbps'] for r in rs):.1f} | "
                    f"{med(r['cpu_per_k'] for r in rs):.2f} | {med(r['catch_up'] for r in rs):.2f} | "
                    f"{med(r['origin_per_k'] for r in rs):.3f} | {med(r['client_per_k'] for r in rs):.3f} | "
                    f"{ok} | {ratio} |")
            out.append("")
    text = "\n".join(out)
    Path(out_path).write_text(text)
    print(text)

if __name__ == "__main__":
    main()
