"""Compression off the caller's thread: the shared thread pool for large blocks, and
the queue of records whose blocks are still being compressed."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol

from .._util.cpus import cpu_count
from .written import WrittenRecord, reraise


class BlockSink(Protocol):
    """What the queue needs of a :class:`~warckit.write.encode.BlockSink`."""

    length: int

    @property
    def done(self) -> bool: ...

    def close(self) -> None: ...

__all__ = ["MAX_PENDING", "MAX_PENDING_BYTES", "THREADS_DEFAULT", "PendingQueue"]

#: Compress large blocks on a worker thread by default (only pays with a second CPU).
THREADS_DEFAULT = cpu_count() > 1

_executor_lock = threading.Lock()
_executor_obj: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    """The shared compression pool (threads start on demand; one per concurrent record)."""
    global _executor_obj
    ex = _executor_obj
    if ex is None:
        with _executor_lock:
            if _executor_obj is None:
                _executor_obj = ThreadPoolExecutor(max_workers=max(2, cpu_count()),
                                                   thread_name_prefix="warckit-deflate")
            ex = _executor_obj
    return ex


def _forget_executor() -> None:  # pragma: no cover - runs in forked children
    global _executor_obj, _executor_lock
    _executor_obj = None
    _executor_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_executor)




#: Most records in flight (returned to the caller, block still being compressed on
#: the worker thread, not yet in the file). Many small records can queue up behind a
#: large one, so the worker never waits for the caller.
MAX_PENDING = 64
#: Most block bytes held by the records in flight.
MAX_PENDING_BYTES = 16 << 20


class PendingQueue:
    """Records whose blocks a worker thread is compressing, oldest first, written in
    order before anything else is.

    Args:
        lock: The writer's lock (reentrant), held while records are placed.
        place: ``place(series, encode) -> (filename, offset, length)`` writes one record.
        directory: Where the files are (for the records' paths).
    """

    def __init__(self, lock: threading.RLock, place: Callable[[Any, Any], tuple[str, int, int]],
                 directory: str) -> None:
        self._lock = lock
        self._place = place
        self._directory = directory
        self._items: deque[tuple[Any, Any, BlockSink, WrittenRecord]] = deque()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def add(self, series: Any, encode: Any, sink: BlockSink, record: WrittenRecord) -> None:
        """Queue *record* (its location settles through this queue), then :meth:`drain`."""
        object.__setattr__(record, "_settle", partial(self.settle, record))
        self._items.append((series, encode, sink, record))
        self.bytes += sink.length
        self.drain()

    def drain(self) -> None:
        """Write the records that are compressed, and the oldest ones while more than
        :data:`MAX_PENDING` records or :data:`MAX_PENDING_BYTES` are in flight."""
        items = self._items
        while items and (len(items) > MAX_PENDING or self.bytes > MAX_PENDING_BYTES
                         or items[0][2].done):
            self._write_first()

    def settle(self, until: WrittenRecord | None = None) -> None:
        """Write the records in flight, in order: all, or up to and including *until*."""
        with self._lock:
            items = self._items
            while items:
                if until is not None and until._settle is None:
                    return  # placed meanwhile (by another thread)
                record = items[0][3]
                self._write_first()
                if record is until:
                    return

    def _write_first(self) -> None:
        series, encode, sink, record = self._items.popleft()
        self.bytes -= sink.length
        try:
            filename, offset, size = self._place(series, encode)
        except BaseException as exc:
            # Asking this record for its location again raises the same error.
            object.__setattr__(record, "_settle", partial(reraise, exc))
            raise
        finally:
            sink.close()
        record._placed(filename, os.path.join(self._directory, filename), offset, size)

    def abandon(self, exc: BaseException) -> None:
        """Drop the records in flight after a failure: asking them for their location
        raises *exc*."""
        while self._items:
            _series, _encode, sink, record = self._items.popleft()
            sink.close()
            object.__setattr__(record, "_settle", partial(reraise, exc))
        self.bytes = 0
