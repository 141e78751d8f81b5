# cython: language_level=3
"""Compiled digest check of a buffered record (twin of ``warckit/_speedups/_verifyfast_py.py``).

Same signature, results and fallbacks (``None``) as the pure twin; see its docstring
for the rules.
"""


from libc.string cimport memchr, memcmp, memcpy


cdef extern from "wk_dl.h":
    int wk_dl_bind(const char* path, const char* const* names, void** fns, int count, char* err,
                   size_t errlen)


# SHA-1 straight from the libcrypto hashlib uses, bound with dlsym as gzipmember binds
# ISA-L, but on first use (sha1_library): a hashlib.sha1() object costs ~0.3 us to make
# and free (its EVP context), a tenth of a small record's digest check. Without those
# symbols, hashlib is called.
ctypedef int (*sha1_init_t)(void* ctx) noexcept nogil
ctypedef int (*sha1_update_t)(void* ctx, const void* data, size_t n) noexcept nogil
ctypedef int (*sha1_final_t)(unsigned char* md, void* ctx) noexcept nogil

cdef struct sha1_ctx:
    unsigned long long room[32]  # (OpenSSL's SHA_CTX is 96 bytes)

cdef sha1_init_t _SHA1_Init = NULL
cdef sha1_update_t _SHA1_Update = NULL
cdef sha1_final_t _SHA1_Final = NULL
#: Data this large is hashed with the GIL released (hashlib releases it past 2 KiB).
cdef Py_ssize_t _NOGIL_HASH = 1 << 16


cdef object _sha1_source = None  # what sha1_library() says, once bound


def sha1_library():
    """Which SHA-1 :func:`scan_record` calls: OpenSSL's, bound on first use in the
    libcrypto that ``_hashlib`` is linked to (importing it costs ~3 ms, so not at
    import), or hashlib's, and why."""
    global _sha1_source
    if _sha1_source is None:
        _sha1_source = _bind_sha1()
    return _sha1_source


def _sha1_from_openssl(bint on):
    """Tests: hash with OpenSSL's SHA1 (bound again) or, *on* false, with hashlib; returns
    :func:`sha1_library`."""
    global _SHA1_Init, _sha1_source
    if on:
        _sha1_source = None
        return sha1_library()
    _SHA1_Init = NULL
    _sha1_source = "SHA-1 from hashlib (switched off)"
    return _sha1_source


cdef str _bind_sha1():
    global _SHA1_Init, _SHA1_Update, _SHA1_Final
    cdef char err[512]
    cdef const char* names[3]
    cdef void* fns[3]
    cdef unsigned char md[20]
    try:
        import _hashlib
        import os

        path = os.fsencode(_hashlib.__file__)
    except (ImportError, AttributeError):
        return "SHA-1 from hashlib (no _hashlib extension to bind)"
    names[0] = b"SHA1_Init"
    names[1] = b"SHA1_Update"
    names[2] = b"SHA1_Final"
    if wk_dl_bind(path, names, fns, 3, err, sizeof(err)) != 0:
        return f"SHA-1 from hashlib ({err.decode(errors='replace')})"
    _SHA1_Init = <sha1_init_t>fns[0]
    _SHA1_Update = <sha1_update_t>fns[1]
    _SHA1_Final = <sha1_final_t>fns[2]
    _sha1_into(b"abc", 3, None, md)
    if md[:20] != bytes.fromhex("a9993e364706816aba3e25717850c26c9cd0d89d"):
        _SHA1_Init = NULL
        return "SHA-1 from hashlib (OpenSSL's SHA1 gave a wrong digest)"
    return "SHA-1 from OpenSSL (hashlib's libcrypto)"


cdef int _sha1_into(const unsigned char* p, Py_ssize_t n, object view, unsigned char* md) except -1:
    """Put the SHA-1 of ``p[:n]`` in *md* (*view*: the same bytes, for hashlib when
    OpenSSL is not bound)."""
    cdef sha1_ctx ctx
    cdef bytes digest
    if _SHA1_Init == NULL:
        digest = _hashlib_sha1()(view).digest()
        memcpy(md, <const char*>digest, 20)
        return 0
    _SHA1_Init(&ctx)
    if n >= _NOGIL_HASH:
        with nogil:
            _SHA1_Update(&ctx, p, <size_t>n)
    else:
        _SHA1_Update(&ctx, p, <size_t>n)
    _SHA1_Final(md, &ctx)
    return 0


