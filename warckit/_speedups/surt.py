"""The surt hot module this process uses: compiled (``_surt_c``) or its pure twin (``_surt_py``)."""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)

from . import NO_EXTENSIONS, fell_back

if TYPE_CHECKING or NO_EXTENSIONS:
    from . import _surt_py as impl
else:
    try:
        from . import _surt_c as impl
    except ImportError as exc:
        fell_back("surt", exc)
        from . import _surt_py as impl

__all__ = ["impl"]
