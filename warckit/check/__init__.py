"""Checking archives: conformance reports (``warckit check``) and digest verification."""

from __future__ import annotations

from .records import RecordReport, RecordReports
from .report import FileReport, check_file, check_files, iter_check_files
from .verify import DigestReport, DigestResult, verify_digests, verify_file

__all__ = [
    "DigestReport", "DigestResult", "FileReport", "RecordReport", "RecordReports", "check_file",
    "check_files", "iter_check_files", "verify_digests", "verify_file",
]
