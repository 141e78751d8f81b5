"""Unpack every payload of a WARC/ARC file into a directory, with a manifest.

File names come from the URLs, but a URL is hostile input: nothing it contains can
make warckit write outside the output directory or replace an existing file.

* Each path segment is percent-decoded, then reduced to ``[A-Za-z0-9._-]`` (anything
  else becomes ``_``); leading dots are replaced, so ``..``, ``.`` and hidden names
  cannot occur; NUL, ``/``, ``\\`` and drive letters become ``_``.
* Windows device names (``CON``, ``NUL``, ``COM1``…, also with an extension) get a
  ``_`` prefix; trailing dots and spaces are removed.
* Segments are cut to 100 characters, the whole relative path to 240 (longer paths
  collapse to the host directory plus a hash-suffixed leaf).
* Files are created with ``O_CREAT | O_EXCL | O_NOFOLLOW``: an existing file (or a
  symbolic link planted in the directory) is never written through; a name already
  taken gets ``-1``, ``-2``… before its extension. A directory component that
  exists as a file or link is replaced by ``name~1``, ``name~2``…
* The final path is checked to resolve inside the output directory.

The manifest ``manifest.csv`` lists, per file: the file name (relative, ``/``
separated), URL, WARC-Date, media type, HTTP status, byte count, the record's
payload digest, and the source file and offset.
"""

from __future__ import annotations

import csv
import hashlib
import mimetypes
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import Issue, UsageError
from ..io.atomic import create_exclusive, removed_on_failure
from ..read.reader import open_archive
from ..record.records import WarcRecord
from ..write.writer import Readable

__all__ = ["MANIFEST_NAME", "ExtractStats", "extract_all", "safe_relative_path"]

#: Name of the manifest written into the output directory.
MANIFEST_NAME = "manifest.csv"
MANIFEST_FIELDS = ("file", "url", "date", "media_type", "status", "length", "payload_digest",
                   "source", "offset")

_MAX_SEGMENT = 100
_MAX_PATH = 240
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"COM{i}" for i in range(10)] + [f"LPT{i}" for i in range(10)]
    + ["COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³"]
)
_TYPES = ("response", "resource", "conversion")


@dataclass
class ExtractStats:
    """What :func:`extract_all` did.

    Attributes:
        files: Payload files written.
        skipped: Records without a payload to extract (requests, revisits, metadata…).
        bytes: Payload bytes written.
        renamed: Files whose first-choice name was taken and got a suffix.
        manifest: Path of the manifest.
    """

    files: int = 0
    skipped: int = 0
    bytes: int = 0
    renamed: int = 0
    manifest: str = ""
    names: list[str] = field(default_factory=list)


def _segment(text: str, *, decode: bool = True) -> str:
    """One safe path segment (may be empty)."""
    if decode:
        text = unquote(text, errors="replace")
    text = _UNSAFE.sub("_", text)
    text = text.rstrip(". ")
    if text.startswith("."):
        text = "_" + text[1:]
    if text and text.split(".", 1)[0].upper() in _WINDOWS_RESERVED:
        text = "_" + text
    if len(text) > _MAX_SEGMENT:
        stem, dot, ext = text.rpartition(".")
        if dot and 0 < len(ext) <= 10:
            text = stem[: _MAX_SEGMENT - len(ext) - 1] + "." + ext
        else:
            text = text[:_MAX_SEGMENT]
    return text


