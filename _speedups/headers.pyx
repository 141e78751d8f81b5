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


def parse_fields(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient):
    """See warckit._speedups._headers_py.parse_fields."""
    cdef const unsigned char* p = buf
    cdef Py_ssize_t n = len(buf)
    cdef Py_ssize_t pos = start, nl, line_end, colon, a, b, vs, ve, k
    cdef const unsigned char* hit
    cdef bint ok
    cdef list fields = []
    cdef list warnings = []
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
            if not fields:
                if not lenient:
                    raise HeadError("continuation line before any field", pos)
                warnings.append((NO_COLON, pos))
            else:
                vs = pos
                ve = line_end
                while vs < ve and _ws(p[vs]):
                    vs += 1
                while ve > vs and _ws(p[ve - 1]):
                    ve -= 1
                last = len(fields) - 1
                name, value = fields[last]
                extra = buf[vs:ve].decode("utf-8", "surrogateescape")
                fields[last] = (name, (value + " " + extra) if value else extra)
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
        vs = colon + 1
        ve = line_end
        while vs < ve and _ws(p[vs]):
            vs += 1
        while ve > vs and _ws(p[ve - 1]):
            ve -= 1
        fields.append(
            (buf[a:b].decode("ascii", "surrogateescape"),
             buf[vs:ve].decode("utf-8", "surrogateescape"))
        )
        pos = nl + 1
    return fields, warnings


cdef bint _valid_version(str version):
    major, dot, minor = version.partition(".")
    return bool(dot) and major.isdigit() and minor.isdigit()


def parse_head(bytes buf, Py_ssize_t pos, Py_ssize_t head_end, bint lenient):
    """See warckit._speedups._headers_py.parse_head."""
    cdef Py_ssize_t line_end = buf.find(b"\n", pos, head_end)
    cdef Py_ssize_t fields_end, n
    cdef str name, value
    version = buf[pos + 5 : line_end].rstrip(b"\r").decode("ascii", "replace").strip()
    if head_end >= 2 and buf[head_end - 2] == 13 and buf[head_end - 1] == 10:
        fields_end = head_end - 2
    else:
        fields_end = head_end - 1
    fields, warnings = parse_fields(buf, line_end + 1, fields_end, lenient)
    wtype = None
    cl_text = None
    for name, value in fields:
        n = len(name)
        if n == 9 and wtype is None and name.lower() == "warc-type":
            wtype = value
        elif n == 14 and cl_text is None and name.lower() == "content-length":
            cl_text = value
    return version, _valid_version(version), line_end + 1, fields, warnings, wtype, cl_text


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


def scan_head(bytes buf, Py_ssize_t pos, Py_ssize_t head_end, bint lenient):
    """See warckit._speedups._headers_py.scan_head."""
    cdef const unsigned char* p = buf
    cdef Py_ssize_t n = len(buf)
    cdef Py_ssize_t line_end = buf.find(b"\n", pos, head_end)
    cdef Py_ssize_t fields_end, start, end, nl, colon, a, b, vs, ve, k
    cdef const unsigned char* hit
    cdef bint ok, any_field = False
    cdef int last = 0  # 1: the field just taken is the first WARC-Type, 2: first Content-Length
    cdef list warnings = []
    version = buf[pos + 5 : line_end].rstrip(b"\r").decode("ascii", "replace").strip()
    if head_end >= 2 and buf[head_end - 2] == 13 and buf[head_end - 1] == 10:
        fields_end = head_end - 2
    else:
        fields_end = head_end - 1
    wtype = None
    cl_text = None
    start = line_end + 1
    end = fields_end
    if end > n:
        end = n
    pos = start
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
            elif last:
                vs = pos
                ve = line_end
                while vs < ve and _ws(p[vs]):
                    vs += 1
                while ve > vs and _ws(p[ve - 1]):
                    ve -= 1
                extra = buf[vs:ve].decode("utf-8", "surrogateescape")
                if last == 1:
                    wtype = (wtype + " " + extra) if wtype else extra
                else:
                    cl_text = (cl_text + " " + extra) if cl_text else extra
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
        any_field = True
        last = 0
        if (b - a == 9 and wtype is None and _is_name(p, a, b, "warc-type")) or (
            b - a == 14 and cl_text is None and _is_name(p, a, b, "content-length")
        ):
            vs = colon + 1
            ve = line_end
            while vs < ve and _ws(p[vs]):
                vs += 1
            while ve > vs and _ws(p[ve - 1]):
                ve -= 1
            if b - a == 9:
                wtype = buf[vs:ve].decode("utf-8", "surrogateescape")
                last = 1
            else:
                cl_text = buf[vs:ve].decode("utf-8", "surrogateescape")
                last = 2
        pos = nl + 1
    return version, _valid_version(version), start, warnings, wtype, cl_text
