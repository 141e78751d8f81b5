# cython: language_level=3
"""Compiled twin of warckit/_speedups/_readercore_py.py: the reader's per-record fast path.

Same class, attributes and behaviour as the pure ``ReaderCore``. The buffer state is
kept in C fields (exposed to the Python subclass as attributes), record heads are
found with ``memchr`` and the member boundaries are searched without Python calls;
the rare paths (ARC, lenient recovery, damaged trailers, warnings) are the subclass's
Python methods, called exactly where the pure twin calls them. Like the pure twin it
knows no record class (the subclass gives ``_record_types`` and ``_record_class``) and
hands each record a :class:`LengthedBody`. It makes a record and its ``Headers`` by
filling their slots as ``_from_reader`` and ``Headers._unparsed`` would (``wk_slots.h``),
for every record class that keeps the base's ``_from_reader``.
"""

from _weakref import ref as _ref  # (weakref.ref, without importing weakref.py)

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_1BYTE_DATA, PyUnicode_1BYTE_KIND, PyUnicode_GET_LENGTH, PyUnicode_KIND
from libc.string cimport memchr, memcpy

from warckit.errors import CompressionError, HeaderParseError, RecordParseError
from warckit.record.headers import Headers
from warckit._speedups.headers import impl as _hp

_scan_head = _hp.scan_head
_unparsed = Headers._unparsed
_HeadError = _hp.HeadError


cdef extern from "wk_slots.h":
    Py_ssize_t wk_slot_offset(object tp, const char* name)
    void wk_slot_init(object o, Py_ssize_t offset, object value)
    object wk_new_instance(object tp)


# Records and their Headers are made here, their slots filled at their offsets: what
# WarcRecord._from_reader and Headers._unparsed do (the pure twin calls them), less the
# Python calls and attribute stores (#19: 0.4 us of every record).
cdef enum:
    R_VERSION, R_HEADERS, R_RAW_HEAD, R_OFFSET, R_STREAM_OFFSET, R_SOURCE, R_ISSUES,
    R_MEMBER_ALIGNED, R_LENGTH, R_STREAM_LENGTH, R_CONTENT_LENGTH, R_BODY, R_RETAINED,
    R_PULLED, R_SPOOL, R_SPOOL_START, R_HTTP, R_HTTP_DONE, R_LENIENT, R_TRAILER, R_SLOTS

cdef enum:
    H_FLDS, H_INDEX, H_FIRSTS, H_CONCURRENT, H_RAW, H_LENIENT, H_SLOTS

_RECORD_SLOTS = ("version", "headers", "raw_head", "offset", "stream_offset", "source", "issues",
                 "member_aligned", "_length", "_stream_length", "_content_length", "_body", "_retained",
                 "_pulled", "_spool", "_spool_start", "_http", "_http_done", "_lenient", "trailer")
_HEADERS_SLOTS = ("_flds", "_index", "_firsts", "_concurrent", "_raw", "_lenient")

cdef Py_ssize_t _r_off[R_SLOTS]
cdef Py_ssize_t _h_off[H_SLOTS]


cdef bint _offsets(type_, names, Py_ssize_t* out):
    """Fill *out* with the offsets of the slots *names* of *type_*; False if one is not
    a plain slot of it."""
    cdef Py_ssize_t i
    for i, name in enumerate(names):
        out[i] = wk_slot_offset(type_, name.encode())
        if out[i] < 0:
            return False
    return True


cdef bint _HEADERS_FAST = (_offsets(Headers, _HEADERS_SLOTS, _h_off)
                           and set(Headers.__slots__) == set(_HEADERS_SLOTS))
#: The class whose _from_reader the records' classes share (WarcRecord, found in the
#: first record class's MRO: the core knows no record class), its function, and
#: record class -> whether its records are made here.
cdef object _record_base = None
cdef object _base_from_reader = None
cdef dict _made_here = {}


