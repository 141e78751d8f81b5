"""The parent-death signal (Linux ``prctl``), through ctypes; twin of ``_speedups/prctl.pyx``.

A forked worker sets it first thing so that it stops when the command that forked it is
killed outright, rather than run on unsupervised. Importing ctypes costs a few
milliseconds, which the compiled twin saves each worker.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    import ctypes

__all__ = ["get_pdeathsig", "set_pdeathsig"]

_PR_SET_PDEATHSIG = 1
_PR_GET_PDEATHSIG = 2
_libc: ctypes.CDLL | None = None


def _prctl() -> ctypes._NamedFuncPointer | None:
    global _libc
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        return _libc.prctl
    except (OSError, AttributeError):  # (no prctl to be had)
        return None


def set_pdeathsig(signum: int) -> bool:
    """Have the kernel send *signum* (0: nothing) to this process when its parent dies.

    False when it cannot be set: not Linux, or *signum* is no signal.
    """
    prctl = _prctl()
    if prctl is None or not -(2**31) <= signum < 2**31:
        return False
    return int(prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0


def get_pdeathsig() -> int | None:
    """The parent-death signal set (0: none), or None where there is none to be had."""
    prctl = _prctl()
    if prctl is None:
        return None
    import ctypes

    sig = ctypes.c_int(0)
    if int(prctl(_PR_GET_PDEATHSIG, ctypes.byref(sig), 0, 0, 0)) != 0:
        return None
    return sig.value
