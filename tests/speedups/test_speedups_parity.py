"""Both implementations of every hot module: present when expected, and in agreement."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twins import impl_params, requires_compiled

from warckit import _speedups


def test_compiled_build_did_not_silently_fall_back() -> None:
    """With WARCKIT_REQUIRE_EXTENSIONS=1 (CI's compiled leg) every hot module must be compiled."""
    if _speedups.NO_EXTENSIONS:
        assert _speedups.IMPLEMENTATION == "py"
        return
    if os.environ.get("WARCKIT_REQUIRE_EXTENSIONS") == "1":
        missing = []
        for name in _speedups.MODULES:
            try:
                _speedups.compiled(name)
            except ImportError:
                missing.append(name)
        assert not missing, f"compiled modules missing: {missing}"
        assert _speedups.IMPLEMENTATION == "c"
        for name in _speedups.MODULES:
            assert _speedups.load(name).__name__.endswith("_c")


def test_no_extensions_forces_pure() -> None:
    if _speedups.NO_EXTENSIONS:
        for name in _speedups.MODULES:
            assert _speedups.load(name).__name__.endswith("_py")


HEADER_PARAMS = impl_params("headers")
#: (pure, compiled); the compiled one is None when it does not import, and then every
#: test that compares the two is skipped with the reason (see tests/twins.py).
HEADERS = [p.values[0] for p in HEADER_PARAMS]
_headers_twins = requires_compiled("headers")


def _run(impl, buf: bytes, lenient: bool):  # type: ignore[no-untyped-def]
    try:
        return ("ok", impl.parse_fields(buf, 0, len(buf), lenient))
    except impl.HeadError as exc:
        return ("err", str(exc), exc.position)


@pytest.mark.parametrize("impl", HEADER_PARAMS)
def test_parse_fields_examples(impl) -> None:  # type: ignore[no-untyped-def]
    buf = b"WARC-Type: response\r\nX:  folded\r\n\tmore \r\nEmpty:\r\n"
    fields, warnings = impl.parse_fields(buf, 0, len(buf), False)
    assert fields == [("WARC-Type", "response"), ("X", "folded more"), ("Empty", "")]
    assert warnings == []
    with pytest.raises(impl.HeadError) as info:
        impl.parse_fields(b"A: 1\r\nbroken line\r\n", 0, 19, False)
    assert info.value.position == 6
    fields, warnings = impl.parse_fields(b"A: 1\nbroken\r\nB : 2\r\n", 0, 20, True)
    assert fields == [("A", "1"), ("B", "2")]
    assert [w[0] for w in warnings] == ["bare-lf", "no-colon", "bad-field-name"]


_line = st.one_of(
    st.binary(max_size=40),
    st.builds(lambda n, v: n + b":" + v + b"\r\n", st.sampled_from([b"A", b"WARC-Type", b"b c", b"", b"\xff"]), st.binary(max_size=20)),
    st.sampled_from([b"\r\n", b"\n", b" cont\r\n", b"\tcont\n", b":\r\n", b"\r", b" \r\n", b"\t \r\n"]),
)


@_headers_twins
@settings(max_examples=400, deadline=None)
@given(st.lists(_line, max_size=8).map(b"".join), st.booleans())
def test_implementations_agree(buf: bytes, lenient: bool) -> None:
    results = [_run(impl, buf, lenient) for impl in HEADERS]
    assert all(r == results[0] for r in results)


@pytest.mark.parametrize("impl", HEADERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@pytest.mark.parametrize(
    ("block", "value"),
    [
        (b"X: a\r\n b\r\n\tc\r\n", "a b c"),
        (b"X:\r\n \r\n b\r\n c\r\n", "b c"),  # empty until the first text
        (b"X: a\r\n \r\n b\r\n", "a  b"),  # an empty line after text keeps its space
        (b"X: a\r\n \r\n", "a "),
        (b"X:\r\n \r\n", ""),
    ],
)
def test_folded_values(impl, block: bytes, value: str) -> None:  # type: ignore[no-untyped-def]
    buf = block + b"Y: z\r\n"
    assert impl.parse_fields(buf, 0, len(buf), False)[0] == [("X", value), ("Y", "z")]
    head = b"WARC/1.1\r\n" + block.replace(b"X:", b"Content-Length:") + block.replace(b"X:", b"WARC-Type:") + b"\r\n"
    _v, _ok, _start, _warn, wtype, cl = impl.scan_head(head, 0, len(head), False)
    assert (wtype, cl) == (value, value)


@pytest.mark.parametrize("impl", HEADERS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_many_folded_lines_stay_linear(impl) -> None:  # type: ignore[no-untyped-def]
    buf = b"X: a\r\n" + b" b\r\n" * 255_000 + b"Y: z\r\n"
    fields, _ = impl.parse_fields(buf, 0, len(buf), False)
    assert fields[0] == ("X", "a" + " b" * 255_000) and fields[1] == ("Y", "z")


def _run_head(impl, buf: bytes, lenient: bool):  # type: ignore[no-untyped-def]
    end = buf.find(b"\r\n\r\n")
    head_end = end + 4 if end >= 0 else len(buf)
    try:
        return ("ok", impl.parse_head(buf, 0, head_end, lenient))
    except impl.HeadError as exc:
        return ("err", str(exc), exc.position)


@pytest.mark.parametrize("impl", HEADER_PARAMS)
def test_parse_head_example(impl) -> None:  # type: ignore[no-untyped-def]
    buf = b"WARC/1.1\r\nWARC-Type: response\r\ncontent-length: 12\r\nWARC-Type: x\r\n\r\nbody"
    version, ok, start, fields, warnings, wtype, cl = impl.parse_head(buf, 0, buf.index(b"body"), False)
    assert (version, ok, start, wtype, cl, warnings) == ("1.1", True, 10, "response", "12", [])
    assert len(fields) == 3
    assert impl.parse_head(b"WARC/x.y\r\n\r\n", 0, 12, False)[:2] == ("x.y", False)


@_headers_twins
@settings(max_examples=300, deadline=None)
@given(st.lists(_line, max_size=8).map(lambda ls: b"WARC/1.0\r\n" + b"".join(ls) + b"\r\n\r\n"), st.booleans())
def test_parse_head_implementations_agree(buf: bytes, lenient: bool) -> None:
    results = [_run_head(impl, buf, lenient) for impl in HEADERS]
    assert all(r == results[0] for r in results)


_name_line = st.builds(
    lambda n, v: n + b":" + v + b"\r\n",
    st.sampled_from([b"WARC-Type", b"warc-TYPE", b"Content-Length", b"CONTENT-length", b" WARC-Type",
                     b"WARC-Typ", b"Content-Lengths", b"X"]),
    st.binary(max_size=12),
)


def _run_scan(impl, buf: bytes, lenient: bool):  # type: ignore[no-untyped-def]
    end = buf.find(b"\r\n\r\n")
    head_end = end + 4 if end >= 0 else len(buf)
    try:
        return ("ok", impl.scan_head(buf, 0, head_end, lenient))
    except impl.HeadError as exc:
        return ("err", str(exc), exc.position)


@_headers_twins
@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(_line, _name_line), max_size=8).map(lambda ls: b"WARC/1.0\r\n" + b"".join(ls) + b"\r\n\r\n"),
    st.booleans(),
)
def test_scan_head_is_parse_head_without_fields(buf: bytes, lenient: bool) -> None:
    """The reader's per-record check gives parse_head's answer (both twins, each other)."""
    results = [_run_scan(impl, buf, lenient) for impl in HEADERS]
    assert all(r == results[0] for r in results)
    for impl in HEADERS:
        full = _run_head(impl, buf, lenient)
        if full[0] == "ok":
            version, ok, start, _fields, warnings, wtype, cl = full[1]
            full = ("ok", (version, ok, start, warnings, wtype, cl))
        assert _run_scan(impl, buf, lenient) == full


@pytest.mark.parametrize("impl", HEADER_PARAMS)
def test_scan_head_example(impl) -> None:  # type: ignore[no-untyped-def]
    buf = b"WARC/1.1\r\nWARC-Type: response\r\ncontent-LENGTH: 12\r\n 34\r\nWARC-Type: x\r\n\r\nbody"
    assert impl.scan_head(buf, 0, buf.index(b"body"), False) == ("1.1", True, 10, [], "response", "12 34")


def _outcome(fn, *args):  # type: ignore[no-untyped-def]
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the type and message are compared
        return ("err", type(exc).__name__, str(exc))


@_headers_twins
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_line, _name_line, st.sampled_from([b"WARC-Concurrent-To: <a>\r\n",
                                                           b"warc-concurrent-to: <b>\r\n"])),
                max_size=8).map(b"".join), st.booleans())
