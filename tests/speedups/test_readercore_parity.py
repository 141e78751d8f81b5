"""readercore: the compiled and pure record-stepping cores give the same reading.

The reader module is loaded twice, once on each ``ReaderCore`` (everything else as
selected), and both readers read the same bytes: well-formed WARC records and
mutated ones (cut, a flipped byte, a wrong Content-Length, garbage between records),
uncompressed and gzip per record, strict and lenient, with some blocks read and some
skipped. Records, offsets, lengths, issues and the error that ends reading must agree.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import sys
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twins import compiled_or_reason, requires_compiled

import warckit
from warckit import _speedups
from warckit.errors import WarckitError
from warckit.record.base import WarcRecord


def _reader_on(core: ModuleType | None) -> Any:
    """``warckit.read.reader`` executed again with *core* as its ``ReaderCore``."""
    if core is None:
        return None
    name = f"warckit.read._reader_twin_{core.__name__.rsplit('.', 1)[-1]}"
    if name in sys.modules:
        return sys.modules[name].ArchiveReader
    spec = importlib.util.spec_from_file_location(name, warckit.read.reader.__file__)  # type: ignore[attr-defined]
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "warckit.read"
    selector = importlib.import_module("warckit._speedups.readercore")
    selected = selector.impl
    selector.impl = core  # read once, by the import below
    try:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        selector.impl = selected
    assert core.ReaderCore in module.ArchiveReader.__mro__
    return module.ArchiveReader


PURE = _reader_on(_speedups.pure("readercore"))
COMPILED = _reader_on(compiled_or_reason("readercore")[0])

_TYPES = st.sampled_from(["response", "resource", "request", "metadata", "warcinfo", "revisit", "conversion"])
_NAMES = st.sampled_from([b"X-Note", b"WARC-Target-URI", b"Content-Type", b"WARC-Concurrent-To", b"x"])
_VALUES = st.binary(max_size=12).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


@st.composite
def _record(draw: st.DrawFn) -> bytes:
    body = draw(st.one_of(st.binary(max_size=300), st.sampled_from([b"", b"x" * 20_000])))
    version = draw(st.sampled_from([b"WARC/1.0", b"WARC/1.1"]))
    fields = [
        b"WARC-Type: " + draw(_TYPES).encode(),
        b"WARC-Record-ID: <urn:uuid:%d>" % draw(st.integers(0, 10**6)),
        b"WARC-Date: 2020-01-02T03:04:05Z",
    ]
    fields += [n + b": " + v for n, v in draw(st.lists(st.tuples(_NAMES, _VALUES), max_size=3))]
    fields.append(b"Content-Length: %d" % len(body))
    fields = draw(st.permutations(fields))
    return version + b"\r\n" + b"\r\n".join(fields) + b"\r\n\r\n" + body + b"\r\n\r\n"


@st.composite
def _file(draw: st.DrawFn) -> tuple[bytes, str]:
    records = draw(st.lists(_record(), min_size=1, max_size=4))
    mutation = draw(st.sampled_from(["none", "none", "cut", "flip", "length", "garbage", "lf-only", "no-trailer",
                                     "line-ends"]))
    i = draw(st.integers(0, len(records) - 1))
    rec = records[i]
    if mutation == "length":
        at = rec.index(b"Content-Length: ") + len(b"Content-Length: ")
        end = rec.index(b"\r\n", at)
        rec = rec[:at] + str(max(0, int(rec[at:end]) + draw(st.integers(-40, 40)))).encode() + rec[end:]
    elif mutation == "flip" and rec:
        j = draw(st.integers(0, len(rec) - 1))
        rec = rec[:j] + bytes([rec[j] ^ draw(st.integers(1, 255))]) + rec[j + 1 :]
    elif mutation == "garbage":
        rec = draw(st.binary(min_size=1, max_size=40)) + rec
    elif mutation == "lf-only":
        head, _, rest = rec.partition(b"\r\n\r\n")
        rec = head.replace(b"\r\n", b"\n") + b"\n\n" + rest
    elif mutation == "line-ends":
        # The empty line a lenient reader also takes: LF, CR…CR LF (the compiled core scans
        # for it in C, the pure one with a regex); CRs left at the end of a cut head.
        head, _, rest = rec.partition(b"\r\n\r\n")
        ends = st.sampled_from([b"\r\n", b"\n", b"\r\r\n", b"\r"])
        lines = head.split(b"\r\n")
        head = b"".join(line + draw(ends) for line in lines[:-1]) + lines[-1]
        rec = head + draw(st.sampled_from([b"\r\n\r\n", b"\n\n", b"\n\r\n", b"\r\n\r\r\n", b"\n\r\r\r\n",
                                            b"\r\n\r\r", b"\n\r"])) + rest
    elif mutation == "no-trailer":
        rec = rec[:-4]
    records[i] = rec
    compression = draw(st.sampled_from(["none", "gzip"]))
    if compression == "gzip":
        data = b"".join(gzip.compress(r, mtime=0) for r in records)
    else:
        data = b"".join(records)
    if mutation == "cut":
        data = data[: draw(st.integers(0, len(data) - 1))]
    return data, compression


def _observe(cls: Any, data: bytes, lenient: bool, read_every: int) -> list[object]:
    """Everything observable about a reading: per record, the reader's issues, how it ended."""
    out: list[object] = []
    records = []
    reader = cls(io.BytesIO(data), lenient=lenient, readahead=False)
    try:
        for n, rec in enumerate(reader):
            digest = None
            if read_every and n % read_every == 0:
                digest = hashlib.sha1(rec.raw_stream().read()).hexdigest()
            out.append((rec.offset, rec.format, rec.type, rec.content_length, rec.headers.raw, digest))
            records.append(rec)
    except WarckitError as exc:
        out.append(("error", type(exc).__name__, exc.offset, str(exc)))
    finally:
        reader.close()
    # lengths and issues are final once the reader has moved past each record
    out.append([(r.length, [(i.code, i.offset) for i in r.issues]) for r in records])
    out.append([(i.code, i.offset, i.message) for i in reader.issues])
    return out


