"""``warckit serve``: the resolution service (CDX server API, WARCs by range, ingest, Memento)."""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from ..errors import UsageError
from ._common import add_storage_options


def add_parser(subparsers: Any) -> None:
    """Register ``serve``."""
    p = subparsers.add_parser(
        "serve",
        help="serve indexes over HTTP: CDX server API, WARCs by range, ingest, Memento",
        description=(
            "Serve collections over HTTP (docs/serve.rst): each NAME=INDEX is a sorted index "
            "(CDX/CDXJ, new-style CDX, a ZipNum .idx, a Parquet index directory or .parquet "
            "file; repeat a NAME to stack several). Routes: GET /NAME/cdx (pywb's CDX server "
            "API), GET|HEAD /NAME/warcs/FILE (Range), GET /NAME/record, POST /NAME and "
            "POST /NAME/delete (ingest, --writable only), GET /NAME/timemap/link/URL and "
            "/NAME/timegate/URL (Memento). Needs the serve extra: pip install 'warckit[serve]'. "
            "SIGTERM or Ctrl-C finish the requests in flight and exit 0."
        ),
    )
    p.add_argument("indexes", nargs="*", metavar="NAME=INDEX",
                   help="a collection and one of its sorted indexes (path or URL)")
    p.add_argument("--host", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default: 8080)")
    p.add_argument("--archive", action="append", default=[], metavar="NAME=DIR_OR_URL",
                   help="where NAME's WARC files are: a directory, URL or s3:// prefix "
                   "(repeatable; default: the directory of each of its indexes)")
    p.add_argument("--writable", action="append", default=[], metavar="NAME",
                   help="an empty collection NAME that takes ingest (POST), kept in an SQLite "
                   "store under --data (repeatable)")
    p.add_argument("--data", metavar="DIR",
                   help="directory of the writable collections' stores (default: none)")
    p.add_argument("--config", metavar="FILE",
                   help="a TOML (.toml) or YAML (.yaml) file with the same settings; the "
                   "command line's flags override it (default: none)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="uvicorn worker processes (default: 1)")
    p.add_argument("--replay", metavar="TEMPLATE",
                   help="Memento URIs of TimeMaps and TimeGates, e.g. "
                   "http://pywb:8080/NAME/{timestamp}/{url} (default: this server's /record)")
    add_storage_options(p)
    p.set_defaults(func=run, _intermixed="indexes")


def run(args: argparse.Namespace) -> int:
    """Run ``warckit serve`` until SIGTERM/SIGINT; exit status 0 after a clean shutdown."""
    from ..serve.config import build_config, load_config_file

    settings = load_config_file(args.config) if args.config else None
    config = build_config(args.indexes, archives=args.archive, writable=args.writable,
                          file_settings=settings, host=args.host, port=args.port,
                          data=args.data, workers=args.workers, replay=args.replay,
                          storage_options=args.storage_options or ())
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(f"needs {' and '.join(missing)}: pip install 'warckit[serve]'")
    from ..serve.config import apply_storage_options
    from ..serve.server import serve

    apply_storage_options(config)  # (the command line's are applied already; the file's too)
    return serve(config)
