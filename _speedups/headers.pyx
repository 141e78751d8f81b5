# cython: language_level=3
"""Compiled twin of warckit/_speedups/_headers_py.py: same names, results and exceptions."""

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND, PyUnicode_READ
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memchr, memcmp, memcpy

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


#: Field name as stored -> lowercased (names repeat across records; bounded).
cdef dict _LOWER = {}


cdef inline str _lower(str name):
    key = _LOWER.get(name)
    if key is None:
        key = name.lower()
        if len(_LOWER) >= 4096:
            _LOWER.clear()
        _LOWER[name] = key
    return <str>key


#: Per field position: the name bytes last seen there and their lowercased str, so the
#: fields of a file's heads (in the same order, mostly) are grouped under the same keys
#: without decoding or hashing their names again.
cdef list _SEEN_RAW = []
cdef list _SEEN_KEY = []


cdef str _name_key(bytes buf, const unsigned char* p, Py_ssize_t a, Py_ssize_t b, Py_ssize_t i):
    """The lowercased name ``buf[a:b]`` of the field at position *i*."""
    cdef bytes raw
    if i < len(_SEEN_RAW):
        raw = <bytes>_SEEN_RAW[i]
        if len(raw) == b - a and memcmp(<const char*>raw, p + a, b - a) == 0:
            return <str>_SEEN_KEY[i]
    key = _lower(buf[a:b].decode("ascii", "surrogateescape"))
    if i < 64:
        while len(_SEEN_RAW) <= i:
            _SEEN_RAW.append(None)
            _SEEN_KEY.append(None)
        _SEEN_RAW[i] = buf[a:b]
        _SEEN_KEY[i] = key
    return key


cdef tuple _walk(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient, int build):
    """The field lines of ``buf[start:end]``, as parse_fields reads them.

    Returns ``(fields, warnings, warc_type, content_length)``: *fields* a list of
    ``(name, value)`` when *build* is 1, ``{lowercased name: [values]}`` when 2,
    ``({lowercased name: first value}, [WARC-Concurrent-To values])`` when 3,
    ``(every name followed by a colon, as bytes; [values])`` when 4, else ``None``;
    the first WARC-Type and Content-Length values either way.
    """
    cdef char* names = NULL  # (build 4) the names so far, each followed by a colon
    cdef Py_ssize_t names_len = 0
    if build == 4:
        # Each name and its colon fit in its own line: the lines' room is enough.
        names = <char*>PyMem_Malloc(max(min(end, len(buf)) - start, 0) + 1)
        if names == NULL:
            raise MemoryError()
    try:
        return _walk_into(buf, start, end, lenient, build, names, &names_len)
    finally:
        PyMem_Free(names)