cdef int _stored_into(const unsigned char* b, Py_ssize_t head_len, Py_ssize_t bn, object view,
                      unsigned char* md) except -1:
    """Put the SHA-1 of the payload as stored (``b[head_len:bn]``) in *md*."""
    return _sha1_into(b + head_len, bn - head_len, view[head_len:] if view is not None else None, md)


cdef object _sha1 = None  # hashlib.sha1, on first use (`warckit --version` loads this module)


cdef object _hashlib_sha1():
    global _sha1
    if _sha1 is None:
        import hashlib

        _sha1 = hashlib.sha1
    return _sha1

MISMATCH = 0
BOTH = 1
WARC11_OK = 2
LEGACY_OK = 3
REVISIT = 4
MISMATCH_CHUNKS = 5

cdef Py_ssize_t _MAX_HTTP_HEAD = 1 << 20

# token characters (RFC 2616 §2.2): 33..126 except separators
cdef unsigned char _TOKEN[256]
cdef signed char _B32V[256]
cdef signed char _HEXV[256]


cdef void _init_tables():
    cdef int c
    cdef bytes seps = b'()<>@,;:\\"/[]?={} \t'
    for c in range(256):
        _TOKEN[c] = 1 if 33 <= c <= 126 and bytes([c]) not in seps else 0
        _B32V[c] = -1
        _HEXV[c] = -1
    for c in range(26):
        _B32V[65 + c] = c
        _B32V[97 + c] = c
    for c in range(6):
        _B32V[50 + c] = 26 + c
    for c in range(10):
        _HEXV[48 + c] = c
    for c in range(6):
        _HEXV[65 + c] = 10 + c
        _HEXV[97 + c] = 10 + c


_init_tables()


cdef inline unsigned char _lower(unsigned char c) noexcept nogil:
    if 65 <= c <= 90:
        return c + 32
    return c


cdef bint _ieq(const unsigned char* p, Py_ssize_t n, const char* lit, Py_ssize_t m) noexcept nogil:
    """ASCII case-insensitive ``p[:n] == lit`` (lit is lowercase)."""
    cdef Py_ssize_t i
    if n != m:
        return False
    for i in range(n):
        if _lower(p[i]) != <unsigned char>lit[i]:
            return False
    return True


cdef Py_ssize_t _find_lf(const unsigned char* p, Py_ssize_t pos, Py_ssize_t end) noexcept nogil:
    cdef const unsigned char* hit
    if pos >= end:
        return -1
    hit = <const unsigned char*>memchr(p + pos, 10, <size_t>(end - pos))
    if hit == NULL:
        return -1
    return hit - p


cdef bint _is_ws(unsigned char c) noexcept nogil:
    return c == 32 or c == 9 or c == 13


cdef bint _sha1_raw(const unsigned char* p, Py_ssize_t n, unsigned char* out) noexcept nogil:
    """Decode a plain ``sha1:BASE32`` value into 20 bytes; False if it is not one."""
    cdef Py_ssize_t colon = -1, i
    cdef int v, bits = 0, k = 0
    cdef unsigned int acc = 0
    for i in range(n):
        if p[i] == 58:
            colon = i
            break
    if colon < 0 or n - colon - 1 != 32:
        return False
    if not (_ieq(p, colon, b"sha1", 4) or _ieq(p, colon, b"sha-1", 5) or _ieq(p, colon, b"sha_1", 5)):
        return False
    for i in range(colon + 1, n):
        v = _B32V[p[i]]
        if v < 0:
            return False
        acc = ((acc << 5) | <unsigned int>v) & 0xFFFF
        bits += 5
        if bits >= 8:
            bits -= 8
            out[k] = <unsigned char>((acc >> bits) & 0xFF)
            k += 1
    return True


