"""The sans-IO splitter alone: bytes in, exchanges out, however the bytes are cut."""

from __future__ import annotations

import pytest

from warckit.errors import HttpParseError
from warckit.traffic.exchanges import ConnectionSplitter, Exchange

REQUESTS = (b"GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            b"HEAD /b HTTP/1.1\r\nHost: h\r\n\r\n"
            b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"3\r\nabc\r\n0\r\n\r\n")
RESPONSES = (b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nxyz",
             b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n",  # HEAD: no body
             b"HTTP/1.1 100 Continue\r\n\r\n"
             b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")


def _split(sent: list[bytes], received: list[bytes], eof: bool = False) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []

    def on_exchange(exchange: Exchange) -> None:
        request, response = exchange.request, exchange.response
        assert response is not None
        out.append((exchange.method, exchange.target, exchange.host, exchange.status,
                    exchange.truncated, request.head, request.body().read(),
                    response.head, response.body().read()))

    splitter = ConnectionSplitter(lambda exchange: None, on_exchange, "test")
    for data in sent:  # a client writes its requests before it reads (pipelining)
        splitter.sent(data)
    for data in received:
        splitter.received(data)
    if eof:
        splitter.eof()
    return out


EXPECTED = [
    ("GET", "/a", "h", 200, None, b"GET /a HTTP/1.1\r\nHost: h\r\n\r\n", b"",
     b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", b"xyz"),
    ("HEAD", "/b", "h", 200, None, b"HEAD /b HTTP/1.1\r\nHost: h\r\n\r\n", b"",
     b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", b""),
    ("POST", "/c", "h", 201, None,
     b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
     b"3\r\nabc\r\n0\r\n\r\n",
     b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n", b"2\r\nok\r\n0\r\n\r\n"),
]


def test_pipelined_in_one_piece() -> None:
    assert _split([REQUESTS], [b"".join(RESPONSES)]) == EXPECTED


def test_one_byte_at_a_time() -> None:
    data = b"".join(RESPONSES)
    assert _split([REQUESTS[i:i + 1] for i in range(len(REQUESTS))],
                  [data[i:i + 1] for i in range(len(data))]) == EXPECTED


def test_body_until_the_connection_closes() -> None:
    response = b"HTTP/1.1 200 OK\r\n\r\nall of it"
    out = _split([b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"], [response[:25], response[25:]], eof=True)
    assert [(o[3], o[4], o[7], o[8]) for o in out] == [
        (200, None, b"HTTP/1.1 200 OK\r\n\r\n", b"all of it")]


def test_hang_up_in_the_body_is_truncated() -> None:
    out = _split([b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"],
                 [b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"], eof=True)
    assert [(o[4], o[8]) for o in out] == [("disconnect", b"abc")]


def test_no_response_head_no_exchange() -> None:
    assert _split([b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"], [b"HTTP/1.1 200"], eof=True) == []


def test_not_http_names_the_stream_and_offset() -> None:
    splitter = ConnectionSplitter(lambda exchange: None, lambda exchange: None, "http://h")
    splitter.sent(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    splitter.received(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
    splitter.sent(b"GET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
    with pytest.raises(HttpParseError) as caught:
        splitter.received(b"\x16\x03\x01 not http\r\n\r\n")
    assert caught.value.source == "http://h" and caught.value.offset == 39
    assert splitter.done
    splitter.received(b"HTTP/1.1 200 OK\r\n\r\n")  # ignored from now on
