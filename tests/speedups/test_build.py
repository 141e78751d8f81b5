"""What the build produced, as warckit reports it: implementations(), status(),
``warckit --version``, and the warnings for a pure source checkout or an unloadable module.

CI's legs say what they expect: WARCKIT_REQUIRE_EXTENSIONS=1 (all six compiled) and
WARCKIT_EXPECT_LIBRARIES=system|package (where gzipmember's and blockdeflate's ISA-L and
libdeflate come from: linked system libraries, or bound from the isal/deflate packages;
"system" allows the package's copy of a library the build report says was declined,
a system copy older than setup.py's floor for it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import warckit
from warckit import _speedups
from warckit._version import __version__
from warckit.cli import main

EXPECT = os.environ.get("WARCKIT_EXPECT_LIBRARIES")


def _compiled_or_skip(name: str):  # type: ignore[no-untyped-def]
    if _speedups.NO_EXTENSIONS:
        pytest.skip("pure leg")
    try:
        return _speedups.compiled(name)
    except ImportError:
        pytest.skip(f"{name} is not compiled here")


def test_implementations_match_what_load_returns() -> None:
    impls = _speedups.implementations()
    assert list(impls) == list(_speedups.MODULES)
    for name, impl in impls.items():
        assert _speedups.load(name).__name__ == f"warckit._speedups._{name}_{impl}"
    assert _speedups.IMPLEMENTATION == ("c" if set(impls.values()) == {"c"} else "py")
    if os.environ.get("WARCKIT_REQUIRE_EXTENSIONS") == "1" and not _speedups.NO_EXTENSIONS:
        assert impls == dict.fromkeys(_speedups.MODULES, "c")


def test_status_names_the_libraries_and_where_they_come_from() -> None:
    status = _speedups.status()
    for s in status.values():
        assert (s.reason is None) == (s.implementation == "c")
    if _speedups.NO_EXTENSIONS:
        assert {s.reason for s in status.values()} <= {
            "WARCKIT_NO_EXTENSIONS is set", f"{sys.implementation.name} is not CPython"}
        return
    if status["gzipmember"].implementation == "c":
        isal, libdeflate = status["gzipmember"].libraries
        assert isal.startswith("ISA-L 2.") and libdeflate.startswith("libdeflate")
        import deflate
        import isal as isal_pkg

        from_package = (f"ISA-L {isal_pkg.ISAL_VERSION} (from isal {isal_pkg.__version__})",
                        f"libdeflate (from deflate {deflate.__version__})")
        if EXPECT == "package":
            assert (isal, libdeflate) == from_package
        elif EXPECT == "system":
            declined = _speedups._build_report()["gzipmember"].get("declined", {})
            assert set(declined) <= {"libdeflate"}, declined
            assert isal.endswith("(system library)")
            if "libdeflate" in declined:
                assert declined["libdeflate"] == "the system libdeflate is older than 1.20"
                assert libdeflate == from_package[1]
            else:
                assert libdeflate.endswith("(system library)")
    if status["blockdeflate"].implementation == "c":
        assert status["blockdeflate"].libraries == status["gzipmember"].libraries[1:]
    assert status["headers"].libraries == ()


def test_compiled_modules_were_optimized() -> None:
    """setup.py records the -O each module was compiled with. A CFLAGS without one (CI's
    last leg builds with CFLAGS=-I<dir>) replaced Python's -O3 and left gcc's -O0: the
    modules worked, 1.25-1.4x slower."""
    report = _speedups._build_report()
    built = {name: entry for name, entry in report.items() if entry.get("built")}
    if _speedups.NO_EXTENSIONS or not built:
        pytest.skip("pure leg" if _speedups.NO_EXTENSIONS else "nothing was compiled here")
    for name, entry in built.items():
        assert entry.get("optimization") in ("-O2", "-O3"), (
            f"{name} was compiled with {entry.get('optimization')!r}; rebuild without -O0 in CFLAGS")


def test_declared_inflate_state_layout_matches_the_header() -> None:
    """wk_isal.h declares struct inflate_state for builds without ISA-L's headers; a
    headers build compares that declaration with the real header (2.30 on Debian 12)."""
    module = _compiled_or_skip("gzipmember")
    assert module.ISAL_LAYOUT_MATCHES is True


def test_version_lists_every_hot_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"warckit {__version__} (")
    status = _speedups.status()
    used = sum(s.implementation == "c" for s in status.values())
    assert lines[1].startswith(f"compiled hot modules: {used} of {len(_speedups.MODULES)} in use")
    assert len(lines) == 2 + len(_speedups.MODULES)
    for line, (name, s) in zip(lines[2:], status.items()):
        words = line.split()
        assert words[0] == name
        if s.implementation == "c":
            assert words[1].startswith("compiled")
            for lib in s.libraries:
                assert lib in line
        else:
            assert line.endswith(f"pure Python: {s.reason}")


def test_version_in_a_pure_process() -> None:
    lines = _run_in(Path(HOME), "from warckit.cli import main; main(['--version'])",
                    WARCKIT_NO_EXTENSIONS="1").stdout.splitlines()
    assert lines[1] == "compiled hot modules: 0 of 7 in use; the others run their pure-Python twins (slower)"
    assert lines[3] == "  gzipmember    pure Python: WARCKIT_NO_EXTENSIONS is set"


def _checkout(tmp_path: Path, setup_py: bool = True) -> Path:
    """A copy of the warckit package (Python files only) laid out as a source checkout."""
    shutil.copytree(Path(warckit.__file__).parent, tmp_path / "warckit",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "_build.json"))
    (tmp_path / "_speedups").mkdir()
    if setup_py:
        (tmp_path / "setup.py").write_text("")
    return tmp_path


#: Where the warckit under test is imported from (the checkout, or site-packages in CI).
HOME = str(Path(warckit.__file__).resolve().parents[1])


def _run_in(cwd: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run *code* in a fresh interpreter in *cwd* (which comes first on its sys.path)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WARCKIT_NO_EXTENSIONS")}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          check=True, cwd=cwd, env={**environ, **env})


QUICKSTART = """
import warckit
print(warckit.__file__)
with warckit.open({path!r}) as reader:
    print(sum(1 for _ in reader))
