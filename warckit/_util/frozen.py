"""A tiny base for immutable value objects.

Used instead of ``dataclasses`` for the value types on the reading path: importing
``dataclasses`` (and generating its methods) costs more start-up time than every
other module warckit needs to read a file.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import Any


class Frozen:
    """Immutable value object: fields are the ``__slots__`` of the concrete class.

    Subclasses set their fields with ``object.__setattr__`` in ``__init__``; equality,
    hashing and ``repr`` follow the fields in declaration order.
    """

    __slots__ = ()

    def _fields(self) -> tuple[str, ...]:
        fields: tuple[str, ...] = type(self).__slots__
        return fields

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Frozen)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__name__}({inner})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The default protocol sets the slots with setattr, which Frozen refuses.
        return (_restore, (type(self), self._values()))


def _restore(cls: type[Frozen], values: tuple[Any, ...]) -> Frozen:
    """Unpickle a :class:`Frozen` object: its fields, without calling ``__init__``."""
    obj = object.__new__(cls)
    names: tuple[str, ...] = cls.__slots__
    for name, value in zip(names, values):
        object.__setattr__(obj, name, value)
    return obj