def test_field_map_is_first_value_by_name(buf: bytes, lenient: bool) -> None:
    """field_map agrees across twins and with parse_fields: first value per name, every Concurrent-To."""
    results = [_outcome(impl.field_map, buf, 0, len(buf), lenient) for impl in HEADERS]
    assert all(r == results[0] for r in results)
    parsed = _run(HEADERS[0], buf, lenient)
    if parsed[0] == "ok":
        fields = parsed[1][0]
        want: dict[str, str] = {}
        for name, value in fields:
            want.setdefault(name.lower(), value)
        conc = [v for n, v in fields if n.lower() == "warc-concurrent-to"]
        assert results[0] == ("ok", (want, conc))


@pytest.mark.parametrize("impl", HEADER_PARAMS)
def test_field_map_folded_values(impl) -> None:  # type: ignore[no-untyped-def]
    """A folded line continues the value where it went: the first value of its name, the
    last Concurrent-To, both, or (a repeated name) neither."""
    buf = (b"WARC-Concurrent-To: <a>\r\n <a2>\r\nX: 1\r\n\t2\r\nX: 3\r\n 4\r\n"
           b"warc-concurrent-to: <b>\r\n\t<b2>\r\nY: 5\r\n")
    assert impl.field_map(buf, 0, len(buf), False) == (
        {"warc-concurrent-to": "<a> <a2>", "x": "1 2", "y": "5"}, ["<a> <a2>", "<b> <b2>"])
    bare_lf = b"X: 1\n 2\nZ: 3\r\n"
    assert impl.field_map(bare_lf, 0, len(bare_lf), True) == ({"x": "1 2", "z": "3"}, [])


