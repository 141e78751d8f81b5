# cython: language_level=3
"""Compiled twin of warckit/_speedups/_gzipmember_py.py, on ISA-L's inflate.

Same class, attributes, results and exceptions as the pure decoder; it inflates
into one reused output buffer and reads the file into one reused input buffer, so
the per-member cost is a reset of the inflate state.
"""

from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memmove
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.memoryview cimport PyMemoryView_FromMemory
from cpython.buffer cimport PyBUF_WRITE
from cpython.bytes cimport PyBytes_FromStringAndSize

from warckit.errors import CompressionError


cdef extern from "isa-l/igzip_lib.h":
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
    void isal_inflate_init(inflate_state *state)
    void isal_inflate_reset(inflate_state *state)
    int isal_inflate(inflate_state *state) nogil
    int ISAL_GZIP

GZIP_MAGIC = b"\x1f\x8b"
MAX_CHUNK = 1 << 20
IN_CHUNK = 1 << 18

_ERRORS = {
    -1: "invalid deflate block",
    -2: "invalid deflate symbol",
    -3: "invalid lookback distance",
    -4: "invalid gzip wrapper",
    -5: "unsupported compression method",
    -6: "incorrect checksum",
}


cdef class GzipDecoder:
    """Multi-member gzip, inflated with ISA-L (compiled twin)."""

    cdef inflate_state _state
    cdef object _f
    cdef unsigned char* _inbuf
    cdef Py_ssize_t _in_cap
    cdef Py_ssize_t _in_start, _in_end
    cdef unsigned char* _outbuf
    cdef bint _in_member, _eof
    cdef public object _source, _trailing
    cdef public long long member_start
    cdef long long _in_abs
    cdef public object trailing_garbage, truncated_member
    compression = "gzip"

    def __dealloc__(self):
        PyMem_Free(self._inbuf)
        PyMem_Free(self._outbuf)

    def __init__(self, fileobj, long long start=0, source=None, trailing="error",
                 Py_ssize_t in_chunk=IN_CHUNK):
        self._f = fileobj
        # Raw buffers (not zero-filled: random access makes one decoder per read,
        # and pages are only touched as far as they are used).
        if in_chunk < 64:
            in_chunk = 64
        self._inbuf = <unsigned char*>PyMem_Malloc(in_chunk)
        self._in_cap = in_chunk
        self._outbuf = <unsigned char*>PyMem_Malloc(MAX_CHUNK)
        if self._inbuf == NULL or self._outbuf == NULL:
            raise MemoryError()
        self._in_start = 0
        self._in_end = 0
        self._in_abs = start
        self._in_member = False
        self._eof = False
        self._source = source
        self._trailing = trailing
        self.member_start = start
        self.trailing_garbage = None
        self.truncated_member = None
        isal_inflate_init(&self._state)

    cdef bint _more(self) except -1:
        cdef Py_ssize_t left = self._in_end - self._in_start
        if self._eof:
            return False
        if self._in_start:
            if left:
                memmove(self._inbuf, self._inbuf + self._in_start, left)
            self._in_start = 0
            self._in_end = left
        if self._in_end == self._in_cap:
            grown = <unsigned char*>PyMem_Realloc(self._inbuf, self._in_cap * 2)
            if grown == NULL:
                raise MemoryError()
            self._inbuf = grown
            self._in_cap *= 2
        view = PyMemoryView_FromMemory(<char*>self._inbuf + self._in_end, self._in_cap - self._in_end, PyBUF_WRITE)
        n = self._f.readinto(view)
        view.release()
        if not n:
            self._eof = True
            return False
        self._in_end += n
        return True

    def read(self, Py_ssize_t limit=MAX_CHUNK):
        """Return ``(chunk, boundary)``: at most *limit* inflated bytes (see the pure twin)."""
        return self._inflate(limit, True)

    def skip(self, Py_ssize_t limit):
        """Inflate and discard at most *limit* bytes; return ``(count, boundary)``."""
        return self._inflate(limit, False)

    cdef object _out(self, Py_ssize_t produced, bint keep):
        if keep:
            return PyBytes_FromStringAndSize(<char*>self._outbuf, produced)
        return produced

    cdef tuple _inflate(self, Py_ssize_t limit, bint keep):
        cdef int ret
        cdef Py_ssize_t avail, used, produced
        cdef uint8_t* inptr
        while True:
            if not self._in_member:
                if self._in_end - self._in_start < 2 and not self._eof:
                    self._more()
                    continue
                if self._in_start >= self._in_end:
                    return self._out(0, keep), None
                if self._inbuf[self._in_start] != 0x1f or (
                    self._in_end - self._in_start < 2 or self._inbuf[self._in_start + 1] != 0x8b
                ):
                    if self._trailing == "stop":
                        self.trailing_garbage = self._in_abs
                        self._in_start = self._in_end
                        self._eof = True
                        return self._out(0, keep), None
                    raise CompressionError(
                        "bytes after the last gzip member are not gzip",
                        offset=self._in_abs,
                        source=self._source,
                        snippet=PyBytes_FromStringAndSize(
                            <char*>self._inbuf + self._in_start, min(16, self._in_end - self._in_start)
                        ),
                    )
                isal_inflate_reset(&self._state)
                self._state.crc_flag = ISAL_GZIP
                self._in_member = True
                self.member_start = self._in_abs
            self._state.next_out = <uint8_t*>self._outbuf
            if limit > MAX_CHUNK or limit <= 0:
                limit = MAX_CHUNK
            self._state.avail_out = <uint32_t>limit
            while True:
                if self._in_start >= self._in_end and not self._more():
                    produced = limit - self._state.avail_out
                    if produced:  # hand out what was inflated before the cut
                        return self._out(produced, keep), None
                    self._in_member = False
                    if self._trailing == "stop":
                        self.truncated_member = self.member_start
                        return self._out(0, keep), None
                    raise CompressionError(
                        "gzip member is truncated", offset=self.member_start, source=self._source
                    )
                avail = self._in_end - self._in_start
                inptr = <uint8_t*>self._inbuf + self._in_start
                self._state.next_in = inptr
                self._state.avail_in = <uint32_t>avail
                with nogil:
                    ret = isal_inflate(&self._state)
                used = avail - self._state.avail_in
                if ret < 0:
                    self._in_member = False
                    if self._trailing == "stop":
                        self.truncated_member = self.member_start
                        self._in_start = self._in_end
                        self._eof = True
                        return self._out(0, keep), None
                    raise CompressionError(
                        f"gzip member is damaged ({_ERRORS.get(ret, ret)})",
                        offset=self.member_start,
                        source=self._source,
                    )
                produced = limit - self._state.avail_out
                if self._state.block_state == ISAL_BLOCK_FINISH:
                    # Bytes held in the bit buffer belong to what follows the member.
                    used -= self._state.read_in_length // 8
                    self._in_start += used
                    self._in_abs += used
                    self._in_member = False
                    return self._out(produced, keep), self._in_abs
                self._in_start += used
                self._in_abs += used
                if self._state.avail_out == 0:
                    return self._out(produced, keep), None