"""


def test_source_checkout_without_compiled_modules_warns_once(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    sample = str(Path(__file__).resolve().parents[2] / "examples" / "sample.warc.gz")
    out = _run_in(root, QUICKSTART.format(path=sample))
    assert out.stdout.splitlines()[0] == str(root / "warckit" / "__init__.py")
    assert int(out.stdout.splitlines()[1]) > 0
    assert out.stderr.count("PurePythonWarning") == 1
    assert f"source checkout {root}, where headers, gzipmember, surt, readercore, blockdeflate, " \
           "verifyfast, prctl are not compiled" in out.stderr
    assert "pip install -e ." in out.stderr and "python setup.py build_ext --inplace" in out.stderr
    version = _run_in(root, "from warckit.cli import main; main(['--version'])").stdout
    assert f"  surt          pure Python: not built in this source checkout ({root}); run" in version


def test_no_warning_when_pure_is_asked_for_or_not_a_checkout(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "a")
    assert "PurePythonWarning" not in _run_in(root, "import warckit", WARCKIT_NO_EXTENSIONS="1").stderr
    plain = _checkout(tmp_path / "b", setup_py=False)  # e.g. a pure install: no warning at import
    assert _run_in(plain, "import warckit").stderr == ""


def test_build_report_reason_is_shown(tmp_path: Path) -> None:
    root = _checkout(tmp_path, setup_py=False)
    report = {"modules": {"gzipmember": {"built": False, "libraries": {},
                                         "reason": "CompileError: command 'cc' failed: No such file or directory"}}}
    (root / "warckit" / "_speedups" / "_build.json").write_text(json.dumps(report))
    code = "import warckit._speedups as s; print(s.status()['gzipmember'].reason); print(s.implementations())"
    lines = _run_in(root, code).stdout.splitlines()
    assert lines[0] == "not built: CompileError: command 'cc' failed: No such file or directory"
    assert lines[1] == str(dict.fromkeys(_speedups.MODULES, "py"))


def test_unloadable_compiled_module_warns_and_falls_back(tmp_path: Path) -> None:
    root = _checkout(tmp_path, setup_py=False)
    (root / "warckit" / "_speedups" / f"_surt_c{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a shared object")
    code = """
        import warnings
        warnings.simplefilter("always")
        import warckit._speedups as s
        print(s.load("surt").__name__)
        print(s.status()["surt"].reason)
    """
    out = _run_in(root, code)
    name, reason = out.stdout.splitlines()
    assert name == "warckit._speedups._surt_py"
    assert reason.startswith("cannot be loaded: ")
    assert "PurePythonWarning: warckit: the compiled surt module cannot be loaded (" in out.stderr


def _bound_from_packages_or_skip(name: str, library: str = "LIBDEFLATE_LIBRARY") -> None:
    module = _compiled_or_skip(name)
    if "(system library)" in getattr(module, library):
        pytest.skip("built against the system library")


def test_isal_outside_the_declared_versions_is_refused() -> None:
    _bound_from_packages_or_skip("gzipmember", "ISAL_LIBRARY")
    code = """
        import warnings
        import isal
        isal.ISAL_VERSION = "3.0.0"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                import warckit._speedups._gzipmember_c
            except ImportError as exc:
                print(exc)
            import warckit._speedups as s
            print(s.load("gzipmember").__name__, [w.category.__name__ for w in caught])
    """
    out = _run_in(Path(HOME), code).stdout.splitlines()
    assert "carries ISA-L 3.0.0; warckit's compiled gzipmember declares ISA-L 2.24 to 2.x" in out[0]
    assert out[1] == "warckit._speedups._gzipmember_py ['PurePythonWarning']"


def test_libdeflate_that_cannot_be_bound_is_refused() -> None:
    _bound_from_packages_or_skip("blockdeflate")
    code = """
        from deflate import _deflate
        _deflate.__file__ = "/nonexistent/_deflate.so"
        try:
            import warckit._speedups._blockdeflate_c
        except ImportError as exc:
            print(exc)
    """
    out = _run_in(Path(HOME), code).stdout
    assert out.startswith("cannot use the libdeflate of the deflate package: "
                          "/nonexistent/_deflate.so is not loaded in this process (")
