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

#: ``impl.surt_key``'s options after the URL for a new-style key, as ``surt(url,
#: style="new-style")`` and the index make it: trailing comma, no scheme, keep www, reverse
#: IPv4, IDNA 2008, strict (positional: the compiled function's keywords cost more per call).
NEW_STYLE = (True, False, False, True, True, True)

__all__ = ["NEW_STYLE", "impl"]
