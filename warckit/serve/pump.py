"""Run a blocking body iterator on one thread of its own and hand its chunks to the event loop.

The rest of a long answer (the app makes an answer's first part in one worker-thread trip)
is advanced and closed on one thread, never hopped across a thread pool chunk by chunk. A small queue between the two sides bounds
memory (a slow client slows the producer); a client that goes away stops it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Generic, TypeVar

import anyio.to_thread

__all__ = ["Pump"]

T = TypeVar("T")

#: Chunks queued between the producing thread and the response.
DEPTH = 8
_POLL = 0.2


class Pump(Generic[T]):
    """``start()`` → ``(head, chunks)`` run on a new thread; :meth:`head` then :meth:`body`.

    Errors raised by ``start()`` or by the first chunk come out of :meth:`head` (before
    any response is sent); later ones out of :meth:`body`.
    """

    def __init__(self, start: Callable[[], tuple[T, Iterator[bytes]]]) -> None:
        self._start = start
        self._queue: queue.Queue[tuple[str, object]] = queue.Queue(DEPTH)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="warckit-serve-body", daemon=True)
        self._thread.start()
        self._first: tuple[str, object] | None = None

    def _put(self, item: tuple[str, object]) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        try:
            head, chunks = self._start()
        except BaseException as exc:  # noqa: BLE001 - handed to the event loop's side
            self._put(("error", exc))
            return
        if not self._put(("head", head)):
            return
        try:
            for chunk in chunks:
                if chunk and not self._put(("chunk", chunk)):
                    break
            else:
                self._put(("end", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the event loop's side
            self._put(("error", exc))
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    async def _get(self) -> tuple[str, object]:
        return await anyio.to_thread.run_sync(self._queue.get)

    async def head(self) -> T:
        """What ``start()`` returned first, once the first chunk (or the end) is there too."""
        kind, value = await self._get()
        if kind == "error":
            self._stop.set()
            raise value  # type: ignore[misc]
        self._first = await self._get()
        if self._first[0] == "error":
            self._stop.set()
            raise self._first[1]  # type: ignore[misc]
        return value  # type: ignore[return-value]

    async def body(self) -> AsyncIterator[bytes]:
        """The chunks; an error of the iterator is raised here."""
        assert self._first is not None, "head() first"
        kind, value = self._first
        try:
            while kind == "chunk":
                yield value  # type: ignore[misc]
                kind, value = await self._get()
            if kind == "error":
                raise value  # type: ignore[misc]
        finally:
            self._stop.set()
