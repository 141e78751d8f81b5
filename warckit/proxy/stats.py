"""The proxy's statistics (warcprox's buckets), kept by one process or shared by its workers.

Counts are made on the archiving thread, read on the event loop (``/status``, limits).
A proxy of one process keeps them in memory. The worker processes of ``--workers N``
share them through a :class:`SharedStats` file: each worker counts in memory and
:meth:`SharedStats.flush` (every :data:`FLUSH_SECONDS`, from the archiving thread) adds
its counts to the file and takes back every worker's totals, so a worker sees the others'
captures at most that late (warcprox's stats are batched too).
"""

from __future__ import annotations

import os
import sqlite3
import threading

from .meta import ALL_BUCKET

__all__ = ["FLUSH_SECONDS", "SharedStats", "Stats"]

#: Seconds between a worker's flushes (and its dedup commits).
FLUSH_SECONDS = 0.2
#: Seconds a worker waits for another's lock on the shared file.
_BUSY_SECONDS = 30.0

Counts = dict[str, dict[str, dict[str, int]]]


def _zero() -> dict[str, dict[str, int]]:
    return {k: {"urls": 0, "wire_bytes": 0} for k in ("total", "new", "revisit")}


class Stats:
    """Captures and wire bytes per bucket: ``{bucket: {total|new|revisit: {urls, wire_bytes}}}``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._base: Counts = {}  # (SharedStats: every worker's flushed totals)
        self._own: Counts = {ALL_BUCKET: _zero()}  # (SharedStats: this worker's, not yet flushed)
        self._files: list[str] = []  # (SharedStats: the other workers' files)

    def count(self, buckets: tuple[str, ...], kind: str, wire_bytes: int) -> None:
        """Count a capture of *kind* (``new`` or ``revisit``) in ``__all__`` and *buckets*."""
        with self._lock:
            for bucket in (ALL_BUCKET, *buckets):
                s = self._own.setdefault(bucket, _zero())
                for sub in ("total", kind):
                    s[sub]["urls"] += 1
                    s[sub]["wire_bytes"] += wire_bytes

    def _value(self, bucket: str, sub: str, name: str) -> int:
        return sum(c[bucket][sub][name] for c in (self._base, self._own) if bucket in c)

    def snapshot(self, buckets: tuple[str, ...] = ()) -> Counts:
        """A copy of the counts of *buckets* (all of them when empty)."""
        with self._lock:
            names = buckets or tuple(dict.fromkeys((*self._base, *self._own)))
            return {b: {sub: {name: self._value(b, sub, name) for name in ("urls", "wire_bytes")}
                        for sub in ("total", "new", "revisit")} for b in names}

    def reached(self, limits: dict[str, int]) -> dict[str, int] | None:
        """The first of *limits* (``bucket/sub/field: n``) already reached, or ``None``."""
        with self._lock:
            for key, n in limits.items():
                bucket, sub, name = key.rsplit("/", 2)
                if self._value(bucket, sub, name) >= n:
                    return {key: n}
        return None

    def other_files(self) -> list[str]:
        """Files written by the other workers (as of the last flush)."""
        with self._lock:
            return list(self._files)

    def flush(self, files: list[str]) -> None:
        """Share this process's counts and *files* (nothing to do for one process)."""

    def close(self) -> None:
        """Release what :meth:`flush` holds."""


class SharedStats(Stats):
    """:class:`Stats` shared by worker processes through an SQLite file.

    Args:
        path: The file (made by :meth:`create` before the workers start).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = os.fspath(path)
        self._db: sqlite3.Connection | None = None
        self._pid = os.getpid()

    @staticmethod
    def create(path: str | os.PathLike[str], workers: int = 1) -> None:
        """Make the shared file (WAL: readers never wait for a writer) for *workers*
        processes, each of which calls :meth:`leave` once when it stops."""
        db = sqlite3.connect(os.fspath(path), timeout=_BUSY_SECONDS)
        try:
            db.execute("PRAGMA journal_mode = WAL")
            db.executescript("""
                CREATE TABLE IF NOT EXISTS stats (bucket TEXT, sub TEXT, urls INTEGER,
                    wire_bytes INTEGER, PRIMARY KEY (bucket, sub));
                CREATE TABLE IF NOT EXISTS files (pid INTEGER, path TEXT);
                CREATE TABLE IF NOT EXISTS live (workers INTEGER);
            """)
            db.execute("DELETE FROM live")
            db.execute("INSERT INTO live VALUES (?)", (workers,))
            db.commit()
        finally:
            db.close()

    @staticmethod
    def leave(path: str | os.PathLike[str]) -> bool:
        """A worker stops: whether it was the last of those :meth:`create` counted."""
        db = sqlite3.connect(os.fspath(path), timeout=_BUSY_SECONDS, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")  # (the count is read back by the writer that set it)
            db.execute("UPDATE live SET workers = workers - 1")
            (left,) = db.execute("SELECT workers FROM live").fetchone()
            db.execute("COMMIT")
            return bool(left <= 0)
        finally:
            db.close()

    def flush(self, files: list[str]) -> None:
        """Add this worker's counts to the file; take every worker's totals and files back."""
        if self._db is None or self._pid != os.getpid():  # (opened in the worker, after fork)
            self._db = sqlite3.connect(self.path, timeout=_BUSY_SECONDS)
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._pid = os.getpid()
        db = self._db
        with self._lock:
            own = {b: {sub: dict(v) for sub, v in s.items()} for b, s in self._own.items()}
        with db:
            db.executemany(
                "INSERT INTO stats VALUES (?, ?, ?, ?) ON CONFLICT (bucket, sub) DO UPDATE "
                "SET urls = urls + excluded.urls, wire_bytes = wire_bytes + excluded.wire_bytes",
                [(b, sub, v["urls"], v["wire_bytes"]) for b, s in own.items() for sub, v in s.items()])
            db.execute("DELETE FROM files WHERE pid = ?", (self._pid,))
            db.executemany("INSERT INTO files VALUES (?, ?)", [(self._pid, f) for f in files])
            rows = db.execute("SELECT bucket, sub, urls, wire_bytes FROM stats").fetchall()
            others = [p for (p,) in db.execute("SELECT path FROM files WHERE pid != ?", (self._pid,))]
        base: Counts = {}
        for bucket, sub, urls, wire_bytes in rows:
            base.setdefault(bucket, _zero())[sub] = {"urls": urls, "wire_bytes": wire_bytes}
        with self._lock:  # (counts come on this thread only: none came since the copy)
            self._base, self._own, self._files = base, {ALL_BUCKET: _zero()}, others

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    @staticmethod
    def all_files(path: str | os.PathLike[str]) -> list[str]:
        """Every worker's files, as last flushed."""
        db = sqlite3.connect(os.fspath(path), timeout=_BUSY_SECONDS)
        try:
            return [p for (p,) in db.execute("SELECT path FROM files ORDER BY path")]
        finally:
            db.close()
