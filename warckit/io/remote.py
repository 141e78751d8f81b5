"""Remote inputs: a URL (``https://``, ``http://``, ``s3://``, any installed fsspec
protocol) as a seekable binary file that reads by ranged requests.

:func:`~warckit.io.sources.open_source` sends a string here only when :func:`is_url`
says it is a URL (one string test), so local paths never import fsspec. A
:class:`RemoteFile` fetches what is read in ranges: the first range is the one the
caller announced (a record's offset and CDX length: exactly that record), or a small
one, then each sequential range doubles up to :data:`READ_AHEAD`, and from
:data:`PREFETCH_FROM` on the next range is fetched on a thread while this one is
parsed; memory holds at most two ranges. Every failure is a
:class:`~warckit.errors.RemoteError` naming the URL and the byte offset.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable

from ..errors import RemoteError, UsageError
from .positioned import Positioned

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:  # (concurrent.futures is imported when a read-ahead thread starts)
    from typing import Any
    from concurrent.futures import Future, ThreadPoolExecutor
    from datetime import datetime

__all__ = [
    "FIRST_READ",
    "PREFETCH_FROM",
    "READ_AHEAD",
    "RemoteFile",
    "add_storage_option",
    "default_storage_options",
    "is_not_found",
    "is_url",
    "open_url",
    "parse_storage_option",
]

#: Largest range one request fetches while reading sequentially (the read-ahead).
READ_AHEAD = 8 << 20
#: The first range fetched when the caller announced no length (then it doubles).
FIRST_READ = 64 << 10
#: Once sequential ranges reach this size, the next one is fetched on a thread while
#: the current one is parsed (at most one range ahead: memory holds two).
PREFETCH_FROM = 1 << 20
#: Seconds a connection may take to open or stay silent (``WARCKIT_REMOTE_TIMEOUT``).
TIMEOUT = float(os.environ.get("WARCKIT_REMOTE_TIMEOUT", "60"))

#: Options every URL is opened with unless the call passes its own (the CLI's
#: ``--storage-option`` fills it; forked workers inherit it).
_DEFAULT_OPTIONS: dict[str, Any] = {}

#: Protocols whose files take a known ``size`` instead of asking the store for it.
_SIZED = frozenset({"http", "https", "s3", "s3a"})

#: The reason given when a server answers a ranged request with the whole body.
_IGNORES_RANGE = ("the server ignores Range requests (it answered with the whole file); "
                  "random access needs them")

#: The reason given when the store says the object does not exist.
_NOT_FOUND = "not found (404 or no such key)"

_EXTRA_HINT = "reading URLs needs fsspec: pip install 'warckit[remote]'"


def is_url(text: str) -> bool:
    """Whether *text* is a URL (``scheme://``) rather than a local path.

    A Windows drive path (``C:\\x``) and a plain path are not; the scheme must be
    letters, digits, ``+``, ``-`` or ``.`` and start with a letter.
    """
    i = text.find("://")
    if i < 2:
        return False
    scheme = text[:i]
    return scheme[0].isalpha() and scheme.replace("+", "").replace("-", "").replace(".", "").isalnum()


def default_storage_options() -> dict[str, Any]:
    """The process-wide storage options (a live dict: update it to change the defaults)."""
    return _DEFAULT_OPTIONS


def parse_storage_option(text: str) -> tuple[list[str], Any]:
    """``KEY=VALUE`` (``KEY`` may be dotted: ``client_kwargs.endpoint_url``) as a key path
    and a value; the value is JSON when it parses as JSON (``true``, ``5``), else the string.

    Raises:
        UsageError: there is no ``=`` or no key.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"--storage-option must be KEY=VALUE, not {text!r}")
    import json

    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    return [k.strip() for k in key.split(".")], parsed


def add_storage_option(options: dict[str, Any], text: str) -> None:
    """Set ``KEY=VALUE`` (see :func:`parse_storage_option`) in *options*, dotted keys nested.

    Raises:
        UsageError: not ``KEY=VALUE``, or a dotted key runs through a value.
    """
    keys, value = parse_storage_option(text)
    node = options
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise UsageError(f"--storage-option {text}: {key} is not a group of options")
    node[keys[-1]] = value


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in extra.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _with_timeouts(protocol: str, options: dict[str, Any]) -> dict[str, Any]:
    """Bound every wait (connect, silent socket) unless the caller set its own."""
    if protocol in ("http", "https"):
        client = dict(options.get("client_kwargs") or {})
        if "timeout" not in client:
            import aiohttp

            client["timeout"] = aiohttp.ClientTimeout(total=None, sock_connect=TIMEOUT, sock_read=TIMEOUT)
            options = {**options, "client_kwargs": client}
    elif protocol in ("s3", "s3a"):
        config = dict(options.get("config_kwargs") or {})
        config.setdefault("connect_timeout", TIMEOUT)
        config.setdefault("read_timeout", TIMEOUT)
        options = {**options, "config_kwargs": config}
    return options


