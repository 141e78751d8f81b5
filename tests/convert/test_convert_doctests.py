"""The examples in the conversion and dedup modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

import warckit.validate  # noqa: F401  - load the module before the lazy package attribute

MODULES = ["warckit.convert.crawllog", "warckit.convert.recompress",
           "warckit.convert.extract_all", "warckit.dedup"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
