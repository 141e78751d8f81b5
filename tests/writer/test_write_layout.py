"""The write side's layout (issue #15): modules with one job, none over ~600 lines, and
the shared pieces in one place each."""

from __future__ import annotations

import ast
from pathlib import Path

import warckit

ROOT = Path(warckit.__file__).parent
MODULES = sorted((ROOT / "write").glob("*.py")) + [ROOT / "io" / "chunked.py", ROOT / "record" / "payload.py",
                                                    ROOT / "record" / "digests.py"]


def test_no_module_over_600_lines() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in MODULES}
    assert {name: n for name, n in sizes.items() if n > 650} == {}


def _defs(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_base32_and_dechunking_are_written_once() -> None:
    # The writer formats digests with record.digests and de-chunks through record.payload.
    for path in (ROOT / "write").glob("*.py"):
        text = path.read_text()
        assert "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" not in text, path
        assert "Dechunker" not in text, path
        assert not {"_b32", "b32encode"} & _defs(path), path
