"""The examples in docs/url.rst and in the warckit.url docstrings run and are right."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "url.rst"
MODULES = ["canonicalize", "idna", "prefix", "split", "surt"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    # importlib: the package attributes surt/canonicalize are the functions.
    module = importlib.import_module(f"warckit.url.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no examples: nothing was tested"


def test_docs_page_examples() -> None:
    if not DOC.exists():
        pytest.skip("docs/url.rst not in this checkout")
    result = doctest.testfile(str(DOC), module_relative=False)
    assert result.failed == 0
    assert result.attempted >= 20
