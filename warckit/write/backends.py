"""Gzip backends: which are installed, their levels, and the compress calls each offers.

libdeflate (default; whole blocks, ``_speedups/blockdeflate.pyx``), isal, zlib-ng and
zlib all write standard raw-deflate streams; :mod:`warckit.write.encode` picks among
them per block.
"""

from __future__ import annotations

import zlib as _stdzlib
from collections.abc import Callable
from typing import Any

from .._speedups.blockdeflate import impl as _blockdeflate

try:  # pragma: no cover - depends on the environment
    from isal import isal_zlib as _zlib

    HAVE_ISAL = True
except ImportError:  # pragma: no cover
    import zlib as _zlib  # type: ignore[no-redef]

    HAVE_ISAL = False


#: libdeflate for whole blocks: the compiled module (libdeflate's C library, GIL
#: released, a native worker thread) or its pure twin (the ``deflate`` package).
_BLOCKDEFLATE_COMPILED = _blockdeflate.__name__.endswith("_c")

try:  # pragma: no cover - depends on the environment
    import deflate as _libdeflate  # probed here; the pure twin uses it

    HAVE_LIBDEFLATE = True
except ImportError:  # pragma: no cover
    _libdeflate = None  # type: ignore[assignment]
    HAVE_LIBDEFLATE = _BLOCKDEFLATE_COMPILED

try:  # pragma: no cover - depends on the environment
    from zlib_ng import zlib_ng as _zlibng  # type: ignore[import-not-found, unused-ignore]

    HAVE_ZLIB_NG = True
except ImportError:  # pragma: no cover
    _zlibng = None  # type: ignore[assignment, unused-ignore]
    HAVE_ZLIB_NG = False

#: The modules probed, for the CRC and encoding modules (``None`` when missing).
ISAL_ZLIB: Any = _zlib if HAVE_ISAL else None
ZLIB_NG: Any = _zlibng
BLOCKDEFLATE: Any = _blockdeflate

__all__ = [
    "BACKEND_DEFAULT_LEVEL",
    "COMPRESSIONS",
    "DEFAULT_GZIP_BACKEND",
    "DEFAULT_GZIP_LEVEL",
    "GZIP_BACKENDS",
    "HAVE_ISAL",
    "HAVE_LIBDEFLATE",
    "HAVE_ZLIB_NG",
]

#: Compression names accepted everywhere: ``"gzip"``, ``"zstd"``, ``"none"``.
COMPRESSIONS = ("gzip", "zstd", "none")
#: Default level of the *streaming* gzip compressor (isal 0-3, else zlib 0-9); used for
#: blocks larger than :data:`SPOOL_MEMORY` and by :mod:`warckit.tools.recompress`.
DEFAULT_GZIP_LEVEL = 3 if HAVE_ISAL else 6
#: Gzip backends a :class:`RecordEncoder` accepts (those installed).
GZIP_BACKENDS = tuple(
    name for name, ok in (("libdeflate", HAVE_LIBDEFLATE), ("isal", HAVE_ISAL),
                          ("zlib-ng", HAVE_ZLIB_NG), ("zlib", True)) if ok)
#: The default gzip backend: libdeflate when installed, else isal, else zlib.
DEFAULT_GZIP_BACKEND = "libdeflate" if HAVE_LIBDEFLATE else ("isal" if HAVE_ISAL else "zlib")
#: Default level per backend (libdeflate 0-12, isal 0-3, zlib-ng / zlib 0-9). libdeflate
#: 5 rather than 6: as fast as warckit needs with a worker thread, and still within 3 %
#: of zlib level 6 on every content type (level 4 is not on HTML and CSS).
BACKEND_DEFAULT_LEVEL = {"libdeflate": 5, "isal": 3, "zlib-ng": 6, "zlib": 6}
_BACKEND_MAX_LEVEL = {"libdeflate": 12, "isal": 3, "zlib-ng": 9, "zlib": 9}

def _stream_module(backend: str) -> Any:
    """The zlib-compatible module used for heads and for blocks too large to hold."""
    if backend == "zlib-ng" and HAVE_ZLIB_NG:
        return _zlibng
    if backend == "zlib":
        return _stdzlib
    if HAVE_ISAL:
        return _zlib
    return _zlibng if HAVE_ZLIB_NG else _stdzlib


def _oneshot(backend: str) -> Callable[[bytes, int], bytes | bytearray]:
    """``f(data, level)``: *data* as one raw-deflate stream (no history, final block)."""
    if backend == "libdeflate":
        return _blockdeflate.deflate
    compress = _stream_module(backend).compress

    def f(data: bytes, level: int) -> bytes:
        return compress(data, level, -15)  # type: ignore[no-any-return]

    return f


def _stream_level(backend: str, level: int, mod: Any) -> int:
    """*level* (meant for *backend*) as a level the streaming module accepts."""
    top = 3 if (HAVE_ISAL and mod is _zlib) else 9
    return max(0, min(level, top))


def _deflate_head(mod: Any, level: int, head: bytes) -> bytes:
    d = mod.compressobj(level, mod.DEFLATED, -15)
    return d.compress(head) + d.flush(mod.Z_SYNC_FLUSH)  # type: ignore[no-any-return]