cdef int _http_head(const unsigned char* p, Py_ssize_t end) noexcept nogil:
    """1 if the head ``p[:end]`` declares chunked coding, 0 if not, -1 if it is not plain."""
    cdef Py_ssize_t nl, i, sp1, sp2, nsp, pos, lf, colon, fields_end, s, e, s2, last_s = 0, last_e = 0
    cdef bint have_last = False
    nl = _find_lf(p, 0, end)
    if nl <= 0 or p[nl - 1] != 13:
        return -1
    # status line or request line: p[:nl-1]
    if nl - 1 >= 5 and memcmp(p, b"HTTP/", 5) == 0:
        sp1 = -1
        for i in range(nl - 1):
            if p[i] == 32:
                sp1 = i
                break
        if sp1 < 0:
            return -1
        # code = text between the first and the second space (or the line end)
        sp2 = nl - 1
        for i in range(sp1 + 1, nl - 1):
            if p[i] == 32:
                sp2 = i
                break
        if sp2 - sp1 - 1 != 3:
            return -1
        for i in range(sp1 + 1, sp2):
            if not 48 <= p[i] <= 57:
                return -1
    else:
        nsp = 0
        sp2 = -1
        for i in range(nl - 1):
            if p[i] == 32:
                nsp += 1
                sp2 = i
        if nsp != 2 or nl - 1 - (sp2 + 1) < 5:
            return -1
        if not (_lower(p[sp2 + 1]) == 104 and _lower(p[sp2 + 2]) == 116 and _lower(p[sp2 + 3]) == 116
                and _lower(p[sp2 + 4]) == 112 and p[sp2 + 5] == 47):
            return -1
    pos = nl + 1
    fields_end = end - 2
    while pos < fields_end:
        lf = _find_lf(p, pos, fields_end)
        if lf < 0 or lf == pos or p[lf - 1] != 13:
            return -1
        if p[pos] == 32 or p[pos] == 9:
            return -1
        colon = -1
        for i in range(pos, lf):
            if p[i] == 58:
                colon = i
                break
        if colon <= pos:
            return -1
        for i in range(pos, colon):
            if not _TOKEN[p[i]]:
                return -1
        if colon - pos == 17 and _ieq(p + pos, 17, b"transfer-encoding", 17):
            for i in range(colon + 1, lf - 1):
                if (p[i] < 32 and p[i] != 9) or p[i] > 126:
                    return -1
            # codings separated by commas; remember the last non-empty one
            s = colon + 1
            while s <= lf - 1:
                e = s
                while e < lf - 1 and p[e] != 44:
                    e += 1
                i = s
                while i < e and (p[i] == 32 or p[i] == 9):
                    i += 1
                s2 = e
                while s2 > i and (p[s2 - 1] == 32 or p[s2 - 1] == 9):
                    s2 -= 1
                if s2 > i:
                    last_s = i
                    last_e = s2
                    have_last = True
                s = e + 1
        pos = lf + 1
    if have_last and _ieq(p + last_s, last_e - last_s, b"chunked", 7):
        return 1
    return 0


cdef int _dechunk(const unsigned char* p, Py_ssize_t start, Py_ssize_t n, object block_view, object h,
                  sha1_ctx* ctx) except -2:
    """Feed the de-chunked ``p[start:n]`` to *ctx* (OpenSSL's SHA-1), or to *h* (a hashlib
    object, *ctx* NULL; neither: only parse): 1 chunks well formed, 0 malformed or
    truncated, -1 a line is not plain (fall back)."""
    cdef Py_ssize_t i = start, j, te, s, e, k
    cdef int state = 0
    cdef unsigned long long size
    while i < n:
        j = _find_lf(p, i, n)
        if j < 0:
            return 0
        if j - i > 4096:
            return -1
        te = j
        while te > i and p[te - 1] == 13:
            te -= 1
        if state == 2:
            if te > i:
                return 0
            state = 0
            i = j + 1
        elif state == 0:
            e = te
            for k in range(i, te):
                if p[k] == 59:
                    e = k
                    break
            s = i
            # bytes.strip(): ASCII whitespace
            while s < e and (p[s] == 32 or 9 <= p[s] <= 13):
                s += 1
            while e > s and (p[e - 1] == 32 or 9 <= p[e - 1] <= 13):
                e -= 1
            if e - s < 1 or e - s > 16:
                return -1
            size = 0
            for k in range(s, e):
                if _HEXV[p[k]] < 0:
                    return -1
                size = (size << 4) | <unsigned long long>_HEXV[p[k]]
            i = j + 1
            if size == 0:
                state = 3
            elif size > <unsigned long long>(n - i):
                if ctx != NULL:
                    _SHA1_Update(ctx, p + i, <size_t>(n - i))
                elif h is not None:
                    h.update(block_view[i:n])
                return 0
            else:
                if ctx != NULL:
                    _SHA1_Update(ctx, p + i, <size_t>size)
                elif h is not None:
                    h.update(block_view[i:i + <Py_ssize_t>size])
                i += <Py_ssize_t>size
                state = 2
        else:
            if te == i:
                return 1
            i = j + 1
    return 0


