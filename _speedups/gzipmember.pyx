# cython: language_level=3
"""Compiled twin of warckit/_speedups/_gzipmember_py.py, on ISA-L and libdeflate.

Same class, attributes, results and exceptions as the pure decoder. One engine, C
code that runs without the GIL, reads the file into a reused input buffer and
inflates members into *slots*: output buffers with the end of every member noted
(and, at the end of the input, how it ended). A member is first inflated whole with
libdeflate (faster than streaming inflate on the small members most records are);
one that does not fit, is not all in the input buffer, or is damaged streams through
ISA-L, whose errors are the ones reported (``direct=False``, for random access, uses
ISA-L alone and inflates little past what is asked for). ISA-L inflates in pieces
(see :data:`STEP`) and only what whole pieces gave is handed out, so a damaged member
gives exactly what it gives in the pure twin. ``read`` and ``skip`` hand out a slot's
bytes in pieces of at most *limit* bytes, each ending at a member end or earlier.

In the calling thread (the default) a slot is filled when the previous one has been
handed out, with at most one member per fill. With ``readahead=True`` and a file that
has a descriptor, a native thread fills up to :data:`RA_SLOTS` slots of
:data:`RA_SLOT` bytes ahead, reading with ``pread`` on its own duplicate of the
descriptor, while the caller's Python work (parsing records) runs on another CPU.
With ``mapped=True`` (and *direct*), a regular file is read through a memory map of
it instead, in either mode (the kernel copies none of it; pages read are let go of
every 8 MiB, and a fault reading the map, the file having shrunk,
ends the input with an error rather than the process: ``wk_sigbus.h``); past the end
of the map, reads go on with ``pread``.
"""

from libc.errno cimport EINTR, errno
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset
from cpython.memoryview cimport PyMemoryView_FromMemory
from cpython.ref cimport PyObject, Py_DECREF, Py_INCREF
from cpython.buffer cimport PyBUF_WRITE
from cpython.bytes cimport PyBytes_FromStringAndSize
from posix.mman cimport MADV_DONTNEED, MAP_FAILED, MAP_SHARED, PROT_READ, madvise, mmap, munmap
from posix.stat cimport S_ISREG, fstat, struct_stat

from warckit.errors import CompressionError


include "_isal.pxi"

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


include "_libdeflate.pxi"
include "_pthread.pxi"


cdef extern from "<unistd.h>" nogil:
    ssize_t pread(int fd, void* buf, size_t n, long long offset)
    int close(int fd)
    int dup(int fd)
    int getpid()


#: Read-ahead: inflated bytes per slot, and slots the thread may fill ahead.
RA_SLOT = 1 << 20
RA_SLOTS = 4
#: A mapped file's pages are let go of (madvise) this many bytes at a time, once read.
#: (Each madvise interrupts the other CPU: on two CPUs, letting go every 2 MiB made
#: reading the domain mix 3 % slower; every 8 MiB is within the noise.)
cdef Py_ssize_t MAP_LET_GO = 8 << 20
#: Most member ends noted in one read-ahead slot.
RA_EVENTS = 8192
#: A member is first tried whole with libdeflate into at most this much room.
cdef Py_ssize_t DIRECT_ROOM = 1 << 18
#: In the calling thread without libdeflate (random access), one fill inflates at most
#: max(limit, SYNC_FILL) bytes.
cdef Py_ssize_t SYNC_FILL = 1 << 16
#: ... and its first read is this many bytes (then twice as many each read, up to the buffer).
cdef Py_ssize_t SPARSE_FIRST_READ = 1 << 13
#: A member that streams is inflated in *pieces*: a piece ends where the member's input
#: reaches a step (every STEP compressed bytes from the member start) and all it gives
#: is out, or where the piece has given PIECE bytes. Every inflate call is given the
#: input up to the next step, no more and (but at the end of the file, or for random
#: access, which gives it what input there is) no less. What a
#: piece gives is handed out once the piece has ended without error (the rest of the
#: member when it ends with a good CRC), so what a damaged member hands out depends
#: only on the data, never on how input and output were cut nor on how far the
#: inflater looks ahead (the pure twin inflates in the same pieces). Steps are large:
#: each isal_inflate call copies up to 64 KiB through ISA-L's own buffer (and saves
#: 32 KiB of history), which at 32 KiB steps was most of the time of a poorly
#: compressible member (domain mix, one CPU, headers: 382 -> 294 ms).
STEP = 1 << 18
cdef long long C_STEP = STEP
PIECE = 1 << 17
cdef long long C_PIECE = PIECE
#: ... but nothing of a member is handed out before its end unless its pieces gave at
#: least this much: a damaged member smaller than that gives nothing.
HOLD = 1 << 18
cdef long long C_HOLD = HOLD
#: Smallest slot: more than HOLD plus a piece, so what is held back always fits a slot.
MIN_SLOT = 1 << 20

cdef enum:
    ST_MORE = 0       # more slots follow
    ST_EOF = 1        # the input ended after a whole member
    ST_GARBAGE = 2    # bytes that are not gzip where a member should start
    ST_TRUNCATED = 3  # the input ended inside a member
    ST_DAMAGED = 4    # inflate failed (code: ISA-L's error)
    ST_IOERR = 5      # reading failed (code: errno, or -1: the exception in engine_t.pyerr)
    ST_LANE_END = 6   # a member starts at stop_at: the next lane inflates from there
    ST_UNMAPPED = 7   # reading the map faulted (SIGBUS: the file shrank, or the device failed)


cdef extern from "wk_region.h" nogil:
    ctypedef struct wk_region:
        void* base
        size_t len
    void* wk_region_alloc(wk_region* r, size_t n)
    void wk_region_free(wk_region* r)


cdef struct slot_t:
    unsigned char* data
    Py_ssize_t len
    Py_ssize_t* ev_pos        # where in data each member ended ...
    long long* ev_bound       # ... and the file offset just past it
    int nev
    int ready                 # read-ahead: 1 filled, the reader's; 0 the thread's
    int status
    int code
    long long where           # file offset the status is about
    unsigned char snippet[16]
    int snippet_len


