# cython: language_level=3
"""Compiled twin of warckit/_speedups/_gzipmember_py.py, on ISA-L's inflate.

Same class, attributes, results and exceptions as the pure decoder; it inflates
into one reused output buffer and reads the file into one reused input buffer, so
the per-member cost is a reset of the inflate state.

With ``readahead=True`` (and a file with a descriptor) the inflating moves to a
native thread that never takes the GIL: it reads the file with ``pread`` on its own
duplicate of the descriptor and inflates up to :data:`RA_SLOTS` slots of
:data:`RA_SLOT` bytes ahead, noting where each member ends; ``read`` and ``skip``
hand out those bytes and boundaries exactly as the in-thread decoder would. The
caller's Python work (parsing records) then runs on one CPU while the other
inflates.
"""

from libc.errno cimport EINTR, errno
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset
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
    void isal_inflate_init(inflate_state *state) nogil
    void isal_inflate_reset(inflate_state *state) nogil
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


cdef extern from "libdeflate.h" nogil:
    struct libdeflate_decompressor:
        pass
    libdeflate_decompressor* libdeflate_alloc_decompressor()
    void libdeflate_free_decompressor(libdeflate_decompressor* d)
    int libdeflate_gzip_decompress_ex(libdeflate_decompressor* d, const void* src, size_t n,
                                      void* out, size_t cap, size_t* in_used, size_t* out_used)
    int LIBDEFLATE_SUCCESS


include "_pthread.pxi"


cdef extern from "<unistd.h>" nogil:
    ssize_t pread(int fd, void* buf, size_t n, long long offset)
    int close(int fd)
    int dup(int fd)
    int getpid()


#: Read-ahead: inflated bytes per slot, and slots the thread may fill ahead.
RA_SLOT = 1 << 20
RA_SLOTS = 4
#: Most member ends noted in one slot.
RA_EVENTS = 8192
#: Read-ahead: a member is first tried whole with libdeflate (faster than streaming
#: inflate on small members) into at most this much room; one that does not fit, or
#: is not all in the input buffer, is inflated by ISA-L as it streams.
cdef Py_ssize_t RA_DIRECT = 1 << 18

cdef enum:
    RA_MORE = 0       # more slots follow
    RA_EOF = 1        # the input ended after a whole member
    RA_GARBAGE = 2    # bytes that are not gzip where a member should start
    RA_TRUNCATED = 3  # the input ended inside a member
    RA_DAMAGED = 4    # inflate failed (code: ISA-L's error)
    RA_IOERR = 5      # pread failed (code: errno)


cdef struct slot_t:
    unsigned char* data
    Py_ssize_t len
    Py_ssize_t* ev_pos        # where in data each member ended ...
    long long* ev_bound       # ... and the file offset just past it
    int nev
    int ready                 # 1: filled, the reader's; 0: the thread's
    int status
    int code
    long long where           # file offset the status is about
    unsigned char snippet[16]
    int snippet_len


cdef struct ra_t:
    pthread_mutex_t lock
    pthread_cond_t cv
    int stop
    int fd
    long long file_pos
    unsigned char* inbuf
    Py_ssize_t in_cap, in_start, in_end
    long long in_abs, member_start
    int in_member, in_eof, io_errno
    inflate_state st
    Py_ssize_t slot_cap
    int ev_cap, nslots, w
    slot_t* slots
    libdeflate_decompressor* direct   # NULL: ISA-L only
    int direct_skip                   # members to inflate with ISA-L before trying again


cdef int _ra_more(ra_t* r) noexcept nogil:
    """Read more compressed input: 1 got some, 0 end of file, -1 error (errno kept)."""
    cdef Py_ssize_t left = r.in_end - r.in_start
    cdef ssize_t n
    if r.in_eof:
        return 0
    if r.in_start:
        if left:
            memmove(r.inbuf, r.inbuf + r.in_start, left)
        r.in_start = 0
        r.in_end = left
    if r.in_end == r.in_cap:
        return 1
    while True:
        n = pread(r.fd, r.inbuf + r.in_end, r.in_cap - r.in_end, r.file_pos)
        if n < 0 and errno == EINTR:
            continue
        break
    if n < 0:
        r.io_errno = errno
        return -1
    if n == 0:
        r.in_eof = 1
        return 0
    r.in_end += n
    r.file_pos += n
    return 1