def scan_record(bytes fields, str type_name, bytes block):
    """See ``warckit/_speedups/_verifyfast_py.py``."""
    cdef const unsigned char* f = fields
    cdef Py_ssize_t fn = len(fields), pos = 0, nl, colon, i, vs, ve, name_len
    cdef Py_ssize_t bv_s = -1, bv_e = -1, pv_s = -1, pv_e = -1, ct_s = -1, ct_e = -1, tu_s = -1, tu_e = -1
    cdef unsigned char block_raw[20]
    cdef unsigned char payload_raw[20]
    cdef bint have_block = False, have_payload = False, is_http = False, chunked = False, block_ok = False
    cdef const unsigned char* b = block
    cdef Py_ssize_t bn = len(block), limit, hi, end = 0, head_len = 0
    cdef int te, verdict = -1
    cdef object block_value = None, payload_value = None
    while pos < fn:
        nl = _find_lf(f, pos, fn)
        if nl < 0 or nl == pos or f[nl - 1] != 13:
            return None
        if f[pos] == 32 or f[pos] == 9:
            return None
        colon = -1
        for i in range(pos, nl):
            if f[i] == 58:
                colon = i
                break
        if colon <= pos:
            return None
        for i in range(pos, colon):
            if not _TOKEN[f[i]]:
                return None
        name_len = colon - pos
        vs = colon + 1
        ve = nl - 1
        while vs < ve and _is_ws(f[vs]):
            vs += 1
        while ve > vs and _is_ws(f[ve - 1]):
            ve -= 1
        if name_len == 17 and bv_s < 0 and _ieq(f + pos, 17, b"warc-block-digest", 17):
            bv_s, bv_e = vs, ve
        elif name_len == 19 and pv_s < 0 and _ieq(f + pos, 19, b"warc-payload-digest", 19):
            pv_s, pv_e = vs, ve
        elif name_len == 12 and ct_s < 0 and _ieq(f + pos, 12, b"content-type", 12):
            ct_s, ct_e = vs, ve
        elif name_len == 15 and tu_s < 0 and _ieq(f + pos, 15, b"warc-target-uri", 15):
            tu_s, tu_e = vs, ve
        elif name_len == 19 and _ieq(f + pos, 19, b"warc-segment-number", 19):
            return None  # a segment: the streaming path
        pos = nl + 1
    if bv_s >= 0 and bv_e > bv_s:
        if not _sha1_raw(f + bv_s, bv_e - bv_s, block_raw):
            return None
        have_block = True
        block_value = fields[bv_s:bv_e]
    if pv_s >= 0 and pv_e > pv_s:
        if not _sha1_raw(f + pv_s, pv_e - pv_s, payload_raw):
            return None
        have_payload = True
        payload_value = fields[pv_s:pv_e]
    # Is the block an HTTP message?
    if ct_s >= 0 and ct_e - ct_s >= 16 and _ieq(f + ct_s, 16, b"application/http", 16):
        is_http = True
    elif tu_s >= 0 and tu_e > tu_s and bn > 0 and type_name in ("response", "request", "revisit"):
        if f[tu_s] == 60:
            if f[tu_e - 1] != 62:
                return None
            if tu_e - tu_s >= 2:
                tu_s += 1
                tu_e -= 1
            else:
                return None  # "<": the pure twin falls back the same way
        elif f[tu_s] < 33 or f[tu_s] > 126:
            return None
        is_http = (tu_e - tu_s >= 5 and _ieq(f + tu_s, 5, b"http:", 5)) or (
            tu_e - tu_s >= 6 and _ieq(f + tu_s, 6, b"https:", 6))
    if is_http:
        limit = bn if bn < _MAX_HTTP_HEAD else _MAX_HTTP_HEAD
        # The first CRLF CRLF, unless a bare LF LF comes before it (find_head_end).
        hi = -1
        i = _find_lf(b, 0, limit - 1)
        while i >= 0:
            if b[i + 1] == 10:
                break  # LF LF first: fall back
            if i >= 1 and b[i - 1] == 13 and i + 2 < limit and b[i + 1] == 13 and b[i + 2] == 10:
                hi = i - 1
                break
            i = _find_lf(b, i + 1, limit - 1)
        if hi < 0:
            return None
        end = hi + 4
        te = _http_head(b, end)
        if te < 0:
            return None
        chunked = te == 1
        head_len = end
    cdef unsigned char md[20]
    if _sha1_source is None:
        sha1_library()
    view = memoryview(block) if _SHA1_Init == NULL else None
    if have_block:
        _sha1_into(b, bn, view, md)
        block_ok = memcmp(md, block_raw, 20) == 0
    if have_payload:
        if type_name == "revisit":
            verdict = REVISIT
        else:
            if not chunked:
                _stored_into(b, head_len, bn, view, md)
                verdict = BOTH if memcmp(md, payload_raw, 20) == 0 else MISMATCH
            else:
                verdict = _chunked_verdict(b, head_len, bn, view, payload_raw)
                if verdict < 0:
                    return None
    return (block_value, block_ok, payload_value, verdict)


