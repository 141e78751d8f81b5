# cython: language_level=3
"""Compiled twin of warckit/_speedups/_headers_py.py: same names, results and exceptions."""

from libc.string cimport memchr

BARE_LF = "bare-lf"
NO_COLON = "no-colon"
BAD_NAME = "bad-field-name"


class HeadError(Exception):
    """Raised by the parser; the caller turns it into a located HeaderParseError."""

    def __init__(self, message, position):
        super().__init__(message)
        self.position = position


cdef bint _TOKEN[256]
cdef int _i
for _i in range(256):
    _TOKEN[_i] = 33 <= _i < 127 and chr(_i) not in '()<>@,;:\\"/[]?={} \t'


cdef inline bint _ws(unsigned char c):
    return c == 32 or c == 9 or c == 13


cdef inline bint _fold(unsigned char c):
    return c == 32 or c == 9


cdef inline bint _is_name(const unsigned char* p, Py_ssize_t a, Py_ssize_t b, const char* lower):
    """``p[a:b]`` equals the lowercase ASCII name *lower*, ignoring ASCII case."""
    cdef Py_ssize_t k
    cdef unsigned char c
    for k in range(b - a):
        c = p[a + k]
        if 65 <= c <= 90:
            c += 32
        if c != <unsigned char>lower[k]:
            return False
    return True


def join_folded(list pieces):
    """See warckit._speedups._headers_py.join_folded."""
    cdef Py_ssize_t i = 0
    while i < len(pieces) and not pieces[i]:
        i += 1
    return " ".join(pieces[i:])


cdef tuple _walk(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient, bint build):
    """The field lines of ``buf[start:end]``, as parse_fields reads them.

    Returns ``(fields, warnings, warc_type, content_length)``: *fields* only when
    *build* (else ``None``); the first WARC-Type and Content-Length values either way.
    """
    cdef const unsigned char* p = buf
    cdef Py_ssize_t n = len(buf)
    cdef Py_ssize_t pos = start, nl, line_end, colon, a, b, vs, ve, k
    cdef const unsigned char* hit
    cdef bint ok, any_field = False
    cdef int last = 0  # 1: the field just taken is the first WARC-Type, 2: first Content-Length
    cdef list fields = [] if build else None
    cdef list warnings = []
    cdef list fold = None  # the last field's value and continuation lines so far
    wtype = None
    cl_text = None
    if end > n:
        end = n
    while pos < end:
        hit = <const unsigned char*>memchr(p + pos, 10, end - pos)
        if hit == NULL:
            nl = end
            line_end = end
        else:
            nl = hit - p
            if nl > pos and p[nl - 1] == 13:
                line_end = nl - 1
            else:
                if not lenient:
                    raise HeadError("header line does not end with CRLF", pos)
                warnings.append((BARE_LF, pos))
                line_end = nl
        if _fold(p[pos]):
            if not any_field:
                if not lenient:
                    raise HeadError("continuation line before any field", pos)
                warnings.append((NO_COLON, pos))
            elif build or last:
                vs = pos
                ve = line_end
                while vs < ve and _ws(p[vs]):
                    vs += 1
                while ve > vs and _ws(p[ve - 1]):
                    ve -= 1
                if fold is None:
                    fold = [fields[len(fields) - 1][1] if build else (wtype if last == 1 else cl_text)]
                fold.append(buf[vs:ve].decode("utf-8", "surrogateescape"))
            pos = nl + 1
            continue
        hit = <const unsigned char*>memchr(p + pos, 58, line_end - pos)
        if hit == NULL:
            if not lenient:
                raise HeadError("header line has no colon", pos)
            warnings.append((NO_COLON, pos))
            pos = nl + 1
            continue
        colon = hit - p
        a = pos
        b = colon
        ok = b > a
        for k in range(a, b):
            if not _TOKEN[p[k]]:
                ok = False
                break
        if not ok:
            if not lenient:
                raise HeadError("header field name is not a token", pos)
            warnings.append((BAD_NAME, pos))
            while a < b and _ws(p[a]):
                a += 1
            while b > a and _ws(p[b - 1]):
                b -= 1
            if a == b:
                pos = nl + 1
                continue
        if fold is not None:
            value = join_folded(fold)
            if build:
                fields[len(fields) - 1] = (fields[len(fields) - 1][0], value)
            if last == 1:
                wtype = value
            elif last == 2:
                cl_text = value
            fold = None
        any_field = True
        last = 0
        if (b - a == 9 and wtype is None and _is_name(p, a, b, "warc-type")) or (
            b - a == 14 and cl_text is None and _is_name(p, a, b, "content-length")
        ):
            last = 1 if b - a == 9 else 2
        if build or last:
            vs = colon + 1
            ve = line_end
            while vs < ve and _ws(p[vs]):
                vs += 1
            while ve > vs and _ws(p[ve - 1]):
                ve -= 1
            value = buf[vs:ve].decode("utf-8", "surrogateescape")
            if build:
                fields.append((buf[a:b].decode("ascii", "surrogateescape"), value))
            if last == 1:
                wtype = value
            elif last == 2:
                cl_text = value
        pos = nl + 1
    if fold is not None:
        value = join_folded(fold)
        if build:
            fields[len(fields) - 1] = (fields[len(fields) - 1][0], value)
        if last == 1:
            wtype = value
        elif last == 2:
            cl_text = value
    return fields, warnings, wtype, cl_text


def parse_fields(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient):
    """See warckit._speedups._headers_py.parse_fields."""
    fields, warnings, _wtype, _cl = _walk(buf, start, end, lenient, True)
    return fields, warnings


cdef bint _valid_version(str version):
    major, dot, minor = version.partition(".")
    return bool(dot) and major.isdigit() and minor.isdigit()


