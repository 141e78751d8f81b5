"""WARC-Date / ARC date parsing (W3C-ISO8601 with 1-9 fraction digits, leap seconds)."""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    import re
    from datetime import datetime

# (The datetime module is imported in the functions: `import warckit` does not need it,
# and a plain `import` of a loaded module costs ~0.1 µs.)

__all__ = ["format_warc_date", "parse_arc_date", "parse_warc_date", "to_14_digits"]

# WARC 1.1 §5.4: w3c-iso8601 at any W3CDTF granularity, fraction 1-9 digits.
_W3C_PATTERN = (
    r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?)?)?)?\Z"
)
#: The compiled pattern, on first use (compiling it costs 0.6 ms of every start-up).
_w3c: re.Pattern[str] | None = None


def parse_warc_date(text: str) -> datetime | None:
    """Parse a WARC-Date into a timezone-aware UTC ``datetime``; ``None`` if it is not one.

    Accepts every W3CDTF granularity (``2016``, ``2016-01``, ``…T23:24:25.412030Z``)
    and 1-9 fraction digits (truncated to microseconds: the raw string keeps the
    rest). ``23:59:60`` (a leap second) parses to the next second.
    Quirk: a missing ``Z`` (``2019-08-15T01:02``, webarchive-discovery) is read as UTC;
    explicit offsets (ClueWeb09 ``-0700``) are converted to UTC.
    """
    global _w3c
    if _w3c is None:  # (re.ASCII: only ASCII digits are digits in a WARC-Date, not "٢٠٢٤")
        import re

        _w3c = re.compile(_W3C_PATTERN, re.ASCII)
    m = _w3c.match(text.strip())
    if m is None:
        return None
    import datetime as _dt

    year, month, day, hh, mm, ss, frac, tz = m.groups()
    try:
        leap = ss == "60"
        dt = _dt.datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hh or 0),
            int(mm or 0),
            59 if leap else int(ss or 0),
            int((frac or "0")[:6].ljust(6, "0")),
            tzinfo=_dt.timezone.utc,
        )
        if leap:
            dt += _dt.timedelta(seconds=1)
        if tz and tz != "Z":
            sign = 1 if tz[0] == "+" else -1
            digits = tz[1:].replace(":", "")
            dt -= sign * _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    except (ValueError, OverflowError):  # (OverflowError: a leap second or offset past year 1..9999)
        return None
    return dt


def parse_arc_date(text: str) -> datetime | None:
    """Parse an ARC archive-date (``YYYYMMDDhhmmss``, GMT; longer forms truncated)."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits) < 4:
        return None
    import datetime as _dt

    digits = digits[:14].ljust(14, "0")
    try:
        return _dt.datetime(
            int(digits[0:4]), int(digits[4:6]) or 1, int(digits[6:8]) or 1,
            int(digits[8:10]), int(digits[10:12]), min(int(digits[12:14]), 59),
            tzinfo=_dt.timezone.utc,
        )
    except ValueError:
        return None


def format_warc_date(dt: datetime, *, precision: str = "microseconds") -> str:
    """Format *dt* (converted to UTC) as a WARC-Date.

    Args:
        dt: The time; naive datetimes are taken as UTC.
        precision: ``"seconds"`` (WARC 1.0) or ``"microseconds"`` (WARC 1.1 default).
    """
    if dt.tzinfo is not None:
        import datetime as _dt

        dt = dt.astimezone(_dt.timezone.utc)
    if precision == "seconds":
        return dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def to_14_digits(dt: datetime) -> str:
    """``YYYYMMDDhhmmss`` in UTC, the CDX timestamp."""
    import datetime as _dt

    return dt.astimezone(_dt.timezone.utc).strftime("%Y%m%d%H%M%S")