def _status(exc: BaseException | None) -> tuple[int, str] | None:
    """The HTTP status somewhere in *exc*'s chain (fsspec turns a refused HEAD into a
    FileNotFoundError raised from the aiohttp error that has it)."""
    seen = 0
    while exc is not None and seen < 8:
        status = getattr(exc, "status", None)
        if isinstance(status, int):
            return status, str(getattr(exc, "message", "") or "")
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def is_not_found(exc: RemoteError) -> bool:
    """Whether *exc* says the object does not exist (HTTP 404, or no such key), as
    opposed to a store that failed or refused.

    Asks the reason, not the message: the message holds the URL, whose port or path may
    hold "404" too.

    >>> from warckit.errors import RemoteError
    >>> from warckit.io.remote import is_not_found
    >>> is_not_found(RemoteError("http://127.0.0.1:40404/a.warc.gz", None, "HTTP 500 Internal Server Error"))
    False
    >>> is_not_found(RemoteError("http://127.0.0.1:8000/a.warc.gz", None, "HTTP 404 Not Found"))
    True
    """
    return exc.reason == _NOT_FOUND or exc.reason.startswith("HTTP 404")


def _connection_error(exc: BaseException | None) -> str | None:
    """The connection failure (refused, unknown host…) somewhere in *exc*'s chain."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ConnectionError) or type(exc).__name__.startswith("ClientConnector"):
            return str(exc) or type(exc).__name__
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def _reason(exc: BaseException) -> str:
    """What a backend's exception means, in words (the URL and offset are added by the caller)."""
    found = _status(exc)
    if found is not None:
        return f"HTTP {found[0]} {found[1]}".rstrip()
    text = str(exc)
    if type(exc).__name__ == "ClientPayloadError":
        return f"the connection dropped before the range was complete ({text})"
    if isinstance(exc, ValueError) and "range requests" in text:
        return _IGNORES_RANGE
    if isinstance(exc, FileNotFoundError):
        unreachable = _connection_error(exc)
        if unreachable is not None:  # (fsspec's HTTP also says "not found" for a refused connection)
            return f"cannot connect ({unreachable})"
        return _NOT_FOUND
    if isinstance(exc, PermissionError):
        return f"access denied (403){': ' + text if text else ''}"
    if type(exc).__name__ in ("TimeoutError", "ServerTimeoutError", "ReadTimeoutError", "ConnectTimeoutError"):
        return f"timed out after {TIMEOUT:g} s ({type(exc).__name__})"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class RemoteFile(Positioned, io.BufferedIOBase):
    """A remote object as a read-only, seekable binary file (see the module docstring).

    Args:
        url: The URL.
        fs_file: The fsspec file, opened with ``cache_type="none"`` (each read is one request).
        stream: Opens the whole object as a stream: the fallback for a server that
            ignores ``Range`` (sequential reading only).
        span: ``(offset, length)`` the caller reads: the first request at *offset*
            fetches exactly *length* bytes (a record and its CDX length), and the file
            ends at ``offset + length`` (bytes before *offset* stay readable). Over
            HTTP the object's size is then not asked for (no HEAD request; s3fs
            still asks S3 for the object's ETag): :attr:`size` is ``offset + length``.
    """

    def __init__(
        self,
        url: str,
        fs_file: Any,
        span: tuple[int, int | None] | None = None,
        stream: Callable[[], Any] | None = None,
    ) -> None:
        super().__init__()
        self.name = url
        self._f = fs_file
        self.size: int = int(fs_file.size)
        self._pos = 0
        self._buf = b""
        self._buf_at = 0
        self._next = FIRST_READ
        self._span = span if span is not None and span[1] else None
        # An announced range is also where reading ends: a reader that fills whole
        # chunks must not fetch past the record it was asked for.
        self._end = self.size if self._span is None else min(self.size, sum(self._span))  # type: ignore[arg-type]
        self._ahead: Future[bytes] | None = None  # the next range, being fetched on a thread
        self._ahead_at = -1
        self._executor: ThreadPoolExecutor | None = None
        self._pid = os.getpid()
        self._open_stream = stream
        self._stream: Any = None  # the fallback stream, once a server ignored Range
        self._stream_at = 0
        #: Bytes fetched so far (all requests).
        self.fetched = 0
        self.requests = 0

    @property
    def modified(self) -> datetime | None:
        """When the object was last modified, if the store says (S3 does; asking may be
        a request)."""
        try:
            details = self._f.details or {}
        except Exception as exc:  # any backend failure becomes one typed error
            raise RemoteError(self.name, None, _reason(exc)) from exc
        value = details.get("LastModified") or details.get("last_modified")
        from datetime import datetime  # (only here: start-up of every local read stays quick)

        return value if isinstance(value, datetime) else None

    # -- io.BufferedIOBase ----------------------------------------------------------

    def read(self, size: int | None = -1) -> bytes:
        if self.closed:
            raise ValueError("read from a closed file")
        if size is None or size < 0:
            size = max(self._end - self._pos, 0)
        parts: list[bytes] = []
        while size > 0:
            i = self._pos - self._buf_at
            if not 0 <= i < len(self._buf):
                if self._pos >= self._end or not self._fill(size):
                    break
                continue
            chunk = self._buf[i : i + size]
            parts.append(chunk)
            self._pos += len(chunk)
            size -= len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def read1(self, size: int = -1) -> bytes:
        return self.read(size)

    def readinto(self, b: Any) -> int:
        view = memoryview(b).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def readinto1(self, b: Any) -> int:
        return self.readinto(b)

    def peek(self, size: int = 1) -> bytes:
        i = self._pos - self._buf_at
        if not 0 <= i < len(self._buf):
            if self._pos >= self._end or not self._fill(max(size, 1)):
                return b""
            i = 0
        return self._buf[i : i + max(size, 1)]

    def close(self) -> None:
        if not self.closed:
            self._buf = b""
            try:
                if self._pid == os.getpid():  # (a forked child has not the thread to wait for)
                    self._take_ahead(-1)  # waits for a range being fetched: bounded by the timeouts
                    if self._executor is not None:
                        self._executor.shutdown()
                self._f.close()
                if self._stream is not None:
                    self._stream.close()
            finally:
                super().close()

    def fileno(self) -> int:
        raise io.UnsupportedOperation(f"{self.name}: a remote file has no descriptor")

    # -- fetching -----------------------------------------------------------------

    def _fill(self, want: int) -> bool:
        """Fetch the range at the position; False at the end of the object."""
        start = self._pos
        if start >= self._end:
            return False
        sequential = start == self._buf_at + len(self._buf)
        data = self._take_ahead(start)
        if data is None:
            span = self._span
            if span is not None and span[0] <= start < span[0] + (span[1] or 0):
                # The announced range (a record): exactly it, in one request if it fits.
                length = span[0] + (span[1] or 0) - start
                self._span = None
                self._next = FIRST_READ
            else:
                if not sequential:
                    self._next = FIRST_READ  # not sequential: start small again
                length = max(self._next, want)
                self._next = min(self._next * 2, READ_AHEAD)
            data = self._fetch(start, min(start + min(length, max(READ_AHEAD, want)), self._end),
                               sequential)
        self._buf = data
        self._buf_at = start
        end = start + len(data)
        if sequential and self._next >= PREFETCH_FROM and end < self._end:
            # Streaming: fetch the next range on a thread while this one is parsed.
            self._ahead_at = end
            self._ahead = self._pool().submit(self._fetch, end, min(end + self._next, self._end), True)
            self._next = min(self._next * 2, READ_AHEAD)
        return True

    def _fetch(self, start: int, end: int, sequential: bool = False) -> bytes:
        """Bytes ``[start, end)``: one request (the only place that reads the object)."""
        if self._stream is not None:
            return self._from_stream(start, end)
        try:
            self._f.seek(start)
            data: bytes = self._f.read(end - start)
        except Exception as exc:  # any backend failure becomes one typed error
            reason = _reason(exc)
            if reason is _IGNORES_RANGE and sequential and self._open_stream is not None:
                # Reading on from where the last range ended: stream the whole body
                # instead (bounded memory; the bytes before *start* are sent again once).
                return self._from_stream(start, end)
            raise RemoteError(self.name, start, reason) from exc
        self.requests += 1
        self.fetched += len(data)
        if not data:
            raise RemoteError(self.name, start, "no data at this offset (the object ends before it?)")
        if len(data) < end - start:
            raise RemoteError(self.name, start + len(data),
                              f"the connection ended after {len(data)} of {end - start} bytes")
        return data

    def _from_stream(self, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` from the fallback stream (forward only)."""
        if start < self._stream_at:
            raise RemoteError(self.name, start, f"{_IGNORES_RANGE}: cannot go back in the stream")
        at = self._stream_at
        try:
            if self._stream is None:
                assert self._open_stream is not None
                self._stream = self._open_stream()
                self.requests += 1
            parts: list[bytes] = []
            while at < end:
                chunk = self._stream.read(min(end - at, 1 << 20))
                if not chunk:
                    break
                self.fetched += len(chunk)
                if at + len(chunk) > start:  # (bytes before *start* are dropped)
                    parts.append(chunk[max(start - at, 0):])
                at += len(chunk)
        except Exception as exc:  # any backend failure becomes one typed error
            raise RemoteError(self.name, at, _reason(exc)) from exc
        finally:
            self._stream_at = at
        if at < end:
            raise RemoteError(self.name, at, f"the stream ended after {at - start} of {end - start} bytes")
        return b"".join(parts)

    def _take_ahead(self, start: int) -> bytes | None:
        """The range fetched ahead if it starts at *start* (its error, if it failed);
        otherwise wait for it to finish (one request at a time) and drop it."""
        ahead, self._ahead = self._ahead, None
        if ahead is None:
            return None
        if self._ahead_at == start:
            data: bytes = ahead.result()
            return data
        try:
            ahead.result()
        except RemoteError:
            pass  # a range nobody reads any more
        return None

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor

            self._executor = ThreadPoolExecutor(1, thread_name_prefix="warckit-readahead")
        return self._executor

    def __repr__(self) -> str:
        return f"RemoteFile({self.name!r}, size={self.size})"


def open_url(
    url: str,
    *,
    storage_options: dict[str, Any] | None = None,
    span: tuple[int, int | None] | None = None,
) -> RemoteFile:
    """Open *url* for ranged reading (see :class:`RemoteFile`).

    Args:
        url: ``https://…``, ``s3://bucket/key``, or any URL of an installed fsspec protocol.
        storage_options: Passed to the fsspec filesystem (credentials, ``endpoint_url``
            in ``client_kwargs``…), over the process defaults
            (:func:`default_storage_options`) and fsspec's own configuration
            (``FSSPEC_S3_…`` variables).
        span: ``(offset, length)`` to be read first (one request for exactly it).

    Raises:
        UsageError: fsspec is not installed (the message names the extra), or the
            protocol is unknown.
        RemoteError: the object cannot be opened (missing, forbidden, unreachable).
    """
    try:
        import fsspec  # type: ignore[import-untyped,unused-ignore]  # the remote extra
        from fsspec.core import split_protocol  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise UsageError(f"{url}: {_EXTRA_HINT}") from None
    protocol = split_protocol(url)[0] or "file"
    try:
        fsspec.get_filesystem_class(protocol)
    except (ImportError, ValueError) as exc:
        raise UsageError(f"{url}: {exc} ({_EXTRA_HINT})") from None
    options = _merge(_DEFAULT_OPTIONS, storage_options or {})
    try:
        options = _with_timeouts(protocol, options)
        fs, path = fsspec.core.url_to_fs(url, **options)
        extra: dict[str, Any] = {}
        if span is not None and span[1] and protocol in _SIZED:
            # Only the announced range is read: do not ask the object's size (a HEAD).
            extra["size"] = span[0] + span[1]
        # cache_type "none": every read is one request, sized by RemoteFile.
        f = fs.open(path, "rb", block_size=READ_AHEAD, cache_type="none", **extra)
    except ImportError as exc:
        raise UsageError(f"{url}: {exc} ({_EXTRA_HINT})") from None
    except Exception as exc:  # any backend failure becomes one typed error
        raise RemoteError(url, None, _reason(exc)) from exc
    if not hasattr(f, "size") or f.size is None or not f.seekable():
        f.close()
        raise RemoteError(url, None, "the server gives no size or cannot serve byte ranges "
                          "(no Content-Length, or Accept-Ranges: none)")
    stream = None
    if protocol in ("http", "https"):
        def stream() -> Any:
            return fs.open(path, "rb", block_size=0)  # the whole body, streaming
    return RemoteFile(url, f, span, stream)
