"""The conventions every ``warckit`` subcommand shares (issue 12, "one consistent command line").

Exit status 0/1/2, one error line ``warckit CMD: error: SOURCE, offset N: message`` and
no traceback, ``-`` for standard input, directories of WARC/ARC files, ``-o``/``--out-dir``/
``--force``, help text with defaults, compact JSON. Inputs are built from
``examples/sample.warc.gz`` so that these tests need no corpus.
"""

from __future__ import annotations

import argparse
import os
import gzip
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import child
import pytest

from warckit.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample.warc.gz"
SAMPLE_SIZE = 2114  # bytes of examples/sample.warc.gz: where appended garbage starts
SAMPLE_LS = [
    "0\t318\twarcinfo\t2026-11-30T09:00:00.000000Z\t-",
    "318\t289\trequest\t2026-11-30T09:00:00.000001Z\thttps://example.com/",
    "607\t402\tresponse\t2026-11-30T09:00:00.000002Z\thttps://example.com/",
    "1009\t294\trequest\t2026-11-30T09:00:00.000003Z\thttps://example.com/about",
    "1303\t409\tresponse\t2026-11-30T09:00:00.000004Z\thttps://example.com/about",
    "1712\t402\trevisit\t2026-11-30T09:00:00.000005Z\thttps://example.com/",
]
ERROR_LINE = re.compile(r"warckit (?P<cmd>[a-z0-9]+(?: [a-z]+)?): error: (?P<rest>\S.*)")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """A good WARC, damaged inputs of every kind, and a sorted index of the good WARC."""
    good = tmp_path / "sample.warc.gz"
    shutil.copyfile(SAMPLE, good)
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(SAMPLE.read_bytes() + b"GARBAGE that is not a record\r\n")
    arc_head = (b"filedesc://x.arc 0.0.0.0 20140101000000 text/plain 76\n1 0 test\n"
                b"URL IP-address Archive-date Content-type Archive-length\n\n")
    bad_arc = tmp_path / "bad.arc"
    bad_arc.write_bytes(arc_head + b"http://a.com/ 1.2.3.4 20140101000000 text/html 500\nshort")
    bad_cdx = tmp_path / "bad.cdx"
    bad_cdx.write_bytes(b"\x1f\x8b not an index\n")
    bad_log = tmp_path / "bad.crawl.log"
    bad_log.write_text("not a crawl log line\n")
    bad_db = tmp_path / "bad.db"
    bad_db.write_bytes(b"this is not sqlite" * 100)
    index = tmp_path / "sample.cdx"
    assert main(["index", "--sort", "-o", str(index), str(good)]) == 0
    out = tmp_path / "out"
    out.mkdir()
    return {"good": str(good), "bad": str(bad), "bad_arc": str(bad_arc), "bad_cdx": str(bad_cdx),
            "bad_log": str(bad_log), "bad_db": str(bad_db), "index": str(index),
            "out": str(out), "missing": str(tmp_path / "missing.warc.gz"),
            "tmp": str(tmp_path)}