@requires_compiled("readercore")
@settings(max_examples=400, deadline=None)
@given(_file(), st.booleans(), st.sampled_from([0, 1, 2]))
def test_reader_cores_agree(file: tuple[bytes, str], lenient: bool, read_every: int) -> None:
    data, _compression = file
    assert _observe(COMPILED, data, lenient, read_every) == _observe(PURE, data, lenient, read_every)


@requires_compiled("readercore")
def test_twin_readers_use_each_core() -> None:
    """The two readers run different cores, and both read a clean file right."""
    assert PURE.__mro__[-2].__module__ == "warckit._speedups._readercore_py"  # (the core: last before object)
    assert COMPILED.__mro__[-2].__module__ == "warckit._speedups._readercore_c"
    body = b"hello"
    rec = (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2020-01-02T03:04:05Z\r\nContent-Length: 5\r\n\r\n" + body + b"\r\n\r\n"
    )
    for cls in (PURE, COMPILED):
        got = _observe(cls, rec * 2, False, 1)
        fields = rec[len(b"WARC/1.1\r\n") : rec.index(b"\r\n\r\n") + 2]
        assert got[:2] == [
            (0, "warc", "resource", 5, fields, hashlib.sha1(body).hexdigest()),
            (len(rec), "warc", "resource", 5, fields, hashlib.sha1(body).hexdigest()),
        ]
        assert got[2:] == [[(len(rec), []), (len(rec), [])], []]


def _body_steps(cls: Any, data: bytes) -> list[Any]:
    """What a record's LengthedBody answers, step by step, as the reader moves on."""
    steps: list[Any] = []
    with cls(io.BytesIO(data)) as reader:
        first = next(reader)
        body = first._body
        steps.append((type(body).__name__, body.rereadable, body.live(first), body.reader is reader))
        steps.append(body.read(first, 0, 3))
        steps.append(body.take_whole(first))  # part of it was read: not whole any more
        steps.append(body.read(first, 3, 100))
        steps.append(body.read(first, 5, 100))  # the end of the block
        second = next(reader)
        steps.append((body.live(first), body.read(first, 5, 1), body.take_whole(first)))  # stale
        steps.append(second._body.take_whole(second))
        steps.append((second.length, first.length, second._body.live(second)))
        steps.append((body.live(second), second._body.read(second, 0, 1)))
    return steps


@requires_compiled("readercore")
def test_lengthed_body_twins_agree() -> None:
    """The body each core hands its records answers the same, step by step."""
    body = b"hello"
    rec = (
        b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2020-01-02T03:04:05Z\r\nContent-Length: 5\r\n\r\n" + body + b"\r\n\r\n"
    )
    expected = [("LengthedBody", False, True, True), b"hel", None, b"lo", b"", (False, None, None),
                b"hello", (len(rec), len(rec), False), (False, None)]
    assert _body_steps(PURE, rec * 2) == expected
    assert _body_steps(COMPILED, rec * 2) == expected


