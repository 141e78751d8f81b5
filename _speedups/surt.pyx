# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twin of ``warckit._speedups._surt_py``'s ``surt_key``: same signature, results, errors.

Only ``surt_key`` is compiled (with the ``MAX_URL_LENGTH`` it enforces): that is all
``warckit.url`` and ``warckit.cdx`` take from the selected twin; the canonicalization
helpers (``attempt_ip``, ``sort_query``, ``strip_www_label``, ...) exist once, in the
pure twin, because they run once per distinct host or only from ``canonicalize``.

The common path (parse, path and query percent-normalization, dot segments, lower
case, query sorting, assembly) runs over C buffers; the rare paths (IDN hosts,
numeric IPv4 forms, session ids, very long queries) call the pure twin's helpers, so
both twins share one definition of those rules. Hosts are canonicalized once and
cached.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport PyUnicode_DecodeASCII
from libc.string cimport memchr, memcmp, memcpy

from warckit.errors import UrlError
#: Longest URL accepted, as the pure twin's (tests/url/test_url_parity.py compares them).
MAX_URL_LENGTH = 65536

#: The pure twin, for the rare paths compiled code hands over (imported on first use:
#: it brings re and idna's machinery, which `warckit --version` loading this module and
#: most keys never need).
cdef object _py = None


cdef object _pure():
    global _py
    if _py is None:
        from warckit._speedups import _surt_py

        _py = _surt_py
    return _py

#: Exactly what this module compiles (the names it shares with the pure twin).
__all__ = ["MAX_URL_LENGTH", "surt_key"]

# one dict per flag combination: raw host -> reversed canonical host | UrlError
cdef list _REVERSED = [{} for _ in range(16)]
cdef Py_ssize_t _REVERSED_MAX = 8192
cdef const char* _HEXDIGITS = b"0123456789abcdef"
cdef bint _SAFE[256]
cdef signed char _HEXVAL[256]


cdef void _init_tables():
    cdef int c
    cdef bytes safe = (
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
        b"!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
    )
    for c in range(256):
        _SAFE[c] = False
        _HEXVAL[c] = -1
    for c in safe:
        _SAFE[c] = True
    for c in range(10):
        _HEXVAL[48 + c] = c
    for c in range(6):
        _HEXVAL[65 + c] = 10 + c
        _HEXVAL[97 + c] = 10 + c


_init_tables()


cdef inline bint _is_space(unsigned char c) nogil:
    return c == 32 or c == 9 or c == 10 or c == 13 or c == 11 or c == 12


cdef inline unsigned char _lower(unsigned char c) nogil:
    if 65 <= c <= 90:
        return c + 32
    return c


cdef Py_ssize_t _unescape(const unsigned char* src, Py_ssize_t n, unsigned char* dst) nogil:
    """Stack reduction of %XX escapes to their fixpoint; returns the output length."""
    cdef Py_ssize_t i, k = 0
    cdef signed char hi, lo
    for i in range(n):
        dst[k] = src[i]
        k += 1
        while k >= 3 and dst[k - 3] == 37:
            hi = _HEXVAL[dst[k - 2]]
            lo = _HEXVAL[dst[k - 1]]
            if hi < 0 or lo < 0:
                break
            k -= 2
            dst[k - 1] = <unsigned char>(hi * 16 + lo)
    return k


cdef Py_ssize_t _escape_lower(const unsigned char* src, Py_ssize_t n, unsigned char* dst) nogil:
    """Escape bytes outside the safe set (%xx) and lower-case; returns the output length."""
    cdef Py_ssize_t i, k = 0
    cdef unsigned char c
    for i in range(n):
        c = src[i]
        if _SAFE[c]:
            dst[k] = _lower(c)
            k += 1
        else:
            dst[k] = 37
            dst[k + 1] = _HEXDIGITS[c >> 4]
            dst[k + 2] = _HEXDIGITS[c & 15]
            k += 3
    return k