def safe_relative_path(url: str, media_type: str | None = None) -> list[str]:
    """The path segments (host first) a payload of *url* is stored under.

    Every segment is safe on POSIX and Windows file systems (see the module doc).

    Example:
        >>> safe_relative_path("http://example.com/a/../../etc/passwd")
        ['example.com', 'a', '_', '_', 'etc', 'passwd']
        >>> safe_relative_path("http://example.com/", "text/html")
        ['example.com', 'index.html']
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port is not None:
            host += f"_{parts.port}"
    except ValueError:
        parts = urlsplit("")
        host = ""
    scheme = _segment(parts.scheme or "", decode=False) or "noscheme"
    hostseg = _segment(host, decode=False) or f"_{scheme}"
    raw_path = parts.path if parts.scheme else url
    if not parts.scheme and ":" in url:  # dns:host, urn:…, metadata://… already handled
        raw_path = url.split(":", 1)[1]
    segs = [_segment(s) or "_" for s in re.split(r"[/\\]+", raw_path) if s not in ("",)]
    leaf_given = bool(segs) and not raw_path.endswith(("/", "\\"))
    if not leaf_given:
        segs.append("index")
    leaf = segs[-1]
    if parts.query:
        leaf += "_" + hashlib.sha1(parts.query.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    if "." not in leaf.lstrip("_") and media_type:
        ext = mimetypes.guess_extension(media_type.split(";", 1)[0].strip().lower() or "")
        if ext and _UNSAFE.search(ext[1:]) is None:
            leaf += ext
    segs[-1] = _segment(leaf, decode=False) or "_"
    rel = [hostseg, *segs]
    if sum(len(s) + 1 for s in rel) > _MAX_PATH:
        digest = hashlib.sha1(url.encode("utf-8", "surrogateescape")).hexdigest()[:12]
        stem, dot, ext = segs[-1].rpartition(".")
        base = stem if dot and len(ext) <= 10 else segs[-1]
        tail = f".{ext}" if dot and len(ext) <= 10 else ""
        rel = [hostseg, _segment(base[:60] + "-" + digest + tail, decode=False)]
    return rel


def _is_plain_dir(path: str) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISDIR(st.st_mode)


def _make_dirs(root: str, segments: list[str]) -> str:
    """Create (or reuse) real directories under *root*; never follow a link."""
    current = root
    for seg in segments:
        n = 0
        while True:
            name = seg if n == 0 else f"{seg}~{n}"
            candidate = os.path.join(current, name)
            if _is_plain_dir(candidate):
                break
            if not os.path.lexists(candidate):
                try:
                    os.mkdir(candidate, 0o755)
                    break
                except FileExistsError:
                    continue  # created concurrently: look again
            n += 1
        current = candidate
    return current


def _create(directory: str, leaf: str) -> tuple[int, str, bool]:
    """Create a new file in *directory*; return (fd, path, renamed)."""
    stem, dot, ext = leaf.rpartition(".")
    if not dot or not stem.strip("_"):
        stem, ext, dot = leaf, "", ""
    n = 0
    while True:
        name = leaf if n == 0 else f"{stem}-{n}{dot}{ext}"
        path = os.path.join(directory, name)
        try:
            return create_exclusive(path, 0o644), path, n > 0
        except (FileExistsError, IsADirectoryError):
            n += 1


def _inside(root: str, path: str) -> bool:
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(path)]) == real_root


def _payload(record: WarcRecord, decode: bool) -> tuple[Readable, int | None, str | None]:
    """(stream, status, media type) of what gets extracted from *record*."""
    from ..io.chunked import ChunkedReader, DecodingReader

    http = record.http if record.has_http else None
    if http is not None and http.is_response:
        stream: Any = record.payload_stream()
        if http.chunked:
            # Quirk: "Transfer-Encoding: chunked" over a body that is not chunked (pywb
            # iana.warc.gz): the body is extracted as stored rather than lost.
            stream = ChunkedReader(stream, lenient=True)
        if decode:
            for coding in reversed(http.content_encodings()):
                stream = DecodingReader(stream, coding, source=record.source, offset=record.offset)
        return stream, http.status, http.mime_type
    if record.type == "response" and record.format == "warc" and http is None and record.has_http:
        return record.raw_stream(), None, record.content_type
    mime = record.content_type
    return record.raw_stream(), None, mime.split(";", 1)[0].strip() if mime else None


def extract_all(
    source: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    decode: bool = False,
    lenient: bool = False,
    on_warning: Callable[[Issue], None] | None = None,
) -> ExtractStats:
    """Write the payload of every response/resource/conversion record to its own file.

    Args:
        source: A WARC or ARC file.
        out_dir: Output directory (created if missing). Must not already hold a
            manifest: nothing is ever overwritten.
        decode: Also remove Content-Encoding (gzip, br…) from HTTP payloads.
        lenient: Read damaged input leniently.
        on_warning: Receives the reader's recoveries.

    Raises:
        UsageError: *out_dir* already holds a manifest.
    """
    root = os.path.abspath(os.fspath(out_dir))
    os.makedirs(root, exist_ok=True)
    stats = ExtractStats(manifest=os.path.join(root, MANIFEST_NAME))
    try:
        mfd = create_exclusive(stats.manifest, 0o644)
    except FileExistsError:
        raise UsageError(f"{stats.manifest} exists: extract into an empty directory") from None
    payload_root = _make_dirs(root, ["files"])
    src_name = os.path.basename(os.fspath(source))
    with os.fdopen(mfd, "w", newline="", encoding="utf-8") as mf, \
            open_archive(source, lenient=lenient, on_warning=on_warning) as reader:
        writer = csv.writer(mf)
        writer.writerow(MANIFEST_FIELDS)
        for record in reader:
            if record.type not in _TYPES or record.content_length == 0:
                stats.skipped += 1
                continue
            url = record.target_uri or f"urn:record:{record.offset}"
            stream, status, mime = _payload(record, decode)
            segments = safe_relative_path(url, mime)
            directory = _make_dirs(payload_root, segments[:-1])
            fd, path, renamed = _create(directory, segments[-1])
            if not _inside(payload_root, path):  # pragma: no cover - defence in depth
                os.close(fd)
                os.unlink(path)
                raise UsageError(f"refusing to write outside {root}: {path}")
            size = 0
            # A payload cut short (damaged input, a full disk, a stop) is not left
            # looking like a whole one: only the files in the manifest are complete.
            with removed_on_failure(path), os.fdopen(fd, "wb") as f:
                read = stream.read
                while True:
                    chunk = read(1 << 20)
                    if not chunk:
                        break
                    f.write(chunk)
                    size += len(chunk)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            stats.files += 1
            stats.bytes += size
            stats.renamed += renamed
            stats.names.append(rel)
            pd = record.payload_digest if record.format == "warc" else None
            writer.writerow([rel, url, record.date_string or "", mime or "",
                             "" if status is None else status, size, str(pd) if pd else "",
                             src_name, record.offset])
    return stats
