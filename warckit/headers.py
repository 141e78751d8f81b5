"""Immutable, ordered, case-insensitive WARC header fields.

A :class:`Headers` keeps every field in file order, duplicates included, and the
exact bytes it was parsed from, so a record written back raw is byte-identical.
Updates (:meth:`Headers.with_replaced`, :meth:`Headers.with_added`,
:meth:`Headers.without`) return a new object; the original bytes are dropped from
the copy because they no longer describe it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from .errors import DuplicateHeaderError

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

    __slots__ = ("_fields", "_index", "_raw")

    def __init__(self, fields: Iterable[tuple[str, str]] = (), *, raw: bytes | None = None) -> None:
        self._fields: tuple[tuple[str, str], ...] = tuple(fields)
        self._index: dict[str, list[int]] | None = None
        self._raw = raw

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str]) -> Headers:
        """Build headers from a mapping, in its iteration order."""
        return cls(mapping.items())

    def _lookup(self) -> dict[str, list[int]]:
        index = self._index
        if index is None:
            index = {}
            for i, (name, _) in enumerate(self._fields):
                index.setdefault(name.lower(), []).append(i)
            self._index = index
        return index

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
        hits = self._lookup().get(name.lower())
        if not hits:
            return None
        if len(hits) > 1:
            raise DuplicateHeaderError(f"header {name!r} occurs {len(hits)} times")
        return self._fields[hits[0]][1]

    def first(self, name: str) -> str | None:
        """Return the first value of *name*, ``None`` if absent."""
        hits = self._lookup().get(name.lower())
        return self._fields[hits[0]][1] if hits else None

    def get(self, name: str, default: str | None = None) -> str | None:
        """Return the first value of *name*, or *default*."""
        hits = self._lookup().get(name.lower())
        return self._fields[hits[0]][1] if hits else default

    def all(self, name: str) -> tuple[str, ...]:
        """Return every value of *name* in order; ``()`` if absent."""
        hits = self._lookup().get(name.lower())
        return tuple(self._fields[i][1] for i in hits) if hits else ()

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._lookup()

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