cdef Py_ssize_t _normalize(const unsigned char* src, Py_ssize_t n, unsigned char* dst,
                           Py_ssize_t* seg) nogil:
    """surt's normalizePath into dst; seg is scratch for 2*(n+1) offsets; returns length."""
    cdef Py_ssize_t i, start, ln, nkept = 0, k
    if n == 0:
        dst[0] = 47
        return 1
    # skip whatever precedes the first '/'
    i = 0
    while i < n and src[i] != 47:
        i += 1
    while i < n:
        start = i + 1
        i = start
        while i < n and src[i] != 47:
            i += 1
        ln = i - start
        if ln == 1 and src[start] == 46:
            continue
        if ln == 2 and src[start] == 46 and src[start + 1] == 46:
            if nkept > 0:
                nkept -= 1
                continue
        seg[2 * nkept] = start
        seg[2 * nkept + 1] = ln
        nkept += 1
    dst[0] = 47
    k = 1
    if nkept == 0:
        return 1
    for i in range(nkept - 1):
        ln = seg[2 * i + 1]
        if ln > 0:
            memcpy(dst + k, src + seg[2 * i], ln)
            k += ln
            dst[k] = 47
            k += 1
    ln = seg[2 * (nkept - 1) + 1]
    memcpy(dst + k, src + seg[2 * (nkept - 1)], ln)
    return k + ln


cdef inline int _cmp_bytes(const unsigned char* a, Py_ssize_t la,
                           const unsigned char* b, Py_ssize_t lb) nogil:
    cdef Py_ssize_t m = la if la < lb else lb
    cdef int r = memcmp(a, b, m) if m > 0 else 0
    if r != 0:
        return r
    return (la > lb) - (la < lb)


cdef int _cmp_arg(const unsigned char* q, Py_ssize_t* a, Py_ssize_t* b) nogil:
    """Compare two query args as surt's (name,) / (name, value) tuples."""
    # a[0]=start a[1]=len a[2]=offset of '=' within arg or -1
    cdef Py_ssize_t ka = a[2] if a[2] >= 0 else a[1]
    cdef Py_ssize_t kb = b[2] if b[2] >= 0 else b[1]
    cdef int r = _cmp_bytes(q + a[0], ka, q + b[0], kb)
    if r != 0:
        return r
    if a[2] < 0 or b[2] < 0:
        return (a[2] >= 0) - (b[2] >= 0)
    return _cmp_bytes(q + a[0] + ka + 1, a[1] - ka - 1, q + b[0] + kb + 1, b[1] - kb - 1)


cdef enum:
    _MAX_SORT_ARGS = 32


cdef Py_ssize_t _sort_query(const unsigned char* q, Py_ssize_t n, unsigned char* dst) nogil:
    """Sort '&'-separated args into dst; returns length, or -1 if too many args."""
    cdef Py_ssize_t args[_MAX_SORT_ARGS * 3]
    cdef Py_ssize_t tmp[3]
    cdef Py_ssize_t count = 0, i, j, start = 0, k
    cdef const unsigned char* eq
    i = 0
    while True:
        if i == n or q[i] == 38:
            if count == _MAX_SORT_ARGS:
                return -1
            args[3 * count] = start
            args[3 * count + 1] = i - start
            eq = <const unsigned char*>memchr(q + start, 61, i - start)
            args[3 * count + 2] = (eq - (q + start)) if eq != NULL else -1
            count += 1
            start = i + 1
            if i == n:
                break
        i += 1
    # insertion sort (stable; equal keys are equal strings anyway)
    for i in range(1, count):
        tmp[0] = args[3 * i]
        tmp[1] = args[3 * i + 1]
        tmp[2] = args[3 * i + 2]
        j = i - 1
        while j >= 0 and _cmp_arg(q, &args[3 * j], tmp) > 0:
            args[3 * (j + 1)] = args[3 * j]
            args[3 * (j + 1) + 1] = args[3 * j + 1]
            args[3 * (j + 1) + 2] = args[3 * j + 2]
            j -= 1
        args[3 * (j + 1)] = tmp[0]
        args[3 * (j + 1) + 1] = tmp[1]
        args[3 * (j + 1) + 2] = tmp[2]
    k = 0
    for i in range(count):
        if i:
            dst[k] = 38
            k += 1
        memcpy(dst + k, q + args[3 * i], args[3 * i + 1])
        k += args[3 * i + 1]
    return k


cdef inline bint _contains(const unsigned char* s, Py_ssize_t n, const char* needle,
                           Py_ssize_t m) nogil:
    cdef Py_ssize_t i
    if m > n:
        return False
    for i in range(n - m + 1):
        if s[i] == <unsigned char>needle[0] and memcmp(s + i, needle, m) == 0:
            return True
    return False