cdef bint _fast_class(cls) except -1:
    """Whether *cls*'s records are made here: it keeps the _from_reader of the record
    base, whose slots are _RECORD_SLOTS (found on first use)."""
    global _record_base, _base_from_reader
    fast = False
    if _record_base is None and isinstance(cls, type):
        base = next((c for c in cls.__mro__ if "_from_reader" in c.__dict__), None)
        if (base is not None and set(base.__dict__.get("__slots__", ())) == set(_RECORD_SLOTS) | {"__weakref__"}
                and _offsets(base, _RECORD_SLOTS, _r_off)):
            _record_base = base
            _base_from_reader = getattr(base.__dict__["_from_reader"], "__func__", None)
    if _record_base is not None and isinstance(cls, type) and issubclass(cls, _record_base):
        fast = (_base_from_reader is not None
                and getattr(cls._from_reader, "__func__", None) is _base_from_reader
                and not getattr(cls, "__abstractmethods__", None))
    _made_here[cls] = fast
    return fast


cdef object _headers(bytes raw, bint lenient):
    """``Headers._unparsed(raw, lenient)``."""
    if not _HEADERS_FAST:
        return _unparsed(raw, lenient)
    h = wk_new_instance(Headers)
    wk_slot_init(h, _h_off[H_FLDS], None)
    wk_slot_init(h, _h_off[H_INDEX], None)
    wk_slot_init(h, _h_off[H_FIRSTS], None)
    wk_slot_init(h, _h_off[H_CONCURRENT], None)
    wk_slot_init(h, _h_off[H_RAW], raw)
    wk_slot_init(h, _h_off[H_LENIENT], lenient)
    return h


cdef object _record(cls, version, headers, bytes raw_head, long long offset, long long start,
                    source, bint lenient, bint aligned, long long cl, body):
    """``cls._from_reader(...)``, for a class made here."""
    r = wk_new_instance(cls)
    wk_slot_init(r, _r_off[R_VERSION], version)
    wk_slot_init(r, _r_off[R_HEADERS], headers)
    wk_slot_init(r, _r_off[R_RAW_HEAD], raw_head)
    wk_slot_init(r, _r_off[R_OFFSET], offset)
    wk_slot_init(r, _r_off[R_STREAM_OFFSET], start)
    wk_slot_init(r, _r_off[R_SOURCE], source)
    wk_slot_init(r, _r_off[R_ISSUES], [])
    wk_slot_init(r, _r_off[R_MEMBER_ALIGNED], aligned)
    wk_slot_init(r, _r_off[R_LENGTH], None)
    wk_slot_init(r, _r_off[R_STREAM_LENGTH], None)
    wk_slot_init(r, _r_off[R_CONTENT_LENGTH], cl)
    wk_slot_init(r, _r_off[R_BODY], body)
    wk_slot_init(r, _r_off[R_RETAINED], b"")
    wk_slot_init(r, _r_off[R_PULLED], 0)
    wk_slot_init(r, _r_off[R_SPOOL], None)
    wk_slot_init(r, _r_off[R_SPOOL_START], 0)
    wk_slot_init(r, _r_off[R_HTTP], None)
    wk_slot_init(r, _r_off[R_HTTP_DONE], False)
    wk_slot_init(r, _r_off[R_LENIENT], lenient)
    wk_slot_init(r, _r_off[R_TRAILER], None)
    return r

#: Decompressed bytes asked for when the reader needs a record head (the rest of a
#: large block is then skipped inside the decoder, never copied out).
HEAD_CHUNK = 1 << 14
#: Decompressed bytes asked for when a caller reads a block.
BODY_CHUNK = 1 << 20
#: Largest Content-Length accepted (2**62 bytes: more than any file system holds).
MAX_CONTENT_LENGTH = 1 << 62


class _Ghost:
    """What finishing a record needs when the caller has already dropped it."""

    __slots__ = (
        "_content_length",
        "_length",
        "_stream_length",
        "format",
        "issues",
        "member_aligned",
        "offset",
        "stream_offset",
        "trailer",
    )

    def __init__(self, offset, stream_offset, member_aligned, fmt, content_length):
        self.offset = offset
        self.stream_offset = stream_offset
        self.member_aligned = member_aligned
        self.format = fmt
        self.trailer = None
        self.issues = []
        self._content_length = content_length
        self._length = None
        self._stream_length = None


