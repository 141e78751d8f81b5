"""Helpers shared by the conversion tests: warckit check + warcio check on output files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import warckit.validate  # noqa: F401  - load the module before the lazy package attribute

from warckit.check import check_file


def assert_valid(path: str | Path) -> None:
    """`warckit check` finds no errors and `warcio check` exits 0."""
    report = check_file(path)
    assert report.ok, [str(i) for i in report.issues if i.severity == "error"]
    exe = shutil.which("warcio")
    cmd = [exe, "check", str(path)] if exe else [sys.executable, "-m", "warcio.cli", "check", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
