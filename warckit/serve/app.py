"""The Starlette app of ``warckit serve``: routes, collections, error mapping.

Routes (docs/serve.rst):

``GET /``                                  the collections, JSON
``GET /{coll}``                            one collection, JSON
``GET /{coll}/cdx``                        the CDX server API (:mod:`warckit.serve.cdxapi`)
``GET|HEAD /{coll}/warcs/{filename}``      a WARC file, single ``Range`` (206/416)
``GET /{coll}/record``                     one record: ``filename``, ``offset`` [, ``length``]
``POST /{coll}``, ``POST /{coll}/delete``  ingest into a writable collection (:mod:`warckit.serve.store`)
``GET /{coll}/timemap/link/{url}``         a Memento TimeMap (:mod:`warckit.serve.memento`)
``GET /{coll}/timegate/{url}``             a Memento TimeGate

Errors are one line of text: a bad parameter 400, an unknown collection or file 404, a
read-only collection 405, damaged stored data 500, an unreachable remote source 502.
A body that fails after its headers were sent is cut off (the connection is closed, so
the client sees a truncated response), never ended as if complete.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Send

from ..read.workers import stop_with_parent
from ..cdx.query import Index
from ..errors import ParseError, RemoteError, UsageError, WarckitError
from .archives import (
    Archives,
    FileNotInArchive,
    RangeNotSatisfiable,
    byte_range,
    content_type,
    iter_bytes,
    record_extent,
)
from .cdxapi import cdx_response, parse_cdx_request
from .config import ServeConfig, apply_storage_options, index_kind
from .memento import timegate_response, timemap_response
from .pump import Pump
from .store import CdxStore, StoreError

__all__ = ["ENV_CONFIG", "ENV_PARENT", "Collection", "app_from_env", "create_app", "open_collections"]

log = logging.getLogger("warckit.serve")

#: The environment variable that hands the config to uvicorn worker processes (JSON).
ENV_CONFIG = "WARCKIT_SERVE_CONFIG"
#: The environment variable that tells uvicorn worker processes the command's pid.
ENV_PARENT = "WARCKIT_SERVE_PARENT"

#: Longest line an ingest body may have, in bytes.
MAX_INGEST_LINE = 1 << 20


class UnknownCollection(WarckitError, LookupError):
    """No collection of that name (404)."""


class ReadOnly(WarckitError):
    """Ingest into a collection that is not writable (405)."""


@dataclass
class Collection:
    """A served collection: its index sources (built once, at start-up), its store, its WARCs."""

    name: str
    sources: list[Index | str]
    archives: Archives
    store: CdxStore | None = None

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def open_collections(config: ServeConfig) -> dict[str, Collection]:
    """Build every collection's indexes (and open its store) once.

    Raises:
        WarckitError: an index cannot be read (not an index, bad ZipNum…).
        OSError: an index or the data directory cannot be opened.
    """
    out: dict[str, Collection] = {}
    try:
        for spec in config.collections:
            sources: list[Index | str] = []
            store = None
            if spec.writable:
                assert config.data is not None
                os.makedirs(config.data, exist_ok=True)
                store = CdxStore(config.store_path(spec.name))
                sources.append(store)
            for path in spec.indexes:
                sources.append(path if index_kind(path) == "parquet" else Index(path))
            out[spec.name] = Collection(spec.name, sources, Archives(spec.archives), store)
    except BaseException:
        for coll in out.values():
            coll.close()
        raise
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split())


def error_response(exc: BaseException) -> Response:
    """The one-line text response for *exc* (also logged, as one line)."""
    if isinstance(exc, (UnknownCollection, FileNotInArchive)):
        status, text = 404, str(exc.args[0] if exc.args else exc)
    elif isinstance(exc, ReadOnly):
        return PlainTextResponse(_one_line(str(exc)) + "\n", 405, headers={"Allow": "GET, HEAD"})
    elif isinstance(exc, UsageError):
        status, text = 400, str(exc)
    elif isinstance(exc, StoreError) and exc.reason.startswith("busy"):
        log.warning("%s", _one_line(str(exc)))
        return PlainTextResponse(_one_line(str(exc)) + "\n", 503, headers={"Retry-After": "1"})
    elif isinstance(exc, RemoteError):
        status, text = 502, str(exc)
    elif isinstance(exc, WarckitError):
        status, text = 500, str(exc)
    elif isinstance(exc, OSError):
        status = 500
        text = exc.strerror or str(exc)
        if exc.filename is not None:
            text = f"{os.fsdecode(exc.filename)}: {text}"
    else:  # pragma: no cover - a bug of ours: say so without a traceback to the client
        status, text = 500, f"internal error: {type(exc).__name__}: {exc}"
    text = _one_line(text) or type(exc).__name__
    if status >= 500:
        log.error("%s", text)
    return PlainTextResponse(text + "\n", status)


Endpoint = Callable[[Request], Awaitable[Response]]


def _mapped(endpoint: Endpoint) -> Endpoint:
    """*endpoint* with every expected error turned into :func:`error_response`."""

    async def wrapper(request: Request) -> Response:
        try:
            return await endpoint(request)
        except (WarckitError, OSError) as exc:
            return error_response(exc)

    wrapper.__name__ = endpoint.__name__
    return wrapper


class CutOffStream(StreamingResponse):
    """A streamed body whose failure after the headers closes the connection.

    The status line is gone by then: ending the body normally would pass a short answer
    off as complete, so the app returns without finishing the response and the server
    drops the connection (a chunked body then lacks its last chunk; a sized one is short).
    """

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        try:
            async for chunk in self.body_iterator:
                if not isinstance(chunk, (bytes, memoryview)):
                    chunk = chunk.encode(self.charset)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except (WarckitError, OSError) as exc:
            log.error("response cut off: %s", _one_line(str(exc)))
            return
        await send({"type": "http.response.body", "body": b"", "more_body": False})


#: An answer that ends within this many bytes is made in one trip to a worker thread and
#: sent whole, with its length (most look-ups: one thread hop, no thread of its own); a
#: longer one streams the rest from a thread of its own (:class:`Pump`).
WHOLE_BYTES = 256 << 10


def _first_part(start: Callable[[], tuple[str, Iterator[bytes]]]
                ) -> tuple[str, list[bytes], Iterator[bytes] | None]:
    """``start()``'s media type, its chunks up to :data:`WHOLE_BYTES`, and the iterator
    when more is to come (``None`` when it ended)."""
    media, chunks = start()
    got: list[bytes] = []
    size = 0
    try:
        for chunk in chunks:
            got.append(chunk)
            size += len(chunk)
            if size >= WHOLE_BYTES:
                return media, got, chunks
    except BaseException:
        _close(chunks)
        raise
    _close(chunks)
    return media, got, None


def _close(chunks: Iterator[bytes]) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


async def _chained(first: list[bytes], rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    try:
        for chunk in first:
            yield chunk
        async for chunk in rest:
            yield chunk
    finally:
        await rest.aclose()  # type: ignore[attr-defined]  # (an async generator: stops the pump)


async def _started(start: Callable[[], tuple[str, Iterator[bytes]]], status: int = 200,
                   headers: dict[str, str] | None = None) -> Response:
    """The response of ``start()`` → ``(media type, chunks)``, made off the event loop.

    Nothing is sent until the first :data:`WHOLE_BYTES` are made (or the answer ended), so
    errors known early get their own status; a short answer goes out whole, a long one
    streams the rest from a thread of its own (the iterator moves there once: the stores'
    connections are not tied to a thread).
    """
    media, got, rest = await anyio.to_thread.run_sync(_first_part, start)
    if rest is None:
        return Response(b"".join(got), status, headers, media_type=media)
    remaining = rest
    pump: Pump[str] = Pump(lambda: (media, remaining))
    await pump.head()
    return CutOffStream(_chained(got, pump.body()), status, headers, media_type=media)


def create_app(config: ServeConfig, collections: dict[str, Collection] | None = None) -> Starlette:
    """The app serving *config*'s collections (built here unless given); they are closed
    when the app shuts down."""
    colls = open_collections(config) if collections is None else collections

    def collection(request: Request) -> Collection:
        name = request.path_params["coll"]
        try:
            return colls[name]
        except KeyError:
            raise UnknownCollection(f"no collection named {name!r}") from None

    def base(request: Request) -> str:
        return f"{request.url.scheme}://{request.url.netloc}"

    def about(request: Request, c: Collection) -> dict[str, Any]:
        return {"name": c.name, "writable": c.store is not None, "indexes": len(c.sources),
                "cdx": f"{base(request)}/{c.name}/cdx"}

    async def home(request: Request) -> Response:
        return JSONResponse({"collections": [about(request, c) for c in colls.values()]})

    async def one(request: Request) -> Response:
        return JSONResponse(about(request, collection(request)))

    async def cdx(request: Request) -> Response:
        coll = collection(request)
        req = parse_cdx_request(request.query_params.multi_items())
        return await _started(lambda: cdx_response(coll.sources, req))

    async def warcs(request: Request) -> Response:
        coll = collection(request)
        found = await anyio.to_thread.run_sync(coll.archives.find, request.path_params["filename"])
        headers = {"Accept-Ranges": "bytes"}
        try:
            span = byte_range(request.headers.get("range"), found.size)
        except RangeNotSatisfiable:
            return PlainTextResponse(f"range not satisfiable: {found.name} has {found.size} bytes\n",
                                     416, headers={**headers, "Content-Range": f"bytes */{found.size}"})
        status = 200
        start, end = 0, found.size
        if span is not None:
            start, end = span
            status = 206
            headers["Content-Range"] = f"bytes {start}-{end - 1}/{found.size}"
        headers["Content-Length"] = str(end - start)
        media = content_type(found.name)
        if request.method == "HEAD" or start == end:
            return Response(b"", status, headers, media_type=media)
        return await _started(lambda: (media, iter_bytes(found.location, start, end)), status,
                              headers)

    async def record(request: Request) -> Response:
        coll = collection(request)
        params = request.query_params
        name = params.get("filename")
        if not name:
            raise UsageError("record: the filename parameter is required")
        offset = _natural(params.get("offset"), "offset", required=True)
        length = _natural(params.get("length"), "length", required=False)
        found = await anyio.to_thread.run_sync(coll.archives.find, name)
        if offset >= found.size:
            raise UsageError(f"offset {offset} is past the end of {name} ({found.size} bytes)")
        if length is None:
            length = await anyio.to_thread.run_sync(record_extent, found.location, name, offset)
        elif length == 0 or offset + length > found.size:
            raise UsageError(f"offset {offset} + length {length} is outside {name} "
                             f"({found.size} bytes)")
        headers = {"Content-Length": str(length)}
        end = offset + length
        return await _started(lambda: (content_type(name), iter_bytes(found.location, offset, end)),
                              200, headers)

    async def ingest(request: Request, action: Literal["add", "delete"]) -> Response:
        coll = collection(request)
        if coll.store is None:
            raise ReadOnly(f"collection {coll.name!r} is read-only (start it with --writable)")
        given = request.query_params.get("badLines", "error")
        if given not in ("error", "skip"):
            raise UsageError(f"badLines must be error or skip, not {given!r}")
        bad: Literal["error", "skip"] = "skip" if given == "skip" else "error"
        store = coll.store
        lines = _body_lines(request)
        op = store.add if action == "add" else store.delete
        try:
            result = await anyio.to_thread.run_sync(
                lambda: op(lines, bad_lines=bad))
        except ParseError as exc:  # a bad line of the request body: the client's error
            return PlainTextResponse(_one_line(str(exc)) + "\n", 400)
        done = "added" if action == "add" else "deleted"
        return JSONResponse({done: result.count,
                             "skipped": [{"line": n, "reason": r} for n, r in result.skipped]})

    async def add(request: Request) -> Response:
        return await ingest(request, "add")

    async def delete(request: Request) -> Response:
        return await ingest(request, "delete")

    def memento_url(request: Request, route: str) -> str:
        raw = request.scope.get("raw_path") or request.url.path.encode()
        prefix = f"/{request.path_params['coll']}/{route}/".encode()
        url = raw[len(prefix):].decode("utf-8", "replace") if raw.startswith(prefix) \
            else request.path_params["url"]
        query = request.url.query
        return f"{url}?{query}" if query else url

    async def timemap(request: Request) -> Response:
        coll = collection(request)
        url = memento_url(request, "timemap/link")
        here = base(request)
        return await _started(lambda: timemap_response(coll.sources, url, base=here,
                                                       coll=coll.name, replay=config.replay))

    async def timegate(request: Request) -> Response:
        coll = collection(request)
        url = memento_url(request, "timegate")
        accept = request.headers.get("accept-datetime")
        status, headers, body = await anyio.to_thread.run_sync(
            lambda: timegate_response(coll.sources, url, accept, base=base(request),
                                      coll=coll.name, replay=config.replay))
        return Response(body, status, headers)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            for coll in colls.values():
                coll.close()

    routes = [
        Route("/", _mapped(home), methods=["GET"]),
        Route("/{coll}/cdx", _mapped(cdx), methods=["GET"]),
        Route("/{coll}/warcs/{filename}", _mapped(warcs), methods=["GET", "HEAD"]),
        Route("/{coll}/record", _mapped(record), methods=["GET"]),
        Route("/{coll}/timemap/link/{url:path}", _mapped(timemap), methods=["GET"]),
        Route("/{coll}/timegate/{url:path}", _mapped(timegate), methods=["GET"]),
        Route("/{coll}/delete", _mapped(delete), methods=["POST"]),
        Route("/{coll}", _mapped(add), methods=["POST"]),
        Route("/{coll}", _mapped(one), methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def _natural(value: str | None, name: str, *, required: bool) -> Any:
    if value is None or value == "":
        if required:
            raise UsageError(f"record: the {name} parameter is required")
        return None
    if not re.fullmatch(r"[0-9]{1,18}", value):
        raise UsageError(f"record: {name} must be a whole number of bytes, not {value!r}")
    return int(value)


def _body_lines(request: Request) -> Iterator[bytes]:
    """The request body's lines, read from the worker thread a chunk at a time (bounded
    memory whatever the body's size).

    Raises:
        UsageError: a line is longer than :data:`MAX_INGEST_LINE`.
    """
    stream = request.stream()

    async def receive() -> bytes:
        return await stream.__anext__()

    rest = b""
    number = 0
    while True:
        try:
            chunk = anyio.from_thread.run(receive)
        except StopAsyncIteration:
            break
        rest += chunk
        start = 0
        while True:
            nl = rest.find(b"\n", start)
            if nl < 0:
                break
            number += 1
            yield rest[start:nl + 1]
            start = nl + 1
        rest = rest[start:]
        if len(rest) > MAX_INGEST_LINE:
            raise UsageError(f"line {number + 1} is longer than {MAX_INGEST_LINE} bytes")
    if rest:
        yield rest


def app_from_env() -> Starlette:
    """The app of a uvicorn worker process (``--workers``): the config comes in
    :data:`ENV_CONFIG`. The worker stops (SIGTERM) when the command that started it,
    :data:`ENV_PARENT`, dies, even killed outright: it would serve on unsupervised."""
    parent = os.environ.get(ENV_PARENT)
    if parent is not None:
        stop_with_parent(int(parent))
    config = ServeConfig.from_json(os.environ[ENV_CONFIG])
    apply_storage_options(config)
    return create_app(config)
