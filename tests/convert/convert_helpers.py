"""Helpers shared by the conversion tests: warckit check + warcio check on output files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import warckit.record.rules  # noqa: F401  - load the module before the lazy package attribute
from warckit.check.report import check_file


def assert_valid(path: str | Path, *, warcio: bool = True) -> None:
    """`warckit check` finds no errors and (unless told not to) `warcio check` exits 0.

    warcio 1.8.1 verifies payload digests over the still-chunked body (the legacy
    convention), so files with chunked responses digested the WARC 1.1 way skip it.
    """
    report = check_file(path)
    assert report.ok, [str(i) for i in report.issues if i.severity == "error"]
    if not warcio:
        return
    exe = shutil.which("warcio")
    cmd = [exe, "check", str(path)] if exe else [sys.executable, "-m", "warcio.cli", "check", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
