"""Tiny bases for value objects: :class:`Value` (mutable) and :class:`Frozen` (immutable).

Used instead of ``dataclasses`` for the value types on the reading and indexing paths:
importing ``dataclasses`` (and generating its methods) costs more start-up time than
every other module warckit needs to read or index a file.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any


class Value:
    """Value object whose fields are the public ``__slots__`` of the concrete class.

    Equality, ``repr`` and pickling follow the fields in declaration order; slots named
    with a leading underscore are caches, left out of all three (and ``None`` once
    unpickled). Mutable, so unhashable.
    """

    __slots__ = ()
    # (defining __eq__ makes the class unhashable, as a dataclass with eq)

    def _fields(self) -> tuple[str, ...]:
        names: tuple[str, ...] = type(self).__slots__
        return tuple(name for name in names if name[0] != "_")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Value)
        return self._values() == other._values()

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__name__}({inner})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The default protocol sets the slots with setattr, which Frozen refuses.
        return (_restore, (type(self), self._values()))


class Frozen(Value):
    """Immutable :class:`Value`: subclasses set their fields with ``object.__setattr__``
    in ``__init__``; hashing follows the fields."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __hash__(self) -> int:
        return hash(self._values())


def _restore(cls: type[Value], values: tuple[Any, ...]) -> Value:
    """Unpickle a :class:`Value`: its fields, without calling ``__init__`` (caches: ``None``)."""
    obj = object.__new__(cls)
    given = dict(zip(obj._fields(), values))
    names: tuple[str, ...] = cls.__slots__
    for name in names:
        object.__setattr__(obj, name, given.get(name))
    return obj