def _error(capsys: pytest.CaptureFixture[str], command: str) -> str:
    """What follows ``warckit CMD: error:`` on the one line of stderr; fails on anything
    else (a traceback, two lines)."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    match = ERROR_LINE.fullmatch(lines[0])
    assert match is not None, lines[0]
    assert match["cmd"] == command
    return match["rest"]


# Every subcommand (dedup per action): arguments reading a missing file.
MISSING = {
    "ls": ["{missing}"],
    "extract": ["{missing}", "0"],
    "check": ["{missing}"],
    "index": ["{missing}"],
    "merge": ["{missing}"],
    "query": ["{missing}", "http://example.com/"],
    "recompress": ["{missing}", "-o", "{tmp}/r.warc.gz"],
    "arc2warc": ["{missing}", "--out-dir", "{out}"],
    "crawllog2warc": ["{missing}", "--out-dir", "{out}"],
    "dedup build": ["{tmp}/new.db", "--from", "{missing}"],
    "dedup lookup": ["{missing}", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    "dedup apply": ["{missing}", "{tmp}/new.db", "--out-dir", "{out}"],
    "wacz create": ["-o", "{tmp}/new.wacz", "{missing}"],
    "wacz validate": ["{missing}"],
    "serve": ["web={missing}"],
}

# Damaged input: (arguments, source key, offset or None).
DAMAGED = {
    "ls": (["{bad}"], "bad", SAMPLE_SIZE),
    "extract": (["{good}", "2000"], "good", 2000),  # not a record start
    "index": (["{bad}"], "bad", SAMPLE_SIZE),
    "merge": (["{bad_cdx}", "{index}"], "bad_cdx", 0),
    "query": (["{bad_cdx}", "http://example.com/"], "bad_cdx", 0),
    "recompress": (["{bad}", "-o", "{tmp}/r.warc.gz"], "bad", SAMPLE_SIZE),
    "arc2warc": (["{bad_arc}", "--out-dir", "{out}"], "bad_arc", 130),
    "crawllog2warc": (["{bad_log}", "--out-dir", "{out}"], "bad_log", 0),
    "dedup build": (["{tmp}/new.db", "--from", "{bad}"], "bad", SAMPLE_SIZE),
    "dedup lookup": (["{bad_db}", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], "bad_db", None),
    "dedup apply": (["{bad}", "{tmp}/new.db", "--out-dir", "{out}"], "bad", SAMPLE_SIZE),
    "wacz create": (["-o", "{tmp}/new.wacz", "{bad}"], "bad", SAMPLE_SIZE),
    "serve": (["web={bad_cdx}", "--port", "0"], "bad_cdx", 0),
    # a CA file that is no PEM certificate and key: refused before the port is taken
    "proxy": (["--out-dir", "{out}", "--port", "0", "--ca-cert", "{bad_cdx}"], "bad_cdx", None),
}

# A usage error for each: (arguments, a fragment of the message).
USAGE = {
    "ls": (["--type", "bogus", "{good}"], "unknown record type(s) bogus"),
    "extract": (["{good}", "607", "--decode"], "--decode needs --payload"),
    "check": (["-j", "0", "{good}"], "--jobs must be at least 1"),
    "index": (["-f", "bogus", "{good}"], "argument -f/--format: invalid choice"),
    "merge": (["--max-memory", "lots", "{index}"], "argument --max-memory: invalid int"),
    "query": (["--status", "abc", "{index}", "http://example.com/"], "3-digit HTTP status"),
    "surt": (["--style", "bogus", "x"], "argument --style: invalid choice"),
    "recompress": (["--compression", "bogus", "{good}"], "invalid choice"),
    "arc2warc": (["{bad_arc}"], "required: --out-dir"),
    "crawllog2warc": (["{bad_log}", "--max-bytes", "1GB", "--out-dir", "{out}"],
                      "argument --max-bytes: invalid int"),
    "dedup build": (["{tmp}/new.db"], "required: --from"),
    "dedup lookup": (["{tmp}/new.db"], "required: DIGEST"),
    "dedup apply": (["{good}", "{tmp}/new.db"], "required: --out-dir"),
    "wacz create": (["{good}"], "required: -o/--output"),
    "wacz validate": ([], "required: FILE.wacz"),
    "serve": (["bogus"], "expected NAME=VALUE"),
    "proxy": (["--port", "99999", "--out-dir", "{out}"], "--port 99999: want 0-65535"),
}


def _argv(command: str, args: list[str], files: dict[str, str]) -> list[str]:
    return [*command.split(), *(a.format(**files) for a in args)]


def test_every_command_is_covered() -> None:
    commands = set(COMMANDS) - {"dedup", "wacz"} | {"dedup build", "dedup lookup", "dedup apply",
                                                   "wacz create", "wacz validate"}
    assert set(USAGE) == commands
    # serve: a missing index is a usage error, damage is tested in tests/serve/test_cli_serve.py;
    # proxy creates its CA and dedup files when missing
    assert set(MISSING) | {"surt", "serve", "proxy"} == commands
    # check and wacz validate report; surt reads no file
    assert set(DAMAGED) | {"check", "surt", "wacz validate", "serve"} == commands


@pytest.mark.parametrize("command", sorted(MISSING))
def test_missing_file(command: str, files: dict[str, str],
                      capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(_argv(command, MISSING[command], files)) == 1
    assert _error(capsys, command) == f"{files['missing']}: No such file or directory"


@pytest.mark.parametrize("command", sorted(DAMAGED))
def test_damaged_input(command: str, files: dict[str, str],
                       capsys: pytest.CaptureFixture[str]) -> None:
    args, source, offset = DAMAGED[command]
    capsys.readouterr()
    assert main(_argv(command, args, files)) == 1
    where = files[source] if offset is None else f"{files[source]}, offset {offset}"
    rest = _error(capsys, command)
    assert rest.startswith(f"{where}: ") and not rest.startswith(f"{where}: {where}"), rest


def test_check_reports_damage_on_stdout(files: dict[str, str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", files["bad"]]) == 1
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.splitlines() == [
        f"{files['bad']}: ERRORS (6 records, 1 errors, 0 warnings)",
        (f"  offset {SAMPLE_SIZE}: error: trailing-garbage: bytes after the last gzip member "
         "are not gzip"),
    ]


def test_surt_bad_url_is_damaged_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["surt", "http://a.org:99999/"]) == 1
    assert _error(capsys, "surt").startswith("argument 1: bad port '99999'")


@pytest.mark.parametrize("command", sorted(USAGE))
def test_usage_error(command: str, files: dict[str, str],
                     capsys: pytest.CaptureFixture[str]) -> None:
    args, fragment = USAGE[command]
    capsys.readouterr()
    assert main(_argv(command, args, files)) == 2
    assert fragment in _error(capsys, command)


def test_errors_in_a_real_process_have_no_traceback(files: dict[str, str]) -> None:
    env = child.env()
    for argv, code in ((["ls", files["bad"]], 1), (["ls", "--type", "bogus", files["good"]], 2),
                       (["dedup", "lookup", files["bad_db"], "sha1:AA"], 1)):
        result = subprocess.run(child.warckit_cli(*argv), env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert result.returncode == code
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert ERROR_LINE.fullmatch(result.stderr.strip()), result.stderr


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    found = [("warckit", build_parser())]
    for _, parser in found:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.extend((sub.prog, sub) for sub in action.choices.values())
    return found


def test_help_documents_exit_status_and_every_option() -> None:
    parsers = _parsers()
    assert {prog for prog, _ in parsers} >= {f"warckit {c}" for c in COMMANDS}
    for prog, parser in parsers:
        text = parser.format_help()
        assert "Exit status: 0 success; 1 damaged or unreadable input, or a failed check; " \
               "2 usage error; 130/143 stopped by SIGINT/SIGTERM." in " ".join(text.split()), prog
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
                continue
            assert action.help, f"{prog} {action.option_strings or action.dest}: no help"
            typed = action.type is int and action.option_strings
            if typed and action.default is not None:
                # A number: its default is shown (by the formatter or the text itself).
                assert "default" in (parser._get_formatter()._get_help_string(action) or "")


def _help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main([command, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_max_bytes_help_names_unit_and_default(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("arc2warc", "crawllog2warc"):
        assert "--max-bytes BYTES start a new output file once one reaches this size, in " \
               "bytes (default: 1000000000, 1 GB)" in _help(command, capsys)


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_dash_reads_stdin_through_a_pipe(files: dict[str, str]) -> None:
    env = child.env()
    data = SAMPLE.read_bytes()
    for argv, expected in ((["ls", "-"], "\n".join(SAMPLE_LS) + "\n"),
                           (["check", "-"], "-: ok (6 records, 0 errors, 0 warnings)\n")):
        result = subprocess.run(child.warckit_cli(*argv), env=env, input=data,
                                capture_output=True, timeout=120, check=False)
        assert (result.returncode, result.stdout.decode()) == (0, expected), result.stderr
    bad = Path(files["bad"]).read_bytes()
    result = subprocess.run(child.warckit_cli("index", "-"), env=env, input=bad,
                            capture_output=True, text=False, timeout=120, check=False)
    assert result.returncode == 1
    assert result.stderr.decode().startswith(f"warckit index: error: -, offset {SAMPLE_SIZE}: ")


def test_dash_for_index_extract_merge_query(files: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                                            capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    data = SAMPLE.read_bytes()
    capsysbinary.readouterr()
    _stdin(monkeypatch, data)
    assert main(["index", "--sort", "-"]) == 0
    from_stdin = capsysbinary.readouterr().out
    assert main(["index", "--sort", files["good"]]) == 0
    from_file = capsysbinary.readouterr().out
    # The filename column names the stdin spool "stdin"; everything else is the same.
    assert from_stdin == from_file.replace(b" sample.warc.gz ", b" stdin ")
    assert from_stdin.count(b" stdin ") == 3  # two responses and a revisit

    _stdin(monkeypatch, data)
    assert main(["extract", "-", "607", "--payload"]) == 0
    payload = capsysbinary.readouterr().out
    assert main(["extract", files["good"], "607", "--payload"]) == 0
    assert payload == capsysbinary.readouterr().out and len(payload) == 60

    index = Path(files["index"]).read_bytes()
    _stdin(monkeypatch, index)
    assert main(["merge", "-"]) == 0
    assert capsysbinary.readouterr().out == index
    _stdin(monkeypatch, index)
    assert main(["query", "-", "https://example.com/about"]) == 0
    lines = capsysbinary.readouterr().out.splitlines()
    assert [line.split(b" ")[6] for line in lines] == [b"1303"]
    capsys = capsysbinary
    assert main(["merge", "-", "-"]) == 2  # standard input is read once
    assert capsys.readouterr().err == b"warckit merge: error: standard input ('-') can be " \
        b"read only once\n"


def test_directory_arguments(files: dict[str, str], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    shutil.copyfile(SAMPLE, tree / "b.warc.gz")
    (tree / "sub" / "a.warc").write_bytes(gzip.decompress(SAMPLE.read_bytes()))
    (tree / "notes.txt").write_text("not an archive")
    expected = [str(tree / "b.warc.gz"), str(tree / "sub" / "a.warc")]
    capsys.readouterr()

    assert main(["ls", str(tree)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == [expected[0]] * 6 + [expected[1]] * 6
    assert lines[2] == f"{expected[0]}\t{SAMPLE_LS[2]}"
    assert lines[8].split("\t")[1:4] == ["905", "676", "response"]  # offsets of the plain copy

    assert main(["check", str(tree)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{expected[0]}: ok (6 records, 0 errors, 0 warnings)",
        f"{expected[1]}: ok (6 records, 0 errors, 0 warnings)",
        "2 files checked, 0 with errors",
    ]
    assert main(["index", "--no-header", "-t", "response", str(tree)]) == 0
    rows = [line.split(" ") for line in capsys.readouterr().out.splitlines()]
    assert [(r[5], r[6]) for r in rows] == [("b.warc.gz", "607"), ("b.warc.gz", "1303"),
                                            ("a.warc", "905"), ("a.warc", "2029")]

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["ls", str(empty)]) == 2
    assert _error(capsys, "ls").startswith(f"{empty}: no WARC/ARC files")


def test_ls_of_several_files_names_the_file(files: dict[str, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["ls", files["good"]]) == 0
    assert capsys.readouterr().out.splitlines() == SAMPLE_LS
    assert main(["ls", "--type", "revisit", files["good"], files["good"]]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{files['good']}\t{SAMPLE_LS[5]}"] * 2
    assert main(["ls", "--type", "request,revisit", files["good"]]) == 0
    assert [line.split("\t")[2] for line in capsys.readouterr().out.splitlines()] == [
        "request", "request", "revisit"]


def test_force_is_needed_to_overwrite(files: dict[str, str], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    existing = tmp_path / "existing"
    cases = {
        "index": ["index", "-o", str(existing), files["good"]],
        "merge": ["merge", "-o", str(existing), files["index"]],
        "recompress": ["recompress", files["good"], "-o", str(existing)],
        "extract": ["extract", files["good"], "607", "-o", str(existing)],
    }
    capsys.readouterr()
    for command, argv in cases.items():
        existing.write_bytes(b"keep me")
        assert main(argv) == 2, command
        assert _error(capsys, command) == f"{existing}: exists (use --force to overwrite)"
        assert existing.read_bytes() == b"keep me"
        assert main([*argv, "--force"]) == 0, command
        assert existing.read_bytes() != b"keep me"
        capsys.readouterr()
    record = existing.read_bytes()  # extract -o: the record as stored, uncompressed
    assert record.startswith(b"WARC/1.1\r\nWARC-Type: response\r\n")
    assert len(record) == 676 and record.endswith(b"\r\n\r\n")  # as `ls` of the plain copy


def test_old_option_spellings_still_work(files: dict[str, str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.warc.gz"
    assert main(["recompress", files["good"], str(out)]) == 0  # positional OUT
    assert main(["recompress", files["good"], str(out)]) == 2
    assert main(["recompress", files["good"], str(out), "-o", str(out)]) == 2
    extracted = tmp_path / "x"
    assert main(["extract", "--all", files["good"], "--out", str(extracted)]) == 0
    assert (extracted / "manifest.csv").is_file()
    db = tmp_path / "d.db"
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    assert main(["dedup", "apply", files["good"], str(old), str(db)]) == 0  # IN OUT DB
    assert main(["dedup", "apply", files["good"], str(db), "--out-dir", str(new)]) == 0
    assert len(list(old.iterdir())) == len(list(new.iterdir())) == 1
    assert "--out-dir DIR" in _help("arc2warc", capsys)
    assert "--out " not in _help("arc2warc", capsys)  # the old spelling is hidden


def test_query_usage_errors(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    index = files["index"]
    capsys.readouterr()
    cases = [
        (["--status", "2000"], "--status must be a 3-digit HTTP status, not '2000'"),
        (["--from", "2015", "--to", "2014"], "--from 2015 is after --to 2014"),
        (["--from", "garbage"], "--from: not a timestamp: 'garbage'"),
        (["--limit", "0"], "--limit must be at least 1, not 0"),
    ]
    for options, message in cases:
        assert main(["query", *options, index, "https://example.com/"]) == 2
        assert _error(capsys, "query") == message
    for url in ("http://[bad/", "not a url", "http:///path"):
        assert main(["query", index, url]) == 2
        assert _error(capsys, "query").startswith(f"not a URL: {url!r}")
    # Options before the URL (argparse stops a positional list at the first option).
    assert main(["query", index, "--from", "2026", "https://example.com/"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    # No match: nothing printed, exit status 1.
    assert main(["query", index, "https://example.com/nothing"]) == 1
    assert capsys.readouterr() == ("", "")


def test_json_is_compact(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    db = Path(files["tmp"]) / "j.db"
    assert main(["dedup", "build", str(db), "--from", files["good"]]) == 0
    digest = "sha1:KBAKAKHDXMR7T7GKLHP6XKWNAK23U5E6"
    capsys.readouterr()
    outputs = []
    for argv in (["ls", "--json", files["good"]], ["check", "--json", files["good"]],
                 ["query", "--json", files["index"], "https://example.com/"],
                 ["dedup", "lookup", str(db), digest]):
        assert main(argv) == 0, argv
        outputs.append(capsys.readouterr().out)
    for out in outputs:
        for line in out.splitlines():
            value = json.loads(line)
            assert line == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert json.loads(outputs[3])["record_id"] == "<urn:uuid:00000000-0000-0000-0000-00005a3b1e02>"


def test_unsorted_index_error_has_the_one_line_format(files: dict[str, str], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    unsorted = tmp_path / "unsorted.cdx"
    assert main(["index", "-o", str(unsorted), files["good"]]) == 0
    capsys.readouterr()
    for argv in (["query", str(unsorted), "https://example.com/"], ["merge", str(unsorted)]):
        assert main(argv) == 1
        assert _error(capsys, argv[0]).startswith(
            f"{unsorted}, offset 0: line 1: the header says the index is unsorted")


@pytest.mark.parametrize("args", [["--version"], ["index", str(SAMPLE)], ["ls", str(SAMPLE)],
                                  ["surt", "http://example.com/a"], ["check", "--no-progress", str(SAMPLE)],
                                  ["extract", str(SAMPLE), "0"]])
def test_output_into_a_closed_pipe_is_not_an_error(args: list[str]) -> None:
    """``warckit ... | head -1``: the reader went away; exit 0, no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # (every write now fails with EPIPE)
    try:
        done = subprocess.run(child.warckit_cli(*args), env=child.env(PYTHONUNBUFFERED="1"),
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")
