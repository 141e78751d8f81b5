"""The corpus, indexed by warckit in every format, through the store.

``warckit index -f cdxj`` lines are stored byte for byte (their keys already are
``cdx_key(url)``); the CDX-11, CDX-9 and new-style lines of the same records name the
same captures (a delete batch in each of them removes every stored line).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_paths import CORPUS

from warckit.cdx import IndexOptions, index_file
from warckit.cdx.formats import FormatName
from warckit.errors import WarckitError
from warckit.serve.store import CdxStore

SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")


def _corpus_lines(fmt: FormatName) -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.name.endswith(SUFFIXES):
            continue
        # the path as file name: files of the same name in two folders are two files;
        # warc-fields metadata left out in every format (the pywb formats' default)
        opts = IndexOptions(format=fmt, lenient=True, filename=str(path.relative_to(CORPUS)),
                            skip_warc_fields=True)
        try:
            lines += [(line + "\n").encode() for line in index_file(path, opts)]
        except (WarckitError, OSError):
            continue
    return lines


@pytest.fixture(scope="module")
def corpus_lines() -> dict[str, list[bytes]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    return {fmt: _corpus_lines(fmt) for fmt in ("cdxj", "cdx11", "cdx9", "cdx")}


def _storable(line: bytes) -> bool:
    key, ts = line.split(b" ", 2)[:2]
    return key != b"-" and ts != b"-"


def test_warckit_cdxj_is_stored_byte_for_byte(corpus_lines: dict[str, list[bytes]],
                                              tmp_path: Path) -> None:
    lines = corpus_lines["cdxj"]
    kept = [line for line in lines if _storable(line)]
    assert len(kept) > 1000 and any(b"__wb_method=post" in line for line in kept)
    with CdxStore(tmp_path / "c.sqlite") as store:
        result = store.add(lines, bad_lines="skip")
        assert result.count == len(kept)
        # only lines without a URL or a date are left out, and each is reported
        assert len(result.skipped) == len(lines) - len(kept)
        assert all(r.startswith(("missing URL", "missing timestamp")) for _, r in result.skipped)
        assert list(store.iter_prefix(b"")) == sorted(set(kept))


@pytest.mark.parametrize("fmt", ["cdx11", "cdx9", "cdx"])
def test_other_formats_name_the_same_captures(corpus_lines: dict[str, list[bytes]], fmt: str,
                                              tmp_path: Path) -> None:
    with CdxStore(tmp_path / "c.sqlite") as store:
        stored = store.add(corpus_lines["cdxj"], bad_lines="skip").count
        stored = len(list(store.iter_prefix(b"")))
        removed = store.delete(corpus_lines[fmt], bad_lines="skip")
        assert removed.count == stored
        assert list(store.iter_prefix(b"")) == []
        # and added in that format, they are as many, under the same keys and timestamps
        store.add(corpus_lines[fmt], bad_lines="skip")
        heads = [line.split(b" ", 2)[:2] for line in store.iter_prefix(b"")]
        want = sorted({tuple(line.split(b" ", 2)[:2]) for line in corpus_lines["cdxj"]
                       if _storable(line)})
        assert sorted(set(map(tuple, heads))) == want


def test_pywb_reads_every_stored_line(corpus_lines: dict[str, list[bytes]], tmp_path: Path) -> None:
    cdxobject = pytest.importorskip("pywb.warcserver.index.cdxobject")
    with CdxStore(tmp_path / "c.sqlite") as store:
        for fmt in ("cdx11", "cdx9", "cdx"):
            store.add(corpus_lines[fmt], bad_lines="skip")
        lines = list(store.iter_prefix(b""))
    assert len(lines) > 1000
    for line in lines:
        cdx = cdxobject.CDXObject(line)
        key, ts = line.split(b" ", 2)[:2]
        assert (cdx["urlkey"].encode(), cdx["timestamp"].encode()) == (key, ts)
        assert cdx["filename"] and cdx["offset"].isdigit() and cdx["url"]
