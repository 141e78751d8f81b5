"""Wrong argument types raise UsageError naming the parameter; one positional layout;
``WarcWriter(dir)`` creates a missing directory (issue 12)."""

from __future__ import annotations

import inspect
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import warckit
from warckit.errors import UsageError
from warckit.tools.dedup import DedupWriter
from warckit.write.guided import WarcWriter

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
URL = "http://example.com/"

BAD_CALLS: list[tuple[str, Callable[[WarcWriter], Any], str]] = [
    # the two calls of the issue
    ("str body", lambda w: w.response(URL, HEAD, "str body"),
     "response(): body must be bytes, a binary stream or an iterable of bytes, not str (encode it first)"),
    ("bytes fields", lambda w: w.metadata(URL, b"a: b"),
     "metadata(): fields must be a mapping or (name, value) pairs of str, not bytes; pass a raw block as body="),
    ("bytes uri", lambda w: w.resource(b"http://example.com/", b"x", content_type="text/plain"),
     "resource(): target_uri must be a str, not bytes"),
    ("int body", lambda w: w.resource(URL, 5, content_type="text/plain"),
     "resource(): body must be bytes, a binary stream or an iterable of bytes, not int"),
    ("text stream", lambda w: w.conversion(URL, io.StringIO("x"), content_type="text/plain"),
     "conversion(): body is a text stream; open the file in binary mode ('rb')"),
    ("str head", lambda w: w.request(URL, "GET / HTTP/1.1\r\n\r\n"),
     "request(): http_head must be the raw HTTP head bytes (or an HttpHead), not str"),
    ("int date", lambda w: w.response(URL, HEAD, b"x", date=1700000000),
     "response(): date must be a datetime, a WARC-Date str or None, not int"),
    ("int ref", lambda w: w.response(URL, HEAD, b"x", concurrent_to=5),
     "response(): concurrent_to must be a record, a record ID str or a list of them, not int"),
    ("int ip", lambda w: w.request(URL, b"GET / HTTP/1.1\r\n\r\n", ip=1),
     "request(): ip must be a str or None, not int"),
    ("int digest", lambda w: w.revisit(URL, payload_digest=5),
     "revisit(): payload_digest must be a str such as 'sha1:…', a Digest or None, not int"),
    ("int field value", lambda w: w.metadata(URL, {"hopsFromSeed": 1}),
     "metadata(): fields must be a mapping or (name, value) pairs of str; got the item ('hopsFromSeed', 1)"),
    ("bad extra header", lambda w: w.resource(URL, b"x", content_type="text/plain", extra_headers=["WARC-X"]),
     "resource(): extra_headers must be a mapping or (name, value) pairs of str; got the item 'WARC-X'"),
    ("None content type", lambda w: w.resource(URL, b"x", content_type=None),
     "resource(): content_type must be a str, not NoneType"),
    ("warcinfo bytes", lambda w: w.warcinfo(b"operator: Ada"),
     "warcinfo(): fields must be a mapping or (name, value) pairs of str, not bytes; pass a raw block as block="),
    ("both", lambda w: w.metadata(URL, {"a": "b"}, body=b"a: b\r\n"),
     "metadata(): give fields or body, not both"),
]


@pytest.mark.parametrize(("label", "call", "message"), BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_wrong_types_raise_usage_error_before_writing(
    tmp_path: Path, label: str, call: Callable[[WarcWriter], Any], message: str
) -> None:
    with WarcWriter(tmp_path, compression="none", threads=False) as w:
        w.resource("file:///before", b"1", content_type="text/plain")
        with pytest.raises(UsageError) as info:
            call(w)
        assert str(info.value) == message
        w.resource("file:///after", b"2", content_type="text/plain")
    # Nothing of the refused record reached the file.
    assert [(r.type, r.target_uri) for r in warckit.open(w.files[0])] == [
        ("warcinfo", None), ("resource", "file:///before"), ("resource", "file:///after")]


def test_bad_chunk_in_an_iterable_body_drops_the_record(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, compression="none", threads=False) as w:
        with pytest.raises(UsageError, match=r"^resource\(\): body must yield bytes chunks, not str; "
                                              r"nothing was written$"):
            w.resource(URL, iter([b"a" * 100, "b"]), content_type="text/plain")
        ok = w.resource(URL, iter([b"a", bytearray(b"b"), memoryview(b"c")]), content_type="text/plain")
    records = [(r.type, r.record_id, r.read_block()) for r in warckit.open(w.files[0])]
    assert [t for t, _, _ in records] == ["warcinfo", "resource"]
    assert records[1][1:] == (ok.record_id, b"abc")


def test_mappings_and_lists_are_accepted(tmp_path: Path) -> None:
    with WarcWriter(tmp_path, compression="none", warcinfo=[["operator", "Ada"]]) as w:
        w.metadata(URL, [["via", "http://example.com/x"]], extra_headers={"WARC-X-Note": "n"})
    meta = [(r.read_block(), r.headers.first("WARC-X-Note"))
            for r in warckit.open(w.files[0]) if r.type == "metadata"]
    assert meta == [(b"via: http://example.com/x\r\n\r\n", "n")]


def _positional(method: Callable[..., Any]) -> list[str]:
    return [p.name for p in inspect.signature(method).parameters.values()
            if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.name != "self"]


def test_one_positional_layout() -> None:
    """Target URI first, then the block's content; everything else keyword-only."""
    layout = {name: _positional(getattr(WarcWriter, name)) for name in
              ("request", "response", "resource", "conversion", "metadata", "revisit", "warcinfo")}
    assert layout == {
        "request": ["target_uri", "http_head", "body"],
        "response": ["target_uri", "http_head", "body"],
        "resource": ["target_uri", "body"],
        "conversion": ["target_uri", "body"],
        "metadata": ["target_uri", "fields"],
        "revisit": ["target_uri"],
        "warcinfo": ["fields"],
    }
    assert _positional(DedupWriter.response) == ["target_uri", "http_head", "body"]


def test_writer_creates_missing_directory(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"
    with WarcWriter(out, compression="none") as w:
        w.resource(URL, b"x", content_type="text/plain")
    assert [os.path.dirname(f) for f in w.files] == [str(out)]
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(UsageError, match="is not a directory"):
        WarcWriter(tmp_path / "file")
