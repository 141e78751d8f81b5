"""The warckit exception hierarchy and the :class:`Issue` value used for warnings and findings.

Input problems (:class:`ParseError` and subclasses) are distinct from caller misuse
(:class:`UsageError`) and from validation failures of what the caller is writing
(:class:`ValidationError`). I/O failures stay :class:`OSError` and are never wrapped.
"""

from __future__ import annotations

from ._util.frozen import Frozen

__all__ = [
    "CaptureError",
    "ChunkedEncodingError",
    "CompressionError",
    "DecompressionBombError",
    "DigestMismatchError",
    "DuplicateHeaderError",
    "HeaderParseError",
    "HttpParseError",
    "Issue",
    "ParseError",
    "RecordParseError",
    "RemoteError",
    "StaleRecordError",
    "UnsortedIndexError",
    "UrlError",
    "UsageError",
    "ValidationError",
    "WarckitError",
]


class Issue(Frozen):
    """One finding: a lenient-mode recovery, a validation problem or a check result.

    Attributes:
        code: A short stable identifier, e.g. ``"missing-trailer"``.
        message: Human-readable explanation.
        severity: ``"error"``, ``"warning"`` or ``"info"``.
        offset: Byte offset in the source the finding refers to, when known.
        source: Name of the file or stream, when known.
        field: The header field concerned, when there is one.
    """

    __slots__ = ("code", "field", "message", "offset", "severity", "source")
    code: str
    message: str
    severity: str
    offset: int | None
    source: str | None
    field: str | None

    def __init__(
        self,
        code: str,
        message: str,
        severity: str = "warning",
        offset: int | None = None,
        source: str | None = None,
        field: str | None = None,
    ) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "severity", severity)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "field", field)

    def __str__(self) -> str:
        where = []
        if self.source is not None:
            where.append(str(self.source))
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        prefix = (":".join(where) + ": ") if where else ""
        return f"{prefix}{self.severity}: {self.message} [{self.code}]"


class WarckitError(Exception):
    """Base class of every error warckit raises on purpose."""


class ParseError(WarckitError, ValueError):
    """The input is not valid; names the source and the byte offset where parsing failed.

    Attributes:
        offset: Byte offset in the source (the file offset of the record or member for
            compressed input, the exact byte for plain input), or ``None`` if unknown.
        source: Name of the file or stream, or ``None``.
        snippet: A few bytes of the offending input, for the message.
    """

    def __init__(
        self,
        message: str,
        *,
        offset: int | None = None,
        source: str | None = None,
        snippet: bytes | None = None,
    ) -> None:
        self.message = message
        self.offset = offset
        self.source = source
        self.snippet = snippet
        super().__init__(message)

    def __str__(self) -> str:
        parts = []
        if self.source is not None:
            parts.append(str(self.source))
        if self.offset is not None:
            parts.append(f"offset {self.offset}")
        text = (": ".join([", ".join(parts), self.message])) if parts else self.message
        if self.snippet:
            text += f" (near {self.snippet[:40]!r})"
        return text

    def located(self, *, source: str | None = None, offset: int | None = None) -> ParseError:
        """Fill in the source and offset if they are not known yet; return self."""
        if self.source is None:
            self.source = source
        if self.offset is None:
            self.offset = offset
        return self


class RecordParseError(ParseError):
    """Record framing: version line, Content-Length, block trailer."""


class HeaderParseError(ParseError):
    """A header line or header block is malformed or too large."""


class HttpParseError(ParseError):
    """The HTTP head inside an ``application/http`` block is malformed."""


class ChunkedEncodingError(ParseError):
    """A chunked transfer-encoded body is malformed."""


class CompressionError(ParseError):
    """A gzip member or zstd frame is damaged, truncated, or misaligned with records."""


class DecompressionBombError(CompressionError):
    """Decoded content grew past the limit the caller set (``max_decoded``)."""


class DuplicateHeaderError(WarckitError, ValueError):
    """``Headers.sole()`` was asked for a field that occurs more than once."""


class ValidationError(WarckitError, ValueError):
    """A record the caller asked to write breaks a rule of the WARC standard.

    Attributes:
        issues: Every rule the record breaks.
    """

    def __init__(self, issues: tuple[Issue, ...] | list[Issue], message: str | None = None) -> None:
        self.issues = tuple(issues)
        if message is None:
            message = "; ".join(
                (f"{i.field}: " if i.field else "") + i.message for i in self.issues
            ) or "invalid record"
        super().__init__(message)


class DigestMismatchError(WarckitError):
    """A digest declared in a record does not match its content (strict verification)."""


class StaleRecordError(WarckitError, RuntimeError):
    """A record body was touched after the reader had moved past it.

    Attributes:
        source: Name of the file or stream of the record.
        offset: Offset of the record.
    """

    def __init__(self, message: str, *, source: str | None = None, offset: int | None = None) -> None:
        self.source = source
        self.offset = offset
        super().__init__(message)


class RemoteError(WarckitError, OSError):
    """A remote input (``https://``, ``s3://``…) could not be read: refused, missing,
    dropped, timed out, or its server ignores ``Range`` where random access needs it.

    An :class:`OSError` too, so code that treats an unreadable file as one keeps doing so.

    Attributes:
        source: The URL.
        offset: Byte offset of the read that failed (``None``: opening failed).
        reason: What went wrong, without the URL and offset.
    """

    def __init__(self, source: str, offset: int | None, reason: str) -> None:
        self.source = source
        self.offset = offset
        self.reason = reason
        where = source if offset is None else f"{source}, offset {offset}"
        super().__init__(f"{where}: {reason}")

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[RemoteError], tuple[str, int | None, str]]:
        return (RemoteError, (self.source, self.offset, self.reason))


class UsageError(WarckitError, ValueError):
    """The library was called with arguments that cannot work."""


class CaptureError(WarckitError):
    """Traffic inside a :func:`warckit.capture` block could not be recorded: raised at
    the end of the block (after the capture's own writer was closed), unless the block
    raised.

    Attributes:
        failures: ``(URL or connection, exception)`` for each exchange or connection
            that was not recorded, in order: a stream that is not HTTP/1.x
            (:class:`HttpParseError`), a record the writer refused, the filter raising.
    """

    def __init__(self, failures: tuple[tuple[str, BaseException], ...]) -> None:
        self.failures = failures
        where, first = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        super().__init__(f"{len(failures)} exchange(s) not recorded: {where}: {first}{more}")

    def __reduce__(self) -> tuple[type[CaptureError], tuple[tuple[tuple[str, BaseException], ...]]]:
        return (CaptureError, (self.failures,))


class UnsortedIndexError(WarckitError):
    """An index that must be sorted (to look URLs up, to merge) is not.

    Attributes:
        source: The index file.
        line: 1-based number of the line found out of order (or of the header that
            says the file is unsorted).
        offset: Byte offset where that line starts.
    """

    def __init__(self, source: str, line: int, offset: int, reason: str) -> None:
        self.source = source
        self.line = line
        self.offset = offset
        self.reason = reason
        super().__init__(f"{source}: line {line} (offset {offset}): {reason}")


class UrlError(WarckitError, ValueError):
    """A URL cannot be canonicalized or turned into a SURT."""