cdef struct engine_t:
    pthread_mutex_t lock
    pthread_cond_t cv
    int stop
    int fd                    # >= 0: pread from it (our own descriptor); -1: pyfile.readinto
    PyObject* pyfile          # the caller's file object (the decoder holds a reference)
    PyObject* pyerr           # what pyfile.readinto raised (a reference of ours)
    long long file_pos
    unsigned char* inbuf      # the input: buf, or map (positions in it are file offsets)
    unsigned char* buf        # the input buffer reads go to
    unsigned char* map        # the file mapped (NULL: not)
    Py_ssize_t map_len
    Py_ssize_t map_kept       # pages of the map before this were let go
    int mapped                # inbuf is map
    Py_ssize_t in_cap, in_start, in_end
    long long in_abs, member_start
    int in_member, in_eof, io_errno
    int sparse                # random access: reads start small, inflate calls take what input there is
    Py_ssize_t read_cap       # most bytes the next read takes (in_chunk; random access: doubling)
    Py_ssize_t slot_cap
    int ev_cap, nslots, w
    int one_member            # a fill ends at the first member end (in the calling thread)
    slot_t* slots
    wk_region slot_region     # every slot's data, in one mapping
    libdeflate_decompressor* direct   # NULL: ISA-L only
    int direct_skip                   # members to stream with ISA-L before trying libdeflate again
    long long next_step               # file offset of the streaming member's next step
    long long piece                   # bytes the streaming member's current piece has given
    long long mo                      # bytes the streaming member has given so far
    unsigned char* carry_src          # what the last fill inflated past its last step ...
    Py_ssize_t carry_len              # ... and its length: it starts the next fill
    long long stop_at                 # a lane: stop where a member starts here (-1: never)
    inflate_state st                  # (last: isal_inflate_init sets what it needs of it, and
                                      # its 64 KiB of buffers need no clearing)


cdef extern from "wk_sigbus.h" nogil:
    ctypedef void (*wk_fill_fn)(void* a, void* b, Py_ssize_t n) noexcept nogil
    int wk_bus_install() noexcept
    int wk_bus_guard(wk_fill_fn fn, void* a, void* b, Py_ssize_t n, const void* lo, size_t length)


cdef void _e_map(engine_t* e, long long pos) noexcept:
    """Map the file (a regular one) and read from the map at file offset *pos*: no
    copy of every byte out of the page cache. (Mapped, iterating the heads of the #19
    300 MB domain mix took 0.95 of the time of reading copies, one CPU or two; cc 0.96,
    small 0.98.)"""
    cdef struct_stat st
    cdef void* m
    if fstat(e.fd, &st) != 0 or not S_ISREG(st.st_mode) or st.st_size <= pos:
        return
    if <unsigned long long>st.st_size > <unsigned long long>(<size_t>-1) // 2 or wk_bus_install() != 0:
        return
    m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, e.fd, 0)
    if m == MAP_FAILED:
        return
    e.map = <unsigned char*>m
    e.map_len = st.st_size
    e.inbuf = e.map
    e.mapped = 1
    e.in_start = e.in_end = pos
    e.map_kept = pos // MAP_LET_GO * MAP_LET_GO


cdef Py_ssize_t _py_readinto(engine_t* e, Py_ssize_t want) noexcept nogil:
    """``pyfile.readinto`` *want* bytes at the free end of the input buffer (taking the GIL)."""
    with gil:
        try:
            view = PyMemoryView_FromMemory(<char*>e.inbuf + e.in_end, want, PyBUF_WRITE)
            try:
                n = (<object>e.pyfile).readinto(view)
            finally:
                view.release()
            return n if n else 0
        except BaseException as exc:
            Py_INCREF(exc)
            e.pyerr = <PyObject*>exc
            return -1


cdef void _e_let_go(engine_t* e) noexcept nogil:
    """Let go of the map's pages from the last let-go point up to what was read."""
    if e.map != NULL and e.mapped and e.in_end > e.map_kept:
        madvise(e.map + e.map_kept, e.in_end - e.map_kept, MADV_DONTNEED)


cdef int _e_more(engine_t* e) noexcept nogil:
    """Read more compressed input: 1 got some, 0 end of file, -1 error (errno kept)."""
    cdef Py_ssize_t left = e.in_end - e.in_start
    cdef Py_ssize_t want
    cdef ssize_t n
    if e.in_eof:
        return 0
    if e.mapped:
        if e.in_start - e.map_kept >= MAP_LET_GO:
            # Let go of the pages read (they stay in the page cache): a process's
            # resident memory does not grow with the file.
            want = (e.in_start - e.map_kept) // MAP_LET_GO * MAP_LET_GO
            madvise(e.map + e.map_kept, want, MADV_DONTNEED)
            e.map_kept += want
        if e.in_end < e.map_len:
            want = e.read_cap
            if want > e.map_len - e.in_end:
                want = e.map_len - e.in_end
            e.in_end += want
            return 1
        if left >= e.in_cap:
            return 1
        # The end of the map: read on into the buffer (the file may have grown).
        memcpy(e.buf, e.inbuf + e.in_start, left)
        e.inbuf = e.buf
        e.mapped = 0
        e.file_pos = e.map_len
        e.in_start = 0
        e.in_end = left
    if e.in_start and (not left or e.in_cap - e.in_end < e.read_cap):
        # (only once a whole read no longer fits behind what is left, not before every
        # read: 1-2 % of a headers-only pass, one CPU or two)
        if left:
            memmove(e.inbuf, e.inbuf + e.in_start, left)
        e.in_start = 0
        e.in_end = left
    if e.in_end == e.in_cap:
        return 1
    # (reads of in_chunk, though the buffer holds two steps: what the inflater works
    # through stays in the core's cache)
    want = e.in_cap - e.in_end
    if want > e.read_cap:
        want = e.read_cap
    if e.sparse and e.read_cap < e.in_cap:
        e.read_cap *= 2
    if e.fd >= 0:
        while True:
            n = pread(e.fd, e.inbuf + e.in_end, want, e.file_pos)
            if n < 0 and errno == EINTR:
                continue
            break
        if n < 0:
            e.io_errno = errno
            return -1
        e.file_pos += n
    else:
        n = _py_readinto(e, want)
        if n < 0:
            e.io_errno = -1
            return -1
    if n == 0:
        e.in_eof = 1
        return 0
    e.in_end += n
    return 1


