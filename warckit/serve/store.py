"""A writable collection: pywb CDXJ lines in an SQLite database (docs/serve-ingest.rst).

SQLite (the standard library's :mod:`sqlite3`) needs no server and keeps a collection in
one file; a batch is one transaction; in WAL mode readers keep reading while a batch is
written; and its B-tree range scan over a ``BLOB`` key compared with ``memcmp`` is the
binary search of a sorted file. A :class:`CdxStore` is an :class:`~warckit.cdx.query.Index`,
so :func:`~warckit.cdx.query.run_query` reads it as it reads a sorted CDXJ file.

Safe for several threads and processes at once: each operation takes a connection of its
own (from a small pool, never shared by two operations), writers wait for each other up
to :data:`BUSY_TIMEOUT` seconds, and a scan reads one snapshot from start to end.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..cdx.query import Index
from ..errors import ParseError, UsageError, WarckitError
from .ingest import BadLine, LineConverter, StoredLine

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["BUSY_TIMEOUT", "CdxStore", "IngestLineError", "IngestResult", "StoreError"]

#: Seconds a write waits for another process's or thread's batch to finish.
BUSY_TIMEOUT = 60.0
#: ``PRAGMA application_id`` of a warckit store ("WCDX").
APPLICATION_ID = 0x57434458
#: ``PRAGMA user_version``: the schema below.
SCHEMA_VERSION = 1
#: Rows fetched per step of a scan.
FETCH_ROWS = 512
#: Idle connections kept for reuse.
POOL_SIZE = 8
#: A connection that staged more lines than this is closed, not kept (nor its temp file).
LARGE_BATCH = 100_000

_SCHEMA = """
CREATE TABLE captures (
    line BLOB PRIMARY KEY,  -- pywb CDXJ line with its newline: memcmp order = a sorted file's
    ident BLOB NOT NULL     -- capture identity (key, timestamp, filename, offset), 16 bytes
) WITHOUT ROWID;
"""
#: Per-connection staging table: a batch is converted into it before the write lock is
#: taken. The first ``head`` bytes of ``line`` are its key and timestamp (and a space):
#: a stored line of the same capture starts with them too, so a range seek finds it
#: (no second index on ``ident``).
_STAGING = """
CREATE TEMP TABLE IF NOT EXISTS batch (line BLOB NOT NULL, ident BLOB NOT NULL,
                                       head INTEGER NOT NULL);
"""
#: Stored lines of the captures staged (CROSS JOIN: the batch drives, each a range seek;
#: ``substr`` of a BLOB is a BLOB, and ``!`` is the byte after the space).
_STAGED_CAPTURES = (
    "SELECT c.line FROM temp.batch AS b CROSS JOIN main.captures AS c "
    "ON c.line >= substr(b.line, 1, b.head) "
    "AND c.line < CAST(substr(b.line, 1, b.head - 1) || '!' AS BLOB) "
    "WHERE c.ident = b.ident")
#: Connections inherited through fork: never used nor closed in the child.
_INHERITED: list[sqlite3.Connection] = []


class StoreError(WarckitError):
    """The store's database cannot be opened, read or written (damaged, not a store, busy).

    Attributes:
        source: The database path.
        reason: What went wrong.
    """

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


class IngestLineError(ParseError):
    """A line of a batch cannot be stored (``bad_lines="error"``); nothing of the batch is kept.

    Attributes:
        line: 1-based number of the line in the batch.
        content: The line (up to 200 characters).
    """

    def __init__(self, source: str, line: int, content: str, reason: str) -> None:
        self.line = line
        self.content = content
        super().__init__(f"line {line}: {reason}: {content!r}", source=source)


@dataclass(frozen=True)
class IngestResult:
    """What :meth:`CdxStore.add` or :meth:`CdxStore.delete` did.

    Attributes:
        count: Captures added (every capture line of the batch, a re-posted one too) or
            captures removed (only those that were stored).
        skipped: ``(line number, reason)`` of every line left out (``bad_lines="skip"``).
    """

    count: int
    skipped: tuple[tuple[int, str], ...] = ()


def _successor(prefix: bytes) -> bytes | None:
    """The least byte string above every string starting with *prefix* (``None``: none)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes([stripped[-1] + 1])


