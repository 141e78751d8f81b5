"""Timestamps in index lines: W3C-ISO8601 (any precision) and 14-digit forms.

Index lines carry either the WARC-Date as written (new-style CDX: ``2016-12-31T23:59:60Z``,
``2026-11-30T09:00:00.123456Z``, ``2016-01``) or the classic 14-digit form
(``20161231235960``). To compare them, both are reduced to a *digit key*: the digits of the
timestamp, with missing month/day/time parts filled in. Digit keys of any precision compare
correctly as strings, because every part has a fixed width and the fraction comes last.

A WARC-Date with a UTC offset (``2020-01-01T00:30:00+01:00``; WARC requires ``Z``, but
such files exist) is converted to UTC first, in every form: its digit key, its 14-digit
CDX timestamp and its new-style field (:func:`utc_w3c`) all say ``2019-12-31T23:30:00``,
the time :attr:`warckit.WarcRecord.date` gives.
"""

from __future__ import annotations

import re

__all__ = [
    "digits_of",
    "lower_bound",
    "record_key",
    "seconds_of",
    "to_14_digits",
    "to_w3c",
    "upper_bound",
    "utc_w3c",
]

#: Fill for missing parts of a lower bound / a record timestamp: month 01, day 01, 00:00:00.
_LOW = "00000101000000"
#: Fill for missing parts of an upper bound: month 12, day 31, 23:59:60 (a leap second
#: belongs to its minute), then 9 fraction digits.
_HIGH = "99991231235960"
_HIGH_FRACTION = "999999999"

_W3C_RE = re.compile(
    r"^(\d{4})(?:-(\d\d)(?:-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?"
    r"(Z|[+-]\d\d:?\d\d)?)?)?)?$"
)
_SEPARATORS = str.maketrans("", "", "-T:Z.")
#: The WARC-Date of nearly every record: what :func:`utc_w3c` returns as it is.
_UTC_W3C_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z", re.ASCII)


def digits_of(timestamp: str) -> str:
    """Return the digits of a timestamp in either form, without fill.

    Args:
        timestamp: ``2014-01-03T03:03:21.5Z``, ``20140103030321``, ``2014`` …

    Returns:
        The digits in order (``201401030303215``).

    Raises:
        ValueError: The text is neither a 14-digit-style nor a W3C timestamp.
    """
    text = timestamp.strip()
    if text.isdigit() and text.isascii():
        return text
    n = len(text)
    if (  # the common YYYY-MM-DDThh:mm:ss[.f{1,9}]Z, checked without the regex
        (n == 20 or (22 <= n <= 30 and text[19] == "." and text[20:-1].isdigit()))
        and text[-1] == "Z" and text[4] == "-" and text[7] == "-" and text[10] == "T"
        and text[13] == ":" and text[16] == ":" and text.isascii()
    ):
        digits = text.translate(_SEPARATORS)
        if digits.isdigit():
            return digits
    match = _W3C_RE.match(text)
    if match is None or not text.isascii():
        raise ValueError(f"not a timestamp: {timestamp!r}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    if zone is not None and zone != "Z":
        year, month, day, hour, minute = _to_utc(year, month, day, hour, minute, zone, timestamp)
    return "".join(p for p in (year, month, day, hour, minute, second, fraction) if p is not None)


def _to_utc(year: str, month: str, day: str, hour: str, minute: str, zone: str,
            timestamp: str) -> tuple[str, str, str, str, str]:
    """Shift date, hour and minute by the UTC offset *zone* (``+01:00``, ``-0530``).

    Offsets are whole minutes, so seconds (a leap second ``60`` too) and the fraction
    stay as written.
    """
    from datetime import datetime, timedelta  # (a zone other than Z only: start-up stays quick)

    sign = -1 if zone[0] == "-" else 1
    zone_digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(zone_digits[:2]), minutes=int(zone_digits[2:]))
    try:
        local = datetime(int(year), int(month), int(day), int(hour), int(minute))
    except ValueError:
        raise ValueError(f"not a timestamp: {timestamp!r}") from None
    utc = local - sign * offset
    return (f"{utc.year:04d}", f"{utc.month:02d}", f"{utc.day:02d}", f"{utc.hour:02d}",
            f"{utc.minute:02d}")