cdef int _e_direct(engine_t* e, slot_t* s, Py_ssize_t cap) noexcept nogil:
    """Inflate the member at the input position whole with libdeflate: 1 done (its
    end noted), 2 the slot should be handed over first, 0 stream it with ISA-L."""
    cdef size_t in_used = 0, out_used = 0
    cdef Py_ssize_t room = cap - s.len
    if e.direct_skip > 0:
        e.direct_skip -= 1
        return 0
    if room < DIRECT_ROOM // 4:
        # Hand over a nearly full slot rather than stream a small member into it.
        return 2 if s.len > 0 else 0
    if room > DIRECT_ROOM:
        room = DIRECT_ROOM
    if e.in_end - e.in_start < e.read_cap // 2 and not e.in_eof:
        if _e_more(e) < 0:
            return 0  # ISA-L's path reports the read error
    if e.in_end - e.in_start < 4 or e.inbuf[e.in_start + 3] & 0x02:
        # FHCRC: libdeflate skips the header CRC unchecked; ISA-L checks it (as the pure twin does).
        return 0
    if libdeflate_gzip_decompress_ex(e.direct, e.inbuf + e.in_start, e.in_end - e.in_start,
                                     s.data + s.len, room, &in_used, &out_used) != LIBDEFLATE_SUCCESS:
        # Too large, cut by the buffer's end, or damaged: ISA-L streams it (and
        # reports damage); large members tend to come in runs, so wait a while.
        e.direct_skip = 8
        return 0
    e.member_start = e.in_abs
    e.in_start += in_used
    e.in_abs += in_used
    s.len += out_used
    s.ev_pos[s.nev] = s.len
    s.ev_bound[s.nev] = e.in_abs
    s.nev += 1
    return 1


cdef void _e_fill(engine_t* e, slot_t* s, Py_ssize_t cap) noexcept nogil:
    """Inflate into *s* until *cap* bytes, the last event it can note, the end of the
    input, or (``one_member``) the first member end. Of a streaming member, only what
    whole pieces (STEP, PIECE) gave, once that is HOLD bytes or more, is handed out before its
    end: the rest is carried to the next fill, and dropped if the member turns out
    damaged (a member cut by the end of the input gives all it can)."""
    cdef int ret, m, at_end
    cdef Py_ssize_t avail, used, commit
    cdef uint32_t before
    s.len = 0
    s.nev = 0
    s.status = ST_MORE
    if e.carry_len:
        memmove(s.data, e.carry_src, e.carry_len)
        s.len = e.carry_len
        e.carry_len = 0
    commit = 0  # s.data[:commit] may be handed out
    while s.nev < e.ev_cap and not (e.one_member and s.nev):
        if s.len >= cap:
            if commit == 0 and e.in_member and cap < e.slot_cap:
                cap = e.slot_cap  # (a small fill, all of it one step: room for the step)
            else:
                break
        if not e.in_member:
            if e.in_abs == e.stop_at:
                s.status = ST_LANE_END
                return
            if e.in_end - e.in_start < 2 and not e.in_eof:
                if _e_more(e) < 0:
                    s.status = ST_IOERR
                    s.code = e.io_errno
                    s.len = commit
                    return
                continue
            if e.in_start >= e.in_end:
                s.status = ST_EOF
                return
            if e.inbuf[e.in_start] != 0x1f or e.in_end - e.in_start < 2 or e.inbuf[e.in_start + 1] != 0x8b:
                while e.in_end - e.in_start < 16 and _e_more(e) > 0:
                    pass
                s.status = ST_GARBAGE
                s.where = e.in_abs
                s.snippet_len = <int>min(16, e.in_end - e.in_start)
                memcpy(s.snippet, e.inbuf + e.in_start, s.snippet_len)
                return
            if e.direct != NULL:
                m = _e_direct(e, s, cap)
                if m == 1:
                    commit = s.len
                    continue  # the whole member is in the slot
                if m == 2:
                    return  # too little room left: the member starts the next slot
            isal_inflate_reset(&e.st)
            e.st.crc_flag = ISAL_GZIP
            e.in_member = 1
            e.member_start = e.in_abs
            e.next_step = e.in_abs + C_STEP
            e.mo = 0
            e.piece = 0
        while True:
            at_end = 0
            while e.in_end - e.in_start < e.next_step - e.in_abs and not e.in_eof and not (
                    e.sparse and e.in_end > e.in_start):
                # (the call gets the input up to the step: how far the inflater can look
                # ahead must not depend on where the buffer was cut; random access may
                # give it less, which only makes it see less)
                if _e_more(e) < 0:
                    s.status = ST_IOERR
                    s.code = e.io_errno
                    s.len = commit
                    return
            if e.in_start >= e.in_end:
                m = _e_more(e)
                if m < 0:
                    s.status = ST_IOERR
                    s.code = e.io_errno
                    s.len = commit
                    return
                at_end = m == 0  # inflate once more: Quirk: ISA-L may hold bytes of a cut member
            avail = e.in_end - e.in_start
            if avail > e.next_step - e.in_abs:
                avail = <Py_ssize_t>(e.next_step - e.in_abs)  # (0 at the step: only drain)
            e.st.next_in = <uint8_t*>e.inbuf + e.in_start
            e.st.avail_in = <uint32_t>avail
            e.st.next_out = <uint8_t*>s.data + s.len
            e.st.avail_out = <uint32_t>min(cap - s.len, C_PIECE - e.piece)
            before = e.st.avail_out
            ret = isal_inflate(&e.st)
            used = avail - e.st.avail_in
            s.len += before - e.st.avail_out
            e.mo += before - e.st.avail_out
            e.piece += before - e.st.avail_out
            if ret < 0:
                # What the damaged member inflated since its last whole step is dropped.
                s.len = commit
                e.in_member = 0
                s.status = ST_DAMAGED
                s.code = ret
                s.where = e.member_start
                return
            if e.st.block_state == ISAL_BLOCK_FINISH:
                # Bytes held in the bit buffer belong to what follows the member.
                used -= e.st.read_in_length // 8
                e.in_start += used
                e.in_abs += used
                e.in_member = 0
                s.ev_pos[s.nev] = s.len
                s.ev_bound[s.nev] = e.in_abs
                s.nev += 1
                commit = s.len
                break
            e.in_start += used
            e.in_abs += used
            m = e.in_abs == e.next_step and e.st.avail_out > 0  # the step: all its input gave is out
            if m or e.piece == C_PIECE:
                # The piece has ended without error.
                if e.mo >= C_HOLD:
                    commit = s.len
                e.piece = 0
                if m:
                    e.next_step += C_STEP
            elif at_end and before == e.st.avail_out:
                # The input is cut, not damaged: all it gave (the inflater has no more
                # to give) is right, and handed out.
                e.in_member = 0
                s.status = ST_TRUNCATED
                s.where = e.member_start
                return
            if s.len >= cap:
                break
    if s.len > commit:
        # The slot is full inside a step: the step goes on in the next fill.
        e.carry_src = s.data + commit
        e.carry_len = s.len - commit
        s.len = commit