cdef tuple _walk_into(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient, int build, char* names,
                      Py_ssize_t* names_len):
    """_walk's body; *names* is the room for build 4's names."""
    cdef const unsigned char* p = buf
    cdef Py_ssize_t n = len(buf)
    cdef Py_ssize_t pos = start, nl, line_end, colon, a, b, vs, ve, k
    cdef const unsigned char* hit
    cdef bint ok, any_field = False
    cdef int last = 0  # 1: the field just taken is the first WARC-Type, 2: first Content-Length
    cdef list fields = [] if build == 1 or build == 4 else None
    cdef dict groups = {} if build == 2 else None
    cdef list values = None  # (build 2) the values of the last field's name
    cdef dict firsts = {} if build == 3 else None
    cdef list concurrent = [] if build == 3 else None
    cdef int fold_to = 0  # (build 3) a fold of the last field goes to 1: firsts[first_key], 2: concurrent[-1]
    first_key = None
    cdef Py_ssize_t count = 0  # fields taken
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
                    if build == 1:
                        fold = [fields[len(fields) - 1][1]]
                    elif build == 4:
                        fold = [fields[len(fields) - 1]]
                    elif build == 2:
                        fold = [values[len(values) - 1]]
                    elif build == 3:
                        fold = [value]
                    else:
                        fold = [wtype if last == 1 else cl_text]
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
            if build == 1:
                fields[len(fields) - 1] = (fields[len(fields) - 1][0], value)
            elif build == 4:
                fields[len(fields) - 1] = value
            elif build == 2:
                values[len(values) - 1] = value
            elif build == 3:
                _refold(firsts, concurrent, fold_to, first_key, value)
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
            if build == 1:
                fields.append((buf[a:b].decode("ascii", "surrogateescape"), value))
            elif build == 4:
                memcpy(names + names_len[0], p + a, b - a)
                names_len[0] += b - a
                names[names_len[0]] = 58
                names_len[0] += 1
                fields.append(value)
            elif build == 2:
                key = _name_key(buf, p, a, b, count)
                got = groups.get(key)
                if got is None:
                    values = [value]
                    groups[key] = values
                else:
                    values = <list>got
                    values.append(value)
                count += 1
            elif build == 3:
                key = _name_key(buf, p, a, b, count)
                count += 1
                fold_to = 0
                if key not in firsts:
                    firsts[key] = value
                    first_key = key
                    fold_to = 1
                if len(<str>key) == 18 and key == "warc-concurrent-to":
                    concurrent.append(value)
                    fold_to |= 2
            if last == 1:
                wtype = value
            elif last == 2:
                cl_text = value
        pos = nl + 1
    if fold is not None:
        value = join_folded(fold)
        if build == 1:
            fields[len(fields) - 1] = (fields[len(fields) - 1][0], value)
        elif build == 4:
            fields[len(fields) - 1] = value
        elif build == 2:
            values[len(values) - 1] = value
        elif build == 3:
            _refold(firsts, concurrent, fold_to, first_key, value)
        if last == 1:
            wtype = value
        elif last == 2:
            cl_text = value
    if build == 3:
        return (firsts, concurrent), warnings, wtype, cl_text
    if build == 4:
        return (PyBytes_FromStringAndSize(names, names_len[0]), fields), warnings, wtype, cl_text
    return fields if build != 2 else groups, warnings, wtype, cl_text


cdef inline int _refold(dict firsts, list concurrent, int fold_to, object first_key, object value) except -1:
    """(build 3) Put the folded value of the last field where its unfolded one went."""
    if fold_to & 1:
        firsts[first_key] = value
    if fold_to & 2:
        concurrent[len(concurrent) - 1] = value
    return 0


def parse_fields(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient):
    """See warckit._speedups._headers_py.parse_fields."""
    fields, warnings, _wtype, _cl = _walk(buf, start, end, lenient, 1)
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
    fields, warnings, wtype, cl_text = _walk(buf, line_end + 1, fields_end, lenient, 1 if build else 0)
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
    return _walk(buf, start, end, lenient, 3)[0]


def group_fields(fields):
    """See warckit._speedups._headers_py.group_fields."""
    cdef dict groups = {}
    for name, value in fields:
        key = _lower(name) if type(name) is str else name.lower()
        got = groups.get(key)
        if got is None:
            groups[key] = [value]
        else:
            (<list>got).append(value)
    return groups


def field_groups(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient):
    """See warckit._speedups._headers_py.field_groups."""
    return _walk(buf, start, end, lenient, 2)[0]


def field_layout(bytes buf, Py_ssize_t start, Py_ssize_t end, bint lenient):
    """See warckit._speedups._headers_py.field_layout."""
    return _walk(buf, start, end, lenient, 4)[0]


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


# -- field values: the quick acceptance warckit.record.rules asks first ----------------

URI, BRACKETED_URI, DIGITS, MEDIA_TYPE, IPV4, DIGEST, WTYPE, TRUNCATED, SEGMENT, DATE_10, DATE_11 = range(11)
cdef frozenset _WTYPES = frozenset(
    ("warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion", "continuation"))
