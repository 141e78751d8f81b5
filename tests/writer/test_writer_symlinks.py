"""Symlinks planted at the names warckit writes to never redirect its output.

Every temporary and ``.open`` file is created exclusively (``O_CREAT|O_EXCL|
O_NOFOLLOW``): a symlink at a temporary name leaves its target untouched, and the
writer takes another name or fails clearly.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from corpus_paths import corpus_path

import warckit
from warckit.cdx.sort import sort_file
from warckit.cdx.zipnum import write_zipnum
from warckit.cli import main
from warckit.io import atomic as _atomic
from warckit.tools.recompress import recompress
from warckit.write.guided import WarcWriter

SECRET = b"precious data outside the output directory\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the output directory that a planted symlink points to."""
    target = tmp_path / "elsewhere" / "precious.txt"
    target.parent.mkdir()
    target.write_bytes(SECRET)
    return target


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    d = tmp_path / "out"
    d.mkdir()
    return d


def _plant(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


def _untouched(target: Path, *links: Path) -> None:
    assert target.read_bytes() == SECRET
    for link in links:
        assert link.is_symlink() and os.readlink(link) == str(target)


def test_create_exclusive_refuses_symlinks(out_dir: Path, outside: Path) -> None:
    live = _plant(out_dir / "live", outside)
    dangling = _plant(out_dir / "dangling", out_dir / "missing")
    for link in (live, dangling):
        with pytest.raises(FileExistsError):
            _atomic.create_exclusive(link)
    assert not (out_dir / "missing").exists()
    _untouched(outside, live)


def test_replacing_takes_another_temporary_name(out_dir: Path, outside: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    out = out_dir / "index.cdx"
    tokens = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(_atomic, "_token", lambda: next(tokens))
    link = _plant(out_dir / "index.cdx.aaaaaaaa.tmp", outside)
    old = _plant(out_dir / "index.cdx.tmp", outside)  # the name used before
    with _atomic.replacing(out) as fh:
        fh.write(b"new\n")
    assert out.read_bytes() == b"new\n" and not out.is_symlink()
    _untouched(outside, link, old)
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "index.cdx", "index.cdx.aaaaaaaa.tmp", "index.cdx.tmp"]
    # Every name taken: a clear error, nothing written anywhere.
    monkeypatch.setattr(_atomic, "_token", lambda: "aaaaaaaa")
    with pytest.raises(FileExistsError, match="no free temporary name"), \
            _atomic.replacing(out) as fh:
        fh.write(b"never\n")
    assert out.read_bytes() == b"new\n"
    _untouched(outside, link)


@pytest.mark.parametrize("command", ["index", "index-sort", "merge", "sort_file"])
def test_index_and_merge_outputs(out_dir: Path, outside: Path, command: str) -> None:
    warc = str(corpus_path("pywb/example.warc.gz"))
    out = out_dir / "all.cdx"
    links = [_plant(out_dir / f"all.cdx{suffix}", outside) for suffix in (".tmp", ".sorting")]
    if command == "index":
        assert main(["index", "-o", str(out), warc]) == 0
    elif command == "index-sort":
        assert main(["index", "--sort", "-o", str(out), warc]) == 0
    elif command == "merge":
        part = out_dir / "part.cdx"
        assert main(["index", "--sort", "-o", str(part), warc]) == 0
        assert main(["merge", "-o", str(out), str(part)]) == 0
    else:
        part = out_dir / "part.cdx"
        assert main(["index", "-o", str(part), warc]) == 0
        sort_file(part, out)
    _untouched(outside, *links)
    text = out.read_text()
    assert text.count("\n") == 4 and "com,example,)/" in text
    leftovers = {p.name for p in out_dir.iterdir()} - {"all.cdx", "part.cdx"}
    assert leftovers == {"all.cdx.tmp", "all.cdx.sorting"}


def test_zipnum_outputs(out_dir: Path, outside: Path) -> None:
    base = out_dir / "idx"
    planted = [_plant(out_dir / name, outside)
               for name in ("idx.cdx.gz.tmp", "idx.idx.tmp", "idx.loc.tmp", "idx.loc")]
    lines = [f"com,example)/{i:03d} 20240101000000 x\n" for i in range(50)]
    paths = write_zipnum(lines, base, block_lines=10)
    _untouched(outside, *planted[:3])
    # The final name is replaced (as any output is), never written through.
    assert not Path(paths.loc).is_symlink()
    assert Path(paths.loc).read_text() == "idx\tidx.cdx.gz\n"
    assert Path(paths.idx).read_text().count("\n") == 5


def test_recompress_output(out_dir: Path, outside: Path) -> None:
    src = corpus_path("pywb/example.warc.gz")
    dst = out_dir / "copy.warc.gz"
    link = _plant(out_dir / f"copy.warc.gz.{os.getpid()}.tmp", outside)  # the name used before
    stats = recompress(src, dst)
    assert stats.records > 0
    _untouched(outside, link)
    assert [r.record_id for r in warckit.open(dst)] == [r.record_id for r in warckit.open(src)]


def test_open_file_names(out_dir: Path, outside: Path) -> None:
    """A symlink (live or dangling) at the next ``.open`` name, or a file at the next
    final name: the writer takes the next serial number."""
    links = [_plant(out_dir / "W-00000.warc.gz.open", outside),
             _plant(out_dir / "W-00001.warc.gz.open", out_dir / "missing")]
    (out_dir / "W-00002.warc.gz").write_bytes(b"someone else's\n")
    with WarcWriter(out_dir, prefix="W", template="{prefix}-{serial:05d}{ext}", fsync=False) as w:
        rec = w.resource("file:///a", b"a", content_type="text/plain")
    assert Path(rec.path).name == "W-00003.warc.gz"
    _untouched(outside, links[0])
    assert links[1].is_symlink() and not (out_dir / "missing").exists()
    assert (out_dir / "W-00002.warc.gz").read_bytes() == b"someone else's\n"
    assert [r.type for r in warckit.open(rec.path)] == ["warcinfo", "resource"]
