"""``warckit index``, ``warckit merge`` and ``warckit query`` in-process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import child
import pytest
from corpus_paths import corpus_path

from warckit.cdx.formats import CDX11_LEGEND, NEW_STYLE_HEADER
from warckit.cli import main

WARCS = ["pywb/example.warc.gz", "pywb/dupes.warc.gz", "pywb/iana.warc.gz"]


def _paths() -> list[str]:
    return [str(corpus_path(w)) for w in WARCS]


def test_index_sorted_default_format(tmp_path: Path) -> None:
    out = tmp_path / "all.cdx"
    assert main(["index", "--sort", "-o", str(out), *_paths()]) == 0
    lines = out.read_text("utf-8").splitlines()
    assert lines[0] == NEW_STYLE_HEADER
    assert len(lines) == 1 + 3 + 12 + 171
    assert [line.encode() for line in lines[1:]] == sorted(line.encode() for line in lines[1:])


def test_index_parallel_equals_serial(tmp_path: Path) -> None:
    serial, parallel = tmp_path / "s.cdx", tmp_path / "p.cdx"
    assert main(["index", "-f", "cdx11", "-o", str(serial), *_paths()]) == 0
    assert main(["index", "-f", "cdx11", "-j", "2", "-o", str(parallel), *_paths()]) == 0
    assert serial.read_bytes() == parallel.read_bytes()
    assert serial.read_text().splitlines()[0] == CDX11_LEGEND


def test_index_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["index", "-f", "cdxj", str(corpus_path("pywb/example.warc.gz"))]) == 0
    lines = capsysbinary.readouterr().out.decode().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith('com,example)/?example=1 20140103030321 {"url": "http://example.com?example=1"')


def test_index_types_option(tmp_path: Path) -> None:
    out = tmp_path / "x.cdx"
    assert main(["index", "-t", "request,warcinfo", "--no-header", "-o", str(out),
                 str(corpus_path("pywb/example.warc.gz"))]) == 0
    types = [line.split(" ")[4] for line in out.read_text().splitlines()]
    assert types == ["warcinfo", "request", "request"]
    assert main(["index", "-t", "bogus", str(corpus_path("pywb/example.warc.gz"))]) == 2


def test_damaged_file_needs_lenient(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(corpus_path("pywb/example.warc"))
    assert main(["index", "-o", str(tmp_path / "x"), path]) == 1
    assert "error" in capsys.readouterr().err
    assert main(["index", "--lenient", "-o", str(tmp_path / "x"), path]) == 0
    assert len((tmp_path / "x").read_text().splitlines()) == 4


def test_merge_and_query(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    parts = []
    for i, warc in enumerate(_paths()):
        part = tmp_path / f"{i}.cdx"
        assert main(["index", "--sort", "-o", str(part), warc]) == 0
        parts.append(str(part))
    merged = tmp_path / "merged.cdx"
    assert main(["merge", "-o", str(merged), *parts]) == 0
    whole = tmp_path / "whole.cdx"
    assert main(["index", "--sort", "-o", str(whole), *_paths()]) == 0
    assert merged.read_bytes() == whole.read_bytes()
    capsysbinary.readouterr()

    assert main(["query", str(merged), "http://www.iana.org/", "--json"]) == 0
    rows = [json.loads(line) for line in capsysbinary.readouterr().out.splitlines()]
    assert [(r["timestamp"], r["type"], r["filename"]) for r in rows] == [
        ("2014-01-26T20:06:24Z", "response", "iana.warc.gz"),
        ("2014-01-27T17:12:38Z", "revisit", "dupes.warc.gz"),
    ]
    assert main(["query", str(merged), "iana.org", "--match", "domain", "--type", "revisit",
                 "--from", "2014-01-26T20:08", "--to", "20140126200830", "--limit", "2"]) == 0
    out = capsysbinary.readouterr().out.decode().splitlines()
    assert [line.split(" ")[1] for line in out] == ["2014-01-26T20:08:05Z", "2014-01-26T20:08:16Z"]
    assert all(line.startswith("org,iana,www,)/_css/2013.1/fonts/opensans-bold.ttf ") for line in out)
    assert main(["query", str(merged), "http://nothere.example/"]) == 1
    assert main(["query", str(merged)]) == 2
    assert main(["query", str(merged), "http://x/", "--from", "soon"]) == 2


def test_zipnum_cli(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    base = tmp_path / "zn"
    assert main(["index", "-f", "cdx11", "--zipnum", str(base), "--block-lines", "10", *_paths()]) == 0
    assert len((tmp_path / "zn.idx").read_text().splitlines()) == 19  # 186 lines / 10
    assert (tmp_path / "zn.loc").read_text() == "zn\tzn.cdx.gz\n"
    capsysbinary.readouterr()
    assert main(["query", str(tmp_path / "zn.idx"), "http://example.com/?example=1", "--status", "200"]) == 0
    out = capsysbinary.readouterr().out.decode().splitlines()
    assert [line.split(" ")[1] for line in out] == ["20140103030321", "20140103030341"]


def test_subprocess_smoke(tmp_path: Path) -> None:
    out = tmp_path / "x.cdxj"
    result = subprocess.run(
        child.warckit_cli("index", "-f", "cdxj", "-o", str(out), str(corpus_path("pywb/example2.warc.gz"))),
        capture_output=True, text=True, env=child.env(), check=False,
    )
    assert result.returncode == 0, result.stderr
    assert out.read_text().count("\n") == 1


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("command", ["index", "merge", "recompress"])
def test_outputs_that_are_not_regular_files_are_written_in_place(tmp_path: Path, command: str) -> None:
    """``-o /dev/null`` (or a pipe) is written to, never renamed over (regression: the
    ``.tmp`` + rename dance replaced /dev/null with a regular file)."""
    import os
    import stat
    import threading

    src = _paths()[0]  # (may skip: before the reader thread is started)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    if command == "index":
        argv = ["index", "-o", str(fifo), src]
    elif command == "merge":
        index = tmp_path / "a.cdx"
        assert main(["index", "--sort", "-o", str(index), src]) == 0
        argv = ["merge", "-o", str(fifo), str(index)]
    else:
        argv = ["recompress", "--force", src, str(fifo)]
    try:
        code = main(argv)
    finally:
        reader.join(10)
        if reader.is_alive():  # nothing opened the pipe: unblock the waiting reader
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            reader.join(10)
    assert code == 0
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert not list(tmp_path.glob("out.fifo*.tmp"))
    data = got[0]
    if command == "recompress":
        assert data[:2] == b"\x1f\x8b" and len(data) > 1000
    else:
        assert data.count(b"\n") == 4 and b"com,example,)/" in data


def test_failed_output_leaves_the_old_file(tmp_path: Path) -> None:
    from warckit.io.atomic import replacing

    out = tmp_path / "old.cdx"
    out.write_bytes(b"old\n")
    with pytest.raises(RuntimeError), replacing(out) as fh:
        fh.write(b"half")
        raise RuntimeError("boom")
    assert out.read_bytes() == b"old\n" and not (tmp_path / "old.cdx.tmp").exists()
    with replacing(out) as fh:
        fh.write(b"new\n")
    assert out.read_bytes() == b"new\n"


# Exit codes of `warckit merge` on bad input: 1 and a message naming the source
# for damaged input, 2 for a usage error, never a traceback.

_CDX11_A = "com,a)/ 20140101000000 http://a/ text/html 200 AAAA - - 10 0 a.warc"
_CDX11_B = "com,b)/ 20140101000000 http://b/ text/html 200 BBBB - - 10 0 a.warc"


def _merge(tmp_path: Path, capsys: pytest.CaptureFixture[str], *texts: str, args: tuple[str, ...] = ()) -> tuple[int, str, list[Path]]:
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"in{i}.cdx"
        path.write_text(text)
        paths.append(path)
    out = tmp_path / "merged.cdx"
    code = main(["merge", *args, "-o", str(out), *map(str, paths)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err, paths


def test_merge_usage_error_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _merge(tmp_path, capsys, CDX11_LEGEND + "\n" + _CDX11_A + "\n", args=("--bogus",))
    assert code == 2 and "--bogus" in err


def test_merge_of_a_warc_exits_1_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warc = corpus_path("warcio/example.warc")
    good = tmp_path / "good.cdx"
    good.write_text(CDX11_LEGEND + "\n" + _CDX11_A + "\n")
    code = main(["merge", "-o", str(tmp_path / "m.cdx"), str(good), str(warc)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert not (tmp_path / "m.cdx").exists()
    assert err.startswith(f"warckit merge: error: {warc}, offset 0: unknown index format")


def test_query_of_a_gzip_file_names_it_without_its_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    sample = Path(__file__).resolve().parents[2] / "examples" / "sample.warc.gz"
    assert main(["query", str(sample), "http://example.com/"]) == 1
    assert capsys.readouterr().err == (f"warckit query: error: {sample}, offset 0: unknown index "
                                       "format: 'binary data (not a text index)'\n")


def test_merge_mixed_formats_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, _ = _merge(tmp_path, capsys, CDX11_LEGEND + "\n" + _CDX11_A + "\n",
                          'com,b)/ 20140101000000 {"url": "http://b/"}\n')
    assert code == 1 and "cannot merge cdx11 and cdxj" in err


def test_merge_of_a_malformed_line_exits_1_naming_the_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, paths = _merge(tmp_path, capsys, CDX11_LEGEND + "\n" + _CDX11_A + "\n",
                              CDX11_LEGEND + "\n" + _CDX11_B + "\nthis is not a cdx line\n")
    assert code == 1 and str(paths[1]) in err


def test_merge_of_an_unsorted_input_exits_1_naming_the_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err, paths = _merge(tmp_path, capsys, CDX11_LEGEND + "\n" + _CDX11_A + "\n",
                              CDX11_LEGEND + "\n" + _CDX11_B + "\n" + _CDX11_A + "\n")
    assert code == 1 and str(paths[1]) in err