cdef object _plain_host_surt(bytes host, bint strip_www):
    """The reversed canonical host of a plain DNS name, or None to take the full path.

    Plain: only ASCII letters, digits, ``-`` and inner single dots, and not all digits
    and dots (so no IPv4 form). For these the canonicalizers only lower-case the host
    and (``strip_www``) drop a ``www\\d*.`` label; ``reverse_ipaddr`` does not apply.
    """
    cdef const unsigned char* p = host
    cdef Py_ssize_t n = len(host), i, k
    cdef unsigned char c
    cdef bint named = False
    if n == 0 or p[0] == 46 or p[n - 1] == 46:
        return None
    for i in range(n):
        c = p[i]
        if c == 46:
            if p[i - 1] == 46:
                return None
        elif c == 45 or 65 <= c <= 90 or 97 <= c <= 122:
            named = True
        elif not 48 <= c <= 57:
            return None
    if not named:
        return None
    low = host.lower()
    if strip_www and n > 4 and (p[0] | 32) == 119 and (p[1] | 32) == 119 and (p[2] | 32) == 119:
        k = 3
        while k < n and 48 <= p[k] <= 57:
            k += 1
        if k < n and p[k] == 46:
            low = low[k + 1:]
    parts = low.split(b".")
    parts.reverse()
    return b",".join(parts)


cdef object _host_surt(bytes host, bint strip_www, bint reverse_ipaddr, bint idna2008,
                       bint strict):
    """Reversed canonical host (b'' when the canonical host is empty); cached."""
    cdef int flags = strip_www | (reverse_ipaddr << 1) | (idna2008 << 2) | (strict << 3)
    cdef dict cache = <dict>_REVERSED[flags]
    cached = cache.get(host)
    if cached is None:
        cached = _plain_host_surt(host, strip_www)
        if cached is None:
            try:
                canon = _pure().canonical_host(host, strip_www, idna2008, strict)
                cached = _pure().reverse_host(canon, reverse_ipaddr) if canon else b""
            except UrlError as exc:
                cached = exc
        if len(cache) >= _REVERSED_MAX:
            cache.clear()
        cache[host] = cached
    if type(cached) is not bytes:
        raise UrlError(*cached.args)
    return cached


cdef bint _scheme_is(const unsigned char* s, Py_ssize_t n, const char* name, Py_ssize_t m):
    cdef Py_ssize_t i
    if n != m:
        return False
    for i in range(n):
        if _lower(s[i]) != <unsigned char>name[i]:
            return False
    return True


