"""Indexing one gzip-per-record file in pieces (``-j N``) gives the one-process output."""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus_paths import CORPUS

from warckit.cdx import IndexOptions, index_file, write_index
from warckit.cdx import build as _build
from warckit.cdx.indexer import index_range, split_points
from warckit.errors import WarckitError
from warckit.read import pieces as _split

READ_TYPES = frozenset({"response", "resource", "revisit", "metadata", "conversion", "request"})


@pytest.fixture(scope="module")
def generated(bench_warc: Callable[[str, float], Path]) -> Path:
    """A small generated gzip-per-record WARC (request, response, metadata per capture)."""
    return bench_warc("cc", 2)


def _pieces(path: Path, options: IndexOptions, points: list[tuple[int, int]]) -> list[str]:
    lines: list[str] = []
    bounds = [(0, 0), *points, (None, None)]
    for (read_from, start), (before, end) in itertools.pairwise(bounds):
        stopped: list[int] = []
        lines += index_range(path, options, start or 0, end, read_from=read_from, stopped_at=stopped)
        if end is not None:
            assert stopped == [before, end]
    return lines


def _write(path: Path, options: IndexOptions, jobs: int, sort: bool = False) -> bytes:
    out = io.BytesIO()
    write_index([path], out, options, jobs=jobs, sort=sort)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["cdx", "cdxj"])
