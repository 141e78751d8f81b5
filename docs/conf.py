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
# Examples in docstrings (the API page) use their module's names unqualified, as under
# ``python -m doctest``; give them those names.
doctest_global_setup = f"""
import os
os.chdir({ROOT!r})
from warckit.url import *
from warckit.cdx import *
from warckit.tools.dedup import DedupIndex, DedupWriter
from warckit.write.writer import RecordWriter
import shutil as _shutil, tempfile as _tempfile
_tempfile.tempdir = _doc_tmp = _tempfile.mkdtemp(prefix="warckit-doctest-")
"""
# The examples' temporary files (tempfile.mkdtemp() and the rest) go in one directory
# per group of examples, removed after it: a docs build leaves nothing in /tmp.
doctest_global_cleanup = """
_tempfile.tempdir = None
_shutil.rmtree(_doc_tmp, ignore_errors=True)
"""
# "Attributes:" sections as field lists: the API page documents dataclass fields as
# members too, and two descriptions of one attribute are a duplicate-object warning.
napoleon_use_ivar = True
# A hint such as ``type[WarcRecord]`` looks up ``type``, which many records' attributes
# are called: "more than one target found" is noise there, not a broken reference.
suppress_warnings = ["ref.python"]