cdef tuple _head(bytes buf, Py_ssize_t pos, Py_ssize_t head_end, bint lenient, bint build):
    cdef Py_ssize_t line_end = buf.find(b"\n", pos, head_end)
    cdef Py_ssize_t fields_end
    version = buf[pos + 5 : line_end].rstrip(b"\r").decode("ascii", "replace").strip()
    if head_end >= 2 and buf[head_end - 2] == 13 and buf[head_end - 1] == 10:
        fields_end = head_end - 2
    else:
        fields_end = head_end - 1
    fields, warnings, wtype, cl_text = _walk(buf, line_end + 1, fields_end, lenient, build)
    return version, _valid_version(version), line_end + 1, fields, warnings, wtype, cl_text


def parse_head(bytes buf, Py_ssize_t pos, Py_ssize_t head_end, bint lenient):
    """See warckit._speedups._headers_py.parse_head."""
    return _head(buf, pos, head_end, lenient, True)


def scan_head(bytes buf, Py_ssize_t pos, Py_ssize_t head_end, bint lenient):
    """See warckit._speedups._headers_py.scan_head."""
    version, ok, fields_start, _fields, warnings, wtype, cl_text = _head(buf, pos, head_end, lenient, False)
    return version, ok, fields_start, warnings, wtype, cl_text


def field_map(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient):
    """See warckit._speedups._headers_py.field_map."""
    cdef dict fields = {}
    cdef list concurrent = []
    cdef str name, key
    parsed, _warnings = parse_fields(buf, start, end, lenient)
    for name, value in parsed:
        key = name.lower()
        if key not in fields:
            fields[key] = value
        if len(key) == 18 and key == "warc-concurrent-to":
            concurrent.append(value)
    return fields, concurrent


cdef inline bint _crlf(const unsigned char* p, Py_ssize_t i, Py_ssize_t end):
    return i + 1 < end and p[i] == 13 and p[i + 1] == 10


cdef Py_ssize_t _status_line(const unsigned char* p, Py_ssize_t end):
    """Index just past ``HTTP/x NNN [reason]\\r\\n``, or -1."""
    cdef Py_ssize_t i
    if end < 5 or p[0] != 72 or p[1] != 84 or p[2] != 84 or p[3] != 80 or p[4] != 47:
        return -1
    i = 5
    while i < end and p[i] != 32 and p[i] != 13 and p[i] != 10:
        i += 1
    if i + 4 > end or p[i] != 32:
        return -1
    if not (49 <= p[i + 1] <= 57 and 48 <= p[i + 2] <= 57 and 48 <= p[i + 3] <= 57):
        return -1
    i += 4
    if _crlf(p, i, end):
        return i + 2
    if i >= end or p[i] != 32:
        return -1
    i += 1
    while i < end and p[i] != 13 and p[i] != 10:
        i += 1
    return i + 2 if _crlf(p, i, end) else -1


cdef Py_ssize_t _request_line(const unsigned char* p, Py_ssize_t end, Py_ssize_t* method_end):
    """Index just past ``METHOD target HTTP/x\\r\\n``, or -1."""
    cdef Py_ssize_t i = 0, j
    while i < end and p[i] != 32 and p[i] != 13 and p[i] != 10:
        i += 1
    if i == 0 or i >= end or p[i] != 32:
        return -1
    method_end[0] = i
    i += 1
    j = i
    while i < end and p[i] != 32 and p[i] != 13 and p[i] != 10:
        i += 1
    if i == j or i + 6 > end or p[i] != 32:
        return -1
    i += 1
    if p[i] != 72 or p[i + 1] != 84 or p[i + 2] != 84 or p[i + 3] != 80 or p[i + 4] != 47:
        return -1
    i += 5
    while i < end and p[i] != 32 and p[i] != 13 and p[i] != 10:
        i += 1
    return i + 2 if _crlf(p, i, end) else -1


cdef bint _TCHAR[256]
for _i in range(256):
    _TCHAR[_i] = chr(_i) in "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def clean_http_head(bytes buf, Py_ssize_t end):
    """See warckit._speedups._headers_py.clean_http_head."""
    cdef const unsigned char* p = buf
    cdef Py_ssize_t i, j, k, method_end = 0, vs, ve, ct_s = -1, ct_e = -1
    cdef bint is_status = True
    if end > len(buf):
        end = len(buf)
    i = _status_line(p, end)
    if i < 0:
        is_status = False
        i = _request_line(p, end, &method_end)
        if i < 0:
            return None
    # Field lines: 1*tchar ":" *(not CR/LF) CRLF; then the empty line, ending at *end*.
    while True:
        if _crlf(p, i, end):
            if i + 2 != end:
                return None
            break
        j = i
        while j < end and _TCHAR[p[j]]:
            j += 1
        if j == i or j >= end or p[j] != 58:
            return None
        k = j + 1
        while k < end and p[k] != 13 and p[k] != 10:
            k += 1
        if not _crlf(p, k, end):
            return None
        if ct_s < 0 and j - i == 12 and _is_name(p, i, j, "content-type"):
            ct_s = j + 1
            ct_e = k
        i = k + 2
    ctype = None
    if ct_s >= 0:
        vs = ct_s
        ve = ct_e
        while vs < ve and (p[vs] == 32 or p[vs] == 9):
            vs += 1
        while ve > vs and (p[ve - 1] == 32 or p[ve - 1] == 9):
            ve -= 1
        ctype = buf[vs:ve].decode("utf-8", "surrogateescape")
    if is_status:
        k = 5
        while p[k] != 32:  # the space before the status code
            k += 1
        return buf[k + 1 : k + 4].decode("ascii"), None, ctype
    return None, buf[:method_end].decode("latin-1"), ctype