_http_first = st.one_of(
    st.sampled_from([b"HTTP/1.1 200 OK", b"HTTP/1.0 404", b"HTTP/1.1 099 X", b"HTTP/2 301 Moved Perm",
                     b"GET /a HTTP/1.1", b"POST http://x/?a=b HTTP/1.0", b"HTTP/1.1 abc HTTP/1.0",
                     b"GET  /a HTTP/1.1", b"HTTP/1.1 2000 OK", b"HTTP/1.1 200 O\rK", b"get / http/1.1"]),
    st.binary(max_size=20),
)
_http_line = st.one_of(
    st.sampled_from([b"Content-Type: text/html", b"content-type:\t a/b ;c \t", b"CONTENT-TYPE:",
                     b"Host: x", b"Bad Name: x", b"X:", b" folded", b"Content-Type : x", b"\xff: y"]),
    st.binary(max_size=15),
)


@_headers_twins
@settings(max_examples=500, deadline=None)
@given(_http_first, st.lists(_http_line, max_size=6), st.binary(max_size=10))
def test_clean_http_head_twins_agree(first: bytes, lines: list[bytes], tail: bytes) -> None:
    buf = first + b"".join(b"\r\n" + line for line in lines) + b"\r\n\r\n" + tail
    end = buf.find(b"\r\n\r\n") + 4
    for cut in (end, len(buf), min(end + 2, len(buf))):
        results = [_outcome(impl.clean_http_head, buf, cut) for impl in HEADERS]
        assert all(r == results[0] for r in results), (buf, cut)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: a/b\r\n\r\n"
    assert HEADERS[0].clean_http_head(head, len(head)) == ("200", None, "a/b")


GZIP_PARAMS = impl_params("gzipmember")
GZIP = [p.values[0] for p in GZIP_PARAMS]
_gzip_twins = requires_compiled("gzipmember")


