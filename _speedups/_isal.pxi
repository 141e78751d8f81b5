# ISA-L's inflate API (``include "_isal.pxi"``), declared in wk_isal.h: the system
# library linked at build time, or (built without ISA-L's headers) the ISA-L inside the
# isal package, bound when this module is imported. See docs/building.rst.
# A module that cannot bind raises ImportError, so warckit uses its pure twin and
# warckit._speedups reports why.

from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t


cdef extern from "wk_isal.h":
    cdef enum isal_block_state:
        ISAL_BLOCK_FINISH
    cdef struct inflate_state:
        uint8_t *next_out
        uint32_t avail_out
        uint32_t total_out
        uint8_t *next_in
        uint64_t read_in
        uint32_t avail_in
        int32_t read_in_length
        isal_block_state block_state
        uint32_t crc_flag
    void isal_inflate_init(inflate_state *state) nogil
    void isal_inflate_reset(inflate_state *state) nogil
    int isal_inflate(inflate_state *state) nogil
    int ISAL_GZIP
    int WK_ISAL_DLSYM
    const char* WK_ISAL_HEADER_VERSION
    const int wk_isal_layout_matches
    int wk_isal_bind(const char* path, char* err, size_t errlen)


#: ISA-L releases whose struct inflate_state wk_isal.h declares (the libisal.so.2 ABI).
ISAL_ACCEPTED = ((2, 24), (3, 0))


def _bind_isal():
    """Bind ISA-L when the build found no headers; return a line saying which ISA-L."""
    cdef char err[512]
    if not WK_ISAL_DLSYM:
        return f"ISA-L {WK_ISAL_HEADER_VERSION.decode()} (system library)"
    import os
    import isal
    from isal import igzip_lib

    version = str(isal.ISAL_VERSION)
    try:
        key = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        key = (0, 0)
    if not ISAL_ACCEPTED[0] <= key < ISAL_ACCEPTED[1]:
        raise ImportError(
            f"the isal package {isal.__version__} carries ISA-L {version}; warckit's compiled "
            f"gzipmember declares ISA-L 2.24 to 2.x (install isal>=1.6,<2 or ISA-L's headers)")
    if wk_isal_bind(os.fsencode(igzip_lib.__file__), err, sizeof(err)) != 0:
        raise ImportError(f"cannot use the ISA-L of the isal package: {err.decode(errors='replace')}")
    return f"ISA-L {version} (from isal {isal.__version__})"


#: Which ISA-L this module calls.
ISAL_LIBRARY = _bind_isal()
#: True when the ISA-L header this was built with lays out struct inflate_state as
#: wk_isal.h declares it (always true for a build without headers).
ISAL_LAYOUT_MATCHES = bool(wk_isal_layout_matches)
