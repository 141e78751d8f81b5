"""blockdeflate (whole-block libdeflate compression): compiled and pure twins agree."""

from __future__ import annotations

import zlib
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twins import impl_params, requires_compiled

IMPLS = impl_params("blockdeflate")
TWINS = [p.values[0] for p in IMPLS]


def _inflate(data: bytes) -> bytes:
    d = zlib.decompressobj(-15)
    out = d.decompress(data)
    assert d.eof and d.unused_data == b""  # one complete stream, final block
    return out


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("data", [b"", b"x", b"abc" * 1000, bytes(range(256)) * 40])
def test_roundtrip_every_level(impl: ModuleType, data: bytes) -> None:
    for level in range(impl.MAX_LEVEL + 1):
        assert _inflate(impl.deflate(data, level)) == data


@pytest.mark.parametrize("impl", IMPLS)
def test_levels_out_of_range(impl: ModuleType) -> None:
    for level in (-1, 13):
        with pytest.raises(ValueError):
            impl.deflate(b"x", level)
        with pytest.raises(ValueError):
            impl.Worker().submit(b"x", level)


@pytest.mark.parametrize("impl", IMPLS)
def test_worker_jobs_in_any_order(impl: ModuleType) -> None:
    w = impl.Worker()
    blocks = [b"", b"a", b"hello world " * 5000, bytes(300_000), b"z" * 7]
    jobs = [w.submit(b, 4) for b in blocks]
    for b, job in reversed(list(zip(blocks, jobs))):
        out, crc = job.result()
        assert _inflate(out) == b and crc == zlib.crc32(b)
        assert job.result() == (out, crc)  # the same answer again
    w.close()
    w.close()  # idempotent
    job = w.submit(b"after close", 6)  # restarts
    assert _inflate(job.result()[0]) == b"after close"
    w.close()


@pytest.mark.parametrize("impl", IMPLS)
def test_dropped_jobs_and_worker(impl: ModuleType) -> None:
    w = impl.Worker()
    for _ in range(20):
        w.submit(b"y" * 100_000, 9)  # never asked for: freed safely
    job = w.submit(b"kept", 1)
    del w  # the job keeps what it needs
    assert _inflate(job.result()[0]) == b"kept"


@requires_compiled("blockdeflate")
@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=5000), level=st.integers(0, 12), start=st.integers(0, 2**32 - 1))
def test_parity(data: bytes, level: int, start: int) -> None:
    for impl in TWINS:
        assert _inflate(impl.deflate(data, level)) == data
        assert impl.crc32(data, start) == zlib.crc32(data, start)
        assert impl.crc32(data) == zlib.crc32(data)
        out, crc = impl.Worker().submit(data, level).result()
        assert _inflate(out) == data and crc == zlib.crc32(data)
