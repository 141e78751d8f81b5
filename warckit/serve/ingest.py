"""Index lines posted to a writable collection, made into pywb CDXJ (docs/serve-ingest.rst).

Each line is recognised on its own (a batch may mix formats): pywb / OutbackCDX CDXJ
(``key timestamp {json}``), warckit new-style CDX (eight fields, the last a JSON object),
classic CDX-11, CDX-10 and CDX-9 (by field count, or by the `` CDX …`` legend seen last).
Header lines (``!…``, `` CDX …``) and blank lines are passed over. Every capture becomes
the pywb CDXJ line ``cdx_key(url) 14-digit-timestamp {json}``: the key is made again from
the URL (the key a line carries may come from another canonicaliser or be new-style), so a
store answers exactly as a sorted CDXJ file written by ``warckit index -f cdxj`` would.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ..cdx import _keys
from ..cdx._timestamps import digits_of, to_14_digits
from ..errors import ParseError

__all__ = ["MAX_LINE", "BadLine", "LineConverter", "StoredLine", "split_lines"]

#: Longest line accepted (bytes, newline excluded); longer ones are bad lines.
MAX_LINE = 1 << 20

#: pywb field names of the classic legend letters (``N`` and ``b`` are the key and timestamp).
_CLASSIC_NAMES = {
    "a": "url", "m": "mime", "s": "status", "k": "digest", "r": "redirect",
    "M": "robotflags", "S": "length", "V": "offset", "g": "filename",
    # the three fields of a resolved revisit (no legend letter: pywb's names)
    "orig.length": "orig.length", "orig.offset": "orig.offset", "orig.filename": "orig.filename",
}
_ORIG = ("orig.length", "orig.offset", "orig.filename")
#: Legends by field count when no legend line says otherwise (pywb's CDX_FORMATS; 14,
#: 13 and 12 fields: OutbackCDX's and pywb's with a resolved revisit's three).
_DEFAULT_LEGENDS = {
    11: ("N", "b", "a", "m", "s", "k", "r", "M", "S", "V", "g"),
    10: ("N", "b", "a", "m", "s", "k", "r", "M", "V", "g"),
    9: ("N", "b", "a", "m", "s", "k", "r", "V", "g"),
    14: ("N", "b", "a", "m", "s", "k", "r", "M", "S", "V", "g", *_ORIG),
    13: ("N", "b", "a", "m", "s", "k", "r", "M", "V", "g", *_ORIG),
    12: ("N", "b", "a", "m", "s", "k", "r", "V", "g", *_ORIG),
}
_NUMBERS = frozenset({"offset", "length", "orig.offset", "orig.length"})


#: Days of each month (February of a leap year).
_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class BadLine(ValueError):
    """A line that cannot be stored; the message says why (and shows the value at fault)."""


@dataclass(frozen=True, slots=True)
class StoredLine:
    """One capture as the store keeps it.

    Attributes:
        line: The pywb CDXJ line, UTF-8, ending ``\\n``.
        ident: 16-byte digest of (key, 14-digit timestamp, filename, offset): what makes
            two lines the same capture (OutbackCDX's key since its index version 4).
        head: The key, the timestamp and a space after each: every line of the same
            capture starts with it.
    """

    line: bytes
    ident: bytes
    head: bytes


def capture_ident(key: str, timestamp: str, filename: str, offset: str) -> bytes:
    """The identity digest of a capture (see :class:`StoredLine`)."""
    text = f"{key}\x00{timestamp}\x00{filename}\x00{offset}".encode()
    return hashlib.blake2b(text, digest_size=16).digest()


def _timestamp14(value: str) -> str:
    """*value* (14-digit of any precision or W3C) as 14 digits; BadLine when it is no date."""
    if len(value) == 14 and value.isdigit() and value.isascii():
        ts = value  # the common case
    else:
        if value in ("", "-"):
            raise BadLine("missing timestamp")
        try:
            digits = digits_of(value)
            ts = to_14_digits(value)
        except ValueError:
            raise BadLine(f"bad timestamp {value!r}") from None
        if len(digits) < 4:
            raise BadLine(f"bad timestamp {value!r}")
    year, month, day = int(ts[0:4]), int(ts[4:6]), int(ts[6:8])
    hour, minute, second = int(ts[8:10]), int(ts[10:12]), int(ts[12:14])
    if not (1 <= month <= 12 and 1 <= day <= _DAYS[month]
            and (day < 29 or month != 2 or calendar.isleap(year))
            and hour <= 23 and minute <= 59 and second <= 60):
        raise BadLine(f"bad timestamp {value!r}")
    return ts


def _json_object(text: str) -> dict[str, Any]:
    """The JSON object of a CDXJ or new-style line."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise BadLine(f"bad JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadLine("the JSON field is not an object")
    return value


def _url(value: object) -> str:
    if not isinstance(value, str) or value in ("", "-"):
        raise BadLine("missing URL")
    return value


def _number(name: str, value: object) -> str:
    """An ``offset`` / ``length`` as text; BadLine unless a non-negative integer."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not (text.isdigit() and text.isascii()):
        raise BadLine(f"bad {name} {value!r}")
    return text


def _key(url: str, given_key: str, method: object, body: object) -> str:
    """``cdx_key`` of *url*, with the ``__wb_method`` query of a POST / PUT capture.

    The method and body come from the line's fields (CDXJ ``method`` / ``requestBody``,
    new-style ``method`` / ``request_body``) when it has them. A classic line has only
    its key: one with a ``__wb_method`` query is kept when the rest of it is the URL's
    key (the query cannot be rebuilt: SURT sorts the body's fields among the URL's).
    """
    if isinstance(method, str) and method and (body is not None or "__wb_method=" in given_key.lower()):
        suffix = ("&" if "?" in url else "?") + "__wb_method=" + method.upper()
        if isinstance(body, str) and body:
            suffix += "&" + body
        return _keys.cdx_key(url + suffix)
    key = _keys.cdx_key(url)
    if ("__wb_method=" in given_key and "__wb_method=" not in key
            and given_key.split("?", 1)[0] == key.split("?", 1)[0]):
        return given_key
    return key


def _stored(key: str, ts: str, json_text: str, filename: str, offset: str) -> StoredLine:
    head = f"{key} {ts} ".encode()
    return StoredLine(head + f"{json_text}\n".encode(), capture_ident(key, ts, filename, offset), head)


class LineConverter:
    """Turns the lines of one batch into :class:`StoredLine` (the legend seen last is kept)."""

    def __init__(self) -> None:
        self.letters: tuple[str, ...] | None = None

    def convert(self, raw: bytes) -> StoredLine | None:
        """The capture of *raw*, ``None`` for header and blank lines.

        Raises:
            BadLine: The line cannot be stored (the message says why).
        """
        if isinstance(raw, str):  # be kind to callers with text lines
            raw = raw.encode("utf-8")
        if len(raw) > MAX_LINE + 2:
            raise BadLine(f"line longer than {MAX_LINE} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadLine(f"not UTF-8 (byte {exc.start})") from None
        text = text.rstrip("\r\n")
        if not text.strip():
            return None
        control = _CONTROL.search(text)
        if control is not None:
            if control.group() in "\r\n":
                raise BadLine("line break inside the line")
            # no index format has raw controls (writers escape them): the line is damaged
            raise BadLine(f"control character {ord(control.group()):#04x} at column {control.start() + 1}")
        if text.startswith("!"):
            return None
        if text.startswith(" CDX"):
            self._legend(text)
            return None
        if text.startswith("@alias "):
            raise BadLine("aliases (@alias) are not supported")
        parts = text.split(" ", 2)
        if len(parts) == 3 and parts[2].startswith("{"):
            return self._cdxj(parts[0], parts[1], parts[2])
        fields = text.split(" ", 7)
        if len(fields) == 8 and fields[7].startswith("{"):
            return self._new_style(fields)
        return self._classic(text.split(" "))

    def _legend(self, text: str) -> None:
        letters = tuple(text[4:].split())
        known = set(_CLASSIC_NAMES) - set(_ORIG) | {"N", "b"}
        if not letters or not set(letters) <= known or "a" not in letters or "b" not in letters:
            raise BadLine(f"unsupported CDX legend {text!r}")
        self.letters = letters

    @staticmethod
    def _cdxj(given_key: str, timestamp: str, json_text: str) -> StoredLine:
        json_text = json_text.rstrip()
        fields = _json_object(json_text)
        url = _url(fields.get("url"))
        ts = _timestamp14(timestamp)
        offset = _number("offset", fields["offset"]) if "offset" in fields else ""
        if "length" in fields:
            _number("length", fields["length"])
        filename = fields.get("filename", "")
        key = _key(url, given_key, fields.get("method"), fields.get("requestBody"))
        return _stored(key, ts, json_text, str(filename), offset)

    @staticmethod
    def _new_style(parts: list[str]) -> StoredLine:
        given_key, timestamp, url, digest, rtype, filename, offset, json_text = parts
        extra = _json_object(json_text)
        url = _url(url)
        ts = _timestamp14(timestamp)
        offset = _number("offset", offset)
        fields: dict[str, Any] = {"url": url}
        mime = "warc/revisit" if rtype.removeprefix("arc-") == "revisit" else extra.get("mime")
        if mime:
            fields["mime"] = str(mime)
        if extra.get("status") is not None:
            fields["status"] = str(extra["status"])
        if digest != "-":
            fields["digest"] = digest
        if extra.get("length") is not None:
            fields["length"] = _number("length", extra["length"])
        fields["offset"] = offset
        fields["filename"] = filename
        method, body = extra.get("method"), extra.get("request_body")
        key = _key(url, given_key, method, body)
        if "__wb_method=" in key.lower():
            fields["requestBody"] = body if isinstance(body, str) else ""
            if isinstance(method, str):
                fields["method"] = method
        return _stored(key, ts, json.dumps(fields), filename, offset)

    def _classic(self, values: list[str]) -> StoredLine:
        letters = self.letters if self.letters and len(self.letters) == len(values) else None
        letters = letters or _DEFAULT_LEGENDS.get(len(values))
        if letters is None:
            raise BadLine(f"not a CDX, CDXJ or new-style CDX line ({len(values)} fields)")
        got = dict(zip(letters, values))
        url = _url(got.get("a"))
        ts = _timestamp14(got.get("b", "-"))
        fields = _classic_fields(got)
        key = _key(url, got.get("N", ""), None, None)
        return _stored(key, ts, json.dumps(fields), fields.get("filename", ""),
                       fields.get("offset", ""))


def _classic_fields(got: Mapping[str, str]) -> dict[str, str]:
    """The CDXJ fields of a classic line, in pywb's order; ``-`` values are left out."""
    fields: dict[str, str] = {}
    for letter, name in _CLASSIC_NAMES.items():
        value = got.get(letter)
        if value is None or value == "-":
            continue
        if name in _NUMBERS:
            value = _number(name, value)
        fields[name] = value
    return fields


def split_lines(chunks: Iterable[bytes], *, max_line: int = MAX_LINE) -> Iterator[bytes]:
    """Lines (each ending ``\\n`` but perhaps the last) of a body that arrives in chunks.

    Memory stays bounded: a line longer than *max_line* raises :class:`ParseError`
    rather than being gathered.
    """
    pending = bytearray()
    number = 0
    for chunk in chunks:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                pending += chunk[start:]
                break
            number += 1
            if pending:
                pending += chunk[start:end + 1]
                line = bytes(pending)
                pending.clear()
            else:
                line = chunk[start:end + 1]
            if len(line) > max_line + 1:
                raise ParseError(f"line {number} is longer than {max_line} bytes",
                                 snippet=line[:40])
            yield line
            start = end + 1
        if len(pending) > max_line:
            raise ParseError(f"line {number + 1} is longer than {max_line} bytes",
                             snippet=bytes(pending[:40]))
    if pending:
        yield bytes(pending)
