"""The reader makes each record of its WARC-Type's class, a registered one included, with
the state the constructor gives (the reader builds records its own way, for speed)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

import warckit
from warckit.record.base import WarcRecord
from warckit.record.types import RECORD_TYPES, UnknownRecord, register_type


class Plain(WarcRecord):
    type_name = "x-plain"
    __slots__ = ()


class WithSlots(WarcRecord):
    type_name = "x-slots"
    __slots__ = ("extra",)


class WithDict(WarcRecord):
    type_name = "x-dict"


@pytest.fixture
def registered() -> Iterator[None]:
    saved = dict(RECORD_TYPES)
    for cls in (Plain, WithSlots, WithDict):
        register_type(cls)
    yield
    RECORD_TYPES.clear()
    RECORD_TYPES.update(saved)


def _record(i: int, rtype: str) -> bytes:
    return (f"WARC/1.1\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:{i}>\r\n"
            f"WARC-Date: 2026-12-01T09:00:00Z\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n").encode()


@pytest.mark.usefixtures("registered")
def test_each_record_has_its_class_and_state() -> None:
    types = ["x-plain", "response", "x-slots", "request", "x-dict", "metadata", "x-other", "x-plain"]
    data = b"".join(_record(i, t) for i, t in enumerate(types))
    with warckit.open(io.BytesIO(data)) as reader:
        got = [(type(r), r.type, r.record_id, r.offset, r.content_length, r.read_block(), r.issues)
               for r in reader]
    classes = [Plain, RECORD_TYPES["response"], WithSlots, RECORD_TYPES["request"], WithDict,
               RECORD_TYPES["metadata"], UnknownRecord, Plain]
    assert [g[0] for g in got] == classes
    assert [g[1:] for g in got] == [
        (t, f"<urn:uuid:{i}>", sum(len(_record(k, types[k])) for k in range(i)), 2, b"hi", [])
        for i, t in enumerate(types)]
    assert (Plain._made_as, WithSlots._made_as, WithDict._made_as) == (WarcRecord, WithSlots, WithDict)
    slotted = next(r for r in warckit.open(io.BytesIO(_record(0, "x-slots"))))
    slotted.extra = 1  # type: ignore[attr-defined]
    assert slotted.extra == 1  # type: ignore[attr-defined]