cdef void _e_fill_v(void* e, void* s, Py_ssize_t cap) noexcept nogil:
    _e_fill(<engine_t*>e, <slot_t*>s, cap)


cdef void _e_fill_guarded(engine_t* e, slot_t* s, Py_ssize_t cap) noexcept nogil:
    """:func:`_e_fill`, but a fault reading the map (the file shrank under it, or its
    device failed) ends the input there, with the members inflated whole before it."""
    if e.map == NULL:
        _e_fill(e, s, cap)
        return
    if wk_bus_guard(_e_fill_v, e, s, cap, e.map, e.map_len) != 0:
        s.len = s.ev_pos[s.nev - 1] if s.nev else 0
        s.status = ST_UNMAPPED
        s.where = e.member_start if e.in_member else e.in_abs
        e.carry_len = 0


cdef void* _e_thread(void* arg) noexcept nogil:
    """The read-ahead thread: fill the slots in turn until the input ends or stop."""
    cdef engine_t* e = <engine_t*>arg
    cdef slot_t* s
    while True:
        s = &e.slots[e.w]
        pthread_mutex_lock(&e.lock)
        while s.ready and not e.stop:
            pthread_cond_wait(&e.cv, &e.lock)
        if e.stop:
            pthread_mutex_unlock(&e.lock)
            return NULL
        pthread_mutex_unlock(&e.lock)
        _e_fill_guarded(e, s, e.slot_cap)
        pthread_mutex_lock(&e.lock)
        s.ready = 1
        pthread_cond_broadcast(&e.cv)
        pthread_mutex_unlock(&e.lock)
        if s.status != ST_MORE:
            return NULL
        e.w = (e.w + 1) % e.nslots