cdef int _ra_direct(ra_t* r, slot_t* s) noexcept nogil:
    """Inflate the member at the input position whole with libdeflate: 1 done (its
    end noted), 2 the slot should be handed over first, 0 stream it with ISA-L."""
    cdef size_t in_used = 0, out_used = 0
    cdef Py_ssize_t room = r.slot_cap - s.len
    if r.direct_skip > 0:
        r.direct_skip -= 1
        return 0
    if room < RA_DIRECT // 4:
        # Hand over a nearly full slot rather than stream a small member into it.
        return 2 if s.len > 0 else 0
    if room > RA_DIRECT:
        room = RA_DIRECT
    if r.in_end - r.in_start < r.in_cap // 2 and not r.in_eof:
        if _ra_more(r) < 0:
            return 0  # ISA-L's path reports the read error
    if libdeflate_gzip_decompress_ex(r.direct, r.inbuf + r.in_start, r.in_end - r.in_start,
                                     s.data + s.len, room, &in_used, &out_used) != LIBDEFLATE_SUCCESS:
        # Too large, cut by the buffer's end, or damaged: ISA-L streams it (and
        # reports damage); large members tend to come in runs, so wait a while.
        r.direct_skip = 8
        return 0
    r.member_start = r.in_abs
    r.in_start += in_used
    r.in_abs += in_used
    s.len += out_used
    s.ev_pos[s.nev] = s.len
    s.ev_bound[s.nev] = r.in_abs
    s.nev += 1
    return 1


cdef void _ra_fill(ra_t* r, slot_t* s) noexcept nogil:
    """Inflate into *s* until it is full or the input ends (the in-thread
    ``_inflate``'s state machine, run ahead)."""
    cdef int ret, m, at_end
    cdef Py_ssize_t avail, used, mark
    cdef uint32_t before
    s.len = 0
    s.nev = 0
    s.status = RA_MORE
    while s.len < r.slot_cap and s.nev < r.ev_cap:
        if not r.in_member:
            if r.in_end - r.in_start < 2 and not r.in_eof:
                if _ra_more(r) < 0:
                    s.status = RA_IOERR
                    s.code = r.io_errno
                    return
                continue
            if r.in_start >= r.in_end:
                s.status = RA_EOF
                return
            if r.inbuf[r.in_start] != 0x1f or r.in_end - r.in_start < 2 or r.inbuf[r.in_start + 1] != 0x8b:
                while r.in_end - r.in_start < 16 and _ra_more(r) > 0:
                    pass
                s.status = RA_GARBAGE
                s.where = r.in_abs
                s.snippet_len = <int>min(16, r.in_end - r.in_start)
                memcpy(s.snippet, r.inbuf + r.in_start, s.snippet_len)
                return
            if r.direct != NULL:
                m = _ra_direct(r, s)
                if m == 1:
                    continue  # the whole member is in the slot
                if m == 2:
                    return  # too little room left: the member starts the next slot
            isal_inflate_reset(&r.st)
            r.st.crc_flag = ISAL_GZIP
            r.in_member = 1
            r.member_start = r.in_abs
        mark = s.len
        r.st.next_out = <uint8_t*>s.data + s.len
        r.st.avail_out = <uint32_t>(r.slot_cap - s.len)
        while True:
            at_end = 0
            if r.in_start >= r.in_end:
                m = _ra_more(r)
                if m < 0:
                    s.status = RA_IOERR
                    s.code = r.io_errno
                    return
                at_end = m == 0  # inflate once more: ISA-L may hold bytes of a cut member
            avail = r.in_end - r.in_start
            r.st.next_in = <uint8_t*>r.inbuf + r.in_start
            r.st.avail_in = <uint32_t>avail
            before = r.st.avail_out
            ret = isal_inflate(&r.st)
            used = avail - r.st.avail_in
            s.len += before - r.st.avail_out
            if ret < 0:
                # As in the in-thread decoder, what this member inflated in the
                # failing call is not handed out.
                s.len = mark
                r.in_member = 0
                s.status = RA_DAMAGED
                s.code = ret
                s.where = r.member_start
                return
            if r.st.block_state == ISAL_BLOCK_FINISH:
                used -= r.st.read_in_length // 8
                r.in_start += used
                r.in_abs += used
                r.in_member = 0
                s.ev_pos[s.nev] = s.len
                s.ev_bound[s.nev] = r.in_abs
                s.nev += 1
                break
            r.in_start += used
            r.in_abs += used
            if r.st.avail_out == 0:
                break
            if at_end and before == r.st.avail_out:
                r.in_member = 0
                s.status = RA_TRUNCATED
                s.where = r.member_start
                return


