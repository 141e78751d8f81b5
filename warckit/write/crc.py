"""CRC-32 for gzip members: the fastest implementation installed, and combining the
CRCs of two pieces (a record head and a block deflated apart)."""

from __future__ import annotations

import zlib as _stdzlib
from collections.abc import Callable

from . import backends as _b
from .backends import HAVE_ISAL, HAVE_LIBDEFLATE, HAVE_ZLIB_NG

__all__ = ["crc32", "crc32_combine"]

#: The fastest CRC-32 at hand (all of them release the GIL on large inputs).
crc32: Callable[..., int] = (
    _b.ISAL_ZLIB.crc32 if HAVE_ISAL else (_b.BLOCKDEFLATE.crc32 if HAVE_LIBDEFLATE else _stdzlib.crc32))


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of A + B from ``crc32(A)``, ``crc32(B)`` and ``len(B)``."""
    if HAVE_ISAL:
        return int(_b.ISAL_ZLIB.crc32_combine(crc1, crc2, len2))
    if HAVE_ZLIB_NG:
        return int(_b.ZLIB_NG.crc32_combine(crc1, crc2, len2))
    return _crc32_combine_py(crc1, crc2, len2)



def _gf2_times(mat: list[int], vec: int) -> int:
    total = 0
    i = 0
    while vec:
        if vec & 1:
            total ^= mat[i]
        vec >>= 1
        i += 1
    return total


def _crc32_combine_py(crc1: int, crc2: int, len2: int) -> int:
    """zlib's crc32_combine for the stdlib fallback (stdlib zlib does not export it)."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << i for i in range(31)]
    even = [_gf2_times(odd, odd[i]) for i in range(32)]
    odd = [_gf2_times(even, even[i]) for i in range(32)]
    while True:
        even = [_gf2_times(odd, odd[i]) for i in range(32)]
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = [_gf2_times(even, even[i]) for i in range(32)]
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


