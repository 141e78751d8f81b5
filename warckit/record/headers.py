"""Immutable, ordered, case-insensitive WARC header fields.

A :class:`Headers` keeps every field in file order, duplicates included, and the
exact bytes it was parsed from, so a record written back raw is byte-identical.
Updates (:meth:`Headers.with_replaced`, :meth:`Headers.with_added`,
:meth:`Headers.without`) return a new object; the original bytes are dropped from
the copy because they no longer describe it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

from .._speedups.headers import impl as _hp
from ..errors import DuplicateHeaderError

__all__ = ["Headers"]


class Headers:
    """An immutable sequence of ``(name, value)`` header fields.

    Lookup by name is case-insensitive. ``sole`` / ``first`` / ``all`` follow
    jwarc: ``sole`` refuses a repeated field, ``first`` takes the first of several,
    ``all`` returns every value.

    Args:
        fields: ``(name, value)`` pairs in order.
        raw: The exact bytes the fields were parsed from (optional).
    """

    __slots__ = ("_concurrent", "_firsts", "_flds", "_index", "_lenient", "_raw")

    def __init__(self, fields: Iterable[tuple[str, str]] = (), *, raw: bytes | None = None) -> None:
        self._flds: tuple[tuple[str, str], ...] | None = tuple(fields)
        self._index: dict[str, int] | None = None
        self._firsts: dict[str, str] | None = None
        self._concurrent: list[str] | None = None
        self._raw = raw
        self._lenient = False

    @classmethod
    def _unparsed(cls, raw: bytes, lenient: bool) -> Headers:
        """Headers over field lines the reader has checked but not split yet.

        The fields are parsed on first use, with the same rules (*lenient*) the
        check used, so the result is what parsing at once would have given. The
        compiled reader core fills the same slots itself (``_headers`` in
        ``_speedups/readercore.pyx``, which falls back to this method when the slots
        differ from its ``_HEADERS_SLOTS``).
        """
        self = cls.__new__(cls)
        self._flds = None
        self._index = None
        self._firsts = None
        self._concurrent = None
        self._raw = raw
        self._lenient = lenient
        return self

    @property
    def _fields(self) -> tuple[tuple[str, str], ...]:
        fields = self._flds
        if fields is None:
            raw = self._raw
            assert raw is not None
            fields = self._flds = tuple(_hp.parse_fields(raw, 0, len(raw), self._lenient)[0])
        return fields

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str]) -> Headers:
        """Build headers from a mapping, in its iteration order."""
        return cls(mapping.items())

    def _lookup(self) -> dict[str, int]:
        """Lowercased name -> index of its first occurrence (built on first use)."""
        index = self._index
        if index is None:
            fields = self._fields
            # Reversed, so that the first occurrence of a repeated name wins.
            index = {fields[i][0].lower(): i for i in range(len(fields) - 1, -1, -1)}
            self._index = index
        return index

    def _values(self) -> dict[str, str]:
        """Lowercased name -> its first value: one scan of the field lines, built on
        first use (what every record property reads, so no name index is needed)."""
        firsts = self._firsts
        if firsts is None:
            raw = self._raw
            if self._flds is None and raw is not None:
                firsts, self._concurrent = _hp.field_map(raw, 0, len(raw), self._lenient)
            else:
                firsts = {}
                setdefault = firsts.setdefault  # the first occurrence of a repeated name wins
                for name, value in self._fields:
                    setdefault(name.lower(), value)
            self._firsts = firsts
        return firsts

    def _positions(self, key: str) -> list[int]:
        """Every index of lowercased *key* (a scan: only needed when names repeat)."""
        return [i for i, (n, _) in enumerate(self._fields) if n.lower() == key]

    def first_values(self) -> tuple[dict[str, str], list[str]]:
        """The first value of every field by lowercased name, and every WARC-Concurrent-To
        value (the one field WARC lets repeat), in order.

        One pass over the raw field lines when they have not been split yet, by the
        same scanner that parses them (what an indexer needs from every record head);
        kept, so every later lookup by name is one dictionary access. The caller must
        not change what it returns.

        Example:
            >>> from warckit import Headers
            >>> Headers([("WARC-Type", "response"), ("warc-type", "x"),
            ...          ("WARC-Concurrent-To", "<a>"), ("WARC-Concurrent-To", "<b>")]).first_values()
            ({'warc-type': 'response', 'warc-concurrent-to': '<a>'}, ['<a>', '<b>'])
        """
        firsts = self._values()
        concurrent = self._concurrent
        if concurrent is None:
            concurrent = self._concurrent = [
                v for n, v in self._fields if len(n) == 18 and n.lower() == "warc-concurrent-to"]
        return firsts, concurrent

    def grouped(self) -> dict[str, list[str]]:
        """Every value of every field by lowercased name, in order: one pass over the
        raw field lines when they have not been split yet (what a validator needs from
        every record head). A new dictionary each call.

        Example:
            >>> from warckit import Headers
            >>> Headers([("WARC-Type", "response"), ("WARC-Concurrent-To", "<a>"),
            ...          ("warc-concurrent-to", "<b>")]).grouped()
            {'warc-type': ['response'], 'warc-concurrent-to': ['<a>', '<b>']}
        """
        raw = self._raw
        if self._flds is None and raw is not None:
            return _hp.field_groups(raw, 0, len(raw), self._lenient)
        return _hp.group_fields(self._fields)

    @property
    def raw(self) -> bytes | None:
        """The original bytes of the field lines, or ``None`` for built or changed headers."""
        return self._raw

    @property
    def fields(self) -> tuple[tuple[str, str], ...]:
        """All fields as ``(name, value)`` pairs, in order."""
        return self._fields

    def sole(self, name: str) -> str | None:
        """Return the value of *name*, ``None`` if absent.

        Raises:
            DuplicateHeaderError: the field occurs more than once.
        """
        key = name.lower()
        index = self._lookup()
        i = index.get(key)
        if i is None:
            return None
        if len(index) != len(self._fields):  # some name repeats: is it this one?
            hits = self._positions(key)
            if len(hits) > 1:
                raise DuplicateHeaderError(f"header {name!r} occurs {len(hits)} times")
        return self._fields[i][1]

    def first(self, name: str) -> str | None:
        """Return the first value of *name*, ``None`` if absent."""
        return self._values().get(name.lower())

    def get(self, name: str, default: str | None = None) -> str | None:
        """Return the first value of *name*, or *default*."""
        return self._values().get(name.lower(), default)

    def all(self, name: str) -> tuple[str, ...]:
        """Return every value of *name* in order; ``()`` if absent."""
        key = name.lower()
        if key == "warc-concurrent-to":  # the repeatable field: kept by the one scan
            return tuple(self.first_values()[1])
        index = self._lookup()
        i = index.get(key)
        if i is None:
            return ()
        if len(index) == len(self._fields):  # no name repeats
            return (self._fields[i][1],)
        return tuple(self._fields[j][1] for j in self._positions(key))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._values()

    def __getitem__(self, name: str) -> str:
        value = self.first(name)
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Headers):
            return self._fields == other._fields
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields)

    def __repr__(self) -> str:
        return f"Headers({list(self._fields)!r})"

    def names(self) -> tuple[str, ...]:
        """Field names in order (with duplicates, original case)."""
        return tuple(name for name, _ in self._fields)

    def with_replaced(self, name: str, value: str) -> Headers:
        """Return headers where *name* has the single value *value*.

        The first occurrence is replaced in place, later duplicates are removed;
        if absent, the field is appended.
        """
        key = name.lower()
        out: list[tuple[str, str]] = []
        done = False
        for n, v in self._fields:
            if n.lower() == key:
                if not done:
                    out.append((n, value))
                    done = True
                continue
            out.append((n, v))
        if not done:
            out.append((name, value))
        return Headers(out)

    def with_added(self, name: str, value: str) -> Headers:
        """Return headers with ``name: value`` appended (keeps existing occurrences)."""
        return Headers(self._fields + ((name, value),))

    def without(self, name: str) -> Headers:
        """Return headers with every occurrence of *name* removed."""
        key = name.lower()
        return Headers((n, v) for n, v in self._fields if n.lower() != key)

    def to_bytes(self) -> bytes:
        """Serialize the field lines (each ending in CRLF, no final empty line).

        Returns the original bytes when the headers were parsed and not changed.
        """
        if self._raw is not None:
            return self._raw
        return b"".join(
            n.encode("ascii", "surrogateescape")
            + b": "
            + v.encode("utf-8", "surrogateescape")
            + b"\r\n"
            for n, v in self._fields
        )