def test_generated_file_split(generated: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    options = IndexOptions(format=fmt)  # type: ignore[arg-type]
    points = split_points(str(generated), 4, options, min_size=0)
    assert len(points) == 3
    assert _pieces(generated, options, points) == list(index_file(generated, options))
    monkeypatch.setattr(_split, "MIN_SPLIT_SIZE", 0)
    one = _write(generated, options, 1)
    assert _write(generated, options, 2) == one
    assert _write(generated, options, 3, sort=True) == _write(generated, options, 1, sort=True)


def test_split_points_start_after_an_indexed_record(generated: Path) -> None:
    """The indexer's rule, not the splitter's: the record before each cut is one it reads."""
    from warckit.read import read_record_at

    assert IndexOptions().read_types == READ_TYPES
    options = IndexOptions(types=frozenset({"response"}), post_append=False)
    points = split_points(str(generated), 4, options, min_size=0)
    assert len(points) == 3
    assert [read_record_at(generated, before).type for before, _ in points] == ["response"] * 3
    # Left to itself, the splitter cuts after any WARC record.
    anywhere = _split.split_points(str(generated), 4, min_size=0)
    assert {read_record_at(generated, before).type for before, _ in anywhere} != {"response"}


def test_bad_split_point_falls_back(generated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A split point that is not a record start (the piece before it overruns it) is caught."""
    options = IndexOptions()
    one = _write(generated, options, 1)
    before, at = split_points(str(generated), 2, options, min_size=0)[0]
    monkeypatch.setattr(_split, "split_points", lambda *a, **k: [(before, at + 1)])
    assert _write(generated, options, 2) == one
    monkeypatch.setattr(_split, "split_points", lambda *a, **k: [(before + 1, at)])
    assert _write(generated, options, 2) == one


def test_small_or_plain_files_are_not_split(generated: Path, tmp_path: Path) -> None:
    assert split_points(str(generated), 2, IndexOptions()) == []  # below MIN_SPLIT_SIZE
    import gzip

    plain = tmp_path / "plain.warc"
    plain.write_bytes(gzip.decompress(generated.read_bytes()))
    assert split_points(str(plain), 2, IndexOptions(), min_size=0) == []
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(gzip.compress(plain.read_bytes()))
    assert split_points(str(whole), 2, IndexOptions(), min_size=0) == []


def _multi_member_files() -> list[Path]:
    if not CORPUS.exists():
        return []
    return sorted(CORPUS.rglob("*.warc.gz"))


@pytest.mark.parametrize("path", _multi_member_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_file_split(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every corpus file cut in up to four pieces indexes like the whole file; a damaged
    one fails with the whole file's error, at its offset, with or without workers."""
    monkeypatch.setattr(_split, "MIN_SPLIT_SIZE", 0)
    for fmt in ("cdx", "cdxj"):
        options = IndexOptions(format=fmt)  # type: ignore[arg-type]
        points = split_points(str(path), 4, options, min_size=0)
        try:
            whole = list(index_file(path, options))
        except WarckitError as exc:
            expected = (type(exc), exc.offset)
            for jobs in (1, 4):
                with pytest.raises(WarckitError) as got:
                    _write(path, options, jobs)
                assert (type(got.value), got.value.offset) == expected, jobs
            with pytest.raises(WarckitError) as got:
                _pieces(path, options, points)
            assert (type(got.value), got.value.offset) == expected
            continue
        assert _pieces(path, options, points) == whole


def test_tasks_cover_the_file(generated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_split, "MIN_SPLIT_SIZE", 0)
    tasks = _build._tasks([str(generated)], IndexOptions(), 2)
    assert len(tasks) == 2
    assert tasks[0][1:3] == (0, 0) and tasks[0][3] == tasks[1][2] and tasks[1][1] < tasks[1][2]
    assert tasks[1][3] is None
    assert _build._tasks([str(generated)], IndexOptions(lenient=True), 2) == [(str(generated), 0, 0, None)]


@pytest.mark.parametrize("failing", ["child", "parent"])
def test_failed_piece_is_reindexed(generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   failing: str) -> None:
    """A piece whose process fails (the forked child's or this one's) is indexed again here."""
    import os

    options = IndexOptions()
    one = _write(generated, options, 1)
    monkeypatch.setattr(_split, "MIN_SPLIT_SIZE", 0)
    parent = os.getpid()
    real = _build._index_into
    failed = tmp_path / "failed"

    def flaky(name, path, options, read_from, start, end):  # type: ignore[no-untyped-def]
        here = "parent" if os.getpid() == parent else "child"
        if here == failing:
            failed.write_text(f"{here} {start}")  # (a child's memory is its own)
            raise RuntimeError("piece failed")
        return real(name, path, options, read_from, start, end)

    monkeypatch.setattr(_build, "_index_into", flaky)
    tasks = _build._tasks([str(generated)], options, 2)
    assert len(tasks) == 2
    assert _write(generated, options, 2) == one
    # The first piece runs in the child, the last one here.
    assert failed.read_text() == f"{failing} {tasks[0][2] if failing == 'child' else tasks[1][2]}"


def test_parallel_unsorted_output_counts_its_lines(generated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces are copied in blocks of whole lines; the count is still the number of lines."""
    monkeypatch.setattr(_split, "MIN_SPLIT_SIZE", 0)
    outs = []
    for jobs in (1, 2):
        out = io.BytesIO()
        count = write_index([generated], out, IndexOptions(), jobs=jobs)
        outs.append((count, out.getvalue()))
    assert outs[0] == outs[1]
    assert outs[0][0] == outs[0][1].count(b"\n") - 1 == 86  # the header line is not counted


@pytest.mark.parametrize("o_tmpfile", [True, False])
def test_forked_pieces_use_anonymous_files(generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           o_tmpfile: bool) -> None:
    """The pieces' files have no name (Linux's O_TMPFILE, else mkstemp's file unlinked at
    once): the temporary directory stays empty while and after they are written, and the
    output is the one-process output."""
    import os

    one = _write(generated, IndexOptions(), 1)
    monkeypatch.setattr(_split, "MIN_SPLIT_SIZE", 0)
    if not o_tmpfile:
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    seen: list[list[str]] = []
    real = _build._index_into

    def watched(piece, path, options, read_from, start, end):  # type: ignore[no-untyped-def]
        assert isinstance(piece, int)
        seen.append(os.listdir(tmp))
        return real(piece, path, options, read_from, start, end)

    monkeypatch.setattr(_build, "_index_into", watched)
    out = io.BytesIO()
    write_index([generated], out, IndexOptions(), jobs=2, tmpdir=str(tmp))
    assert out.getvalue() == one
    assert seen and seen[-1] == [] and os.listdir(tmp) == []
    fd = _build._anonymous_file(str(tmp))
    try:
        assert os.listdir(tmp) == [] and os.fstat(fd).st_nlink == 0
    finally:
        os.close(fd)
