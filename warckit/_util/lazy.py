"""Names a package imports on first use (PEP 562): its module ``__getattr__`` and ``__dir__``."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing: the reading path uses this)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of *package*, each of whose lazy names *homes* maps
    to the submodule that defines it: a name is imported on first use, then kept in
    *namespace* (the package's ``globals()``); ``dir()`` lists ``__all__`` too (autodoc reads it).

    Usage, in a package's ``__init__``::

        __getattr__, __dir__ = lazy_names(__name__, {"ZipNumIndex": "zipnum"}, globals())
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{home}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__


def typing_aliases(module: str, namespace: dict[str, Any],
                   **makers: Callable[[Any], object]) -> Callable[[str], object]:
    """A module ``__getattr__`` that makes each type alias named in *makers* on first use, as
    ``maker(typing)``: the aliases need :mod:`typing`, which neither reading nor indexing
    imports (the type checker sees them under ``TYPE_CHECKING``).

    Usage, in a module::

        __getattr__ = typing_aliases(__name__, globals(), FormatName=lambda t: t.Literal["cdx"])
    """

    def __getattr__(name: str) -> object:
        maker = makers.get(name)
        if maker is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        import typing

        value = namespace[name] = maker(typing)
        return value

    return __getattr__
