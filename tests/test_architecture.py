"""The package's imports follow docs/architecture.rst: no cycles, nothing runs back up a layer."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "warckit"

#: Each top-level part of the package and its layer, from the bottom (docs/architecture.rst).
#: A module may import from its own part or from a lower layer; parts on one layer do not
#: import each other.
LAYERS: dict[str, int] = {
    "_version": 0, "_util": 0,
    "errors": 1,
    "_speedups": 2,
    "io": 3, "url": 3,
    "record": 4,
    "read": 5,
    "write": 6,
    "check": 7, "cdx": 7,
    "tools": 8, "wacz": 8, "columnar": 8, "traffic": 8,
    "serve": 9, "proxy": 9,
    "cli": 10, "spark": 10,
    "__init__": 11, "__main__": 11,
}

#: The compiled core's one upward import: it builds :class:`Headers` itself.
ALLOWED_UP = {("warckit._speedups._readercore_py", "warckit.record.headers"),
              ("warckit._speedups._readercore_c", "warckit.record.headers")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
PYX = {f"warckit._speedups._{p.stem}_c": p for p in (PACKAGE.parent / "_speedups").glob("*.pyx")}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _target(name: str) -> str | None:
    """The package module an imported dotted name lives in (a name may be an attribute)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every package module *module* imports, anywhere in it (functions and TYPE_CHECKING too)."""
    is_package = path.name == "__init__.py"
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":  # the Python-level imports of a Cython module (absolute ones)
        for number, line in enumerate(source.splitlines(), 1):
            match = re.match(r"(?:from\s+(warckit[\w.]*)\s+import\s+(?!.*\bcimport\b)([\w, ]+)"
                             r"|import\s+(warckit[\w.]*))", line)
            if match and match[3]:
                target = _target(match[3])
                if target:
                    yield target, number
            elif match:
                for name in match[2].split(","):
                    target = _target(f"{match[1]}.{name.split()[0]}") or _target(match[1])
                    if target:
                        yield target, number
        return
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve(module, is_package, node.level, node.module)
            elif node.module and node.module.split(".")[0] == "warckit":
                base = node.module
            else:
                continue
            for alias in node.names:
                target = _target(f"{base}.{alias.name}") or _target(base)
                if target and target != module:
                    yield target, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "warckit":
                    target = _target(alias.name)
                    if target and target != module:
                        yield target, node.lineno


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


GRAPH = {m: sorted({t for t, _ in imports(m, p)}) for m, p in (MODULES | PYX).items()}


def test_every_part_has_a_layer() -> None:
    assert sorted({_part(m) for m in MODULES} - set(LAYERS)) == []


def test_no_import_runs_back_up() -> None:
    wrong = []
    for module, path in (MODULES | PYX).items():
        for target, line in sorted(set(imports(module, path))):
            if _part(target) == _part(module) or (module, target) in ALLOWED_UP:
                continue
            if LAYERS[_part(target)] >= LAYERS[_part(module)]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module} -> {target}")
    assert wrong == []


def test_no_import_cycle() -> None:
    graph = {m: [t for t in ts if t in MODULES] for m, ts in GRAPH.items() if m in MODULES}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if "._speedups._" not in m))
def test_module_size(module: str) -> None:
    """One job per module: none over 600 lines (the compiled/pure twins excepted)."""
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= 600, f"{module} has {lines} lines"
