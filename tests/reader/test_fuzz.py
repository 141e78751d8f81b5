"""Fuzzing the reader over mutated corpus records: only WarckitError escapes, nothing hangs."""

from __future__ import annotations

import gzip
import io

import pytest
from corpus_paths import CORPUS
from fuzz.seeds import SEEDS, inner, recompress
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warckit
from warckit.errors import WarckitError

_SEED = (CORPUS / "warcio/example.warc").read_bytes() if (CORPUS / "warcio/example.warc").exists() else (
    b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
)


def _mutate(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    buf = bytearray(data)
    for pos, cut, insert in edits:
        pos %= max(len(buf), 1)
        buf[pos : pos + cut] = insert
    return bytes(buf)


def _consume(data: bytes, lenient: bool, decode: bool = False) -> int:
    n = 0
    with warckit.open(io.BytesIO(data), lenient=lenient, max_header_size=1 << 16) as reader:
        for rec in reader:
            n += 1
            rec.http  # noqa: B018
            if rec.format == "warc":
                rec.date  # noqa: B018
            stream = rec.content_stream(decode_content=decode, max_decoded=1 << 22)
            while stream.read(4096):
                pass
            assert n < 10_000
    return n


_edits = st.lists(
    st.tuples(st.integers(0, 1 << 16), st.integers(0, 8), st.binary(max_size=8)), min_size=1, max_size=6
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edits, st.booleans(), st.booleans())
def test_mutated_records_raise_only_warckit_errors(edits: list[tuple[int, int, bytes]], lenient: bool, gz: bool) -> None:
    data = _mutate(_SEED, edits)
    if gz:
        data = gzip.compress(data)
        data = _mutate(data, edits[:1]) if lenient else data
    try:
        _consume(data, lenient)
    except WarckitError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_arbitrary_bytes(data: bytes) -> None:
    for lenient in (False, True):
        try:
            _consume(b"WARC/1.1\r\n" + data, lenient)
        except WarckitError:
            pass


@pytest.mark.parametrize("name", sorted(SEEDS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=_edits, lenient=st.booleans(), inside=st.booleans())
def test_mutated_seeds_of_every_container_raise_only_warckit_errors(
    name: str, edits: list[tuple[int, int, bytes]], lenient: bool, inside: bool
) -> None:
    """Plain, gzip per record, whole-file gzip, zstd (with and without a dictionary), ARC,
    gzipped ARC: damaged outside the compression, or inside it and recompressed."""
    seed = SEEDS[name]
    data = recompress(name, _mutate(inner(name, seed), edits)) if inside else _mutate(seed, edits)
    try:
        _consume(data, lenient, decode=True)
    except WarckitError:
        pass
