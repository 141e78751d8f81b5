"""``warckit proxy``: an archiving HTTP/HTTPS proxy writing WARC files."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from ..errors import UsageError
from ._common import add_out_dir, add_writer_options


def add_parser(subparsers: Any) -> None:
    """Register ``proxy``."""
    p = subparsers.add_parser(
        "proxy",
        help="an archiving HTTP/HTTPS proxy: record what passes through it as WARC",
        description=(
            "Run an archiving proxy (docs/proxy.rst): every exchange through it is written as "
            "a response (or a revisit, with --dedup, when the payload is known) and a request "
            "record; HTTPS is intercepted with a certificate authority kept in --ca-cert, "
            "which clients must trust. Per-request settings come in warcprox's Warcprox-Meta "
            "request header. Only loopback clients are served unless --allow names more. "
            "Needs the proxy extra: pip install 'warckit[proxy]'. SIGTERM or Ctrl-C finish "
            "the exchanges under way, close every file and exit 0."
        ),
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free one)")
    add_out_dir(p, "directory of the WARC files written")
    p.add_argument("--prefix", default="WARC",
                   help="file-name prefix of requests whose Warcprox-Meta names no warc-prefix "
                   "(default: WARC)")
    add_writer_options(p)
    p.add_argument("--dedup", metavar="DB",
                   help="dedup database (SQLite, as warckit dedup's): a response whose payload "
                   "it holds is written as a revisit; other dedup buckets are files beside it "
                   "(default: no deduplication)")
    from ..proxy.server import DEFAULT_CA

    p.add_argument("--ca-cert", metavar="FILE",
                   help="PEM file of the CA certificate and key that sign the hosts' "
                   f"certificates; created if missing (default: {DEFAULT_CA})")
    p.add_argument("--allow", action="append", default=[], metavar="CIDR",
                   help="also serve clients from this network (repeatable; default: loopback only)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="serve from N processes sharing the port, each writing its own files "
                   "(one process archives on about one core; default: 1)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``warckit proxy`` until SIGTERM/SIGINT; exit status 0 after a clean shutdown."""
    if not args.out_dir:
        raise UsageError("--out-dir is required")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: want 0-65535")
    from ..proxy.workers import MAX_WORKERS, serve_in_workers

    if not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers {args.workers}: want 1-{MAX_WORKERS}")
    from ..proxy.server import ArchivingProxy

    proxy = ArchivingProxy(args.out_dir, host=args.host, port=args.port, prefix=args.prefix,
                           max_bytes=args.max_bytes, dedup=args.dedup, ca_cert=args.ca_cert,
                           allow=args.allow,
                           writer_options={"version": args.warc_version,
                                           "compression": args.compression})

    def listening(host: str, port: int) -> None:
        workers = f"; {args.workers} workers" if args.workers > 1 else ""
        print(f"warckit proxy: listening on http://{host}:{port}/ "
              f"(CA certificate: {proxy.ca_cert_path}{workers})", file=sys.stderr, flush=True)

    def ready() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, proxy.request_stop)
        listening(proxy.host, proxy.port)

    status = 0
    if args.workers != 1:
        status, _ = serve_in_workers(proxy, args.workers, listening)
    else:
        asyncio.run(proxy.serve(ready))
    print(f"warckit proxy: stopped; {len(proxy.files)} file(s) written", file=sys.stderr, flush=True)
    return status
