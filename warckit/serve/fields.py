"""Index entries as pywb sees them: its field names and values, and its CDXJ line.

pywb's CDX server reads every line into a ``CDXObject``: ``urlkey`` and ``timestamp``,
then the JSON fields of a CDXJ line (short names such as ``mimetype`` or ``l`` renamed,
``status`` as text, a URL with non-ASCII characters percent-encoded), or the fields of a
classic line by position (CDX-11: ``urlkey timestamp url mime status digest redirect
robotflags length offset filename``; CDX-9 without ``robotflags length``). A new-style
line, which pywb cannot read, is converted to the pywb CDXJ form ``warckit index -f cdxj``
writes: IA-style SURT key, 14-digit timestamp, ``url mime status digest length offset
filename`` (a ``sha1:`` digest as its bare base32, as pywb writes it).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from ..cdx import _keys
from ..cdx._timestamps import to_14_digits
from ..cdx.formats import AnyEntry, CdxEntry, CdxjEntry

__all__ = ["FIELD_ALIASES", "entry_fields", "pywb_cdxj_line", "pywb_record"]

#: Other names pywb accepts for a field, in CDXJ JSON keys and in ``filter``.
#: Quirk: pywb's table gives ``s`` twice and the second wins, so ``s`` is ``length``.
FIELD_ALIASES: dict[str, str] = {
    "u": "url",
    "original": "url",
    "statuscode": "status",
    "mimetype": "mime",
    "m": "mime",
    "l": "length",
    "s": "length",
    "o": "offset",
    "d": "digest",
    "t": "timestamp",
    "k": "urlkey",
    "f": "filename",
}

_CLASSIC_NAMES = {
    "N": "urlkey", "b": "timestamp", "a": "url", "m": "mime", "s": "status", "k": "digest",
    "r": "redirect", "M": "robotflags", "S": "length", "V": "offset", "g": "filename",
}


def _quoted_url(value: Any) -> Any:
    """pywb percent-encodes a CDXJ URL that is not ASCII (UTF-8, ``:`` and ``/`` kept)."""
    if isinstance(value, str) and not value.isascii():
        return quote(value.encode("utf-8"), safe=":/")
    return value


def _ia_key(entry: CdxEntry) -> str:
    """The IA-style key of a new-style entry: its host as pywb makes it, its path as indexed.

    The path part is taken from the new-style key, which already holds what a POST / PUT
    capture appends (``__wb_method=post&…``); only the host part differs between styles.
    """
    if entry.url == "-":
        return entry.urlkey
    base = _keys.cdx_key(entry.url)
    cut, host_end = entry.urlkey.find(")"), base.find(")")
    if cut < 0 or host_end < 0:
        return base
    return base[:host_end] + entry.urlkey[cut:]


def _new_style_record(entry: CdxEntry) -> dict[str, Any]:
    extra = entry.extra
    try:
        ts = to_14_digits(entry.timestamp)
    except ValueError:
        ts = entry.timestamp
    rec: dict[str, Any] = {"urlkey": _ia_key(entry), "timestamp": ts}
    if entry.url != "-":
        rec["url"] = _quoted_url(entry.url)
    if entry.record_type == "revisit":
        rec["mime"] = "warc/revisit"
    elif extra.get("mime") is not None:
        rec["mime"] = str(extra["mime"])
    if extra.get("status") is not None:
        rec["status"] = str(extra["status"])
    if entry.digest != "-":
        algorithm, sep, value = entry.digest.partition(":")
        rec["digest"] = value if sep and algorithm == "sha1" else entry.digest
    if extra.get("length") is not None:
        rec["length"] = str(extra["length"])
    rec["offset"] = str(entry.offset)
    rec["filename"] = entry.filename
    if "__wb_method=" in entry.urlkey and entry.record_type != "request":
        rec["requestBody"] = str(extra.get("request_body", ""))
        if extra.get("method") is not None:
            rec["method"] = str(extra["method"])
    return rec


def pywb_record(entry: AnyEntry) -> dict[str, Any]:
    """The fields pywb's ``CDXObject`` holds for *entry*, in its order.

    Values are text except where a CDXJ line's JSON has another type (pywb keeps it, and
    its ``output=json`` writes it so).

    >>> from warckit.cdx.formats import CdxjEntry
    >>> from warckit.serve.fields import pywb_record
    >>> pywb_record(CdxjEntry.parse('com,example)/ 20140101000000 {"url": "http://example.com/", "mimetype": "text/html", "status": 200}'))
    {'urlkey': 'com,example)/', 'timestamp': '20140101000000', 'url': 'http://example.com/', 'mime': 'text/html', 'status': '200'}
    """
    if isinstance(entry, CdxjEntry):
        rec: dict[str, Any] = {"urlkey": entry.urlkey, "timestamp": entry.timestamp}
        fields = entry.fields
        url = fields.get("url")
        if (fields.keys().isdisjoint(FIELD_ALIASES) and type(fields.get("status")) is not int
                and (not isinstance(url, str) or url.isascii())):
            rec.update(fields)  # the common case: nothing to rename or encode
            return rec
        for name, value in fields.items():
            name = FIELD_ALIASES.get(name, name)
            if name == "url":
                value = _quoted_url(value)
            elif name == "status" and isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            rec[name] = value
        return rec
    if isinstance(entry, CdxEntry):
        return _new_style_record(entry)
    return {_CLASSIC_NAMES[letter]: value for letter, value in zip(entry.letters, entry.values)}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def entry_fields(entry: AnyEntry) -> dict[str, str]:
    """*entry*'s fields by pywb name (``urlkey``, 14-digit ``timestamp``, ``url``, ``mime``,
    ``status``, ``digest``, ``length``, ``offset``, ``filename`` and any others it has), as text.

    >>> from warckit.cdx.formats import CdxEntry
    >>> from warckit.serve.fields import entry_fields
    >>> line = ('com,example,www,)/ 2014-01-03T03:03:21Z http://www.example.com/ sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A '
    ...         'response a.warc.gz 333 {"length":1043,"status":200,"mime":"text/html"}')
    >>> entry_fields(CdxEntry.parse(line))
    {'urlkey': 'com,example)/', 'timestamp': '20140103030321', 'url': 'http://www.example.com/', 'mime': 'text/html', 'status': '200', 'digest': 'B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A', 'length': '1043', 'offset': '333', 'filename': 'a.warc.gz'}
    """
    return {name: _text(value) for name, value in pywb_record(entry).items()}


def pywb_cdxj_line(entry: AnyEntry, record: dict[str, Any] | None = None,
                   fl: tuple[str, ...] | None = None) -> str:
    """*entry* as a pywb CDXJ line (no newline): a CDXJ line as it is, others converted
    (pywb's ``to_cdxj``: key, timestamp, JSON of the other fields, or of those in *fl*).
    """
    if isinstance(entry, CdxjEntry) and fl is None:
        return entry.format()
    rec = pywb_record(entry) if record is None else record
    items = list(rec.items())
    rest = dict(items[2:])
    if fl is not None:
        rest = {name: rest[name] for name in fl if name in rest}
    return f"{rec['urlkey']} {rec['timestamp']} {json.dumps(rest)}"
