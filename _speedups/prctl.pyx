# cython: language_level=3
"""Compiled twin of warckit/_speedups/_prctl_py.py: the parent-death signal (Linux prctl).

A forked worker sets it first thing; the pure twin reaches prctl through ctypes, whose
import costs a worker some milliseconds before it can start its piece.
"""

cdef extern from *:
    """
    #ifdef __linux__
    #include <sys/prctl.h>
    static int wk_set_pdeathsig(int sig) { return prctl(PR_SET_PDEATHSIG, (unsigned long)sig, 0UL, 0UL, 0UL); }
    static int wk_get_pdeathsig(void) {
        int sig = 0;
        return prctl(PR_GET_PDEATHSIG, (unsigned long)&sig, 0UL, 0UL, 0UL) == 0 ? sig : -1;
    }
    #else
    static int wk_set_pdeathsig(int sig) { (void)sig; return -1; }
    static int wk_get_pdeathsig(void) { return -1; }
    #endif
    """
    int wk_set_pdeathsig(int sig) nogil
    int wk_get_pdeathsig() nogil


def set_pdeathsig(signum):
    """Have the kernel send *signum* (0: nothing) to this process when its parent dies.

    False when it cannot be set: not Linux, or *signum* is no signal.
    """
    if not -(2**31) <= signum < 2**31:
        return False
    return wk_set_pdeathsig(signum) == 0


def get_pdeathsig():
    """The parent-death signal set (0: none), or None where there is none to be had."""
    cdef int sig = wk_get_pdeathsig()
    return None if sig < 0 else sig
