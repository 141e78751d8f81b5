"""The inputs of a Spark job, expanded on the driver: paths, globs, URLs and manifests.

Every input becomes one task (one file per task), so expansion happens once, on the
driver, before the job starts. A missing path is *not* an error here: it is passed on, and
the task that reads it records the failure in the job's error table.
"""

from __future__ import annotations

import glob as _glob
import gzip
import io
import os
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import UsageError
from ..io.remote import is_url
from ..io.sources import ARCHIVE_SUFFIXES, archives_under, open_source

__all__ = ["ARCHIVE_SUFFIXES", "expand_inputs", "join_base", "read_manifest", "relative_names"]

#: Longest manifest line accepted (a path or URL).
_MAX_ENTRY = 64 * 1024

_GLOB_CHARS = frozenset("*?[")


def _has_glob(text: str) -> bool:
    return any(c in _GLOB_CHARS for c in text)


def join_base(entry: str, base: str | None) -> str:
    """*entry* of a manifest, joined to *base* (cc-pyspark's ``--input_base_url``) when relative.

    >>> join_base("crawl-data/CC-MAIN-2024-10/x.warc.gz", "https://data.commoncrawl.org/")
    'https://data.commoncrawl.org/crawl-data/CC-MAIN-2024-10/x.warc.gz'
    >>> join_base("x.warc.gz", "/data/warcs")
    '/data/warcs/x.warc.gz'
    >>> join_base("s3://bucket/x.warc.gz", "/data")
    's3://bucket/x.warc.gz'
    """
    if base is None or is_url(entry) or os.path.isabs(entry):
        return entry
    if is_url(base):
        return base.rstrip("/") + "/" + entry.lstrip("/")
    return os.path.join(base, entry)


def read_manifest(manifest: str, *, base: str | None = None,
                  storage_options: dict[str, Any] | None = None) -> list[str]:
    """The entries of a manifest: one path or URL a line (gzip when the name ends ``.gz``,
    as Common Crawl's ``warc.paths.gz``); blank lines and ``#`` comments are skipped.

    Raises:
        UsageError: the manifest cannot be read or is not text.
    """
    try:
        with open_source(manifest, storage_options=storage_options) as raw:
            stream: Any = gzip.GzipFile(fileobj=raw.file) if manifest.endswith(".gz") else raw.file
            text = io.TextIOWrapper(stream, encoding="utf-8")
            entries = []
            for number, line in enumerate(iter(lambda: text.readline(_MAX_ENTRY), ""), 1):
                if len(line) >= _MAX_ENTRY and not line.endswith("\n"):
                    raise UsageError(f"manifest {manifest}: line {number} is longer than {_MAX_ENTRY} characters")
                entry = line.strip()
                if entry and not entry.startswith("#"):
                    entries.append(join_base(entry, base))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise UsageError(f"manifest {manifest}: cannot be read ({exc})") from None
    return entries


def relative_names(manifest: str | Iterable[str] | None, base: str | None,
                   storage_options: dict[str, Any] | None = None) -> dict[str, str]:
    """Input → its manifest entry as written, for the relative entries joined to *base*
    (the names Common Crawl's indexes give files: ``crawl-data/…/x.warc.gz``)."""
    names: dict[str, str] = {}
    if base is None:
        return names
    for one in [manifest] if isinstance(manifest, str) else list(manifest or ()):
        for entry in read_manifest(one, storage_options=storage_options):
            joined = join_base(entry, base)
            if joined != entry:
                names[joined if is_url(joined) else os.path.abspath(joined)] = entry
    return names


def _glob_url(pattern: str, storage_options: dict[str, Any] | None) -> list[str]:
    try:
        import fsspec  # type: ignore[import-untyped,unused-ignore]  # the remote extra
    except ImportError:
        raise UsageError(f"{pattern}: globbing a URL needs fsspec (pip install warckit[remote])") from None
    fs, _token, paths = fsspec.get_fs_token_paths(pattern, storage_options=storage_options or {})
    return sorted(str(fs.unstrip_protocol(p)) for p in paths)


def _local(path: str) -> list[str]:
    if os.path.isdir(path):
        return [os.path.abspath(p) for p in archives_under(path)]
    return [os.path.abspath(path)]


def expand_inputs(
    inputs: str | Sequence[str] = (),
    *,
    manifest: str | Iterable[str] | None = None,
    base_url: str | None = None,
    storage_options: dict[str, Any] | None = None,
) -> list[str]:
    """The files a job reads, in order, without repeats.

    Args:
        inputs: Paths (a directory: the WARC/ARC files under it), globs (local or of a
            fsspec URL, e.g. ``s3://bucket/crawl/*.warc.gz``) and URLs.
        manifest: Manifest file(s) listing inputs one per line (see :func:`read_manifest`).
        base_url: Prefix of the manifest's relative entries (a URL or a directory).
        storage_options: fsspec options for remote globs and manifests.

    Local paths are made absolute (executors may run elsewhere); a missing path is kept
    (its task records it as failed).

    Raises:
        UsageError: no input at all, a glob that matches nothing, an empty directory.
    """
    given = [inputs] if isinstance(inputs, str) else list(inputs)
    out: list[str] = []
    for item in given:
        if is_url(item):
            out.extend(_glob_url(item, storage_options) if _has_glob(item) else [item])
        elif _has_glob(item):
            matched = sorted(_glob.glob(item, recursive=True))
            if not matched:
                raise UsageError(f"{item}: no file matches this pattern")
            for path in matched:
                out.extend(_local(path))
        else:
            out.extend(_local(item))
    manifests = [manifest] if isinstance(manifest, str) else list(manifest or ())
    for one in manifests:
        for entry in read_manifest(one, base=base_url, storage_options=storage_options):
            out.append(entry if is_url(entry) else os.path.abspath(entry))
    seen: set[str] = set()
    unique = [p for p in out if not (p in seen or seen.add(p))]  # type: ignore[func-returns-value]
    if not unique:
        raise UsageError("no input files (give paths, globs, URLs or a manifest)")
    return unique
