"""An unsorted index never gives a wrong answer: query and merge refuse it (issue 12).

``warckit index F -o x.cdx`` writes lines in WARC order; a binary search over them used
to find nothing for a URL with 16 captures, and ``merge`` wrote an unsorted file.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from corpus_paths import corpus_path

from warckit.cdx import (
    NEW_STYLE_HEADER,
    NEW_STYLE_UNSORTED_HEADER,
    IndexOptions,
    merge_sorted,
    query,
    write_index,
)
from warckit.cdx.query import Index
from warckit.cli import main
from warckit.errors import UnsortedIndexError

query_module = sys.modules["warckit.cdx.query"]  # warckit.cdx.query is also the function

IANA = "pywb/iana.warc.gz"
CSS = "http://www.iana.org/_css/2013.1/screen.css"  # 16 captures in iana.warc.gz


def _index(tmp_path: Path, *args: str, name: str = "x.cdx") -> Path:
    out = tmp_path / name
    assert main(["index", "-j", "1", *args, "-o", str(out), str(corpus_path(IANA))]) == 0
    return out


def test_index_header_says_whether_sorted(tmp_path: Path) -> None:
    unsorted = _index(tmp_path)
    assert unsorted.read_text("utf-8").splitlines()[0] == NEW_STYLE_UNSORTED_HEADER
    ordered = _index(tmp_path, "--sort", name="s.cdx")
    assert ordered.read_text("utf-8").splitlines()[0] == NEW_STYLE_HEADER
    out = io.BytesIO()
    write_index([corpus_path(IANA)], out, IndexOptions(), sort=False, progress=False)
    assert out.getvalue().split(b"\n", 1)[0] == NEW_STYLE_UNSORTED_HEADER.encode()


def test_query_refuses_index_whose_header_says_unsorted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = _index(tmp_path)
    assert main(["query", str(x), CSS]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(
        f"warckit query: error: {x}, offset 0: line 1: the header says the index is unsorted")
    assert "warckit merge --unsorted" in captured.err
    with pytest.raises(UnsortedIndexError) as info:
        query(x, CSS)
    assert (info.value.source, info.value.line, info.value.offset) == (str(x), 1, 0)


@pytest.mark.parametrize(
    ("whole", "line", "offset", "key"),
    [
        # Small files are checked whole: the first line out of order.
        (True, 4, 616, "org,iana,www,)/_img/2013.1/icann-logo.svg"),
        # Large files (here: the limit lowered): a line the binary search read.
        (False, 13, 3366, "org,iana,www,)/_js/2013.1/iana.js"),
    ],
)
def test_query_detects_disorder_behind_a_lying_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool, line: int, offset: int, key: str
) -> None:
    if not whole:
        monkeypatch.setattr(query_module, "FULL_CHECK_BYTES", 0)
    x = _index(tmp_path)
    text = x.read_text("utf-8").replace(" unsorted ", " sorted ", 1)
    x.write_text(text, "utf-8")
    with pytest.raises(UnsortedIndexError) as info:
        query(x, CSS)
    err = info.value
    assert (err.source, err.line, err.offset) == (str(x), line, offset)
    lines = text.encode("utf-8").split(b"\n")
    assert lines[err.line - 1].startswith(key.encode() + b" ")
    assert sum(len(line) + 1 for line in lines[: err.line - 1]) == err.offset
    assert f"not sorted: '{key}" in str(err)


@pytest.mark.parametrize("fmt", ["cdx", "cdxj", "cdx11", "cdx9"])
@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("whole", [True, False])
def test_no_wrong_answer_from_an_unsorted_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, header: bool, whole: bool
) -> None:
    """Every URL of iana.warc.gz, every match type: an unsorted index (with no header, or
    CDXJ / CDX-11 / CDX-9 which carry no sort mark) raises; the sorted one answers.
    Also with the whole-file check off: the lines the binary search reads show it."""
    if not whole:
        monkeypatch.setattr(query_module, "FULL_CHECK_BYTES", 0)
    u, s = tmp_path / "u.txt", tmp_path / "s.txt"
    with open(u, "wb") as out:
        write_index([corpus_path(IANA)], out, IndexOptions(format=fmt), header=header, progress=False)  # type: ignore[arg-type]
    with open(s, "wb") as out:
        write_index([corpus_path(IANA)], out, IndexOptions(format=fmt), sort=True, header=header,  # type: ignore[arg-type]
                    progress=False)
    text = u.read_bytes()
    if header and fmt == "cdx":
        u.write_bytes(text.replace(b" unsorted ", b" ", 1))  # an old header: no claim
    assert len(query(s, CSS)) == 16
    urls = sorted({e.original_url for e in query(s, "iana.org", match="domain")})
    assert len(urls) == 43
    for url in urls:
        for match in ("exact", "prefix", "host", "domain"):
            with pytest.raises(UnsortedIndexError):
                query(Index(u, format=fmt), url, match=match)  # type: ignore[arg-type]


def test_merge_refuses_unsorted_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = _index(tmp_path)
    out = tmp_path / "m.cdx"
    assert main(["merge", str(x), "-o", str(out)]) == 1
    assert capsys.readouterr().err.startswith(
        f"warckit merge: error: {x}, offset 0: line 1: the header says the index is unsorted; "
        "merge it with --unsorted")
    assert not out.exists()
    # A lying header: the first line out of order stops the merge, nothing is written.
    x.write_text(x.read_text("utf-8").replace(" unsorted ", " sorted ", 1), "utf-8")
    assert main(["merge", str(x), "-o", str(out)]) == 1
    assert f"warckit merge: error: {x}, offset 616: line 4: not sorted" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(UnsortedIndexError) as info:
        merge_sorted([x], io.BytesIO())
    assert (info.value.line, info.value.offset) == (4, 616)
    # --unsorted sorts while merging; the result answers the query.
    assert main(["merge", "--unsorted", str(x), "-o", str(out)]) == 0
    assert out.read_text("utf-8").splitlines()[0] == NEW_STYLE_HEADER
    assert len(query(out, CSS)) == 16
    assert main(["query", str(out), CSS]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 16


def test_merge_of_sorted_indexes_still_works(tmp_path: Path) -> None:
    a = _index(tmp_path, "--sort", name="a.cdx")
    out = tmp_path / "m.cdx"
    assert main(["merge", str(a), str(a), "-o", str(out)]) == 0
    lines = out.read_bytes().split(b"\n")[:-1]
    assert lines[0] == NEW_STYLE_HEADER.encode()
    assert len(lines) == 1 + 2 * 171
    assert lines[1:] == sorted(lines[1:])


@pytest.mark.parametrize("whole", [True, False])
def test_blank_lines_are_not_disorder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool) -> None:
    if not whole:
        monkeypatch.setattr(query_module, "FULL_CHECK_BYTES", 0)
    s = _index(tmp_path, "--sort", name="s.cdx")
    s.write_bytes(s.read_bytes() + b"\n\r\n")  # stray blank lines at the end
    assert len(query(s, CSS)) == 16
    assert len(query(s, "iana.org", match="domain")) == 171
    out = io.BytesIO()
    assert merge_sorted([s], out) == 171
