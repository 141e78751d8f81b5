"""Optional content detectors: ``content_mime_detected`` and ``content_languages``.

Both read a bounded head of the payload (:data:`HEAD_BYTES`, after removing chunked
transfer-coding and gzip/deflate/br/zstd content-coding in memory) and are used only when
their library is installed (``pip install 'warckit[parquet]'``); without it the column is
null.

* ``content_mime_detected``: :mod:`puremagic` (pure Python, magic numbers; CC uses Apache
  Tika). A head with no known signature that is UTF-8 text without NUL bytes is
  ``text/plain``; anything else unknown is null.
* ``content_languages``: CLD2 through :mod:`pycld2` (what CC uses), up to three languages
  as ISO 639-3 codes, comma-separated, most of the text first (``fra,eng``). CLD2's
  639-1 codes are mapped with :mod:`iso639` (python-iso639); a code it does not know is
  dropped. Only text documents (``text/*``, XHTML, XML) are examined; HTML markup is
  skipped by CLD2 itself.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from ..errors import WarckitError
from ..io.chunked import ChunkedReader, DecodingReader

__all__ = ["HEAD_BYTES", "available", "decoded_head", "detect_languages", "detect_mime", "is_text"]

#: Bytes of payload the detectors read.
HEAD_BYTES = 64 * 1024


@cache
def _module(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        return None


def available() -> dict[str, bool]:
    """Which detectors are installed: ``{"mime": …, "languages": …}``."""
    return {"mime": _module("puremagic") is not None,
            "languages": _module("pycld2") is not None and _module("iso639") is not None}


def decoded_head(raw: bytes, *, chunked: bool = False, encodings: Sequence[str] = (),
                 limit: int = HEAD_BYTES) -> bytes:
    """Up to *limit* bytes of content from the stored payload head *raw*.

    Transfer- and content-codings are removed as far as the head allows; a head cut in
    the middle of a coding gives what decoded before the cut.

    >>> import gzip
    >>> decoded_head(b"5\\r\\nhello\\r\\n0\\r\\n\\r\\n", chunked=True)
    b'hello'
    >>> decoded_head(gzip.compress(b"<html>" * 3)[:-8], encodings=["gzip"])
    b'<html><html><html>'
    """
    stream: Any = io.BytesIO(raw)
    out = bytearray()
    try:
        if chunked:
            stream = ChunkedReader(stream, lenient=True)
        for coding in reversed(encodings):
            stream = DecodingReader(stream, coding)
        while len(out) < limit:
            piece = stream.read(limit - len(out))
            if not piece:
                break
            out += piece
    except (WarckitError, OSError, ValueError, EOFError):
        pass  # the head ends inside the coding, or the coding is unknown: keep what decoded
    return bytes(out[:limit])


def detect_mime(head: bytes) -> str | None:
    """The media type *head* looks like (``None``: puremagic missing, or unknown).

    >>> detect_mime(b"\\x89PNG\\r\\n\\x1a\\n\\0\\0\\0\\rIHDR")  # doctest: +SKIP
    'image/png'
    """
    magic = _module("puremagic")
    if magic is None or not head:
        return None
    try:
        found = magic.from_string(head, mime=True)
    except (magic.PureError, ValueError, IndexError, KeyError, OSError):  # nothing matched, odd bytes
        found = None
    if found:
        return str(found)
    if b"\0" not in head:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 3:  # not just a character cut at the end of the head
                return None
        return "text/plain"
    return None


def is_text(mime: str | None) -> bool:
    """Whether documents of *mime* are examined for their language."""
    if not mime:
        return False
    return mime.startswith("text/") or mime in ("application/xhtml+xml", "application/xml")


@lru_cache(maxsize=256)
def _iso639_3(code: str) -> str | None:
    iso639 = _module("iso639")
    base = code.split("-", 1)[0].lower()
    try:
        lang = iso639.Language.match(base)
    except iso639.LanguageNotFoundError:
        return None
    part3 = lang.part3
    return str(part3) if part3 else None


#: Control characters but tab, line feed and carriage return, deleted before CLD2.
_CONTROLS = {c: None for c in (*range(32), 127) if c not in (9, 10, 13)}


def _charset(name: str | None) -> str:
    if name:
        try:
            return codecs.lookup(name).name
        except LookupError:
            pass
    return "utf-8"


def detect_languages(head: bytes, charset: str | None = None) -> str | None:
    """Languages of the text in *head*, ISO 639-3, comma-separated (``None``: pycld2 or
    iso639 missing, or nothing recognised).

    >>> detect_languages("Ceci est une phrase en français, avec assez de mots pour CLD2.".encode())  # doctest: +SKIP
    'fra'
    """
    cld2 = _module("pycld2")
    if cld2 is None or _module("iso639") is None or not head:
        return None
    text = head.decode(_charset(charset), "replace")
    text = text.translate(_CONTROLS)  # CLD2 rejects some controls
    try:
        _reliable, _bytes, details = cld2.detect(text, isPlainText=False)
    except cld2.error:
        return None
    codes: list[str] = []
    for _name, code, percent, _score in details:
        if percent <= 0 or code in ("un", "xxx"):
            continue
        part3 = _iso639_3(code)
        if part3 is not None and part3 not in codes:
            codes.append(part3)
    return ",".join(codes[:3]) or None
