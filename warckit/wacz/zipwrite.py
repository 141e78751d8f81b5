"""Writing the members of a WACZ: streamed in chunks, hashed as they go, ZIP64 when needed.

The standard library's :class:`zipfile.ZipFile` writes the container (it patches
each local header after the data on a seekable output, and writes ZIP64 extra fields
and end records when sizes or offsets pass 4 GiB); this module feeds it a file at
a time in 1 MiB chunks, so memory stays constant whatever the WARC sizes, and
returns each member's :class:`~warckit.wacz.datapackage.Resource`.
"""

from __future__ import annotations

import hashlib
import time
import zipfile
from typing import IO

from ..errors import UsageError
from .datapackage import Resource

__all__ = ["CHUNK", "add_bytes", "add_file"]

CHUNK = 1 << 20
#: Members at least this large get ZIP64 local headers (their size does not fit 32 bits).
ZIP64_AT = zipfile.ZIP64_LIMIT


def _info(path: str, stored: bool) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(path, date_time=time.gmtime()[:6])
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def add_file(zf: zipfile.ZipFile, path: str, src: IO[bytes], size: int, *, stored: bool = True,
             force_zip64: bool = False, source: str = "") -> Resource:
    """Copy *size* bytes of *src* into the member *path*; its resource entry.

    Raises:
        UsageError: *src* did not hold exactly *size* bytes (it changed while copied).
    """
    digest = hashlib.sha256()
    copied = 0
    with zf.open(_info(path, stored), "w", force_zip64=force_zip64 or size >= ZIP64_AT) as out:
        while chunk := src.read(CHUNK):
            digest.update(chunk)
            out.write(chunk)
            copied += len(chunk)
    if copied != size:
        raise UsageError(f"{source or path}: {copied} bytes read, {size} expected "
                         f"(the file changed while it was packaged)")
    return Resource(path, "sha256:" + digest.hexdigest(), copied)


def add_bytes(zf: zipfile.ZipFile, path: str, data: bytes, *, stored: bool = False) -> Resource:
    """Write a small member from memory (the package files); its resource entry."""
    zf.writestr(_info(path, stored), data)
    return Resource(path, "sha256:" + hashlib.sha256(data).hexdigest(), len(data))
