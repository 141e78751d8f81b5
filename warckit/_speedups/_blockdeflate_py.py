"""Raw-deflate compression of whole record blocks: the pure-Python twin.

Same interface as the compiled ``_blockdeflate_c`` (``_speedups/blockdeflate.pyx``),
which calls libdeflate's C library and compresses on a native thread without the GIL.
Here the ``deflate`` package (libdeflate; it holds the GIL) is used when installed,
else stdlib :mod:`zlib` (levels above 9 become 9). A :class:`Worker` compresses
blocks of at least :data:`THREAD_MIN` bytes on a worker thread (the compressors
release the GIL at most partly, so only large blocks gain) and smaller ones at once.
The output decompresses to the input either way; its bytes may differ from the
compiled module's.
"""

from __future__ import annotations

import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor

try:  # pragma: no cover - depends on the environment
    import deflate as _libdeflate
except ImportError:  # pragma: no cover
    _libdeflate = None  # type: ignore[assignment]

__all__ = ["MAX_LEVEL", "THREAD_MIN", "Job", "Worker", "crc32", "deflate"]

#: Highest libdeflate level.
MAX_LEVEL = 12
#: Blocks at least this large go to the worker thread (smaller ones: the hand-off
#: costs more than the overlap saves).
THREAD_MIN = 256 << 10


def deflate(data: bytes | bytearray | memoryview, level: int) -> bytes:
    """*data* as one raw-deflate stream (final block) at libdeflate *level* (0-12)."""
    if not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"libdeflate level {level} is out of range (0-12)")
    if _libdeflate is not None:
        return bytes(_libdeflate.deflate_compress(bytes(data), level))
    c = zlib.compressobj(min(level, 9), zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def crc32(data: bytes | bytearray | memoryview, value: int = 0) -> int:
    """CRC-32 of *data*, continuing from *value* (as :func:`zlib.crc32`)."""
    return zlib.crc32(data, value)


class Job:
    """A block handed to a :class:`Worker`; :meth:`result` waits for it."""

    __slots__ = ("_data", "_future", "_level", "_lock", "_result")

    def __init__(self, data: bytes, level: int, future: Future[bytes] | None) -> None:
        self._lock = threading.Lock()
        self._data: bytes | None = data
        self._level = level
        self._future = future
        self._result: tuple[bytes, int] | None = None
        if future is None:
            self._finish(deflate(data, level))

    def _finish(self, out: bytes) -> None:
        assert self._data is not None
        self._result = (out, crc32(self._data))
        self._data = None

    def done(self) -> bool:
        """The worker has finished this job (:meth:`result` will not wait)."""
        future = self._future  # read once: another thread may settle the job meanwhile
        return self._result is not None or (future is not None and future.done())

    def result(self) -> tuple[bytes, int]:
        """``(raw deflate stream, CRC-32 of the input)``, waiting for the worker.

        Safe to call from several threads at once (all get the same result)."""
        if self._result is None:
            with self._lock:
                if self._result is None:
                    assert self._future is not None and self._data is not None
                    # A job the pool has not started (all CPUs busy) is compressed here.
                    out = (deflate(self._data, self._level) if self._future.cancel()
                           else self._future.result())
                    self._future = None
                    self._finish(out)
        assert self._result is not None
        return self._result


class Worker:
    """Compresses blocks, large ones on a worker thread; safe to share between threads."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, data: bytes, level: int) -> Job:
        """Queue *data* for compression at *level* (0-12); return its :class:`Job`."""
        if not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"libdeflate level {level} is out of range (0-12)")
        if len(data) < THREAD_MIN:
            return Job(data, level, None)
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1,
                                                thread_name_prefix="warckit-deflate")
            future = self._pool.submit(deflate, data, level)
        return Job(data, level, future)

    def close(self) -> None:
        """Finish the queued jobs and stop the thread (a later submit restarts it)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