def surt_key(url, trailing_comma=False, with_scheme=False, strip_www=True,
             reverse_ipaddr=True, idna2008=False, strict=False):
    """Return the IA-canonicalized SURT of *url*, as ``surt.surt(url, **options)`` does.

    See :func:`warckit._speedups._surt_py.surt_key`; same arguments, results, errors.
    """
    cdef bytes data, hostb, revhost, pathb, queryb
    cdef const unsigned char* p
    cdef const unsigned char* path
    cdef const unsigned char* query
    cdef const unsigned char* hs
    cdef Py_ssize_t n, start, end, i, colon, ns, ne, plen, qlen, hlen, pos, last
    cdef Py_ssize_t at, portstart, portend, cap, k, plen2
    cdef long port = 0
    cdef bint has_host, needs_copy
    cdef unsigned char* buf = NULL
    cdef unsigned char* tmp
    cdef unsigned char* out
    cdef Py_ssize_t* seg
    cdef bint tc = trailing_comma, ws = with_scheme, sw = strip_www
    cdef bint rip = reverse_ipaddr, i8 = idna2008, st = strict

    if url is None:
        return "-"
    if type(url) is not str:
        raise TypeError(f"url must be str, not {type(url).__name__}")
    if len(<str>url) == 0:
        return "-"
    if len(<str>url) > MAX_URL_LENGTH:
        raise UrlError(f"URL too long ({len(url)} characters, limit {MAX_URL_LENGTH})")
    try:
        data = (<str>url).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UrlError(f"URL is not valid Unicode: {exc}") from None
    n = PyBytes_GET_SIZE(data)
    if n > MAX_URL_LENGTH:
        raise UrlError(f"URL too long ({n} bytes, limit {MAX_URL_LENGTH})")
    p = <const unsigned char*>PyBytes_AS_STRING(data)
    if (<str>url).startswith("filedesc"):
        return url

    # strip ASCII whitespace, drop \t \n \r anywhere
    start = 0
    end = n
    while start < end and _is_space(p[start]):
        start += 1
    while end > start and _is_space(p[end - 1]):
        end -= 1
    needs_copy = start != 0 or end != n
    for i in range(start, end):
        if p[i] == 9 or p[i] == 10 or p[i] == 13:
            needs_copy = True
            break
    if needs_copy:
        data = data[start:end].translate(None, b"\t\n\r")
        n = PyBytes_GET_SIZE(data)
        p = <const unsigned char*>PyBytes_AS_STRING(data)
    if n == 0:
        raise UrlError("empty URL")

    # scheme: [a-zA-Z][a-zA-Z0-9+.-]*:
    colon = -1
    if 97 <= _lower(p[0]) <= 122:
        i = 1
        while i < n:
            if p[i] == 58:
                colon = i
                break
            if not ((48 <= p[i] <= 57) or (97 <= _lower(p[i]) <= 122)
                    or p[i] == 43 or p[i] == 45 or p[i] == 46):
                break
            i += 1
    if colon < 0:
        data = b"http://" + data
        n += 7
        p = <const unsigned char*>PyBytes_AS_STRING(data)
        colon = 4
    elif n > 11 and memcmp(p, b"http", 4) == 0:
        pos = 0
        last = 0
        while True:
            if pos + 7 <= n and memcmp(p + pos, b"http://", 7) == 0:
                last = pos
                pos += 7
            elif pos + 8 <= n and memcmp(p + pos, b"https://", 8) == 0:
                last = pos
                pos += 8
            else:
                break
        if last:
            data = data[last:]
            n = PyBytes_GET_SIZE(data)
            p = <const unsigned char*>PyBytes_AS_STRING(data)
            colon = 4 if p[4] == 58 else 5

    # split authority / path / query / fragment
    i = colon + 1
    ns = ne = i
    if i + 1 < n and p[i] == 47 and p[i + 1] == 47:
        ns = i + 2
        ne = ns
        while ne < n and p[ne] != 47 and p[ne] != 63 and p[ne] != 35:
            ne += 1
        i = ne
    path = p + i
    plen = 0
    while i + plen < n and p[i + plen] != 63 and p[i + plen] != 35:
        plen += 1
    i += plen
    query = p + i
    qlen = 0
    if i < n and p[i] == 63:
        query = p + i + 1
        while i + 1 + qlen < n and p[i + 1 + qlen] != 35:
            qlen += 1

    # host and port
    hs = p + ns
    hlen = 0
    if ne > ns:
        while ne > ns and p[ne - 1] == 58:
            ne -= 1
        at = ne
        while at > ns and p[at - 1] != 64:
            at -= 1
        portstart = portend = ne
        i = at
        while i < ne and p[i] != 91:
            i += 1
        if i < ne:
            hs = p + i + 1
            i += 1
            while i < ne and p[i] != 93:
                i += 1
            hlen = (p + i) - hs
            while i < ne and p[i] != 58:
                i += 1
            portstart = i + 1 if i < ne else ne
        else:
            hs = p + at
            i = at
            while i < ne and p[i] != 58:
                i += 1
            hlen = i - at
            portstart = i + 1 if i < ne else ne
        if portstart < portend:
            i = portstart
            while i < portend and p[i] == 48:
                i += 1
            if portend - i > 5:
                raise UrlError(f"bad port {data[portstart:portend].decode('latin-1')!r} in {url[:200]!r}")
            while i < portend:
                if not (48 <= p[i] <= 57):
                    raise UrlError(f"bad port {data[portstart:portend].decode('latin-1')!r} in {url[:200]!r}")
                port = port * 10 + (p[i] - 48)
                i += 1
            if port > 65535:
                raise UrlError(f"bad port {data[portstart:portend].decode('latin-1')!r} in {url[:200]!r}")
    if hlen == 0 and plen > 0 and colon >= 4 and memcmp(p, b"http", 4) == 0:
        # Quirk: http:////host/x and http:host/x recover the host from the path.
        i = 0
        while i < plen and path[i] == 47:
            i += 1
        hs = path + i
        while i < plen and path[i] != 47:
            i += 1
        hlen = (path + i) - hs
        if i < plen:
            path = path + i
            plen = plen - i
        else:
            path = <const unsigned char*>b"/"
            plen = 1

    has_host = False
    revhost = b""
    if hlen > 0:
        hostb = PyBytes_FromStringAndSize(<const char*>hs, hlen)
        revhost = _host_surt(hostb, sw and not (colon == 3 and memcmp(p, b"dns", 3) == 0),
                             rip, i8, st)
        has_host = PyBytes_GET_SIZE(revhost) > 0
    if not has_host and (_scheme_is(p, colon, "http", 4) or _scheme_is(p, colon, "https", 5)
                         or _scheme_is(p, colon, "ftp", 3) or _scheme_is(p, colon, "ws", 2)
                         or _scheme_is(p, colon, "wss", 3)):
        raise UrlError(f"no host in {url[:200]!r}")
    if port == 80 and _scheme_is(p, colon, "http", 4):
        port = 0
    elif port == 443 and _scheme_is(p, colon, "https", 5):
        port = 0

    cap = 3 * (plen + qlen) + 16
    cdef Py_ssize_t need = 3 * cap + PyBytes_GET_SIZE(revhost) + colon + 32
    cdef unsigned char stackbuf[6144]
    cdef Py_ssize_t stackseg[512]
    cdef bint heap = need > 6144 or plen + 2 > 256
    if heap:
        buf = <unsigned char*>PyMem_Malloc(need)
        seg = <Py_ssize_t*>PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (plen + 2))
        if buf == NULL or seg == NULL:
            PyMem_Free(buf)
            PyMem_Free(seg)
            raise MemoryError()
    else:
        buf = stackbuf
        seg = stackseg
    try:
        tmp = buf + cap
        out = buf + 2 * cap
        k = 0
        # output head
        if has_host:
            if ws:
                memcpy(out, p, colon)
                k = colon
                if colon == 3 and memcmp(p, b"dns", 3) == 0:
                    memcpy(out + k, b":(", 2)
                    k += 2
                else:
                    memcpy(out + k, b"://(", 4)
                    k += 4
            memcpy(out + k, PyBytes_AS_STRING(revhost), PyBytes_GET_SIZE(revhost))
            k += PyBytes_GET_SIZE(revhost)
            if port:
                out[k] = 58
                k += 1
                i = 10000
                while i > port and i > 1:
                    i //= 10
                while i >= 1:
                    out[k] = 48 + (port // i) % 10
                    k += 1
                    i //= 10
            if tc:
                out[k] = 44
                k += 1
            out[k] = 41
            k += 1
        else:
            memcpy(out, p, colon)
            out[colon] = 58
            k = colon + 1

        # path: unescape, normalize (with host), escape + lower
        if plen > 0 and memchr(path, 37, plen) != NULL:
            plen = _unescape(path, plen, buf)
            path = buf
        if has_host:
            plen = _normalize(path, plen, tmp, seg)
            path = tmp
        plen2 = _escape_lower(path, plen, out + k)
        if plen2 >= 5 and _contains(out + k, plen2, b".aspx", 5):
            pathb = _pure().strip_path_session_id(PyBytes_FromStringAndSize(<const char*>(out + k), plen2))
            plen2 = PyBytes_GET_SIZE(pathb)
            memcpy(out + k, PyBytes_AS_STRING(pathb), plen2)
        if plen2 > 1 and out[k + plen2 - 1] == 47:
            plen2 -= 1
        k += plen2

        # query: unescape, escape + lower, session ids, sort
        if qlen > 0:
            if memchr(query, 37, qlen) != NULL:
                qlen = _unescape(query, qlen, buf)
                query = buf
            qlen = _escape_lower(query, qlen, tmp)
            query = tmp
            if (_contains(tmp, qlen, b"ssi", 3) or _contains(tmp, qlen, b"sid=", 4)
                    or _contains(tmp, qlen, b"cfid=", 5)):
                queryb = _pure().strip_query_session_id(PyBytes_FromStringAndSize(<const char*>tmp, qlen))
                qlen = PyBytes_GET_SIZE(queryb)
                memcpy(tmp, PyBytes_AS_STRING(queryb), qlen)
            if qlen > 0:
                if plen2 == 0:
                    out[k] = 47
                    k += 1
                out[k] = 63
                k += 1
                if qlen > 1 and memchr(tmp, 38, qlen) != NULL:
                    i = _sort_query(tmp, qlen, out + k)
                    if i < 0:
                        queryb = _pure().sort_query(PyBytes_FromStringAndSize(<const char*>tmp, qlen))
                        memcpy(out + k, PyBytes_AS_STRING(queryb), qlen)
                    k += qlen
                else:
                    memcpy(out + k, tmp, qlen)
                    k += qlen
        return PyUnicode_DecodeASCII(<const char*>out, k, NULL)
    finally:
        if heap:
            PyMem_Free(buf)
            PyMem_Free(seg)