def _decode(impl, data: bytes, trailing: str, readahead: dict | None = None,  # type: ignore[no-untyped-def]
            limits: tuple[int, ...] = (1 << 20,), skip_every: int = 0, direct: bool = True):
    """Everything a decoder yields: the stream, where members end (with the
    ``member_start`` seen there), and how it stopped.

    *readahead* (slot tuning for the compiled twin) reads *data* from a real file,
    inflated ahead on the decoder's thread. Reads cycle through *limits*; every
    *skip_every*-th is a ``skip`` (its bytes counted as NULs).
    """
    import io
    import tempfile

    from warckit.errors import CompressionError

    if readahead is None:
        f = io.BytesIO(data)
        dec = impl.GzipDecoder(f, 0, "x", trailing) if direct else impl.GzipDecoder(
            f, 0, "x", trailing, 1 << 18, False, direct=False
        )
    else:
        f = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
        f.write(data)
        f.seek(0)
        dec = impl.GzipDecoder(f, 0, "x", trailing, 1 << 18, True, **readahead)
        assert dec.readahead
    out = bytearray()
    bounds = []
    starts = []
    i = 0
    try:
        while True:
            limit = limits[i % len(limits)]
            i += 1
            if skip_every and i % skip_every == 0:
                count, boundary = dec.skip(limit)
                chunk = b"\0" * count
            else:
                chunk, boundary = dec.read(limit)
            if chunk and (not starts or starts[-1] != dec.member_start):
                starts.append(dec.member_start)
            out += chunk
            if boundary is not None:
                bounds.append((len(out), boundary, dec.member_start))
            if not chunk and boundary is None:
                break
    except CompressionError as exc:
        return ("err", exc.offset, dec.member_start, bytes(out), bounds, starts)
    finally:
        if readahead is not None:
            dec.close()
            f.close()
    return ("ok", bytes(out), bounds, starts, dec.trailing_garbage, dec.truncated_member)


_members = st.lists(st.binary(max_size=3000), min_size=0, max_size=5)


def _gzip_members(parts: list[bytes], damage: str, cut: int) -> bytes:
    """One gzip member per part, then *damage*: trailing garbage, a cut end or a flipped byte."""
    import gzip

    data = b"".join(gzip.compress(p, mtime=0) for p in parts)
    if damage == "garbage":
        data += b"GARBAGE" * cut
    elif damage == "truncate" and data:
        data = data[: max(0, len(data) - cut)]
    elif damage == "corrupt" and len(data) > 20:
        i = len(data) // 2
        data = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1 :]
    return data


@_gzip_twins
@settings(max_examples=200, deadline=None)
@given(_members, st.sampled_from(["none", "garbage", "truncate", "corrupt"]), st.integers(1, 50),
       st.sampled_from(["error", "stop"]), st.sampled_from([(1 << 20,), (1, 5, 300), (7,), (4096, 3)]))
def test_gzip_decoders_agree(parts: list[bytes], damage: str, cut: int, trailing: str,
                             limits: tuple[int, ...]) -> None:
    """Both twins hand out the same bytes, boundaries, member starts and errors,
    whatever the read sizes (a damaged member included)."""
    data = _gzip_members(parts, damage, cut)
    # (direct=False: random access, whose reads start small and whose inflate calls
    # take what input there is)
    results = [_decode(impl, data, trailing, None, limits, direct=direct) for impl in GZIP
               for direct in (True, False)]
    assert all(r == results[0] for r in results), results
    if damage == "none":
        assert results[0][0] == "ok" and results[0][1] == b"".join(parts)


@_gzip_twins  # read-ahead is the compiled decoder's
@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=3000), min_size=0, max_size=6),
       st.sampled_from(["none", "garbage", "truncate", "corrupt"]), st.integers(1, 50),
       st.sampled_from(["error", "stop"]),
       st.sampled_from([{}, {"direct": False}, {"_slot": 1, "_slots": 2, "_events": 1},
                        {"_slot": 700, "_slots": 3, "_events": 2}, {"_slot": 4096, "_slots": 2, "_events": 8192},
                        {"_slot": 70_000, "_slots": 2}]),
       st.sampled_from([(1 << 20,), (1, 5, 300), (7,), (4096, 3)]))