cdef frozenset _TRUNCATIONS = frozenset(("length", "time", "disconnect", "unspecified"))


cdef struct _Str:
    # A str's characters, read without a bounds check per character.
    int kind
    void* data
    Py_ssize_t n


cdef inline Py_UCS4 _at(_Str* s, Py_ssize_t i):
    return PyUnicode_READ(s.kind, s.data, i)


cdef inline bint _tc(Py_UCS4 c):
    return c < 128 and _TOKEN[c]


cdef inline bint _dg(Py_UCS4 c):
    return 48 <= c <= 57


cdef inline bint _uri_char(Py_UCS4 c):
    return c > 32 and c != 127 and c != 60 and c != 62 and c != 34  # not CTL/SP, '<', '>', '"'


cdef Py_ssize_t _scheme_colon(_Str* s, Py_ssize_t i, Py_ssize_t n):
    """``[A-Za-z][A-Za-z0-9+\\-.]*:`` at *i* (before *n*): the index after ':', or -1."""
    cdef Py_UCS4 c
    if i >= n:
        return -1
    c = _at(s, i)
    if not (65 <= c <= 90 or 97 <= c <= 122):
        return -1
    i += 1
    while i < n:
        c = _at(s, i)
        if c == 58:
            return i + 1
        if not (65 <= c <= 90 or 97 <= c <= 122 or 48 <= c <= 57 or c == 43 or c == 45 or c == 46):
            return -1
        i += 1
    return -1


cdef bint _uri(_Str* s):
    cdef Py_ssize_t n = s.n, i = _scheme_colon(s, 0, n)
    if i < 0:
        return False
    while i < n:
        if not _uri_char(_at(s, i)):
            return False
        i += 1
    return True


cdef bint _bracketed(_Str* s):
    cdef Py_ssize_t n = s.n, i
    if n < 2 or _at(s, 0) != 60 or _at(s, n - 1) != 62:
        return False
    i = _scheme_colon(s, 1, n - 1)
    if i < 0 or i >= n - 1:
        return False
    while i < n - 1:
        if not _uri_char(_at(s, i)):
            return False
        i += 1
    return True


cdef bint _digits(_Str* s, bint nonzero):
    """``[0-9]+`` (with *nonzero*: ``0*[1-9][0-9]*``)."""
    cdef Py_ssize_t n = s.n, i
    cdef bint seen = False
    cdef Py_UCS4 c
    if n == 0:
        return False
    for i in range(n):
        c = _at(s, i)
        if not _dg(c):
            return False
        if c != 48:
            seen = True
    return seen or not nonzero


cdef Py_ssize_t _token_end(_Str* s, Py_ssize_t i, Py_ssize_t n):
    while i < n and _tc(_at(s, i)):
        i += 1
    return i


cdef bint _digest(_Str* s):
    cdef Py_ssize_t n = s.n, i = _token_end(s, 0, n), j
    if i == 0 or i >= n or _at(s, i) != 58:
        return False
    j = _token_end(s, i + 1, n)
    return j == n and j > i + 1


cdef Py_ssize_t _ows(_Str* s, Py_ssize_t i, Py_ssize_t n):
    while i < n and (_at(s, i) == 32 or _at(s, i) == 9):
        i += 1
    return i


cdef bint _media_type(_Str* s):
    cdef Py_ssize_t n = s.n, i, j
    cdef Py_UCS4 c
    i = _token_end(s, 0, n)
    if i == 0 or i >= n or _at(s, i) != 47:
        return False
    j = _token_end(s, i + 1, n)
    if j == i + 1:
        return False
    i = j
    while True:
        # [ \t]* then end, or ";" [ \t]* then end or a parameter
        i = _ows(s, i, n)
        if i == n:
            return True
        if _at(s, i) != 59:
            return False
        i = _ows(s, i + 1, n)
        if i == n:
            return True
        j = _token_end(s, i, n)
        if j == i or j >= n or _at(s, j) != 61:
            return False
        i = j + 1
        if i < n and _at(s, i) == 34:  # quoted-string: (?:[^"\\]|\\.)* then '"'
            i += 1
            while True:
                if i >= n:
                    return False
                c = _at(s, i)
                if c == 34:
                    i += 1
                    break
                if c == 92:
                    if i + 1 >= n or _at(s, i + 1) == 10:
                        return False
                    i += 2
                else:
                    i += 1
        else:
            j = _token_end(s, i, n)
            if j == i:
                return False
            i = j


