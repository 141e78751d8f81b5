"""POST/PUT request pairing: the request body appended to the key of both captures.

A ``request`` record with a POST or PUT body and the adjacent ``response`` it is
concurrent to (in either order, same URL) get ``?__wb_method=post&…`` appended to their
key, the way pywb and cdxj-indexer (``-p``) do (SPEC-DIGEST §3.2), so that POST captures
can be looked up. The indexer hands every pair of consecutive captures to
:func:`pair_post`; a record that is not indexed between them breaks the adjacency.
"""

from __future__ import annotations

from .._util.frozen import Frozen
from ..record.records import WarcRecord
from . import _keys
from .capture import Capture, http_fast

__all__ = ["PostBody", "is_post_or_put", "pair_post", "post_body"]

_METHODS = ("POST", "PUT")
#: The most of a request body read into a key (cdxj-indexer reads the declared length).
_MAX_BODY = 16 * 1024 * 1024
#: What is read when the request has no Content-Length.
_DEFAULT_BODY = 8192


class PostBody(Frozen):
    """The part of a POST/PUT request that goes into the key."""

    __slots__ = ("method", "data", "content_type")  # noqa: RUF023 (the field order)
    method: str
    data: bytes | None
    content_type: str | None

    def __init__(self, method: str, data: bytes | None, content_type: str | None) -> None:
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "content_type", content_type)


def is_post_or_put(record: WarcRecord) -> bool:
    """Whether a request record carries a POST or PUT (without building its capture)."""
    if record.format != "arc":
        # Most requests are GETs: their method is settled by the first bytes, without
        # reading the WARC or HTTP head (a malformed GET head is not parsed here, so it
        # is not reported when requests are not indexed).
        if record.peek_block(8).startswith((b"GET ", b"HEAD ")):
            return False
        fast = http_fast(record)
        if fast is not None:
            if len(fast) == 0:
                return False
            return (fast[1] or "").upper() in _METHODS
    http = record.http
    return http is not None and (http.method or "").upper() in _METHODS


def post_body(record: WarcRecord, cap: Capture) -> PostBody | None:
    """The body of a POST/PUT request record (*cap* is its capture), else ``None``."""
    if cap.type != "request" or cap.method is None:
        return None
    method = cap.method.upper()
    if method not in _METHODS:
        return None
    http = record.http
    ctype = http.headers.first("Content-Type") if http is not None else None
    return PostBody(method, _read_body(record), ctype)


def _read_body(record: WarcRecord) -> bytes:
    http = record.http
    limit = _DEFAULT_BODY
    if http is not None:
        text = http.headers.first("Content-Length")
        if text is not None:
            try:
                limit = min(max(int(text.strip()), 0), _MAX_BODY)
            except ValueError:
                limit = 0
    return record.content_stream().read(limit) or b""


def pair_post(first: Capture, first_body: PostBody | None, second: Capture, second_body: PostBody | None) -> None:
    """Give two consecutive captures the request body's key suffix when they are a
    POST/PUT request/response pair."""
    if first.url != second.url:
        return
    if first.type == "request" and second.type == "response":
        req, resp, body = first, second, first_body
    elif first.type == "response" and second.type == "request":
        req, resp, body = second, first, second_body
    else:
        return
    if body is None:
        return
    if not (
        (first.record_id is not None and first.record_id in second.concurrent_to)
        or (second.record_id is not None and second.record_id in first.concurrent_to)
    ):
        return
    query, suffix = _keys.method_query(body.method, req.url, body.content_type, body.data)
    for cap in (req, resp):
        cap.method = body.method
        cap.request_body = query
        cap.key_suffix = suffix