def test_gzip_readahead_agrees_with_in_thread(parts: list[bytes], damage: str, cut: int, trailing: str,
                                              tuning: dict, limits: tuple[int, ...]) -> None:
    """The thread-ahead decoder hands out the same bytes, boundaries, member starts
    and errors as the in-thread decoder, whatever the slot sizes and read limits."""

    data = _gzip_members(parts, damage, cut)
    compiled = GZIP[1]
    for skip_every in (0, 3):
        _readahead_case(compiled, data, damage, trailing, tuning, limits, skip_every, parts)


def _readahead_case(compiled, data, damage, trailing, tuning, limits, skip_every, parts):  # type: ignore[no-untyped-def]
    import gzip

    expect = _decode(compiled, data, trailing, None, limits, skip_every)
    got = _decode(compiled, data, trailing, tuning, limits, skip_every)
    isal_only = _decode(compiled, data, trailing, None, limits, skip_every, direct=False)
    if skip_every:  # which bytes were skipped depends on how the stream was cut
        expect, got, isal_only = (tuple(len(x) if isinstance(x, bytes) else x for x in r)
                                  for r in (expect, got, isal_only))
    # (a damaged member gives the same bytes whatever the read sizes and slots: the
    # decoder hands out only what whole compressed steps gave)
    assert got == expect
    assert isal_only == expect
    if damage == "none":
        assert got[0] == "ok" and (got[1] if skip_every else len(got[1])) == sum(map(len, parts))
        ends = [len(gzip.compress(p, mtime=0)) for p in parts]
        assert [b for _, b, _ in got[2]] == [sum(ends[: k + 1]) for k in range(len(parts))]


@pytest.mark.parametrize("impl", GZIP_PARAMS)
def test_gzip_decoders_raise_the_file_objects_error(impl) -> None:  # type: ignore[no-untyped-def]
    """An error of the file object itself surfaces as it was raised, in both twins."""
    import gzip
    import io

    class Failing(io.BytesIO):
        def __init__(self, data: bytes) -> None:
            super().__init__(data)
            self.calls = 0

        def _fail(self) -> None:
            self.calls += 1
            if self.calls > 1:
                raise ValueError("the disk went away")

        def read(self, n: int | None = -1) -> bytes:
            self._fail()
            return super().read(min(n, 64) if n and n > 0 else 64)

        def readinto(self, buf) -> int:  # type: ignore[no-untyped-def, override]
            self._fail()
            return super().readinto(memoryview(buf)[:64])

    data = gzip.compress(bytes(range(256)) * 40, mtime=0)
    dec = impl.GzipDecoder(Failing(data), 0, "x")
    with pytest.raises(ValueError, match="the disk went away"):
        while dec.read(100)[0]:
            pass


@_gzip_twins
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(300_000, 900_000), st.floats(0.0, 1.0),
       st.sampled_from(["flip", "truncate"]), st.sampled_from(["error", "stop"]),
       st.sampled_from([(1 << 20,), (1, 5, 300), (4096, 3), (70_000,)]))
def test_gzip_decoders_agree_on_large_damaged_members(seed: int, size: int, where: float, damage: str,
                                                      trailing: str, limits: tuple[int, ...]) -> None:
    """Members larger than the hold-back (HOLD), damaged or cut anywhere: the same bytes
    in both twins, whatever the read sizes, in the calling thread or read ahead."""
    import gzip
    import random

    rng = random.Random(seed)
    text = b"".join(b"%d some words that compress; " % rng.randrange(1000) for _ in range(size // 30))
    body = (text + rng.randbytes(size // 4))[:size]
    data = gzip.compress(b"first member", mtime=0) + gzip.compress(body, mtime=0)
    at = 32 + int(where * (len(data) - 40))
    data = data[:at] + bytes([data[at] ^ 0x24]) + data[at + 1 :] if damage == "flip" else data[:at]
    results = [_decode(impl, data, trailing, None, limits, direct=direct) for impl in GZIP
               for direct in (True, False)]
    if len(GZIP) > 1:
        results.append(_decode(GZIP[1], data, trailing, {}, limits))
    assert all(r == results[0] for r in results), [r[:2] for r in results]