cdef bint _legacy_first = False  # the last chunked payload matched as stored


def _chunked_order(bint legacy_first):
    """Tests: which convention the next chunked payload is tried with first."""
    global _legacy_first
    _legacy_first = legacy_first


cdef int _chunked_verdict(const unsigned char* b, Py_ssize_t head_len, Py_ssize_t bn, object view,
                          const unsigned char* payload_raw) except -2:
    """The verdict on a chunked payload's digest (-1: fall back to streaming).

    Each convention's digest is computed only when the verdict needs it, the one the last
    chunked payload matched first: a file keeps to one convention, so that is one SHA-1
    of the payload, not two. The verdict is the same in either order (the pure twin
    computes both), unless the chunked and the de-chunked bytes had the same SHA-1.
    """
    global _legacy_first
    cdef unsigned char md[20]
    cdef int chunks
    cdef bint legacy_ok = False
    if _legacy_first:
        _stored_into(b, head_len, bn, view, md)
        if memcmp(md, payload_raw, 20) == 0:
            # (the chunks are still parsed: one that is not plain falls back, as in the twin)
            return -1 if _dechunk(b, head_len, bn, None, None, NULL) < 0 else LEGACY_OK
    chunks = _entity_into(b, head_len, bn, view, md)
    if chunks < 0:
        return -1
    if chunks == 1 and memcmp(md, payload_raw, 20) == 0:
        _legacy_first = False
        return WARC11_OK
    if not _legacy_first:
        _stored_into(b, head_len, bn, view, md)
        if memcmp(md, payload_raw, 20) == 0:
            _legacy_first = True
            return LEGACY_OK
    return MISMATCH if chunks == 1 else MISMATCH_CHUNKS


cdef int _entity_into(const unsigned char* b, Py_ssize_t head_len, Py_ssize_t bn, object view,
                      unsigned char* md) except -2:
    """Put the SHA-1 of the de-chunked payload in *md*; what :func:`_dechunk` returns."""
    cdef sha1_ctx ctx
    cdef int chunks
    cdef bytes digest
    if _SHA1_Init != NULL:
        _SHA1_Init(&ctx)
        chunks = _dechunk(b, head_len, bn, None, None, &ctx)
        _SHA1_Final(md, &ctx)
        return chunks
    entity = _hashlib_sha1()()
    chunks = _dechunk(b, head_len, bn, view, entity, NULL)
    digest = entity.digest()
    memcpy(md, <const char*>digest, 20)
    return chunks