cdef bint _ipv4(_Str* s):
    cdef Py_ssize_t n = s.n, i = 0, start
    cdef int part, value
    for part in range(4):
        if part:
            if i >= n or _at(s, i) != 46:
                return False
            i += 1
        start = i
        value = 0
        while i < n and _dg(_at(s, i)) and i - start < 3:
            value = value * 10 + (<int>_at(s, i) - 48)
            i += 1
        if i == start or value > 255 or (i - start > 1 and _at(s, start) == 48):
            return False
    return i == n


cdef bint _date(_Str* s, bint fraction_ok):
    """WARC 1.0's ``YYYY-MM-DDThh:mm:ssZ`` or (*fraction_ok*) WARC 1.1's forms."""
    cdef Py_ssize_t n = s.n, i
    cdef const char* shape = b"dddd-dd-ddTdd:dd:ddZ"
    cdef Py_ssize_t upto
    cdef Py_UCS4 c
    if fraction_ok:
        if n == 4 or n == 7 or n == 10 or n == 20:
            upto = n
        elif n == 17:  # YYYY-MM-DDThh:mmZ
            upto = 16
        elif 22 <= n <= 30:  # YYYY-MM-DDThh:mm:ss.f{1,9}Z
            upto = 19
        else:
            return False
    elif n == 20:
        upto = n
    else:
        return False
    for i in range(upto):
        c = _at(s, i)
        if shape[i] == 100:  # 'd'
            if not _dg(c):
                return False
        elif c != <Py_UCS4>shape[i]:
            return False
    if n == 17:
        return _at(s, 16) == 90
    if upto == 19:
        if _at(s, 19) != 46 or _at(s, n - 1) != 90:
            return False
        for i in range(20, n - 1):
            if not _dg(_at(s, i)):
                return False
    return True


cdef bint _accept(int kind, str value) except -1:
    cdef _Str v
    cdef _Str* s = &v
    if value is None:
        raise TypeError("expected string or bytes-like object, got 'NoneType'")
    v.kind = PyUnicode_KIND(value)
    v.data = PyUnicode_DATA(value)
    v.n = PyUnicode_GET_LENGTH(value)
    if kind == 0:
        return _uri(s)
    if kind == 1:
        return _bracketed(s)
    if kind == 2:
        return _digits(s, False)
    if kind == 3:
        return _media_type(s)
    if kind == 4:
        return _ipv4(s)
    if kind == 5:
        return _digest(s)
    if kind == 6:
        return value in _WTYPES
    if kind == 7:
        return value in _TRUNCATIONS
    if kind == 8:
        return _digits(s, True)
    if kind == 9:
        return _date(s, False)
    if kind == 10:
        return _date(s, True)
    raise IndexError("tuple index out of range")


cdef int _kind(object kind) except -1:
    """A kind as an index of SYNTAX (negative from the end), as the pure twin indexes it."""
    cdef int k = kind
    if k < 0:
        k += 11
    if not 0 <= k < 11:
        raise IndexError("tuple index out of range")
    return k


def accept_at(list values, steps):
    """See warckit._speedups._headers_py.accept_at."""
    for i, kind in steps:
        if not _accept(_kind(kind), values[i]):
            return False
    return True


def accept_values(groups, steps):
    """See warckit._speedups._headers_py.accept_values."""
    cdef int k
    for key, kind in steps:
        k = _kind(kind)
        for value in groups[key]:
            if not _accept(k, value):
                return False
    return True
