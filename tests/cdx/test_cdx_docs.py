"""The examples in docs/cdx.rst and in the warckit.cdx docstrings run and are right."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "cdx.rst"
MODULES = ["warckit.cdx.formats", "warckit.cdx.indexer", "warckit.cdx.lines", "warckit.cdx.query", "warckit.cdx._timestamps"]


def test_cdx_rst_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted >= 2


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no examples: nothing was tested"
