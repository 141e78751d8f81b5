"""headers twins: field grouping and the quick acceptance of field values
(``field_groups``, ``group_fields``, ``accept_values``) give the same answers, compiled
and pure, and each kind accepts exactly what its pattern (``SYNTAX``) matches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twins import impl_params, requires_compiled

from warckit._speedups import _headers_py as pure

HEADER_PARAMS = impl_params("headers")
HEADERS = [p.values[0] for p in HEADER_PARAMS]
_twins = requires_compiled("headers")

#: Values near the edges of every kind (then random text built from their characters).
_EDGES = [
    "", " ", "http://x", "http://x/a b", "h:", ":x", "1a:b", "a+-.:x", "a:<", "http://é/", "http://x/\udcff",
    "<urn:x>", "<urn:>", "<urn:x>>", "<urn:x", "urn:x>", "< urn:x>", "<1:x>",
    "0", "00", "010", "12", "-1", "١٢",
    "text/html", "text/html;", "text/html ; ", "text/html;a=b", "text/html; a=\"b\\\"c\"", "text/html;a=\"",
    "text/html;a=\"x\\", "text/html;a=\"x\\\ny\"", "text/html;a=\"\ny\"", "text/html;a", "text/html;;", "text/ html",
    "a/b;c=d;", "a/b c=d", "a/b;c=\"d\"e", "a/b;c=d\"e\"", "/b", "a/",
    "1.2.3.4", "255.255.255.255", "256.1.1.1", "01.2.3.4", "0.0.0.0", "1.2.3", "1.2.3.4.", "1.2.3.4444", "1..2.3",
    "sha1:ABC", "sha1:AB=", "sha1:", ":ABC", "sha1:A:B", "sha1::",
    "response", "Response", "warcinfo ", "length", "time", "disconnectx",
    "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.5Z", "2024-01-02T03:04:05.123456789Z",
    "2024-01-02T03:04:05.1234567890Z", "2024-01-02T03:04:05.Z", "2024-01-02T03:04Z", "2024-01-02", "2024-01", "2024",
    "2024-01-02T03:04:05", "2024-01-02t03:04:05Z", "2024-01-02T03:04:05z", "2024-1-02", "２０２４",
]
_CHARS = st.sampled_from(sorted(set("".join(_EDGES)) | {"\x00", "\t", "\x7f", ">", "\n", "\\"}))
_VALUES = st.one_of(st.sampled_from(_EDGES), st.text(_CHARS, max_size=32), st.text(max_size=12))


@pytest.mark.parametrize("impl", HEADER_PARAMS)
@pytest.mark.parametrize("kind", range(len(pure.SYNTAX)))
def test_each_kind_accepts_what_its_pattern_matches(impl, kind: int) -> None:  # type: ignore[no-untyped-def]
    for value in _EDGES:
        expected = pure.SYNTAX[kind].match(value) is not None
        assert impl.accept_values({"f": [value]}, ((("f", kind)),)) is expected, (kind, value)


@_twins
@settings(max_examples=1500, deadline=None)
@given(st.integers(0, len(pure.SYNTAX) - 1), _VALUES)
def test_compiled_accepts_exactly_what_the_pattern_matches(kind: int, value: str) -> None:
    expected = pure.SYNTAX[kind].match(value) is not None
    for impl in HEADERS:
        assert impl.accept_values({"f": [value]}, (("f", kind),)) is expected


@_twins
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.lists(_VALUES, max_size=3)), max_size=4),
       st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.integers(-2, len(pure.SYNTAX))), max_size=4))
def test_accept_values_agrees_on_many_steps_and_missing_keys(groups: list[tuple[str, list[str]]],
                                                             steps: list[tuple[str, int]]) -> None:
    def outcome(impl):  # type: ignore[no-untyped-def]
        try:
            return ("ok", impl.accept_values(dict(groups), tuple(steps)))
        except (KeyError, IndexError) as exc:
            return ("err", type(exc).__name__)

    results = [outcome(impl) for impl in HEADERS]
    assert all(r == results[0] for r in results)


@pytest.mark.parametrize("impl", HEADER_PARAMS)
def test_field_groups_example(impl) -> None:  # type: ignore[no-untyped-def]
    buf = b"WARC-Type: response\r\nWARC-Concurrent-To: <a>\r\nwarc-concurrent-to: <b>\r\n  c\r\nX: \r\n"
    assert impl.field_groups(buf, 0, len(buf), False) == {
        "warc-type": ["response"], "warc-concurrent-to": ["<a>", "<b> c"], "x": [""]}
    assert impl.group_fields([("A", "1"), ("b", "2"), ("a", "3")]) == {"a": ["1", "3"], "b": ["2"]}


_line = st.one_of(
    st.sampled_from([b"WARC-Type: response\r\n", b"warc-type: x\r\n", b" folded\r\n", b"X:\r\n", b"Bad Name: y\r\n",
                     b"no colon\r\n", b"A: b\n", b"\xff: z\r\n", b"A: \xe9\r\n"]),
    st.binary(max_size=12),
)


@_twins
@settings(max_examples=400, deadline=None)
@given(st.lists(_line, max_size=8).map(b"".join), st.booleans())
def test_field_groups_is_parse_fields_grouped(buf: bytes, lenient: bool) -> None:
    """Both twins agree (values or the error and its position), and equal parse_fields grouped."""
    def outcome(fn, *args):  # type: ignore[no-untyped-def]
        try:
            return ("ok", fn(*args))
        except Exception as exc:  # noqa: BLE001 - the type, message and position are compared
            return ("err", type(exc).__name__, str(exc), getattr(exc, "position", None))

    results = [outcome(impl.field_groups, buf, 0, len(buf), lenient) for impl in HEADERS]
    assert all(r == results[0] for r in results)
    parsed = outcome(HEADERS[0].parse_fields, buf, 0, len(buf), lenient)
    if parsed[0] == "ok":
        want: dict[str, list[str]] = {}
        for name, value in parsed[1][0]:
            want.setdefault(name.lower(), []).append(value)
        assert results[0] == ("ok", want)
        for impl in HEADERS:
            assert impl.group_fields(parsed[1][0]) == want


@pytest.mark.parametrize("impl", HEADER_PARAMS)
def test_field_layout_example(impl) -> None:  # type: ignore[no-untyped-def]
    buf = b"WARC-Type: response\r\nWARC-Concurrent-To: <a>\r\nwarc-concurrent-to: <b>\r\n  c\r\nX: \r\n"
    assert impl.field_layout(buf, 0, len(buf), False) == (
        b"WARC-Type:WARC-Concurrent-To:warc-concurrent-to:X:", ["response", "<a>", "<b> c", ""])
    assert impl.field_layout(b"Bad Name: y\r\n\xff: z\r\n", 0, 17, True) == (b"Bad Name:\xff:", ["y", "z"])
    assert impl.accept_at(["x", "12", "a"], ((1, 2), (1, 8))) is True
    assert impl.accept_at(["x", "1a", "a"], ((1, 2), (1, 8))) is False


@_twins
@settings(max_examples=400, deadline=None)
@given(st.lists(_line, max_size=8).map(b"".join), st.booleans(), st.integers(0, 6), st.integers(0, 6))
def test_field_layout_is_parse_fields_names_and_values(buf: bytes, lenient: bool, cut_start: int,
                                                       cut_end: int) -> None:
    """Both twins agree (the layout or the error and its position) on a window of *buf*,
    and the layout is parse_fields' names (each followed by a colon) and values."""
    start, end = min(cut_start, len(buf)), max(len(buf) - cut_end, 0)

    def outcome(fn, *args):  # type: ignore[no-untyped-def]
        try:
            return ("ok", fn(*args))
        except Exception as exc:  # noqa: BLE001 - the type, message and position are compared
            return ("err", type(exc).__name__, str(exc), getattr(exc, "position", None))

    results = [outcome(impl.field_layout, buf, start, end, lenient) for impl in HEADERS]
    assert all(r == results[0] for r in results)
    parsed = outcome(HEADERS[0].parse_fields, buf, start, end, lenient)
    assert (parsed[0] == "ok") == (results[0][0] == "ok")
    if parsed[0] == "ok":
        fields = parsed[1][0]
        names = b"".join(n.encode("ascii", "surrogateescape") + b":" for n, _ in fields)
        assert results[0] == ("ok", (names, [v for _, v in fields]))


@_twins
@settings(max_examples=300, deadline=None)
@given(st.lists(_VALUES, max_size=4),
       st.lists(st.tuples(st.integers(-1, 4), st.integers(-2, len(pure.SYNTAX))), max_size=4))
def test_accept_at_agrees_with_accept_values(values: list[str], steps: list[tuple[int, int]]) -> None:
    def outcome(fn, *args):  # type: ignore[no-untyped-def]
        try:
            return ("ok", fn(*args))
        except (KeyError, IndexError) as exc:
            return ("err", type(exc).__name__)

    results = [outcome(impl.accept_at, values, tuple(steps)) for impl in HEADERS]
    assert all(r == results[0] for r in results)
    if all(0 <= i < len(values) for i, _ in steps):
        # By position, as accept_values by name (one name per position).
        groups = {str(i): [v] for i, v in enumerate(values)}
        assert results[0] == outcome(HEADERS[0].accept_values, groups, tuple((str(i), k) for i, k in steps))
