"""Record a script's HTTP traffic as WARC records: :func:`capture` (``warckit.capture``).

Inside ``with warckit.capture(...)``, every HTTP/1.x exchange that ``requests``,
``urllib3``, ``urllib.request`` (all over :mod:`http.client`) or ``httpx`` (over
httpcore, sync and async) makes is written through the guided
:class:`~warckit.WarcWriter`: a ``response`` record holding the response exactly as
received, then a ``request`` record holding the request as sent, concurrent to it.

Modules: ``exchanges`` (sans-IO: a connection's bytes → exchanges, with h11),
``session`` (the capture, taps, writing), ``via_http_client`` and ``via_httpcore`` (the
patches on each library).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from . import via_http_client, via_httpcore
from .session import Capture, RequestInfo

__all__ = ["Capture", "RequestInfo", "capture"]

#: The library taps, each ``install(capture) -> undo``.
_INSTALLERS = (via_http_client.install, via_httpcore.install)


def capture(
    target: str | os.PathLike[str] | Any,
    *,
    filter: Callable[[RequestInfo], bool] | None = None,  # noqa: A002 - the brief's name
    **writer_options: Any,
) -> Capture:
    """Record the HTTP traffic made inside the ``with`` block into WARC files.

    Every HTTP/1.x exchange made by ``requests``, ``urllib3``, ``urllib.request`` or
    ``httpx`` (``Client`` and ``AsyncClient``), in any thread, becomes a ``response``
    record (the response as received: head and body still chunked, still
    content-encoded) followed by a ``request`` record (the request as sent) whose
    ``WARC-Concurrent-To`` names the response. Both carry the full URL as
    ``WARC-Target-URI`` (``https://`` for TLS connections: the records hold the HTTP
    bytes above TLS) and the server's ``WARC-IP-Address``. Bodies are spooled to
    temporary files past 1 MiB, never held whole in memory. A keep-alive connection
    gives one pair per exchange, in order.

    Only one capture is active in a process at a time: the libraries are patched while
    it is, for every thread. The patches are removed at the end of the block, also when
    it raises. Not recorded: a ``CONNECT`` (the exchanges through the tunnel are),
    interim ``1xx`` responses (the response record starts at the final response), a
    request that got no response head, what follows a protocol switch, HTTP/2. A
    response cut short (the client closed it, the block ended, the server hung up) is
    written with ``WARC-Truncated``.

    Args:
        target: A directory (a :class:`~warckit.WarcWriter` is made there with
            *writer_options* and closed at the end of the block) or an open
            :class:`~warckit.WarcWriter` (used as is, left open).
        filter: Called with a :class:`RequestInfo` once each request head is sent;
            the exchange is written only when it returns true.
        writer_options: Keyword arguments of :class:`~warckit.WarcWriter` (``prefix``,
            ``compression``, ``warcinfo``…), with a directory only.

    Returns:
        A :class:`Capture` to use in a ``with`` statement; ``as`` gives the same object,
        whose :attr:`~Capture.writer`, :attr:`~Capture.records` and
        :attr:`~Capture.files` say what was written.

    Raises:
        UsageError: *target* is neither, *writer_options* came with a writer, h11 is
            not installed, or (on entering) another capture is active.
        CaptureError: at the end of the block, when some exchange could not be
            recorded (see :attr:`~warckit.errors.CaptureError.failures`); the others
            are written.
    """
    from ..write.guided import WarcWriter

    if importlib.util.find_spec("h11") is None:
        raise UsageError("warckit.capture() needs h11 to find where HTTP messages end: "
                         "pip install h11 (or the proxy extra)")
    if filter is not None and not callable(filter):
        raise UsageError(f"capture(): filter must be callable, not {type(filter).__name__}")
    if isinstance(target, WarcWriter):
        if writer_options:
            raise UsageError("capture(): writer options ("
                             + ", ".join(sorted(writer_options))
                             + ") go with a directory, not with a writer")
        return Capture(target, owned=False, installers=_INSTALLERS, filter=filter)
    if isinstance(target, (str, os.PathLike)):
        return Capture(WarcWriter(target, **writer_options), owned=True, installers=_INSTALLERS,
                       filter=filter)
    raise UsageError("capture(): give a directory or a warckit.WarcWriter, not "
                     f"{type(target).__name__}")