cdef class GzipDecoder:
    """Multi-member gzip, inflated with libdeflate and ISA-L (compiled twin)."""

    cdef object _f
    cdef engine_t* _e
    cdef slot_t* _slot        # the slot being handed out (NULL: get the next one)
    cdef Py_ssize_t _rpos
    cdef int _rev, _ri, _running, _pid
    cdef long long _next_start
    cdef bint _threaded, _closed
    cdef pthread_t _thread
    cdef public object _source, _trailing
    cdef public long long member_start
    cdef public object trailing_garbage, truncated_member, stop_reason
    cdef object _error
    compression = "gzip"

    def __cinit__(self):
        self._e = NULL
        self._slot = NULL
        self._running = 0
        self._next_start = -1

    def __dealloc__(self):
        self._free()

    def __init__(self, fileobj, long long start=0, source=None, trailing="error",
                 Py_ssize_t in_chunk=IN_CHUNK, readahead=False, bint direct=True,
                 bint mapped=False, Py_ssize_t _slot=RA_SLOT, int _slots=RA_SLOTS,
                 int _events=RA_EVENTS):
        self._f = fileobj
        self._source = source
        self._trailing = trailing
        self.member_start = start
        self.trailing_garbage = None
        self.truncated_member = None
        self.stop_reason = None
        self._error = None
        fd = -1
        pos = 0
        mapped = mapped and direct
        if readahead or mapped:
            try:
                fd = fileobj.fileno()
                pos = fileobj.tell()
            except (AttributeError, OSError, ValueError):
                fd = -1  # no descriptor (BytesIO, a remote file): inflate in this thread
        if fd >= 0 and readahead:
            self._init(fd, pos, start, in_chunk, _slot, _slots, _events, direct, mapped, False)
            self._threaded = True
        else:
            self._init(fd if mapped else -1, pos, start, in_chunk, RA_SLOT, 1, 1, direct, mapped, True)

    cdef int _init(self, int fd, long long pos, long long start, Py_ssize_t in_chunk,
                   Py_ssize_t slot, int nslots, int events, bint direct, bint mapped,
                   bint one_member) except -1:
        cdef engine_t* e = <engine_t*>malloc(sizeof(engine_t))
        cdef unsigned char* region
        cdef int i
        if e == NULL:
            raise MemoryError()
        memset(e, 0, <size_t>(<char*>&e.st - <char*>e))
        self._e = e
        pthread_mutex_init(&e.lock, NULL)
        pthread_cond_init(&e.cv, NULL)
        e.fd = -1
        e.pyfile = <PyObject*>self._f  # (self._f keeps it alive)
        e.slot_cap = max(slot, MIN_SLOT)  # (a whole step fits a slot)
        e.nslots = max(nslots, 1)
        e.ev_cap = max(events, 1)
        e.one_member = one_member
        e.in_cap = max(in_chunk, 2 * C_STEP)  # (a step's input always fits)
        e.read_cap = max(in_chunk, 1 << 12)
        e.inbuf = e.buf = <unsigned char*>malloc(e.in_cap)
        e.slots = <slot_t*>malloc(e.nslots * sizeof(slot_t))
        if e.inbuf == NULL or e.slots == NULL:
            raise MemoryError()
        memset(e.slots, 0, e.nslots * sizeof(slot_t))
        region = <unsigned char*>wk_region_alloc(&e.slot_region, e.nslots * e.slot_cap)
        if region == NULL:
            raise MemoryError()
        for i in range(e.nslots):
            e.slots[i].data = region + i * e.slot_cap
            e.slots[i].ev_pos = <Py_ssize_t*>malloc(e.ev_cap * sizeof(Py_ssize_t))
            e.slots[i].ev_bound = <long long*>malloc(e.ev_cap * sizeof(long long))
            if e.slots[i].ev_pos == NULL or e.slots[i].ev_bound == NULL:
                raise MemoryError()
        if fd >= 0:
            e.fd = dup(fd)  # our own descriptor: closing the caller's file cannot pull it away
            if e.fd < 0:
                raise OSError(errno, "cannot duplicate the file descriptor")
        e.file_pos = pos
        if mapped and e.fd >= 0:
            _e_map(e, pos)
            if one_member and e.map == NULL:
                close(e.fd)  # (not mappable: read through the file object, as unmapped)
                e.fd = -1
        e.in_abs = start
        e.member_start = start
        e.stop_at = -1
        isal_inflate_init(&e.st)
        if direct:
            e.direct = libdeflate_alloc_decompressor()  # (NULL: ISA-L only)
        elif one_member:
            # Random access: most records are far smaller than the buffer, which one
            # read would fill (reading, and copying, 64 KiB was a fifth of a call).
            e.sparse = 1
            e.read_cap = SPARSE_FIRST_READ
        return 0

    @property
    def readahead(self):
        """True when a native thread inflates ahead of :meth:`read`."""
        return self._threaded

    @property
    def mapped(self):
        """True when the file is read through a memory map of it."""
        return self._e != NULL and self._e.map != NULL

    def read(self, Py_ssize_t limit=MAX_CHUNK):
        """Return ``(chunk, boundary)``: at most *limit* inflated bytes (see the pure twin)."""
        return self._read(limit, True)

    def skip(self, Py_ssize_t limit):
        """Inflate and discard at most *limit* bytes; return ``(count, boundary)``."""
        return self._read(limit, False)

    def close(self):
        """Stop the read-ahead thread, if any, and release the buffers (reading ends)."""
        self._free()
        self._closed = True

    cdef object _out(self, slot_t* s, Py_ssize_t n, bint keep):
        if keep:
            return PyBytes_FromStringAndSize(<char*>s.data + self._rpos, n)
        return n

    cdef tuple _read(self, Py_ssize_t limit, bint keep):
        cdef engine_t* e = self._e
        cdef slot_t* s
        cdef Py_ssize_t end, n
        cdef long long boundary
        if self._error is not None:
            # Once damage was reported, every later read reports it again.
            raise self._error.with_traceback(None)
        if self._closed or e == NULL:
            return (b"" if keep else 0), None
        if limit > MAX_CHUNK or limit <= 0:
            limit = MAX_CHUNK
        while True:
            s = self._slot
            if s == NULL:
                s = self._next_slot(limit)
                self._slot = s
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
                out = self._out(s, n, keep)
                self._rpos += n
                if self._rev < s.nev and self._rpos == s.ev_pos[self._rev]:
                    boundary = s.ev_bound[self._rev]
                    self._rev += 1
                    self._next_start = boundary
                    return out, boundary
                return out, None
            if s.status != ST_MORE:
                return self._end(s, keep)
            if self._threaded:
                self._check_pid()
                with nogil:
                    pthread_mutex_lock(&e.lock)
                    s.ready = 0
                    pthread_cond_broadcast(&e.cv)
                    pthread_mutex_unlock(&e.lock)
                self._ri = (self._ri + 1) % e.nslots
            self._slot = NULL

    cdef slot_t* _next_slot(self, Py_ssize_t limit) except NULL:
        """The next filled slot: the thread's next one, or one filled here and now."""
        cdef engine_t* e = self._e
        cdef slot_t* s
        cdef Py_ssize_t cap
        self._start()
        if self._threaded:
            s = &e.slots[self._ri]
            with nogil:
                pthread_mutex_lock(&e.lock)
                while not s.ready:
                    pthread_cond_wait(&e.cv, &e.lock)
                pthread_mutex_unlock(&e.lock)
            return s
        s = &e.slots[0]
        cap = e.slot_cap
        if e.direct == NULL:
            # Random access: inflate little past what was asked for (the caller
            # may want only a record's head).
            cap = limit if limit > SYNC_FILL else SYNC_FILL
            if cap > e.slot_cap:
                cap = e.slot_cap
        with nogil:
            _e_fill_guarded(e, s, cap)
        return s

    cdef int _start(self) except -1:
        """Start the read-ahead thread, if there is to be one and it has not started."""
        if self._threaded:
            self._check_pid()
            if not self._running:
                self._pid = getpid()
                if pthread_create(&self._thread, NULL, _e_thread, <void*>self._e) == 0:
                    self._running = 1
                else:
                    # No thread to be had (a process limit): nothing was read ahead,
                    # so go on in this thread.
                    self._threaded = False
                    self._e.one_member = 1
        return 0

    cdef int _restart(self, long long start, long long stop_at) except -1:
        """Read on from the member at file offset *start* (on the same descriptor, with
        the same buffers: a lane's next span), stopping at *stop_at*."""
        cdef engine_t* e = self._e
        cdef int i
        cdef long long fpos
        self._stop()  # (joins the thread: it stopped at its lane's end, or stops now)
        if e.pyerr != NULL:
            Py_DECREF(<object>e.pyerr)
            e.pyerr = NULL
        e.stop = 0
        if e.mapped:
            fpos = e.in_start + (start - e.in_abs)
        else:
            fpos = e.file_pos + start - e.in_abs - (e.in_end - e.in_start)  # (where in_abs's byte is read from)
        e.file_pos = fpos
        e.in_start = e.in_end = 0
        e.inbuf = e.buf
        e.mapped = 0
        if e.map != NULL and fpos < e.map_len:
            e.inbuf = e.map
            e.mapped = 1
            e.in_start = e.in_end = fpos
            e.map_kept = fpos // MAP_LET_GO * MAP_LET_GO  # (a multiple of the page size)
        e.in_abs = e.member_start = start
        e.in_member = e.in_eof = e.io_errno = 0
        e.w = 0
        e.direct_skip = 0
        e.carry_len = 0
        e.stop_at = stop_at
        for i in range(e.nslots):
            e.slots[i].ready = 0
            e.slots[i].len = 0
            e.slots[i].nev = 0
            e.slots[i].status = ST_MORE
        self._slot = NULL
        self._rpos = self._rev = self._ri = 0
        self._pid = 0
        self._next_start = -1
        self.member_start = start
        self.trailing_garbage = self.truncated_member = self.stop_reason = None
        self._error = None
        return 0

    cdef int _check_pid(self) except -1:
        if self._pid and self._pid != getpid():
            # The thread, and any lock it held, stayed in the parent.
            raise OSError("a read-ahead gzip decoder cannot be used after fork()")
        return 0

    cdef tuple _end(self, slot_t* s, bint keep):
        """The input has ended (*s* is the last slot): report how, once."""
        cdef int status = s.status
        cdef engine_t* e = self._e
        s.status = ST_EOF  # later reads see the end
        empty = b"" if keep else 0
        if status == ST_EOF:
            return empty, None
        if status == ST_LANE_END:
            # (a LaneDecoder moves to the next lane at the boundary before this)
            raise RuntimeError("a gzip lane was read past its end")
        if status == ST_IOERR:
            if s.code == -1 and e.pyerr != NULL:
                exc = <object>e.pyerr
                Py_DECREF(exc)
                e.pyerr = NULL
                raise exc
            import os
            raise OSError(s.code, os.strerror(s.code))
        if status != ST_GARBAGE:
            self.member_start = s.where
        if status == ST_GARBAGE:
            reason = "bytes after the last gzip member are not gzip"
        elif status == ST_UNMAPPED:
            reason = "the file could not be read here (it shrank while being read, or its device failed)"
        elif status == ST_TRUNCATED:
            reason = "gzip member is truncated"
        else:
            reason = f"gzip member is damaged ({_ERRORS.get(s.code, s.code)})"
        if self._trailing == "stop":
            self.stop_reason = reason
            if status == ST_GARBAGE:
                self.trailing_garbage = s.where
            else:
                self.truncated_member = s.where
            return empty, None
        snippet = None
        if status == ST_GARBAGE:
            snippet = PyBytes_FromStringAndSize(<char*>s.snippet, s.snippet_len)
        self._error = CompressionError(reason, offset=s.where, source=self._source, snippet=snippet)
        raise self._error

    cdef void _stop(self) noexcept:
        cdef engine_t* e = self._e
        if e == NULL or not self._running:
            return
        self._running = 0
        if self._pid != getpid():
            return  # a forked child: the thread (and any lock it held) is the parent's
        with nogil:
            pthread_mutex_lock(&e.lock)
            e.stop = 1
            pthread_cond_broadcast(&e.cv)
            pthread_mutex_unlock(&e.lock)
            pthread_join(self._thread, NULL)
            _e_let_go(e)  # (a lane that stops keeps none of the file resident)

    cdef void _free(self) noexcept:
        cdef engine_t* e = self._e
        cdef int i
        if e == NULL:
            return
        self._stop()
        if e.slots != NULL:
            wk_region_free(&e.slot_region)
            for i in range(e.nslots):
                free(e.slots[i].ev_pos)
                free(e.slots[i].ev_bound)
            free(e.slots)
        free(e.buf)
        if e.map != NULL:
            munmap(e.map, e.map_len)
        if e.direct != NULL:
            libdeflate_free_decompressor(e.direct)
        if e.fd >= 0:
            close(e.fd)
        if e.pyerr != NULL:
            Py_DECREF(<object>e.pyerr)
        pthread_cond_destroy(&e.cv)
        pthread_mutex_destroy(&e.lock)
        free(e)
        self._e = NULL
        self._slot = NULL


