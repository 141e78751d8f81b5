"""The layout of ``warckit.tools`` and ``warckit.check`` (issue #15): small modules, data
flowing down, no import cycle, no format knowledge of their own, the same public names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import warckit.tools
import warckit.tools.dedup

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "warckit"
#: What each package may import from (besides itself and the standard library / third parties).
ALLOWED = {
    "tools": {"cdx", "check", "write", "read", "record", "io", "url", "_util", "_speedups", "errors"},
    "check": {"read", "record", "io", "_util", "_speedups", "errors"},
}
MAX_LINES = 600


def _modules(package: str) -> list[Path]:
    return sorted((PACKAGE / package).glob("*.py"))


def _imports(path: Path) -> set[str]:
    """Every warckit module *path* imports, at any depth (lazy imports included)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    package = parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join((*base, *(node.module.split(".") if node.module else ())))
            else:
                target = node.module or ""
            if target.startswith("warckit"):
                found.add(target)
                found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("warckit"))
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_modules_are_small(package: str) -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in _modules(package)}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_flow_down(package: str) -> None:
    wrong = {}
    for path in _modules(package):
        layers = {name.split(".")[1] for name in _imports(path) if name.count(".") >= 1}
        bad = layers - ALLOWED[package] - {package}
        if bad:
            wrong[path.name] = sorted(bad)
    assert wrong == {}


def test_no_import_cycle_among_tools_and_check() -> None:
    paths = _modules("tools") + _modules("check")
    names = {_module_name(p): p for p in paths}
    graph = {
        name: {m for m in _imports(path) if m in names and m != name and m != "warckit.tools"}
        for name, path in names.items()
    }

    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(graph[name])
        return seen

    assert sorted(name for name in graph if name in reachable(name)) == []


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_compression_magic_of_their_own(package: str) -> None:
    """gzip and zstd magic numbers live in ``io.compression`` only."""
    magic = re.compile(r"\\x1f\\x8b|\\x28\\xb5|\(\\xb5/\\xfd|\\x5d\\x2a|0x184D2A5")
    assert [p.name for p in _modules(package) if magic.search(p.read_text())] == []


def test_public_names_unchanged() -> None:
    assert sorted(warckit.tools.__all__) == [
        "CrawlLogEntry", "DedupIndex", "DedupWriter", "Duplicate", "IDENTICAL_PAYLOAD_DIGEST",
        "Original", "SERVER_NOT_MODIFIED", "arc_to_warc", "crawllog_to_warc", "extract_all",
        "parse_line", "read_crawl_log", "recompress",
    ]
    assert sorted(warckit.tools.dedup.__all__) == [
        "ApplyStats", "DedupIndex", "DedupStats", "DedupWriter", "Original", "apply",
        "detect_input", "normalize_digest", "payload_digest_of",
    ]
    for name in warckit.tools.dedup.__all__:
        assert getattr(warckit.tools.dedup, name).__module__ == "warckit.tools.dedup"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_payload_digests_come_from_record_payload(package: str) -> None:
    """No de-chunker driven by hand, no state number tested: the payload digest is
    ``record.payload.PayloadDigester``'s (the compiled verifier is its twin)."""
    own = re.compile(r"\bDechunker\b|\.state\s*(?:[!=<>]=|[<>])\s*\d")
    assert [p.name for p in _modules(package) if own.search(p.read_text())] == []