cdef void* _ra_main(void* arg) noexcept nogil:
    cdef ra_t* r = <ra_t*>arg
    cdef slot_t* s
    while True:
        s = &r.slots[r.w]
        pthread_mutex_lock(&r.lock)
        while s.ready and not r.stop:
            pthread_cond_wait(&r.cv, &r.lock)
        if r.stop:
            pthread_mutex_unlock(&r.lock)
            return NULL
        pthread_mutex_unlock(&r.lock)
        _ra_fill(r, s)
        pthread_mutex_lock(&r.lock)
        s.ready = 1
        pthread_cond_broadcast(&r.cv)
        pthread_mutex_unlock(&r.lock)
        if s.status != RA_MORE:
            return NULL
        r.w = (r.w + 1) % r.nslots


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
    # read-ahead (see the module docstring); _ra is NULL when reading in-thread
    cdef ra_t* _ra
    cdef slot_t* _rslot
    cdef Py_ssize_t _rpos
    cdef long long _next_start
    cdef int _rev, _ri, _running, _pid
    cdef pthread_t _thread
    compression = "gzip"

    def __cinit__(self):
        self._ra = NULL
        self._rslot = NULL
        self._running = 0
        self._next_start = -1

    def __dealloc__(self):
        PyMem_Free(self._inbuf)
        PyMem_Free(self._outbuf)
        self._ra_free()

    def __init__(self, fileobj, long long start=0, source=None, trailing="error",
                 Py_ssize_t in_chunk=IN_CHUNK, readahead=False, Py_ssize_t _slot=RA_SLOT,
                 int _slots=RA_SLOTS, int _events=RA_EVENTS, bint _direct=True):
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
        if readahead:
            try:
                fd = fileobj.fileno()
                pos = fileobj.tell()
            except (AttributeError, OSError, ValueError):
                fd = -1  # no descriptor (BytesIO, a remote file): inflate in-thread
            if fd >= 0:
                self._ra_init(fd, pos, start, in_chunk, _slot, _slots, _events, _direct)

    @property
    def readahead(self):
        """True when a native thread inflates ahead of :meth:`read`."""
        return self._ra != NULL

    # -- read-ahead ------------------------------------------------------------------

    cdef int _ra_init(self, int fd, long long pos, long long start, Py_ssize_t in_chunk,
                      Py_ssize_t slot, int nslots, int events, bint direct) except -1:
        cdef ra_t* r = <ra_t*>malloc(sizeof(ra_t))
        cdef int i
        if r == NULL:
            raise MemoryError()
        memset(r, 0, sizeof(ra_t))
        self._ra = r
        pthread_mutex_init(&r.lock, NULL)
        pthread_cond_init(&r.cv, NULL)
        r.fd = -1
        r.slot_cap = max(slot, 1)
        r.nslots = max(nslots, 2)
        r.ev_cap = max(events, 1)
        r.in_cap = max(in_chunk, 64)
        r.inbuf = <unsigned char*>malloc(r.in_cap)
        r.slots = <slot_t*>malloc(r.nslots * sizeof(slot_t))
        if r.inbuf == NULL or r.slots == NULL:
            raise MemoryError()
        memset(r.slots, 0, r.nslots * sizeof(slot_t))
        for i in range(r.nslots):
            r.slots[i].data = <unsigned char*>malloc(r.slot_cap)
            r.slots[i].ev_pos = <Py_ssize_t*>malloc(r.ev_cap * sizeof(Py_ssize_t))
            r.slots[i].ev_bound = <long long*>malloc(r.ev_cap * sizeof(long long))
            if r.slots[i].data == NULL or r.slots[i].ev_pos == NULL or r.slots[i].ev_bound == NULL:
                raise MemoryError()
        r.fd = dup(fd)  # our own descriptor: closing the caller's file cannot pull it away
        if r.fd < 0:
            raise OSError(errno, "cannot duplicate the file descriptor")
        r.file_pos = pos
        r.in_abs = start
        r.member_start = start
        isal_inflate_init(&r.st)
        if direct:
            r.direct = libdeflate_alloc_decompressor()  # (NULL: ISA-L only)
        return 0

    cdef void _ra_stop(self) noexcept:
        cdef ra_t* r = self._ra
        if r == NULL or not self._running:
            return
        self._running = 0
        if self._pid != getpid():
            return  # a forked child: the thread (and any lock it held) is the parent's
        with nogil:
            pthread_mutex_lock(&r.lock)
            r.stop = 1
            pthread_cond_broadcast(&r.cv)
            pthread_mutex_unlock(&r.lock)
            pthread_join(self._thread, NULL)

    cdef void _ra_free(self) noexcept:
        cdef ra_t* r = self._ra
        cdef int i
        if r == NULL:
            return
        self._ra_stop()
        if r.slots != NULL:
            for i in range(r.nslots):
                free(r.slots[i].data)
                free(r.slots[i].ev_pos)
                free(r.slots[i].ev_bound)
            free(r.slots)
        free(r.inbuf)
        if r.direct != NULL:
            libdeflate_free_decompressor(r.direct)
        if r.fd >= 0:
            close(r.fd)
        pthread_cond_destroy(&r.cv)
        pthread_mutex_destroy(&r.lock)
        free(r)
        self._ra = NULL
        self._rslot = NULL

    def close(self):
        """Stop the read-ahead thread and release its buffers (reading ends)."""
        self._ra_free()
        self._eof = True

    cdef tuple _ra_read(self, Py_ssize_t limit, bint keep):
        cdef ra_t* r = self._ra
        cdef slot_t* s
        cdef Py_ssize_t end, n
        cdef long long boundary
        if limit > MAX_CHUNK or limit <= 0:
            limit = MAX_CHUNK
        while True:
            s = self._rslot
            if s == NULL:
                self._ra_check_pid()
                if not self._running:
                    self._pid = getpid()
                    if pthread_create(&self._thread, NULL, _ra_main, <void*>r) != 0:
                        # No thread to be had (a process limit): nothing has been read
                        # ahead yet, so inflate in this thread from where we are.
                        self._ra_free()
                        return self._inflate(limit, keep)
                    self._running = 1
                s = &r.slots[self._ri]
                with nogil:
                    pthread_mutex_lock(&r.lock)
                    while not s.ready:
                        pthread_cond_wait(&r.cv, &r.lock)
                    pthread_mutex_unlock(&r.lock)
                self._rslot = s
                self._rpos = 0
                self._rev = 0
            end = s.ev_pos[self._rev] if self._rev < s.nev else s.len
            n = end - self._rpos
            if n > limit:
                n = limit
            if n > 0 or self._rev < s.nev:
                if self._next_start >= 0:  # these bytes are the next member's
                    self.member_start = self._next_start
                    self._next_start = -1
                if keep:
                    out = PyBytes_FromStringAndSize(<char*>s.data + self._rpos, n)
                else:
                    out = n
                self._rpos += n
                if self._rev < s.nev and self._rpos == s.ev_pos[self._rev]:
                    boundary = s.ev_bound[self._rev]
                    self._rev += 1
                    self._next_start = boundary
                    return out, boundary
                return out, None
            if s.status != RA_MORE:
                return self._ra_end(s, keep)
            self._ra_check_pid()
            with nogil:
                pthread_mutex_lock(&r.lock)
                s.ready = 0
                pthread_cond_broadcast(&r.cv)
                pthread_mutex_unlock(&r.lock)
            self._ri = (self._ri + 1) % r.nslots
            self._rslot = NULL

    cdef int _ra_check_pid(self) except -1:
        if self._pid and self._pid != getpid():
            # The thread, and any lock it held, stayed in the parent.
            raise OSError("a read-ahead gzip decoder cannot be used after fork()")
        return 0

    cdef tuple _ra_end(self, slot_t* s, bint keep):
        """The input has ended (*s* is the last slot): report how, as ``_inflate`` does."""
        cdef int status = s.status
        s.status = RA_EOF  # reported once; later reads see the end
        empty = self._out(0, keep)
        if status == RA_EOF:
            return empty, None
        if status == RA_IOERR:
            import os
            raise OSError(s.code, os.strerror(s.code))
        if status != RA_GARBAGE:
            self.member_start = s.where
        if self._trailing == "stop":
            if status == RA_GARBAGE:
                self.trailing_garbage = s.where
            else:
                self.truncated_member = s.where
            return empty, None
        if status == RA_GARBAGE:
            raise CompressionError(
                "bytes after the last gzip member are not gzip",
                offset=s.where,
                source=self._source,
                snippet=PyBytes_FromStringAndSize(<char*>s.snippet, s.snippet_len),
            )
        if status == RA_TRUNCATED:
            raise CompressionError("gzip member is truncated", offset=s.where, source=self._source)
        raise CompressionError(
            f"gzip member is damaged ({_ERRORS.get(s.code, s.code)})", offset=s.where, source=self._source
        )

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
        if self._ra != NULL:
            return self._ra_read(limit, True)
        return self._inflate(limit, True)

    def skip(self, Py_ssize_t limit):
        """Inflate and discard at most *limit* bytes; return ``(count, boundary)``."""
        if self._ra != NULL:
            return self._ra_read(limit, False)
        return self._inflate(limit, False)

    cdef object _out(self, Py_ssize_t produced, bint keep):
        if keep:
            return PyBytes_FromStringAndSize(<char*>self._outbuf, produced)
        return produced

    cdef tuple _inflate(self, Py_ssize_t limit, bint keep):
        cdef int ret
        cdef bint at_end
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
                # At the end of the input inside a member, inflate once more with no
                # input: Quirk: ISA-L may still hold inflated bytes of a cut member.
                at_end = self._in_start >= self._in_end and not self._more()
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
                if at_end:
                    if produced:  # hand out what was inflated before the cut
                        return self._out(produced, keep), None
                    self._in_member = False
                    if self._trailing == "stop":
                        self.truncated_member = self.member_start
                        return self._out(0, keep), None
                    raise CompressionError(
                        "gzip member is truncated", offset=self.member_start, source=self._source
                    )