#: Lanes: read-ahead slots of a lane, inflated bytes a lane's span aims at (what
#: those slots hold), the bounds of a span in compressed bytes, and how far a
#: candidate member start is looked for past the place a span ends. (Spans of 8 MiB
#: rather than 4 read 300 MB of the #19 domain mix in 0.85 of the time, cc in 0.9,
#: in-process on two CPUs: the lane read next has more of its span inflated when the
#: reader reaches it.)
LANE_SLOTS = 8
LANE_OUT = RA_SLOT * LANE_SLOTS
#: Whether LaneDecoder inflates its lanes on threads (not in the pure twin).
LANES_THREADED = True
LANE_MIN = 1 << 18
LANE_MAX = 16 << 20
LANE_FIRST = 1 << 20
#: By default lanes stop after the first one when its members inflate to less than
#: this on average: records that small cost the reader more to parse than to inflate,
#: and a second inflating thread would only take CPU from it.
LANE_MEMBER = 8 << 10
LANE_SEARCH = 1 << 18
#: Compressed bytes read at a time when looking for a candidate, and most inflated to check one.
LANE_WINDOW = 1 << 16
LANE_PROBE = 1 << 17


cdef extern from "<string.h>" nogil:
    const void* memchr(const void* s, int c, size_t n)
    const void* memrchr(const void* s, int c, size_t n)


