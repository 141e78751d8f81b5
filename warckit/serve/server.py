"""Run the app on uvicorn: bind, log to stderr, one process or ``--workers N``, shut down cleanly.

SIGTERM and SIGINT stop accepting connections, let the requests in flight finish, close
the stores (the app's lifespan), and the process exits with status 0.
"""

from __future__ import annotations

import copy
import errno
import os
import signal
import socket
import sys
from typing import Any

from ..errors import UsageError
from .config import ServeConfig

__all__ = ["bind", "log_config", "serve"]


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on *host*:*port* (IPv4 or IPv6).

    Raises:
        UsageError: the port is in use, or the address is not one of this machine.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"--host {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"--port {port}: address {host}:{port} is already in use") from None
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


def log_config() -> dict[str, Any]:
    """uvicorn's logging set-up with the access log on stderr too (stdout stays clean)."""
    from uvicorn.config import LOGGING_CONFIG

    conf = copy.deepcopy(LOGGING_CONFIG)
    conf["handlers"]["access"]["stream"] = "ext://sys.stderr"
    conf["loggers"]["warckit.serve"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return conf


def serve(config: ServeConfig) -> int:
    """Serve *config* until SIGTERM or SIGINT; the exit status (0 after a clean shutdown).

    Raises:
        UsageError: the address cannot be bound.
        WarckitError, OSError: an index or store cannot be opened (before listening).
    """
    import uvicorn

    from .app import ENV_CONFIG, ENV_PARENT, create_app, open_collections

    # Every index is built (and checked) before the port is taken.
    collections = open_collections(config)
    try:
        sock = bind(config.host, config.port)
    except BaseException:
        for coll in collections.values():
            coll.close()
        raise
    shown = sock.getsockname()
    host = f"[{config.host}]" if ":" in config.host else config.host
    print(f"warckit serve: {len(collections)} collection(s) on http://{host}:{shown[1]}/",
          file=sys.stderr, flush=True)
    options: dict[str, Any] = {"log_config": log_config(), "lifespan": "on",
                               "timeout_graceful_shutdown": None, "server_header": False}
    # uvicorn re-raises the signal that stopped it once it is done; with these handlers
    # that is a no-op and the process exits 0 instead of dying of the signal.
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if config.workers == 1:
            app = create_app(config, collections)
            server = uvicorn.Server(uvicorn.Config(app, **options))
            server.run(sockets=[sock])
            return 0 if server.started else 1
        for coll in collections.values():  # each worker builds its own
            coll.close()
        from uvicorn.supervisors import Multiprocess

        os.environ[ENV_CONFIG] = config.to_json()
        os.environ[ENV_PARENT] = str(os.getpid())
        uconfig = uvicorn.Config("warckit.serve.app:app_from_env", factory=True,
                                 workers=config.workers, **options)
        Multiprocess(uconfig, sockets=[sock]).run()
        return 0
    finally:
        sock.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
