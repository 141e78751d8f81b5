"""The HTTP request/response head inside an ``application/http`` record block."""

from __future__ import annotations

from .._speedups.headers import impl as _hp
from .._util.frozen import Frozen
from ..errors import HttpParseError
from .headers import Headers

__all__ = ["MAX_HTTP_HEAD", "HttpHead", "find_head_end", "parse_http_head"]


#: Largest HTTP head accepted (status line + headers), in bytes.
MAX_HTTP_HEAD = 1 << 20


class HttpHead(Frozen):
    """A parsed HTTP/1.x head.

    Attributes:
        raw: The exact head bytes including the final empty line.
        protocol: ``HTTP/1.1`` and so on.
        status: Response status code, ``None`` for a request.
        reason: Response reason phrase (may be empty).
        method: Request method, ``None`` for a response.
        target: Request target, ``None`` for a response.
        headers: The header fields.
    """

    __slots__ = ("headers", "method", "protocol", "raw", "reason", "status", "target")
    raw: bytes
    protocol: str
    status: int | None
    reason: str | None
    method: str | None
    target: str | None
    headers: Headers

    def __init__(
        self,
        raw: bytes,
        protocol: str,
        status: int | None,
        reason: str | None,
        method: str | None,
        target: str | None,
        headers: Headers,
    ) -> None:
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "protocol", protocol)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "headers", headers)

    @property
    def is_response(self) -> bool:
        """True for a response head."""
        return self.status is not None

    @property
    def content_type(self) -> str | None:
        """The Content-Type header value."""
        return self.headers.first("Content-Type")

    @property
    def mime_type(self) -> str | None:
        """The media type without parameters, lowercased."""
        ct = self.headers.first("Content-Type")
        if not ct:
            return None
        return ct.split(";", 1)[0].strip().lower() or None

    def transfer_encodings(self) -> tuple[str, ...]:
        """Transfer-Encoding codings, lowercased, in order."""
        return tuple(
            c.strip().lower()
            for v in self.headers.all("Transfer-Encoding")
            for c in v.split(",")
            if c.strip()
        )

    def content_encodings(self) -> tuple[str, ...]:
        """Content-Encoding codings, lowercased, in order."""
        return tuple(
            c.strip().lower()
            for v in self.headers.all("Content-Encoding")
            for c in v.split(",")
            if c.strip() and c.strip().lower() != "identity"
        )

    @property
    def chunked(self) -> bool:
        """True when the body is chunked transfer-encoded."""
        te = self.transfer_encodings()
        return bool(te) and te[-1] == "chunked"


def find_head_end(buf: bytes, lenient: bool) -> int:
    """Index just past the empty line ending an HTTP head in *buf*, or -1."""
    i = buf.find(b"\r\n\r\n")
    end = i + 4 if i >= 0 else -1
    j = buf.find(b"\n\n")
    if j >= 0 and (end < 0 or j + 2 < end):
        end = j + 2
    return end


def parse_http_head(raw: bytes, *, lenient: bool = False) -> HttpHead:
    """Parse a complete HTTP head (*raw* ends with the empty line).

    Strict mode requires a ``HTTP/x.y NNN [reason]`` status line or a
    ``METHOD target HTTP/x.y`` request line and CRLF line ends. Lenient mode
    also accepts bare LF, a missing reason phrase separator, and garbage lines
    without a colon (skipped).

    Raises:
        HttpParseError: the head is malformed; ``offset`` is relative to the head.
    """
    nl = raw.find(b"\n")
    if nl < 0:
        raise HttpParseError("HTTP head has no line end", offset=0, snippet=raw[:40])
    # RFC 9112 §2.2: a recipient MAY recognize a single LF as a line terminator;
    # old servers (and many ARC files) send bare LF, so both modes accept it.
    first = raw[: nl - 1] if nl and raw[nl - 1] == 13 else raw[:nl]
    line = first.decode("latin-1")
    status: int | None = None
    reason: str | None = None
    method: str | None = None
    target: str | None = None
    if line.startswith("HTTP/") or (lenient and line[:5].upper() == "HTTP/"):
        parts = line.split(" ", 2)
        protocol = parts[0]
        code = parts[1] if len(parts) > 1 else ""
        if len(code) != 3 or not (code.isascii() and code.isdigit()):
            raise HttpParseError(f"bad HTTP status code {code!r}", offset=0, snippet=first)
        status = int(code)
        reason = parts[2] if len(parts) > 2 else ""
    else:
        parts = line.split(" ")
        if len(parts) != 3 or not parts[2].upper().startswith("HTTP/"):
            if not (lenient and len(parts) >= 3 and parts[-1].upper().startswith("HTTP/")):
                raise HttpParseError("not an HTTP start line", offset=0, snippet=first)
            parts = [parts[0], " ".join(parts[1:-1]), parts[-1]]
        method, target, protocol = parts[0], parts[1], parts[2]
    end = len(raw)
    # Exclude the final empty line from the field region.
    if raw.endswith(b"\r\n\r\n"):
        end -= 2
    elif raw.endswith(b"\n\n"):
        end -= 1
    fields, warnings = _hp.parse_fields(raw, nl + 1, end, True)
    if not lenient:
        for code, position in warnings:
            if code != _hp.BARE_LF:
                raise HttpParseError(
                    f"malformed HTTP header line ({code})",
                    offset=position,
                    snippet=raw[position : position + 40],
                )
    return HttpHead(raw, protocol, status, reason, method, target, Headers(fields))
