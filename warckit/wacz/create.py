"""Make a WACZ package (spec 1.1.1) from WARC files, streaming.

The WARCs are copied into ``archive/`` stored (not deflated, so a reader seeks into
them), 1 MiB at a time, each hashed as it is copied; their CDXJ index is sorted with
bounded memory (runs spill to a temporary directory) and stored as
``indexes/index.cdx`` or, past :data:`~warckit.wacz.indexes.PLAIN_MAX_LINES` lines,
as the compressed ZipNum pair; ``pages/pages.jsonl`` lists the pages (given, or
detected from the captures); ``datapackage.json`` lists every file with its
``sha256:`` hash and size, and ``datapackage-digest.json`` hashes it. The package is
written under a fresh temporary name created exclusively (never through a planted
link) and renamed into place when complete.

Example:
    >>> import tempfile, os, zipfile
    >>> out = os.path.join(tempfile.mkdtemp(), "sample.wacz")
    >>> summary = create_wacz(["examples/sample.warc.gz"], out)
    >>> summary.captures, summary.pages, summary.index
    (3, 2, 'indexes/index.cdx')
    >>> [i.filename for i in zipfile.ZipFile(out).infolist()][:2]
    ['archive/sample.warc.gz', 'indexes/index.cdx']
"""

from __future__ import annotations

import json
import os
import posixpath
import tempfile
import urllib.parse
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

from ..errors import Issue, UsageError
from ..io.atomic import replacing
from ..io.remote import is_url
from ..io.sources import open_source
from .datapackage import DATAPACKAGE, DIGEST, Resource, datapackage_json, digest_json
from .indexes import (
    CDX,
    CDX_GZ,
    IDX,
    PLAIN_MAX_LINES,
    capture_lines,
    sorted_index,
    write_zipnum_blocks,
)
from .pages import pages_header, read_pages_file
from .zipwrite import add_bytes, add_file

__all__ = ["PAGES", "WaczSummary", "create_wacz"]

PAGES = "pages/pages.jsonl"
ARCHIVE = "archive/"


@dataclass(frozen=True, slots=True)
class WaczSummary:
    """What :func:`create_wacz` wrote.

    Attributes:
        path: The package.
        resources: Every file in it but the two package files, in ZIP order.
        captures: Lines in the index.
        pages: Pages listed in ``pages/pages.jsonl``.
        index: ``indexes/index.cdx`` or ``indexes/index.cdx.gz`` (then with ``index.idx``).
        main_page_url: The ``mainPageURL`` written (``None`` when there is no page).
    """

    path: str
    resources: tuple[Resource, ...]
    captures: int
    pages: int
    index: str
    main_page_url: str | None


def _warc_names(inputs: Sequence[str | os.PathLike[str]], output: str) -> list[tuple[str, str]]:
    """``(path, base name)`` of each input; base names must differ (they share ``archive/``)."""
    if not inputs:
        raise UsageError("give at least one WARC file")
    seen: dict[str, str] = {}
    out = []
    for raw in inputs:
        path = os.fspath(raw)
        if path == "-":
            raise UsageError("a WACZ is made from WARC files, not standard input")
        if "://" in path and is_url(path):  # read by ranged requests (docs/remote.rst)
            name = posixpath.basename(urllib.parse.urlsplit(path).path)
        else:
            if os.path.isdir(path):
                raise UsageError(f"{path}: is a directory, not a WARC file")
            os.stat(path)  # FileNotFoundError names it
            name = os.path.basename(path)
            if os.path.exists(output) and os.path.samefile(path, output):
                raise UsageError(f"{path}: is the output")
        if not name or "/" in name or name in (".", ".."):
            raise UsageError(f"{path}: no usable file name for archive/")
        if name in seen:
            raise UsageError(f"{path} and {seen[name]} have the same name; both would be "
                             f"archive/{name}")
        seen[name] = path
        out.append((path, name))
    return out


def _first_page(pages_file: IO[bytes]) -> tuple[str | None, str | None, int]:
    """The URL and date of the first page, and the number of pages (header excluded)."""
    pages_file.seek(0)
    url = date = None
    count = -1
    for line in pages_file:
        count += 1
        if count == 1:
            page = json.loads(line)
            url, date = page.get("url"), page.get("ts")
    return url, date, max(count, 0)


