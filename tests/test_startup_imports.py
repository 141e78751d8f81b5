"""Start-up: what `import warckit`, reading a file and `warckit --version` import.

Not a timing (timings flake): the modules that made a third of a short run's time
(issue #19) must stay off these paths, each checked in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "sample.warc.gz")
#: Reading the sample through, then one record of it by offset.
READ_SAMPLE = (f"import warckit\nwith warckit.open({SAMPLE!r}) as r:\n    n = sum(1 for _ in r)\n"
               f"rec = warckit.read_record_at({SAMPLE!r}, 0)\nrec.raw_stream().read()\nrec.close()")

#: Heavy standard modules none of the paths below needs (each costs 1-12 ms to import).
HEAVY = ("dataclasses", "inspect", "pathlib", "json", "urllib.parse", "ipaddress", "datetime",
         "base64", "platform", "shutil", "argparse", "zipfile", "hashlib", "concurrent.futures",
         "tempfile", "uuid", "email", "http")

#: warckit modules reading a WARC does not need (writing, checking, reassembly, WACZ, URLs).
NOT_FOR_READING = ("warckit.write", "warckit.check", "warckit.cdx", "warckit.url", "warckit.tools",
                   "warckit.read.segments", "warckit.read.wacz", "warckit.io.zipped",
                   "warckit.io.remote", "warckit.record.rules", "warckit.record.payload")


def _imported(code: str) -> set[str]:
    """The modules a fresh interpreter has after running *code* (site's own excepted).

    It imports the warckit this test process imports (CI's installed, compiled one; a
    checkout built in place), not the checkout by way of the current directory.
    """
    import os

    import warckit

    probe = ("import sys\nbefore = set(sys.modules)\n" + code
             + "\nafter = sorted(set(sys.modules) - before)\nprint(' '.join(after))")
    home = str(Path(warckit.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=home + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd="/", env=env).stdout
    return set(out.splitlines()[-1].split())


def test_import_warckit_imports_next_to_nothing() -> None:
    modules = _imported("import warckit")
    assert sorted(m for m in modules if m.startswith("warckit")) == ["warckit", "warckit._version"]
    assert "typing" not in modules
    assert sorted(modules & set(HEAVY)) == []


def test_reading_a_file_imports_only_the_reading_path() -> None:
    modules = _imported(READ_SAMPLE)
    assert sorted(modules & set(HEAVY)) == []
    assert sorted(m for m in modules if m.startswith(NOT_FOR_READING)) == []


def test_random_access_imports_no_more_than_it_needs() -> None:
    """read_record_at (a whole-process call when a replay tool or a test fetches one
    record) does without struct; compiled, without weakref.py, and, when the compiled
    decoder calls a system ISA-L, without zlib and the isal package (each 0.3-1.4 ms)."""
    from warckit import _speedups

    modules = _imported(f"import warckit\nrec = warckit.read_record_at({SAMPLE!r}, 0)\n"
                        "rec.raw_stream().read()\nrec.close()")
    assert "struct" not in modules
    if _speedups.status()["readercore"].implementation == "c":
        assert "weakref" not in modules
    status = _speedups.status()["gzipmember"]
    if status.implementation == "c" and all("system library" in lib for lib in status.libraries):
        assert sorted(m for m in modules if m == "zlib" or m.startswith("isal")) == []


def test_reading_imports_neither_collections_nor_importlib_util() -> None:
    """collections.abc's names come from _collections_abc (loaded with the interpreter), and
    the source-checkout build test asks for files, not importlib.util.find_spec. Without
    those four modules, opening the sample in a fresh process from a checkout took 0.80-0.85
    of the time before (about 10 ms less, 31 paired runs). The pure twins import re, which
    imports functools and collections: those are only asked of a compiled build."""
    from warckit import _speedups

    modules = _imported(READ_SAMPLE)
    assert "importlib.util" not in modules
    status = _speedups.status()
    if all(status[name].implementation == "c" for name in ("headers", "gzipmember", "readercore")):
        assert sorted(modules & {"collections", "functools", "contextlib"}) == []


def test_indexing_to_a_file_imports_no_hashlib(tmp_path: Path) -> None:
    """The atomic output's temporary name is os.urandom's, not secrets' (which imports
    hashlib and hmac: 4 ms of every `warckit index`)."""
    out = tmp_path / "out.cdx"
    modules = _imported("import contextlib, io\nfrom warckit.cli import main\n"
                        f"assert main(['index', {SAMPLE!r}, '-o', {str(out)!r}]) == 0")
    assert out.stat().st_size > 0
    assert sorted(modules & {"hashlib", "secrets", "hmac"}) == []


def test_indexing_one_file_imports_no_process_pool(tmp_path: Path) -> None:
    """The pool (concurrent.futures.process, multiprocessing: tens of milliseconds) is
    imported by the runs that use one, not by every `warckit index`."""
    out = tmp_path / "out.cdx"
    modules = _imported("from warckit.cli import main\n"
                        f"assert main(['index', {SAMPLE!r}, '-o', {str(out)!r}]) == 0")
    assert out.stat().st_size > 0
    assert sorted(modules & {"multiprocessing", "concurrent.futures.process"}) == []


def test_indexing_imports_no_url_layer(tmp_path: Path) -> None:
    """The index's SURT keys come straight from the compiled SURT function: `warckit index`
    imports no warckit.url (canonicalization, IDNA, prefixes: about 6 ms), and the library's
    write_index no ZipNum either."""
    out = tmp_path / "out.cdx"
    modules = _imported("from warckit.cli import main\n"
                        f"assert main(['index', {SAMPLE!r}, '-o', {str(out)!r}]) == 0")
    assert out.read_bytes().count(b"\n") == 4  # (the header, three captures)
    assert sorted(m for m in modules if m.startswith("warckit.url")) == []
    modules = _imported("from warckit.cdx import write_index")
    assert sorted(m for m in modules if m.startswith("warckit.url") or m.endswith(".zipnum")) == []


@pytest.mark.parametrize("fmt", ["cdx", "cdxj"])
def test_indexing_imports_no_dataclasses_orjson_nor_typing(fmt: str, tmp_path: Path) -> None:
    """The index path's value types are ``_util.frozen`` ones, its new-style JSON field is
    written directly and its typing names are for the type checker only: `warckit index`
    imports neither ``dataclasses`` (with ``inspect``) nor orjson (which imports
    ``dataclasses``, ``uuid``, ``platform``…) nor ``typing``, about 15 ms of every run; nor
    ``urllib.parse`` for a file without POST requests, nor ``tempfile`` for one it
    indexes in one piece. (The pure twin of the reader core imports typing: that one is only
    asked of a compiled build.)"""
    from warckit import _speedups

    out = tmp_path / "out.cdx"
    argv = ["index", SAMPLE, "--format", fmt, "-o", str(out)]
    modules = _imported(f"from warckit.cli import main\nassert main({argv!r}) == 0")
    assert out.read_bytes().count(b"\n") == (4 if fmt == "cdx" else 3)
    assert sorted(modules & {"dataclasses", "inspect", "orjson", "urllib.parse", "uuid", "tempfile"}) == []
    if all(module.implementation == "c" for module in _speedups.status().values()):
        assert "typing" not in modules


@pytest.mark.parametrize("command", ["index", "check"])
def test_a_command_on_a_warc_imports_no_zip_layer(command: str, tmp_path: Path) -> None:
    """`index` and `check` tell a WACZ among their inputs by its first bytes: the ZIP
    layer (read.wacz, io.zipped) is imported for a WACZ only; `check` also does without
    datetime (the index's orjson imports it)."""
    args = [command, SAMPLE] + (["-o", str(tmp_path / "out.cdx")] if command == "index" else [])
    modules = _imported("import contextlib, io\nfrom warckit.cli import main\n"
                        f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main({args!r}) == 0")
    assert sorted(m for m in modules if m.startswith(("warckit.read.wacz", "warckit.io.zipped", "zipfile"))) == []
    if command == "check":
        assert "datetime" not in modules


def test_everything_in_all_is_there() -> None:
    modules = _imported("import warckit\nfor name in warckit.__all__:\n    getattr(warckit, name)")
    assert "warckit.write" in modules and "warckit.check" in modules


@pytest.mark.parametrize("pure", [False, True])
def test_version_imports_no_subcommand(pure: bool) -> None:
    code = ("import os\n" + ("os.environ['WARCKIT_NO_EXTENSIONS'] = '1'\n" if pure else "")
            + "import contextlib, io\nfrom warckit.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--version']) == 0")
    modules = _imported(code)
    assert sorted(modules & set(HEAVY)) == []  # (argparse, hashlib included)
    commands = sorted(m for m in modules if m.startswith("warckit.cli."))
    assert commands == ["warckit.cli._about"]
    assert sorted(m for m in modules if m.startswith(NOT_FOR_READING)) == []
