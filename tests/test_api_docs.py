"""The API page documents every public name; the README's API table names what exists."""

from __future__ import annotations

import importlib
import inspect
import io
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import warckit

ROOT = Path(__file__).resolve().parent.parent
#: The modules whose ``__all__`` is public API (``warckit`` and the subpackages it exposes).
PUBLIC_MODULES = ("warckit", "warckit.record", "warckit.read", "warckit.write", "warckit.check",
                  "warckit.write.build", "warckit.record.payload", "warckit.io.sources", "warckit.io.remote",
                  "warckit.cdx", "warckit.url", "warckit.tools", "warckit.tools.dedup",
                  "warckit.check.report", "warckit.record.rules", "warckit.check.verify", "warckit.errors",
                  "warckit.wacz", "warckit.read.wacz", "warckit.io.zipped", "warckit.columnar")
PUBLIC_MODULES += ("warckit.spark",)  # (a line of its own: other packages add theirs)
PUBLIC_MODULES += ("warckit.serve.store", "warckit.serve.ingest")  # writable collections
PUBLIC_MODULES += ("warckit.traffic",)  # warckit.capture()
PUBLIC_MODULES += ("warckit.proxy",)  # the archiving proxy


def _documented(tmp_path: Path) -> dict[str, Any]:
    """Build docs/api.rst alone with the project's conf.py; every Python object it
    describes, by full name, resolved to the object."""
    sphinx_app = pytest.importorskip("sphinx.application")
    src = tmp_path / "src"
    src.mkdir()
    shutil.copyfile(ROOT / "docs" / "api.rst", src / "api.rst")
    warnings = io.StringIO()
    app = sphinx_app.Sphinx(str(src), str(ROOT / "docs"), str(tmp_path / "out"),
                            str(tmp_path / "doctrees"), "dummy", status=None, warning=warnings,
                            confoverrides={"root_doc": "api"}, freshenv=True)
    app.build()
    # A :ref: to a label on another page cannot resolve in this one-page build (the
    # docs build checks those); any other warning is a fault of the API page.
    problems = [line for line in warnings.getvalue().splitlines()
                if "undefined label" not in line]
    assert problems == []
    found: dict[str, Any] = {}
    for name in app.env.domains.python_domain.modules:
        found[name] = importlib.import_module(name)
    for name in app.env.domains.python_domain.objects:
        module, _, attr = name.rpartition(".")
        try:
            found[name] = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue  # a method or attribute: not a module-level name
    return found


def _missing(documented: dict[str, Any]) -> list[str]:
    documented_modules = {name for name, value in documented.items() if inspect.ismodule(value)}
    # Strings and numbers are compared by name (equal constants are not the same API);
    # everything else by identity, so a re-export documented where it lives counts.
    by_identity = {id(obj) for obj in documented.values()
                   if not isinstance(obj, (str, int, float, bool))}
    missing = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            full = f"{module_name}.{name}"
            if full in documented:
                continue
            value = getattr(module, name)
            if inspect.ismodule(value) and value.__name__ in documented_modules:
                continue
            if isinstance(value, (str, int, float, bool)) or id(value) not in by_identity:
                missing.append(full)
    return missing


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The mapping interface for autodoc options")
def test_api_page_documents_every_public_name(tmp_path: Path) -> None:
    documented = _documented(tmp_path)
    assert _missing(documented) == []
    # Spot checks that the check itself sees through re-exports and the lazy names.
    assert documented["warckit.WarcWriter"] is warckit.WarcWriter
    assert documented["warckit.check.report.check_file"] is warckit.check_file
    assert "warckit.cdx.index" in documented and "warckit.url.surt" in documented
    without = {k: v for k, v in documented.items() if v is not warckit.WrittenRecord}
    assert _missing(without) == ["warckit.WrittenRecord", "warckit.write.WrittenRecord"]


@pytest.mark.parametrize("function", [warckit.open, warckit.read_record_at,
                                      warckit.read_payload_range])
def test_reading_functions_show_their_options(function: Any) -> None:
    params = inspect.signature(function).parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values())
    keyword_only = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert {"lenient", "on_warning", "max_header_size", "name", "compression", "types",
            "min_size", "max_size", "readahead"} <= keyword_only
    reader_options = {n for n, p in inspect.signature(warckit.ArchiveReader).parameters.items()
                      if p.kind is p.KEYWORD_ONLY and not n.startswith("_")}
    if function is warckit.open:
        assert keyword_only == reader_options
    for name in keyword_only & reader_options:
        # Same defaults as the reader they pass them to.
        assert params[name].default == \
            inspect.signature(warckit.ArchiveReader).parameters[name].default, name


def test_open_passes_every_option_through(tmp_path: Path) -> None:
    sample = ROOT / "examples" / "sample.warc.gz"
    with warckit.open(sample, types=["response"], name="x", min_size=100, offset=607) as reader:
        assert reader.name == "x"
        assert [r.offset for r in reader] == [607, 1303]
    record = warckit.read_record_at(sample, 607, name="y", max_header_size=4096)
    assert record.type == "response" and record.offset == 607
    assert b"".join(warckit.read_payload_range(sample, 607, 0, 15, compression="gzip")) == \
        b"<!doctype html>"


def _api_table() -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    return text[text.index("## API quick reference"):text.index("## Documentation")]


def test_readme_api_table_names_what_exists() -> None:
    table = _api_table()
    for dotted in sorted(set(re.findall(r"warckit(?:\.[A-Za-z_]\w*)+", table))):
        obj: Any = warckit
        for part in dotted.split(".")[1:]:
            obj = getattr(obj, part)  # AttributeError: the README names something gone
    row = next(line for line in table.splitlines() if line.startswith("| writing |"))
    fields = re.search(r"`WrittenRecord` \(([^)]*)\)", row)
    assert fields is not None
    listed = re.findall(r"`\.(\w+)`", fields.group(1))
    public = [n for n in dir(warckit.WrittenRecord) if not n.startswith("_")]
    assert sorted(listed) == sorted(public)


def test_no_pypi_install_claim() -> None:
    # warckit is not published: `pip install warckit` would install someone else's package
    # or nothing.
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst"))]:
        assert "pip install warckit" not in path.read_text("utf-8"), path