def create_wacz(
    inputs: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    pages: str | os.PathLike[str] | None = None,
    detect_pages: bool = True,
    titles: bool = False,
    main_page_url: str | None = None,
    main_page_date: str | None = None,
    title: str | None = None,
    description: str | None = None,
    plain_max_lines: int = PLAIN_MAX_LINES,
    force_zip64: bool = False,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
    tmpdir: str | None = None,
) -> WaczSummary:
    """Package WARC files as a WACZ at *output*.

    Args:
        inputs: WARC (or ARC) files, paths or URLs, stored under ``archive/`` by base name.
        output: The ``.wacz`` to write (replaced only once complete).
        pages: A JSON Lines page list to use (``pages/pages.jsonl`` format; a header
            is added when missing) instead of detecting pages.
        detect_pages: Detect pages (HTML 200 GET captures) when *pages* is not given.
        titles: Give detected pages their HTML ``<title>`` (a second read of each page;
            by default they are titled by their URL, as py-wacz does).
        main_page_url: ``mainPageURL`` (default: the first page's URL).
        main_page_date: ``mainPageDate`` (default: the first page's date when the URL
            is the first page's).
        title: The package title.
        description: The package description.
        plain_max_lines: Largest index written plain; larger ones are compressed.
        force_zip64: Write ZIP64 headers for every member (they are written anyway
            for a member over 4 GiB and for offsets past it).
        lenient: Index damaged WARCs leniently (recoveries go to *on_warning*).
        on_warning: Called with each recovery of a lenient read.
        tmpdir: Where the index is sorted (default: the system temporary directory).

    Raises:
        UsageError: No input, two inputs with one name, or an input is the output.
        ParseError: A WARC is damaged (not lenient) or the pages file is not JSON Lines.
    """
    dst = os.fspath(output)
    warcs = _warc_names(inputs, dst)
    resources: list[Resource] = []
    with tempfile.TemporaryDirectory(prefix="warckit-wacz-", dir=tmpdir) as work:
        spool = os.path.join(work, "pages.jsonl")
        with open(spool, "w+b") as pages_tmp, open(os.path.join(work, "index.cdxj"), "w+b") as index_tmp:
            if pages is not None:
                with open(pages, "rb") as given:
                    pages_tmp.writelines(read_pages_file(given, os.fspath(pages)))
            elif detect_pages:
                pages_tmp.write(pages_header())
            detector = pages_tmp if pages is None and detect_pages else None
            lines = capture_lines(warcs, detector, lenient=lenient, on_warning=on_warning, titles=titles)
            captures = sorted_index(lines, index_tmp, tmpdir=work)
            first_url, first_date, page_count = _first_page(pages_tmp)
            if main_page_url is None:
                main_page_url = first_url
                if main_page_date is None and first_url is not None:
                    main_page_date = first_date
            with replacing(dst, suffix=".wacz.tmp") as out, \
                    zipfile.ZipFile(out, "w", allowZip64=True) as zf:
                for path, name in warcs:
                    with open_source(path) as src:
                        size = src.file.seek(0, os.SEEK_END)
                        src.file.seek(0)
                        resources.append(add_file(zf, ARCHIVE + name, src.file, size,
                                                  force_zip64=force_zip64, source=path))
                index_name = _add_index(zf, index_tmp, captures, plain_max_lines, work, force_zip64,
                                        resources)
                if page_count or pages is not None:
                    pages_tmp.seek(0)
                    resources.append(add_file(zf, PAGES, pages_tmp, _size(pages_tmp), stored=False,
                                              force_zip64=force_zip64, source=spool))
                package = datapackage_json(resources, main_page_url=main_page_url,
                                           main_page_date=main_page_date, title=title,
                                           description=description)
                add_bytes(zf, DATAPACKAGE, package)
                add_bytes(zf, DIGEST, digest_json(package))
    return WaczSummary(dst, tuple(resources), captures, page_count, index_name, main_page_url)


def _size(fh: IO[bytes]) -> int:
    fh.flush()
    return os.fstat(fh.fileno()).st_size


def _add_index(zf: zipfile.ZipFile, index_tmp: IO[bytes], captures: int, plain_max_lines: int,
               work: str, force_zip64: bool, resources: list[Resource]) -> str:
    index_tmp.seek(0)
    if captures <= plain_max_lines:
        resources.append(add_file(zf, CDX, index_tmp, _size(index_tmp), force_zip64=force_zip64))
        return CDX
    with open(os.path.join(work, "index.cdx.gz"), "w+b") as gz, \
            open(os.path.join(work, "index.idx"), "w+b") as idx:
        write_zipnum_blocks(index_tmp, gz, idx)
        for fh, name, stored in ((gz, CDX_GZ, True), (idx, IDX, False)):
            fh.seek(0)
            resources.append(add_file(zf, name, fh, _size(fh), stored=stored, force_zip64=force_zip64))
    return CDX_GZ

