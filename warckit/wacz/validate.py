"""Validate a WACZ package: structure, every hash and size, the index against the
records, and optionally ``warckit check`` of each WARC inside.

Every problem found is reported (an :class:`~warckit.errors.Issue` naming the member
and, where there is one, the offset), not just the first; the package is valid when
none is an error. What is checked:

* the ZIP directory, ``datapackage.json`` (JSON, ``wacz_version``, ``resources`` with
  ``path``, ``hash`` and ``bytes``) and ``datapackage-digest.json`` (the hash of
  ``datapackage.json``), when present;
* each resource: present, its size, its hash (``sha256:`` or any :mod:`hashlib`
  algorithm named), its ZIP CRC-32; each file in the ZIP is listed;
* at least one WARC under ``archive/``, stored (not deflated), as is ``index.cdx.gz``;
  an index (``indexes/index.cdx``, or ``index.cdx.gz`` with ``index.idx``);
* every index line: sorted, a CDXJ line whose ``filename`` is a WARC of the package
  and whose ``offset`` holds a record with that URL and that date;
* ``pages/pages.jsonl``, when present: JSON Lines, a header, each page with a ``url``.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, cast

from ..cdx._timestamps import record_key
from ..cdx.capture import escape_not_utf8
from ..cdx.formats import CdxjEntry
from ..check.report import FileReport, check_file
from ..errors import Issue, ParseError, WarckitError
from ..io.sources import InputLike, open_source
from ..io.zipped import MemberFile, ZipMember, iter_member, open_member, read_directory, read_member
from ..read.reader import read_record_at
from ..read.wacz import ARCHIVE_DIR
from .datapackage import DATAPACKAGE, DIGEST
from .indexes import CDX, CDX_GZ, IDX
from .query import WaczIndex

__all__ = ["WaczReport", "validate_wacz"]

PAGES = "pages/pages.jsonl"
_MAX_PAGE_LINE = 1 << 20


@dataclass
class WaczReport:
    """What :func:`validate_wacz` found.

    Attributes:
        path: The package.
        version: Its ``wacz_version``.
        resources: Resources checked.
        index_lines: Index lines checked against their records.
        issues: Every finding, in the order found.
        warcs: The ``warckit check`` report of each WARC (with ``check=True``).
    """

    path: str
    version: str | None = None
    resources: int = 0
    index_lines: int = 0
    issues: list[Issue] = field(default_factory=list)
    warcs: list[FileReport] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """Number of errors (the WARC checks' included)."""
        return sum(i.severity == "error" for i in self.issues) + sum(r.errors for r in self.warcs)

    @property
    def ok(self) -> bool:
        """No error."""
        return self.errors == 0


def _hash_member(f: IO[bytes], member: ZipMember, algorithm: str, name: str) -> tuple[str, int, int]:
    """``algorithm:hex``, size and CRC-32 of a member's content, streamed."""
    h = hashlib.new(algorithm)
    size = crc = 0
    for chunk in iter_member(f, member, name):
        h.update(chunk)
        crc = zlib.crc32(chunk, crc)
        size += len(chunk)
    return f"{algorithm}:{h.hexdigest()}", size, crc


def validate_wacz(source: InputLike, *, check: bool = False, verify_digests: bool = True,
                  name: str | None = None) -> WaczReport:
    """Validate a WACZ; problems become findings of the report (it never raises for
    bad content).

    Args:
        source: A path or a seekable binary file object.
        check: Also run ``warckit check`` on each WARC inside.
        verify_digests: With *check*, recompute record digests.
        name: The name used in findings.

    Raises:
        OSError: the file cannot be opened.
    """
    src = open_source(source, name=name)
    report = WaczReport(src.name)
    try:
        _validate(src.file, report, check, verify_digests)
    finally:
        src.close()
    return report


def _validate(f: IO[bytes], report: WaczReport, check: bool, verify_digests: bool) -> None:
    name = report.path

    def add(code: str, message: str, member: str | None = None, offset: int | None = None,
            severity: str = "error") -> None:
        where = f"{name}#{member}" if member else name
        report.issues.append(Issue(code, message, severity, offset, where))

    try:
        members = {m.name: m for m in read_directory(f, name)}
    except ParseError as exc:
        add("not-a-zip", exc.message)
        return
    resources = _datapackage(f, members, report, add)
    listed = set()
    for res in resources:
        path = res.get("path")
        if not isinstance(path, str):
            add("resource-without-path", f"a resource has no path: {res!r:.200}", DATAPACKAGE)
            continue
        listed.add(path)
        report.resources += 1
        _check_resource(f, members, res, path, add)
    for member in members:
        if member not in listed and member not in (DATAPACKAGE, DIGEST) and not member.endswith("/"):
            add("unlisted-file", "not listed in datapackage.json", member, severity="warning")
    warcs = [m for n, m in members.items() if n.startswith(ARCHIVE_DIR) and not n.endswith("/")]
    if not warcs:
        add("no-warc", f"no WARC under {ARCHIVE_DIR}")
    for m in warcs + [members[n] for n in (CDX_GZ,) if n in members]:
        if not m.stored:
            add("deflated", "deflated in the ZIP; it must be stored to be read by ranges", m.name,
                m.header_offset)
    _pages(f, members, add)
    _index(f, members, report, add)
    if check:
        for m in warcs:
            if m.stored:
                view = open_member(f, m, name)
                report.warcs.append(check_file(cast(IO[bytes], view), verify_digests=verify_digests, name=view.name))


def _datapackage(f: IO[bytes], members: dict[str, ZipMember], report: WaczReport,
                 add: Callable[..., None]) -> list[dict[str, Any]]:
    member = members.get(DATAPACKAGE)
    if member is None:
        add("no-datapackage", f"no {DATAPACKAGE}")
        return []
    try:
        raw = read_member(f, member, report.path)
        package = json.loads(raw)
    except ParseError as exc:
        add("bad-member", exc.message, DATAPACKAGE)
        return []
    except (ValueError, UnicodeDecodeError) as exc:
        add("bad-datapackage", f"not JSON ({exc})", DATAPACKAGE)
        return []
    if not isinstance(package, dict):
        add("bad-datapackage", "not a JSON object", DATAPACKAGE)
        return []
    version = package.get("wacz_version")
    report.version = version if isinstance(version, str) else None
    if report.version is None:
        add("no-wacz-version", "no wacz_version", DATAPACKAGE)
    for key in ("created", "software"):
        if key not in package:
            add(f"no-{key}", f"no {key}", DATAPACKAGE, severity="warning")
    digest = members.get(DIGEST)
    if digest is not None:
        _digest(f, digest, raw, report.path, add)
    resources = package.get("resources")
    if not isinstance(resources, list):
        add("no-resources", "no list of resources", DATAPACKAGE)
        return []
    return [r if isinstance(r, dict) else {} for r in resources]


def _digest(f: IO[bytes], member: ZipMember, package: bytes, name: str, add: Callable[..., None]) -> None:
    try:
        digest = json.loads(read_member(f, member, name))
        algorithm, _, value = str(digest["hash"]).partition(":")
        actual = hashlib.new(algorithm, package).hexdigest()
    except (ParseError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        add("bad-digest-file", f"no usable hash ({exc})", DIGEST)
        return
    if actual != value:
        add("datapackage-hash-mismatch", f"{DATAPACKAGE} hashes to {algorithm}:{actual}, not "
            f"{algorithm}:{value}", DIGEST)


def _check_resource(f: IO[bytes], members: dict[str, ZipMember], res: dict[str, Any], path: str,
                    add: Callable[..., None]) -> None:
    member = members.get(path)
    if member is None:
        add("missing-resource", "listed in datapackage.json but not in the ZIP", path)
        return
    declared = res.get("hash")
    algorithm = str(declared).partition(":")[0] if isinstance(declared, str) else ""
    if algorithm not in hashlib.algorithms_available:
        add("bad-resource-hash", f"hash {declared!r} names no known algorithm", path)
        algorithm = "sha256"
    try:
        actual, size, crc = _hash_member(f, member, algorithm, "")
    except ParseError as exc:
        add("bad-member", exc.message, path, exc.offset)
        return
    if isinstance(declared, str) and actual != declared:
        add("hash-mismatch", f"content hashes to {actual}, datapackage.json says {declared}", path)
    if res.get("bytes") != size:
        add("size-mismatch", f"{size} bytes, datapackage.json says {res.get('bytes')!r}", path)
    if crc != member.crc:
        add("crc-mismatch", "the ZIP CRC-32 does not match the content", path, member.header_offset)


def _pages(f: IO[bytes], members: dict[str, ZipMember], add: Callable[..., None]) -> None:
    member = members.get(PAGES)
    if member is None:
        add("no-pages", f"no {PAGES}", severity="warning")
        return
    try:
        lines = _lines(iter_member(f, member, ""))
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                add("bad-page", f"line {number} is not JSON", PAGES)
                continue
            if number == 1:
                if not isinstance(obj, dict) or "format" not in obj:
                    add("no-pages-header", "the first line is not a header with a format", PAGES,
                        severity="warning")
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("url"), str):
                add("bad-page", f"line {number} is not a page with a url", PAGES)
    except ParseError as exc:
        add("bad-member", exc.message, PAGES)


def _lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Lines of a stream of chunks (each at most :data:`_MAX_PAGE_LINE` long)."""
    buf = b""
    for chunk in chunks:
        buf += chunk
        *done, buf = buf.split(b"\n")
        yield from done
        if len(buf) > _MAX_PAGE_LINE:
            raise ParseError(f"a line longer than {_MAX_PAGE_LINE} bytes")
    if buf:
        yield buf


def _index(f: IO[bytes], members: dict[str, ZipMember], report: WaczReport, add: Callable[..., None]) -> None:
    if not (CDX in members or (CDX_GZ in members and IDX in members)):
        add("no-index", f"no index ({CDX}, or {CDX_GZ} with {IDX})")
        return
    try:
        index = WaczIndex(f, name=report.path)
    except WarckitError as exc:
        add("bad-index", str(exc))
        return
    where = index.index_member
    views: dict[str, MemberFile] = {}
    previous = b""
    try:
        for line in index.iter_all():
            report.index_lines += 1
            if line < previous:
                add("index-unsorted", f"line {report.index_lines} sorts before the line above it", where)
            previous = line
            _index_line(f, line.decode("utf-8", "replace"), report, members, views, where, add)
    except WarckitError as exc:
        add("bad-index", str(exc), where)


def _index_line(f: IO[bytes], text: str, report: WaczReport, members: dict[str, ZipMember],
                views: dict[str, MemberFile], where: str, add: Callable[..., None]) -> None:
    n = report.index_lines
    try:
        entry = CdxjEntry.parse(text)
        fields = entry.fields
        filename, offset = str(fields["filename"]), int(fields["offset"])
    except (ParseError, KeyError, ValueError, TypeError):
        add("bad-index-line", f"line {n} is not a CDXJ line with filename and offset", where)
        return
    view = views.get(filename)
    if view is None:
        member = members.get(ARCHIVE_DIR + filename)
        if member is None or not member.stored:
            add("index-unknown-warc", f"line {n} names {filename!r}, not a stored WARC of the package",
                where)
            return
        view = views[filename] = open_member(f, member, report.path)
    try:
        with read_record_at(cast(IO[bytes], view), offset, name=view.name) as record:
            url, date = record.target_uri, record.date_string
    except WarckitError as exc:
        add("index-no-record", f"line {n}: no record at offset {offset} of {filename} ({exc})", where)
        return
    want = str(fields.get("url", ""))
    # (a URL that is not UTF-8 is indexed with those bytes as %XX, as `index --lenient` writes it)
    if want and url != want and escape_not_utf8(url or "") != want:
        add("index-url-mismatch", f"line {n}: the record at {filename}:{offset} is of {url!r}, "
            f"not {want!r}", where)
    try:
        key = record_key(date or "")
    except ValueError:
        key = ""
    if key[:14] != entry.timestamp[:14]:
        add("index-date-mismatch", f"line {n}: the record at {filename}:{offset} is dated {date!r}, "
            f"not {entry.timestamp}", where)
