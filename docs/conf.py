"""Sphinx configuration for warckit."""

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)

project = "warckit"
author = "The warckit developers"
copyright = "2026, the warckit developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
html_theme = "alabaster"
exclude_patterns = ["_build"]
nitpicky = False
# Doctests run from the repository root so examples/ paths resolve.
doctest_global_setup = f"import os; os.chdir({ROOT!r})"