cdef Py_ssize_t _magic_at(const unsigned char* p, Py_ssize_t n, Py_ssize_t i) noexcept:
    """``window.find(b"\\x1f\\x8b\\x08", i)`` (memchr is several times faster)."""
    cdef const unsigned char* q
    while i + 3 <= n:
        q = <const unsigned char*>memchr(p + i, 0x1f, n - 2 - i)
        if q == NULL:
            return -1
        i = q - p
        if p[i + 1] == 0x8b and p[i + 2] == 0x08:
            return i
        i += 1
    return -1


cdef Py_ssize_t _magic_before(const unsigned char* p, Py_ssize_t n, Py_ssize_t i) noexcept:
    """``window.rfind(b"\\x1f\\x8b\\x08", 0, i + 2)``: the last one starting before *i*."""
    cdef const unsigned char* q
    cdef Py_ssize_t j = min(i, n - 2), k
    while j > 0:
        q = <const unsigned char*>memrchr(p, 0x1f, j)
        if q == NULL:
            return -1
        k = q - p
        if p[k + 1] == 0x8b and p[k + 2] == 0x08:
            return k
        j = k
    return -1


def _member_end(read, long long at):
    """Where the gzip member at *at* ends; 0 when its first LANE_PROBE compressed bytes
    (or LANE_OUT inflated ones) inflate cleanly and it goes on; None when it does not
    inflate (or the file ends inside it). *read(pos, n)* reads the file."""
    import zlib
    try:  # (faster than zlib, for checking candidates)
        from isal import isal_zlib as _probe_zlib
    except ImportError:
        _probe_zlib = zlib

    d = _probe_zlib.decompressobj(31)
    cdef long long pos = at, out = 0
    while pos - at < LANE_PROBE:
        data = read(pos, 1 << 14)
        if not data:
            return None  # (cut by the end of the file)
        try:
            out += len(d.decompress(data, 1 << 16))
            while d.unconsumed_tail and not d.eof and out <= LANE_OUT:  # (at eof the tail is the unused data)
                out += len(d.decompress(d.unconsumed_tail, 1 << 16))
        except (zlib.error, _probe_zlib.error):
            return None
        if d.eof:
            return pos + len(data) - len(d.unused_data)
        if out > LANE_OUT:
            return 0
        pos += len(data)
    return 0


def _candidate(read, long long at, long long stop, long long end):
    """The first likely member start in ``[at, stop)``: a gzip header whose member
    inflates cleanly and, if it ends within the probe, is followed by another gzip
    header or the end of the file (a gzip stream stored whole inside a member, say, is
    followed by other bytes; a large one passes, and its lane is dropped unused).
    Returns ``(offset, -1)``, or ``(-1, where the search stopped)``."""
    cdef long long pos = at, cand
    cdef Py_ssize_t i
    cdef bytes window
    while pos < stop:
        window = read(pos, LANE_WINDOW + 2)
        if len(window) < 3:
            break
        i = _magic_at(window, len(window), 0)
        while 0 <= i < len(window) - 2 and pos + i < stop:
            cand = pos + i
            if _likely(read, window, i, cand, end):
                return cand, -1
            i = _magic_at(window, len(window), i + 1)
        pos += max(len(window) - 2, 1)
    return -1, pos


def _likely(read, bytes window, Py_ssize_t i, long long cand, long long end):
    """Whether the gzip header at ``window[i:]`` (file offset *cand*) likely starts a member."""
    if i + 3 < len(window) and window[i + 3] & 0xE0:
        return False  # (reserved FLG bits are never set)
    m_end = _member_end(read, cand)
    return m_end is not None and (m_end in (0, end) or read(m_end, 3) == GZIP_MAGIC + b"\x08")


def _candidate_before(read, long long lo, long long hi, long long end):
    """The last likely member start in ``[lo, hi)`` (see :func:`_candidate`), or -1."""
    cdef long long pos = hi, start
    cdef Py_ssize_t i
    cdef bytes window
    while pos > lo:
        start = max(lo, pos - LANE_WINDOW)
        window = read(start, pos - start + 2)
        i = _magic_before(window, len(window), pos - start)
        while i >= 0:
            if _likely(read, window, i, start + i, end):
                return start + i
            i = _magic_before(window, len(window), i)
        pos = start
    return -1


class _At:
    """A descriptor and a position in it: where a lane's decoder reads from."""

    __slots__ = ("_fd", "_pos")

    def __init__(self, fd, pos):
        self._fd = fd
        self._pos = pos

    def fileno(self):
        return self._fd

    def tell(self):
        return self._pos