def utc_w3c(timestamp: str) -> str:
    """*timestamp* in W3C form at UTC: as written unless it has a UTC offset, which is
    applied (``2020-01-01T00:30:00+01:00`` → ``2019-12-31T23:30:00Z``).

    Raises:
        ValueError: Not a W3C or 14-digit timestamp.
    """
    if _UTC_W3C_RE.fullmatch(timestamp) is not None:
        return timestamp
    digits = digits_of(timestamp)
    text = timestamp.strip()
    if text[-1:] == "Z" or "T" not in text:
        return text
    match = _W3C_RE.match(text)
    if match is None or match.group(8) is None:
        return text  # no zone: read as UTC already (webarchive-discovery quirk)
    return to_w3c(digits)


def record_key(timestamp: str) -> str:
    """Digit key of a record's timestamp: missing parts read as the start of the period.

    Unparsable timestamps (``-`` or damaged WARC-Dates written verbatim) give ``""``,
    which sorts before every date.
    """
    try:
        digits = digits_of(timestamp)
    except ValueError:
        return ""
    if len(digits) < 14:
        return digits + _LOW[len(digits):]
    return digits


def lower_bound(timestamp: str) -> str:
    """Digit key of a ``from`` bound: ``2014`` means 2014-01-01T00:00:00 and later.

    >>> lower_bound("2014")
    '20140101000000'
    """
    digits = digits_of(timestamp)
    if len(digits) < 14:
        return digits + _LOW[len(digits):]
    return digits


def upper_bound(timestamp: str) -> str:
    """Digit key of an inclusive ``to`` bound: ``2014`` covers all of 2014.

    A bound covers every timestamp that starts with it at its own precision, so
    ``20141231235959`` includes ``2014-12-31T23:59:59.999Z``.

    >>> upper_bound("2014")  # second 60: a leap second is still in 2014
    '20141231235960999999999'
    """
    digits = digits_of(timestamp)
    if len(digits) < 14:
        return digits + _HIGH[len(digits):] + _HIGH_FRACTION
    return digits + _HIGH_FRACTION[: max(0, 23 - len(digits))]


_EPOCH_ORDINAL = 719163  # date(1970, 1, 1).toordinal()


def seconds_of(key: str) -> float:
    """Seconds since the epoch of a digit key (leap second 60 counts as the next second)."""
    if len(key) < 14:
        key = key + _LOW[len(key):]
    year, month, day = int(key[0:4]), int(key[4:6]) or 1, int(key[6:8]) or 1
    hour, minute, second = int(key[8:10]), int(key[10:12]), int(key[12:14])
    # (calendar.timegm's arithmetic, without importing calendar: it imports locale, ~3 ms)
    from datetime import date

    days = date(year, month, 1).toordinal() - _EPOCH_ORDINAL + day - 1
    whole = ((days * 24 + hour) * 60 + minute) * 60 + second
    fraction = key[14:]
    return whole + (int(fraction) / 10 ** len(fraction) if fraction else 0.0)


def to_14_digits(timestamp: str) -> str:
    """The classic 14-digit form (fraction dropped, missing parts filled as pywb would).

    Raises:
        ValueError: Not a timestamp.
    """
    digits = digits_of(timestamp)
    if len(digits) < 14:
        return digits + _LOW[len(digits):]
    return digits[:14]


def to_w3c(digits: str) -> str:
    """W3C-ISO8601 form of a 14-digit (or shorter / longer) ARC or CDX timestamp.

    ``20080430204825`` → ``2008-04-30T20:48:25Z``; digits past 14 become a fraction; a
    shorter value keeps its precision (``200804`` → ``2008-04``).
    """
    d = digits
    if len(d) < 4:
        return d
    out = d[0:4]
    if len(d) >= 6:
        out += "-" + d[4:6]
    if len(d) >= 8:
        out += "-" + d[6:8]
    if len(d) >= 12:
        out += "T" + d[8:10] + ":" + d[10:12]
        if len(d) >= 14:
            out += ":" + d[12:14]
            if len(d) > 14:
                out += "." + d[14:]
        out += "Z"
    return out