_UNSET = object()


def _slots(obj: Any) -> dict[str, Any]:
    """Every __slots__ entry of *obj*'s classes and what it holds (``_UNSET`` if empty)."""
    names = {n for c in type(obj).__mro__ for n in c.__dict__.get("__slots__", ()) if n != "__weakref__"}
    return {n: getattr(obj, n, _UNSET) for n in sorted(names)}


def _made(cls: Any, data: bytes, lenient: bool) -> list[Any]:
    """The state of the first record *cls* reads and of its headers, as made (nothing read)."""
    with cls(io.BytesIO(data), lenient=lenient, readahead=False) as reader:
        rec = next(reader)
        state = _slots(rec)
        body = state.pop("_body")
        headers = _slots(state.pop("headers"))
        issues = [(i.code, i.offset) for i in state.pop("issues")]
        return [type(rec).__name__, type(body).__name__, state, headers, issues]


@requires_compiled("readercore")
@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("wtype", ["response", "warcinfo", "x-unknown", "revisit"])
@pytest.mark.parametrize("compression", ["none", "gzip"])
def test_records_are_made_alike(wtype: str, lenient: bool, compression: str) -> None:
    """The compiled core fills a record's and its Headers' slots itself (not through
    ``_from_reader`` and ``Headers._unparsed``, as the pure core does): every slot holds
    the same value, of the same type, and the record is of the same class."""
    rec = (
        b"WARC/1.1\r\nWARC-Type: " + wtype.encode() + b"\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2020-01-02T03:04:05Z\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
    )
    data = gzip.compress(rec, mtime=0) * 2 if compression == "gzip" else rec * 2
    pure, compiled = _made(PURE, data, lenient), _made(COMPILED, data, lenient)
    assert compiled == pure
    assert [type(v) for v in compiled[2].values()] == [type(v) for v in pure[2].values()]
    assert [type(v) for v in compiled[3].values()] == [type(v) for v in pure[3].values()]
    assert pure[2]["offset"] == 0 and pure[2]["_content_length"] == 5 and pure[3]["_raw"].startswith(b"WARC-Type")
    assert _UNSET not in pure[2].values() and _UNSET not in pure[3].values()


@requires_compiled("readercore")
def test_a_class_with_its_own_from_reader_is_made_by_it() -> None:
    """A record class that makes its records itself is still called by the compiled core."""
    made = []

    class Noted(WarcRecord):
        @classmethod
        def _from_reader(cls, *args: Any) -> Any:
            made.append(args[3])
            return super()._from_reader(*args)

    rec = (b"WARC/1.1\r\nWARC-Type: noted\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
           b"WARC-Date: 2020-01-02T03:04:05Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
    reader = COMPILED(io.BytesIO(rec), readahead=False)
    reader._record_types = {**reader._record_types, "noted": Noted}
    with reader:
        got = [type(r).__name__ for r in reader]
    assert got == ["Noted"] and made == [0]


@requires_compiled("readercore")
@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("value", [
    "5", "05", "00000000000000000005", " 5", "5 \t", "\t5", "٥", "5²", "+5", "-5", "", "5x", "5.0", "0x5",
    "9" * 18, "9" * 19, "1" + "0" * 18, "4611686018427387904", "4611686018427387905", "0" * 40 + "5", "9" * 5000,
])
def test_content_length_values_read_alike(value: str, lenient: bool) -> None:
    """The compiled core reads a plain Content-Length (1-18 ASCII digits) itself and
    hands every other value to the checks the pure core makes: the same lengths, the
    same errors and warnings, whatever the value."""
    rec = (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
           b"Content-Length: " + value.encode() + b"\r\n\r\nhello\r\n\r\n")
    observed = []
    for data in (rec * 2, gzip.compress(rec, mtime=0) * 2):
        pure = _observe(PURE, data, lenient, 1)
        assert _observe(COMPILED, data, lenient, 1) == pure
        observed.append(pure)
    if value.strip(" \t") in ("5", "05", "00000000000000000005"):
        plain = observed[0]
        assert plain[0][3] == 5 and plain[2] == [(len(rec), []), (len(rec), [])]