cdef class LaneDecoder:
    """Multi-member gzip inflated on two threads: GzipDecoder *lanes*, each from a
    member start, one being read while the next one inflates ahead.

    A lane's successor starts at a *candidate*: the first plausible gzip header about
    a span past the lane's start (found by ``pread``, as :mod:`warckit.read.pieces`
    finds split points). It is used only once the lane being read hands out a member
    end exactly there (the lane then stops); a lane whose members end past its
    successor's candidate (the bytes only looked like a gzip header) goes on, and that
    successor is dropped unused. What a GzipDecoder hands out depends only on the bytes
    from a member start, so the stream, boundaries, member starts, errors and lenient
    stops are those of one GzipDecoder. *span* (compressed bytes) fixes the span;
    by default it follows the compression ratio, so that a lane's read-ahead slots
    hold most of what it inflates. Needs a file with a descriptor (and threads).
    """

    cdef GzipDecoder _cur, _next, _spare
    cdef object _source, _trailing
    cdef Py_ssize_t _in_chunk
    cdef bint _direct, _mapped, _planned
    cdef int _fd
    cdef long long _delta, _end, _tail, _span, _cand, _retry, _lane_start, _out, _members
    cdef bint _retired
    cdef public long long switches, dropped
    compression = "gzip"

    def __init__(self, fileobj, long long start=0, source=None, trailing="error",
                 Py_ssize_t in_chunk=IN_CHUNK, readahead=True, bint direct=True, span=None,
                 bint mapped=False):
        import os

        self._source = source
        self._trailing = trailing
        self._in_chunk = in_chunk
        self._direct = direct
        self._mapped = mapped
        self._fd = fileobj.fileno()
        self._delta = fileobj.tell() - start  # (file position = offset + delta)
        self._end = os.fstat(self._fd).st_size - self._delta
        self._span = 0 if span is None else max(<long long>span, 1)
        self._tail = LANE_MIN if span is None else 0  # (no lane for the last bytes)
        self._cand = -1
        self._retry = -1
        self._lane_start = start
        self._cur = GzipDecoder(fileobj, start, source, trailing, in_chunk, True, direct,
                                mapped, _slots=LANE_SLOTS)
        if not self._cur._threaded:
            raise ValueError("LaneDecoder needs a file with a descriptor")

    @property
    def readahead(self):
        return self._cur._threaded

    @property
    def mapped(self):
        return self._cur.mapped

    @property
    def member_start(self):
        return self._cur.member_start

    @property
    def trailing_garbage(self):
        return self._cur.trailing_garbage

    @property
    def truncated_member(self):
        return self._cur.truncated_member

    @property
    def stop_reason(self):
        return self._cur.stop_reason

    def read(self, Py_ssize_t limit=MAX_CHUNK):
        """Return ``(chunk, boundary)`` (see GzipDecoder.read)."""
        return self._read(limit, True)

    def skip(self, Py_ssize_t limit):
        """Inflate and discard at most *limit* bytes; return ``(count, boundary)``."""
        return self._read(limit, False)

    def close(self):
        """Stop every lane's thread and release the buffers."""
        self._cur.close()
        for lane in (self._next, self._spare):
            if lane is not None:
                lane.close()
        self._next = self._spare = None

    cdef tuple _read(self, Py_ssize_t limit, bint keep):
        cdef tuple r
        cdef long long b
        if not self._planned:
            # (planned at the first read, in the process that reads, while the first
            # lane inflates: planning imports and probes for about 2 ms)
            self._planned = True
            self._cur._start()
            self._plan(self._lane_start)
        r = self._cur._read(limit, keep)
        if keep:
            self._out += len(<bytes>r[0])
        else:
            self._out += <long long>r[0]
        if r[1] is None:
            return r
        b = r[1]
        self._members += 1
        if b == self._cand:
            self._switch()
        elif self._cand >= 0 and b > self._cand:
            # The candidate was not a member start: its lane is never used.
            if self._next is not None:
                self._next._stop()
                self._spare = self._next
                self._next = None
                self.dropped += 1
            self._cand = -1
            self._plan(b)
        elif self._cand < 0 and 0 <= self._retry <= b and not self._retired:
            self._plan(b)
        return r

    cdef long long _span_now(self, long long at):
        """Compressed bytes of the next span: fixed, or what inflates to about LANE_OUT
        at the ratio seen since the current lane started."""
        cdef long long used = at - self._lane_start
        if self._span:
            return self._span
        if used <= 0 or self._out <= 0:
            return LANE_FIRST  # (no ratio seen yet: a short first span measures one)
        return min(max(LANE_OUT * used // self._out, LANE_MIN), LANE_MAX)

    cdef long long _find(self, long long base, long long span):
        """A likely member start about *span* past *base*: the first at or after
        ``base + span``, else the last after ``base + span // 2`` (-1: none near
        enough; then ``_retry`` is where to look again)."""
        cdef long long at = base + span
        cdef long long stop = min(at + LANE_SEARCH, self._end - self._tail)
        cand, where = _candidate(self._pread, at, stop, self._end)
        if cand < 0:
            # (the span ends inside a large member: the lane starts at one before it)
            cand = _candidate_before(self._pread, base + span // 2 + 1, min(at, stop), self._end)
        self._retry = where if cand < 0 and 0 <= where < self._end - self._tail else -1
        return cand

    def _pread(self, long long pos, Py_ssize_t n):
        import os

        return os.pread(self._fd, n, pos + self._delta)

    cdef int _plan(self, long long after) except -1:
        """Start the lane for the next span after *after* (the current lane stops there)."""
        cdef long long cand = self._find(after, self._span_now(after))
        cdef GzipDecoder lane
        if cand < 0:
            return 0
        lane = self._lane(cand, self._find(cand, self._span_now(after)))
        self._next = lane
        self._cand = cand
        # (the current lane's thread may be past it already: then it never stops there,
        # its members end past the candidate, and this lane is dropped)
        self._cur._e.stop_at = cand
        return 0

    cdef GzipDecoder _lane(self, long long at, long long stop):
        """A lane from *at* to *stop*, its thread started: the spare one (its buffers
        and descriptor reused), or a new one."""
        cdef GzipDecoder lane = self._spare
        if lane is not None:
            self._spare = None
            lane._restart(at, stop)
        else:
            lane = GzipDecoder(_At(self._fd, at + self._delta), at, self._source,
                               self._trailing, self._in_chunk, True, self._direct, self._mapped,
                               _slots=LANE_SLOTS)
            lane._e.stop_at = stop
        lane._start()
        return lane

    cdef int _switch(self) except -1:
        """The current lane ended a member at the candidate: read on from its lane."""
        cdef GzipDecoder old = self._cur, lane = self._next
        cdef long long at = self._cand, span = self._span_now(at)
        if lane is None:  # (lanes retired: this one reads to the end)
            lane = self._lane(at, -1)
        # As the one decoder would be: the next member's start shows with its bytes.
        lane.member_start = old.member_start
        lane._next_start = at
        old._stop()
        self._spare = old
        self._cur = lane
        self._next = None
        self.switches += 1
        cand = lane._e.stop_at
        if self._span == 0 and self._out < self._members * LANE_MEMBER:
            self._retired = True
        self._lane_start = at
        self._out = 0
        self._members = 0
        self._cand = -1
        if self._retired:
            # (the lane's thread may stop at its candidate: the last lane starts there)
            self._cand = cand
            return 0
        if cand >= 0:
            self._next = self._lane(cand, self._find(cand, span))
            self._cand = cand
        else:
            self._retry = at  # (look again at the lane's first member end)
        return 0