class CdxStore(Index):
    """A writable, queryable set of captures kept in the SQLite database *path*.

    Opens the database, or creates it (an empty file counts as new). Lines come out as
    pywb CDXJ keyed by ``cdx_key(url)``, in bytewise order.

    Raises:
        StoreError: The file is not an SQLite database, is damaged, or is another
            program's database.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.zipnum = None
        self.format = "cdxj"
        self.declared_sorted = None
        self.key_style = "cdx"
        self._lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []
        self._pid = os.getpid()
        self._closed = False
        conn = self._connect()
        try:
            self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        self._release(conn)

    # -- connections ---------------------------------------------------------------------

    def _error(self, exc: sqlite3.Error) -> StoreError:
        text = str(exc)
        if "file is not a database" in text or "malformed" in text:
            return StoreError(self.path, f"not an SQLite database, or a damaged one ({text})")
        if "locked" in text or "busy" in text:
            return StoreError(self.path, f"busy: another writer held the database for over "
                                         f"{BUSY_TIMEOUT:g} s ({text})")
        return StoreError(self.path, text)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        try:
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA temp_store = FILE")  # a staged batch spills to disk
            conn.executescript(_STAGING)
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from None
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Check the database is a store (or empty: make it one) and in WAL mode."""
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            if app_id == 0:
                self._use_wal(conn)
                conn.execute("BEGIN IMMEDIATE")
                try:
                    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
                    if app_id == 0:  # still new once the write lock is held
                        names = [r[0] for r in conn.execute(
                            "SELECT name FROM sqlite_master WHERE type = 'table'")]
                        if names:
                            raise StoreError(self.path, "an SQLite database, but not a warckit "
                                             f"store (tables: {', '.join(names)})")
                        conn.execute(_SCHEMA.strip())
                        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                        app_id = APPLICATION_ID
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            if app_id != APPLICATION_ID:
                raise StoreError(self.path, "an SQLite database, but not a warckit store "
                                 f"(application_id {app_id:#x})")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                raise StoreError(self.path, f"store schema version {version}; this warckit "
                                 f"reads version {SCHEMA_VERSION}")
            self._use_wal(conn)
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    @staticmethod
    def _use_wal(conn: sqlite3.Connection) -> None:
        """Put the database in WAL mode (once: the mode is kept in the file)."""
        # Quirk: switching the journal mode fails at once with "database is locked" while
        # another connection reads or switches it, without waiting on the busy timeout:
        # processes creating one store at once retry here, up to BUSY_TIMEOUT.
        deadline = time.monotonic() + BUSY_TIMEOUT
        pause = 0.001
        while conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(pause * 2, 0.05)

    def _acquire(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise UsageError(f"{self.path}: the store is closed")
            if os.getpid() != self._pid:  # forked: the parent's connections are not ours
                _INHERITED.extend(self._idle)
                self._idle = []
                self._pid = os.getpid()
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _release(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            conn.close()
            return
        with self._lock:
            if not self._closed and os.getpid() == self._pid and len(self._idle) < POOL_SIZE:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close the database (scans under way finish first and close their connection)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------

    def iter_prefix(self, prefix: bytes) -> Iterator[bytes]:
        """Stored lines starting with *prefix*, in bytewise order, from one snapshot.

        A range scan ``prefix <= line < successor(prefix)`` read :data:`FETCH_ROWS` rows
        at a time: memory stays bounded whatever the store holds, and a batch written
        meanwhile is seen whole or not at all.
        """
        # Quirk: SQLite orders every TEXT before every BLOB; a str prefix would find nothing.
        prefix = prefix.encode("utf-8") if isinstance(prefix, str) else bytes(prefix)
        conn = self._acquire()
        cursor: sqlite3.Cursor | None = None
        try:
            high = _successor(prefix)
            if high is None:
                cursor = conn.execute(
                    "SELECT line FROM captures WHERE line >= ? ORDER BY line", (prefix,))
            else:
                cursor = conn.execute(
                    "SELECT line FROM captures WHERE line >= ? AND line < ? ORDER BY line",
                    (prefix, high))
            while True:
                rows = cursor.fetchmany(FETCH_ROWS)
                if not rows:
                    return
                for (line,) in rows:
                    yield line
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        finally:
            if cursor is not None:
                cursor.close()
            self._release(conn)

    # -- writing -------------------------------------------------------------------------

    def add(self, lines: Iterable[bytes], *,
            bad_lines: Literal["error", "skip"] = "error") -> IngestResult:
        """Store the captures of *lines* (CDX-11/10/9, CDXJ, new-style; headers skipped).

        One transaction: with ``bad_lines="error"`` a bad line raises and nothing of the
        batch is kept. A capture already stored (same key, timestamp, filename and offset)
        is replaced by the line posted last.

        Raises:
            IngestLineError: A bad line (a :class:`~warckit.errors.ParseError`), with
                ``bad_lines="error"``.
            StoreError: The database cannot be written.
        """
        return self._write(lines, bad_lines, delete=False)

    def delete(self, lines: Iterable[bytes], *,
               bad_lines: Literal["error", "skip"] = "error") -> IngestResult:
        """Remove the stored captures that *lines* name (same key, timestamp, filename and
        offset; the other fields need not match). Lines matching nothing are no error;
        :attr:`IngestResult.count` is the number of captures removed.

        Raises:
            IngestLineError: A bad line, with ``bad_lines="error"`` (nothing is removed).
            StoreError: The database cannot be written.
        """
        return self._write(lines, bad_lines, delete=True)

    def _write(self, lines: Iterable[bytes], bad_lines: str, *, delete: bool) -> IngestResult:
        if bad_lines not in ("error", "skip"):
            raise UsageError(f"bad_lines must be 'error' or 'skip', not {bad_lines!r}")
        skipped: list[tuple[int, str]] = []
        accepted = 0

        def converted() -> Iterator[StoredLine]:
            nonlocal accepted
            converter = LineConverter()
            for number, raw in enumerate(lines, 1):
                try:
                    stored = converter.convert(raw)
                except BadLine as bad:
                    content = raw[:200].decode("utf-8", "replace").rstrip("\r\n")
                    if bad_lines == "error":
                        raise IngestLineError(self.path, number, content, str(bad)) from None
                    skipped.append((number, f"{bad}: {content!r}"))
                    continue
                if stored is not None:
                    accepted += 1
                    yield stored

        conn = self._acquire()
        removed = 0
        try:
            # Stage first (a temp table: no lock on the store while a slow client posts),
            # then apply in one short write transaction.
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO temp.batch VALUES (?, ?, ?)", (
                (s.line, s.ident, len(s.head)) for s in converted()))
            if not delete:  # of two lines of one capture, the one posted last stays
                conn.execute("DELETE FROM temp.batch WHERE rowid NOT IN "
                             "(SELECT max(rowid) FROM temp.batch GROUP BY ident)")
            conn.execute("COMMIT")
            if accepted:
                conn.execute("BEGIN IMMEDIATE")
                before = conn.total_changes
                conn.execute(f"DELETE FROM main.captures WHERE line IN ({_STAGED_CAPTURES})")
                removed = conn.total_changes - before
                if not delete:
                    conn.execute("INSERT INTO main.captures (line, ident) "
                                 "SELECT line, ident FROM temp.batch ORDER BY line")
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        finally:
            # A connection that staged a large batch is closed: its temp file goes with it.
            keep = accepted < LARGE_BATCH
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                conn.execute("DELETE FROM temp.batch")
            except sqlite3.Error:
                keep = False
            if keep:
                self._release(conn)
            else:
                conn.close()
        return IngestResult(removed if delete else accepted, tuple(skipped))
