"""The examples in the conversion and dedup modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

import warckit.record.rules  # noqa: F401  - load the module before the lazy package attribute

MODULES = ["warckit.tools.crawllog", "warckit.tools.recompress",
           "warckit.tools.extract_all", "warckit.tools.dedup"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