cdef inline bytes _slice(bytes b, Py_ssize_t i, Py_ssize_t j):
    """``b[i:j]`` for 0 <= i <= len(b), without the slice object ``b[i:j]`` makes."""
    if j > PyBytes_GET_SIZE(b):
        j = PyBytes_GET_SIZE(b)
    if j < i:
        j = i
    return PyBytes_FromStringAndSize(PyBytes_AS_STRING(b) + i, j - i)


cdef inline bytes _tail_and(bytes b, Py_ssize_t i, bytes more):
    """``b[i:] + more`` in one copy of each."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(b) - i, m = PyBytes_GET_SIZE(more)
    cdef bytes out = PyBytes_FromStringAndSize(NULL, n + m)
    memcpy(PyBytes_AS_STRING(out), PyBytes_AS_STRING(b) + i, n)
    memcpy(PyBytes_AS_STRING(out) + n, PyBytes_AS_STRING(more), m)
    return out


cdef long long _plain_number(text):
    """The value of *text* when it is 1 to 18 ASCII digits (always below
    MAX_CONTENT_LENGTH), else -1: the common Content-Length, read without the calls
    that check the rest."""
    cdef Py_ssize_t i, n
    cdef long long v = 0
    cdef unsigned char c
    cdef const unsigned char* d
    if type(text) is not str or PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND:
        return -1
    n = PyUnicode_GET_LENGTH(text)
    if n == 0 or n > 18:
        return -1
    d = <const unsigned char*>PyUnicode_1BYTE_DATA(text)
    for i in range(n):
        c = d[i]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
    return v


cdef Py_ssize_t _bisect_right(list a, long long x):
    cdef Py_ssize_t lo = 0, hi = len(a), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < <long long>a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef Py_ssize_t _bisect_left(list a, long long x):
    cdef Py_ssize_t lo = 0, hi = len(a), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if <long long>a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef Py_ssize_t _find_head_end(const char* p, Py_ssize_t start, Py_ssize_t n):
    """Index of the first CRLF CRLF at or after *start*, or -1."""
    cdef const char* hit
    cdef Py_ssize_t i = start
    while i + 3 < n:
        hit = <const char*>memchr(p + i, 10, n - i)
        if hit == NULL:
            return -1
        i = hit - p  # p[i] is LF: CRLF CRLF is p[i-1 .. i+2]
        if i >= 1 and i + 2 < n and p[i - 1] == 13 and p[i + 1] == 13 and p[i + 2] == 10 and i - 1 >= start:
            return i - 1
        i += 1
    return -1


cdef Py_ssize_t _find_lenient_end(const char* p, Py_ssize_t start, Py_ssize_t n):
    """Where the first match of ``\\n\\r*\\n`` at or after *start* ends (the pure twin's
    regex: an empty line ended by a bare LF or CR CR LF as well), or -1."""
    cdef const char* hit
    cdef Py_ssize_t i = start, j
    while i + 1 < n:
        hit = <const char*>memchr(p + i, 10, n - i)
        if hit == NULL:
            return -1
        i = hit - p
        j = i + 1
        while j < n and p[j] == 13:
            j += 1
        if j < n and p[j] == 10:
            return j + 1
        i += 1
    return -1


cdef class LengthedBody


cdef class ReaderCore:
    """Buffer, member bookkeeping and the per-record fast path of the reader (compiled)."""

    cdef public object _f, name, compression, format, _dec, _dec_skip, _record_types, _record_class
    cdef public bytes _buf
    cdef public Py_ssize_t _pos, _max_head
    cdef public long long _base, _cur_block_left, _gen
    cdef public list _bstream, _bfile
    cdef public bint _eof, lenient, _done, _broken
    cdef public object _current_ref, _cur_info, _types, _min, _max

    def __iter__(self):
        return self

    def __next__(self):
        record = self._c_next_record()
        if record is None:
            raise StopIteration
        return record

    # -- buffer -----------------------------------------------------------------------

    def _fill(self, Py_ssize_t limit=16384):  # (HEAD_CHUNK)
        """Append the next decompressed piece (at most about *limit* bytes) to the buffer."""
        return self._c_fill(limit)

    cdef bint _c_fill(self, Py_ssize_t limit=16384) except -1:  # (HEAD_CHUNK)
        cdef Py_ssize_t pos
        cdef long long end
        if self._eof:
            return False
        try:
            chunk, boundary = self._dec.read(limit)
        except CompressionError as exc:
            (<object>self)._dec_failed(exc)
            raise
        if not chunk and boundary is None:
            self._eof = True
            return False
        if self._base == 0 and not self._buf and len(self._bstream) == 1 and self._bstream[0] == 0:
            # The first member may start after skipped frames (zstd dictionary).
            self._bfile[0] = self._dec.member_start
        pos = self._pos
        if pos:
            self._base += pos
            if pos >= PyBytes_GET_SIZE(self._buf):
                self._buf = chunk
            elif type(chunk) is bytes:
                self._buf = _tail_and(self._buf, pos, <bytes>chunk)
            else:
                self._buf = self._buf[pos:] + chunk
            self._pos = 0
        elif self._buf:
            self._buf += chunk
        else:
            self._buf = chunk
        if boundary is not None:
            end = self._base + PyBytes_GET_SIZE(self._buf)
            if <long long>self._bstream[len(self._bstream) - 1] == end:
                self._bfile[len(self._bfile) - 1] = boundary
            else:
                self._bstream.append(end)
                self._bfile.append(boundary)
        return True

    def _ensure(self, Py_ssize_t n):
        """Make at least *n* bytes available from the position; False at EOF."""
        return self._c_ensure(n)

    cdef bint _c_ensure(self, Py_ssize_t n) except -1:
        while PyBytes_GET_SIZE(self._buf) - self._pos < n:
            if not self._c_fill():
                return False
        return True

    def _prune_bounds(self, long long stream_pos):
        self._c_prune_bounds(stream_pos)

    cdef int _c_prune_bounds(self, long long stream_pos) except -1:
        cdef Py_ssize_t i
        if len(self._bstream) < 32:
            return 0  # cheap enough to keep; prune in batches
        i = _bisect_right(self._bstream, stream_pos) - 1
        if i > 0:
            del self._bstream[:i]
            del self._bfile[:i]
        return 0

    # -- block access for records -----------------------------------------------------

    def _pull_block(self, record, Py_ssize_t size):
        return self._c_pull_block(record, size)

    cdef object _c_pull_block(self, record, Py_ssize_t size):
        cdef long long left = self._cur_block_left
        cdef Py_ssize_t take, pos, avail
        if left <= 0:
            return b""
        while self._pos >= PyBytes_GET_SIZE(self._buf):
            # (a loop: an empty gzip member inside the block adds no bytes)
            if not self._c_fill(min(max(size, HEAD_CHUNK), BODY_CHUNK)):
                (<object>self)._truncated(record)
                return b""
        avail = PyBytes_GET_SIZE(self._buf) - self._pos
        take = size
        if left < take:
            take = <Py_ssize_t>left
        if avail < take:
            take = avail
        pos = self._pos
        self._pos = pos + take
        self._cur_block_left = left - take
        if pos == 0 and take == PyBytes_GET_SIZE(self._buf):
            return self._buf
        return _slice(self._buf, pos, pos + take)

    def _take_whole_block(self, record):
        """See the pure twin."""
        ref = self._current_ref
        cdef long long left = self._cur_block_left
        cdef Py_ssize_t pos = self._pos
        if ref is None or ref() is not record or left != <long long>record._content_length:
            return None
        if left > PyBytes_GET_SIZE(self._buf) - pos:
            return None
        self._pos = pos + <Py_ssize_t>left
        self._cur_block_left = 0
        return _slice(self._buf, pos, pos + <Py_ssize_t>left)

    def _skip_block(self, record):
        self._c_skip_block(record)

    cdef int _c_skip_block(self, record) except -1:
        cdef long long left = self._cur_block_left, count
        cdef Py_ssize_t avail, take
        skip = self._dec_skip
        while left:
            avail = PyBytes_GET_SIZE(self._buf) - self._pos
            if avail == 0 and skip is not None and not self._eof:
                # Inflate and discard without materializing the bytes.
                try:
                    pycount, boundary = skip(left)
                except CompressionError as exc:
                    (<object>self)._dec_failed(exc)
                    raise
                count = pycount
                if count or boundary is not None:
                    self._base += self._pos + count
                    self._buf = b""
                    self._pos = 0
                    left -= count
                    if boundary is not None:
                        if <long long>self._bstream[len(self._bstream) - 1] == self._base:
                            self._bfile[len(self._bfile) - 1] = boundary
                        else:
                            self._bstream.append(self._base)
                            self._bfile.append(boundary)
                    continue
            if avail == 0:
                if not self._c_fill(BODY_CHUNK):
                    self._cur_block_left = left
                    (<object>self)._truncated(record)
                    return 0
                continue
            take = avail
            if left < take:
                take = <Py_ssize_t>left
            self._pos += take
            left -= take
        self._cur_block_left = 0
        return 0

    def _finish_current(self):
        self._c_finish_current()

    cdef int _c_finish_current(self) except -1:
        cdef long long left, end, stream_offset
        cdef Py_ssize_t i, n
        cdef const char* p
        cdef long long offset
        cdef bint aligned
        ref = self._current_ref
        if ref is None:
            return 0
        info = self._cur_info
        offset, stream_offset, aligned, fmt = info[0], info[1], info[2], info[3]
        record = ref()
        if record is None:
            record = _Ghost(*info)
        left = self._cur_block_left
        if left:
            if left <= PyBytes_GET_SIZE(self._buf) - self._pos:  # the rest of the block is buffered
                self._pos += <Py_ssize_t>left
                self._cur_block_left = 0
            else:
                self._c_skip_block(record)
        n = PyBytes_GET_SIZE(self._buf)
        p = PyBytes_AS_STRING(self._buf)
        if fmt == "arc":
            (<object>self)._consume_arc_trailer(record)
        elif (self._pos + 4 <= n and p[self._pos] == 13 and p[self._pos + 1] == 10
              and p[self._pos + 2] == 13 and p[self._pos + 3] == 10):
            self._pos += 4
        else:
            (<object>self)._consume_warc_trailer(record)
        end = self._base + self._pos
        record._stream_length = end - stream_offset
        if self.compression == "none":
            record._length = end - stream_offset
        else:
            if self._pos >= PyBytes_GET_SIZE(self._buf):
                self._c_fill()  # learn whether a member ends right here
            i = _bisect_left(self._bstream, end)
            aligned_end = i < len(self._bstream) and <long long>self._bstream[i] == end
            if aligned and aligned_end:
                record._length = self._bfile[i] - offset
            else:
                record.member_aligned = False
        self._gen += 1
        self._current_ref = None
        return 0

    # -- record heads -----------------------------------------------------------------

    def _next_record(self):
        return self._c_next_record()

    cdef object _c_next_record(self):
        cdef long long cl
        while True:
            if self._broken:
                # A decoder error was raised: go on at the next member that starts a record.
                if not (<object>self)._resume():
                    self._done = True
            if self._current_ref is not None:
                self._c_finish_current()
            if self._done:
                return None
            if self.format == "warc":  # (the common case of _read_head, inlined)
                if self._pos >= PyBytes_GET_SIZE(self._buf) and not self._c_ensure(1):
                    record = None
                else:
                    record = self._c_read_warc_head()
            else:
                record = (<object>self)._read_head()
            if record is None:
                if (<object>self)._resume():
                    continue  # lenient: the decoder stopped at damage; resynced past it
                self._done = True
                (<object>self)._report_end()
                return None
            t = self._types
            if t is None and self._min is None and self._max is None:
                return record
            cl = record._content_length
            if (
                (t is not None and record.type not in t)
                or (self._min is not None and cl < self._min)
                or (self._max is not None and cl > self._max)
            ):
                continue  # _finish_current skips the block without parsing it
            return record

    def _read_warc_head(self):
        return self._c_read_warc_head()

    cdef object _c_read_warc_head(self):
        if PyBytes_GET_SIZE(self._buf) - self._pos < 5:
            self._c_ensure(5)  # the version line may straddle two decoder pieces
        cdef bytes buf = self._buf
        cdef Py_ssize_t pos = self._pos, search, end, head_end, k, n, m_end
        cdef long long start, offset, cl
        cdef bint aligned, lenient = self.lenient
        cdef const char* p = PyBytes_AS_STRING(buf)
        n = PyBytes_GET_SIZE(buf)
        if not (pos + 5 <= n and p[pos] == 87 and p[pos + 1] == 65 and p[pos + 2] == 82
                and p[pos + 3] == 67 and p[pos + 4] == 47) and buf[pos : pos + 5].upper() != b"WARC/":
            where = self._base + pos
            if buf[pos : pos + 1] in (b"\r", b"\n", b"\x00", b" ") and (<object>self)._only_space_left():
                return None
            if not lenient:
                raise RecordParseError(
                    "expected a WARC record (WARC/ version line)",
                    offset=(<object>self)._file_offset(where),
                    source=self.name,
                    snippet=buf[pos : pos + 16],
                )
            skipped = (<object>self)._resync(b"WARC/")
            (<object>self)._warn("skipped-garbage", f"skipped {skipped} bytes before the next record", where)
            if (<object>self)._at_eof():
                return None
            buf, pos = self._buf, self._pos
        # (_record_position, inlined: this runs once per record)
        start = self._base + pos
        if self.compression == "none":
            offset, aligned = start, True
        else:
            if len(self._bstream) >= 32:
                self._c_prune_bounds(start)
            k = _bisect_right(self._bstream, start) - 1
            offset = self._bfile[k]
            aligned = <long long>self._bstream[k] == start
        # Find the end of the head.
        search = pos
        while True:
            p = PyBytes_AS_STRING(buf)
            n = PyBytes_GET_SIZE(buf)
            end = _find_head_end(p, search, n)
            if lenient:
                # Bare LF and CR CR LF line ends (pywb's missing-status-text.warc).
                m_end = _find_lenient_end(p, search, n)
                if m_end >= 0 and (end < 0 or m_end < end + 4):
                    end = m_end - 4  # so that end + 4 is just past the empty line
            if end >= 0:
                head_end = end + 4
                break
            if n - pos > self._max_head:
                raise HeaderParseError(
                    f"record head is larger than {self._max_head} bytes",
                    offset=offset if self.compression != "none" else start,
                    source=self.name,
                )
            search = max(pos, n - 3)
            if not self._c_fill():
                if lenient:
                    (<object>self)._warn("truncated-head", "file ends inside a record head", offset)
                    self._pos = PyBytes_GET_SIZE(self._buf)
                    return None
                raise RecordParseError(
                    "file ends inside a record head", offset=offset, source=self.name
                )
            search -= pos  # (relative to the head: _fill may have rebased the buffer)
            buf, pos = self._buf, self._pos
            search += pos
        if head_end - pos > self._max_head:
            raise HeaderParseError(
                f"record head is larger than {self._max_head} bytes", offset=offset, source=self.name
            )
        try:
            version, version_ok, fields_start, warnings, wtype, cl_text = _scan_head(
                buf, pos, head_end, lenient
            )
        except _HeadError as exc:
            raise HeaderParseError(
                str(exc),
                offset=offset if self.compression != "none" else exc.position - pos + start,
                source=self.name,
                snippet=buf[exc.position : exc.position + 40],
            ) from None
        version_msg = None
        if not version_ok:
            version_msg = f"bad WARC version line {buf[pos : pos + 40].splitlines()[0]!r}"
            if not lenient:
                raise RecordParseError(version_msg, offset=offset, source=self.name)
        p = PyBytes_AS_STRING(buf)
        raw_head = _slice(buf, pos, head_end)
        fields_end = head_end - 2 if p[head_end - 2] == 13 else head_end - 1
        headers = _headers(_slice(buf, fields_start, fields_end), lenient)
        self._pos = head_end
        types = self._record_types
        if wtype is None:
            cls = None
        elif type(types) is dict:
            cls = (<dict>types).get(wtype)
        else:
            cls = types.get(wtype)
        if cls is None:
            cls = self._record_class(wtype or "")
        cl_msg = None
        cl = _plain_number(cl_text)
        if cl < 0:
            if cl_text is not None and not cl_text.isdigit():
                cl_text = cl_text.strip(" \t")
            # Only ASCII digits are a number in WARC (str.isdigit() also takes "²", "١٢").
            if cl_text is None or not (cl_text.isdigit() and cl_text.isascii()):
                cl_msg = "Content-Length is missing" if cl_text is None else f"Content-Length {cl_text!r} is not a number"
                if not lenient:
                    raise RecordParseError(cl_msg, offset=offset, source=self.name)
                cl = 0
            else:
                pycl = int(cl_text) if len(cl_text.lstrip("0")) <= 19 else MAX_CONTENT_LENGTH + 1  # (int() takes ≤ 4300 digits)
                if pycl > MAX_CONTENT_LENGTH:
                    raise RecordParseError(f"Content-Length {cl_text!r} is too large", offset=offset, source=self.name)
                cl = pycl
        # (_set_current, inlined: the record is made current as it is made)
        cdef LengthedBody body = LengthedBody.__new__(LengthedBody)
        body._reader = self
        body._gen = self._gen
        fast = _made_here.get(cls)
        if fast is None:
            fast = _fast_class(cls)
        if fast:
            record = _record(cls, version, headers, raw_head, offset, start, self.name, lenient, aligned,
                             cl, body)
        else:
            record = cls._from_reader(
                version, headers, raw_head, offset, start, self.name, lenient, aligned, cl, body
            )
        if version_msg is not None:
            (<object>self)._warn("bad-version", version_msg, offset, record)
        if warnings:
            for code, where in warnings:
                (<object>self)._warn(code, f"record head: {code}", offset, record)
        if cl_msg is not None:
            (<object>self)._warn("bad-content-length", cl_msg + "; block taken as empty", offset, record)
        self._current_ref = _ref(record)
        self._cur_info = (offset, start, aligned, "warc", cl)
        self._cur_block_left = cl
        return record


cdef class LengthedBody:
    """See the pure twin: the current record's block, handed out once, in order."""

    cdef ReaderCore _reader
    cdef long long _gen

    #: The bytes go by once: a part not kept cannot be read again.
    rereadable = False

    def __init__(self, ReaderCore reader, long long gen):
        self._reader = reader
        self._gen = gen

    def live(self, record):
        """Whether the reader is still on *record* (its unread bytes can be pulled)."""
        cdef ReaderCore reader = self._reader
        ref = reader._current_ref
        return self._gen == reader._gen and ref is not None and ref() is record

    def read(self, record, pos, Py_ssize_t size):
        """The next at most *size* bytes of the block; ``None`` when the body is stale."""
        cdef ReaderCore reader = self._reader
        ref = reader._current_ref
        if self._gen != reader._gen or ref is None or ref() is not record:
            return None
        return reader._c_pull_block(record, size)

    def take_whole(self, record):
        """The whole block in one piece when none of it was read and it is all buffered."""
        if self._gen != self._reader._gen:
            return None
        return self._reader._take_whole_block(record)

    def finish(self, record):
        """Let the reader read past the block (the record learns its length and trailer)."""
        if self.live(record):
            self._reader._c_finish_current()

    def report(self, record, code, message):
        """Report a recovery on *record* through the reader."""
        (<object>self._reader)._warn(code, message, record.offset, record)

    def close(self):
        """Close the reader if it exists for this record alone (read_record_at)."""
        reader = <object>self._reader
        if getattr(reader, "_private", False):
            reader.close()

    @property
    def reader(self):
        """The reader the block streams from."""
        return self._reader
