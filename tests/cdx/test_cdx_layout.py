"""The indexer's jobs live apart, and it takes every record rule from the record layer
(issue #15): these fail on the single 727-line ``cdx/indexer.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CDX = Path(__file__).resolve().parents[2] / "warckit" / "cdx"
MODULES = sorted(CDX.glob("*.py"))


def _names(path: Path) -> tuple[set[str], set[str], set[str]]:
    """Functions defined, attributes read and modules imported in *path*."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defs = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    imports: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            imports.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            imports.add(n.module or "")
    return defs, attrs, imports


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_module_is_small(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 600


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_record_rule_written_again(path: Path) -> None:
    defs, attrs, imports = _names(path)
    assert "_first_values" not in attrs  # the record API's Headers, not its private map
    assert not defs & {"_has_http", "_field_map", "_unbracket"}
    assert "hashlib" not in imports  # one payload digester: warckit.record.payload
    assert "b32encode" not in attrs


def test_one_job_per_module() -> None:
    """Extraction, pairing and formatting each have their module."""
    jobs = {"capture.py": "extract", "pairing.py": "pair_post", "lines.py": "capture_line"}
    for name, func in jobs.items():
        defs, _, _ = _names(CDX / name)
        assert func in defs
        others = [p for p in MODULES if p.name != name]
        assert all(func not in _names(p)[0] for p in others), func
