"""Dedup index: build from WARC/CDX/crawl.log, lookup, the writer hook, apply; gov.uk decisions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from convert_helpers import assert_valid
from corpus_paths import corpus_path

import warckit
from warckit.cli import main
from warckit.tools.dedup import DedupIndex, DedupWriter, apply, detect_input, normalize_digest
from warckit.write.guided import WarcWriter

GOV = "webarchive-discovery/gov.uk-revisit-warcs/"
FIRST = GOV + "BL-20140325121225068-00000-32090~opera~8443.warc.gz"
SECOND = GOV + "BL-20140325122341434-00000-32090~opera~8443.warc.gz"


def test_normalize_digest() -> None:
    b32 = "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A"
    assert normalize_digest(b32) == b32
    assert normalize_digest("B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A") == b32
    assert normalize_digest("b2ltwwpuoyah7uipq7zupq4vmbsvc36a") == b32
    hexval = "0e973b59f476007fd10f87f347c3956065516fc0"
    assert normalize_digest("sha1:" + hexval) == b32
    assert normalize_digest("SHA-1:" + hexval.upper()) == b32
    assert normalize_digest(hexval) == b32
    assert normalize_digest("-") is None and normalize_digest("sha1:!!") is None


def test_detect_input() -> None:
    assert detect_input(corpus_path(FIRST)) == "archive"
    assert detect_input(corpus_path("warcio/example.arc")) == "archive"
    assert detect_input(corpus_path("pywb/iana.cdx")) == "cdx"
    assert detect_input(corpus_path("pywb/iana.cdxj")) == "cdx"
    assert detect_input(corpus_path("netarchivesuite/crawllogs/crawl-9.log")) == "crawllog"
    assert detect_input(corpus_path("netarchivesuite/crawllogs/idna-crawl.log")) == "crawllog"


@pytest.mark.parametrize("uri_agnostic", [False, True])
def test_gov_uk_duplicate_decisions_reproduced(uri_agnostic: bool) -> None:
    """Index crawl 1; every HTTP capture of crawl 2 is a revisit exactly when it is known."""
    idx = DedupIndex()
    assert idx.add_file(corpus_path(FIRST)) == ("archive", 65)
    decisions = []
    for r in warckit.open(corpus_path(SECOND)):
        if r.type not in ("response", "revisit") or not (r.target_uri or "").startswith("http"):
            continue
        found = idx.lookup(r.target_uri, r.payload_digest, before=r.date_string,
                           uri_agnostic=uri_agnostic)
        decisions.append((r.type == "revisit", found is not None))
        if found is not None:
            assert found.url == r.target_uri and found.match == "url"
            assert found.date < (r.date_string or "")
    assert len(decisions) == 62
    assert sum(was for was, _ in decisions) == 55
    assert all(was == now for was, now in decisions)


def test_gov_uk_apply_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "dedup.sqlite"
    assert main(["dedup", "build", str(db), "--from", str(corpus_path(FIRST))]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{db}: 65 originals"
    # A re-crawl of crawl 1 a day later (new record IDs, same payloads).
    (tmp_path / "recrawl").mkdir()
    with WarcWriter(tmp_path / "recrawl", prefix="RECRAWL", version="1.0") as w:
        for r in warckit.open(corpus_path(FIRST)):
            if r.type == "response" and r.http is not None:
                req = w.request(r.target_uri or "", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
                                date="2014-03-26T00:00:00Z")
                w.response(r.target_uri or "", r.http.raw, r.payload_stream(), concurrent_to=req,
                           date="2014-03-26T00:00:00Z")
    recrawl = w.files[0]
    out = tmp_path / "out"
    assert main(["dedup", "apply", recrawl, str(out), str(db)]) == 0
    err = capsys.readouterr().err
    assert "125 records, 62 responses: 62 revisits, 0 kept" in err
    files = sorted(out.iterdir())
    assert len(files) == 1
    assert_valid(files[0])
    originals = {(r.target_uri, r.payload_digest.canonical() if r.payload_digest else None):
                 (r.record_id, r.date_string) for r in warckit.open(corpus_path(FIRST))
                 if r.type == "response"}
    new_ids = {r.record_id for r in warckit.open(recrawl) if r.type == "response"}
    revisits = 0
    linked: set[str] = set()
    requests: set[str | None] = set()
    for r in warckit.open(files[0]):
        if r.type == "revisit":
            revisits += 1
            # Same record ID as the response it replaces; points at crawl 1's capture.
            assert r.record_id in new_ids
            key = (r.target_uri, r.payload_digest.canonical() if r.payload_digest else None)
            assert (r.refers_to, r.refers_to_date) == originals[key]
            assert r.refers_to_target_uri == r.target_uri
            assert r.http is not None and r.truncated == "length"
            linked.update(r.concurrent_to)
        if r.type == "request":
            requests.add(r.record_id)
    assert revisits == 62 and linked == requests and len(requests) == 62
    # lookup from the command line
    dig = next(r for r in warckit.open(corpus_path(FIRST)) if r.type == "response"
               and (r.target_uri or "").startswith("http"))
    assert main(["dedup", "lookup", str(db), str(dig.payload_digest), "--url", dig.target_uri or ""]) == 0
    assert json.loads(capsys.readouterr().out)["record_id"] == dig.record_id
    assert main(["dedup", "lookup", str(db), "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) == 1


def test_apply_within_one_crawl_keeps_first(tmp_path: Path) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
    (tmp_path / "in").mkdir()
    with WarcWriter(tmp_path / "in", version="1.0") as w:
        a = w.response("http://e.org/a", head, b"same")
        w.response("http://e.org/a", head, b"same")
        w.response("http://e.org/b", head, b"same")
        w.response("http://e.org/a", head, b"changed")
    stats = apply(w.files[0], tmp_path / "out", DedupIndex(), uri_agnostic=False)
    assert (stats.responses, stats.revisits, stats.kept) == (4, 1, 3)
    stats = apply(w.files[0], tmp_path / "out2", DedupIndex(), uri_agnostic=True)
    assert (stats.responses, stats.revisits, stats.kept) == (4, 2, 2)
    kinds = [(r.type, r.refers_to) for r in warckit.open(stats.files[0]) if r.type != "warcinfo"]
    assert kinds == [("response", None), ("revisit", a.record_id), ("revisit", a.record_id),
                     ("response", None)]
    for f in stats.files:
        assert_valid(f)


def test_writer_hook(tmp_path: Path) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
    idx = DedupIndex(tmp_path / "db.sqlite")
    with WarcWriter(tmp_path, version="1.1") as w:
        d = DedupWriter(w, idx, uri_agnostic=False)
        first = d.response("http://e.org/x", head, b"4\r\nsame\r\n0\r\n\r\n", ip="192.0.2.1")
        again = d.response("http://e.org/x", head, iter([b"4\r\nsa", b"me\r\n0\r\n\r\n"]))
        other = d.response("http://e.org/y", head, b"4\r\nsame\r\n0\r\n\r\n")
        req = d.request("http://e.org/x", b"GET /x HTTP/1.1\r\nHost: e.org\r\n\r\n")
    assert (first.type, again.type, other.type, req.type) == ("response", "revisit", "response", "request")
    assert d.stats.revisits == 1 and d.stats.responses == 2 and d.stats.by_match == {"url": 1}
    # the de-chunked entity digest matches what the writer computed for the original
    assert again.payload_digest == first.payload_digest
    rec = next(r for r in warckit.open(w.files[0]) if r.type == "revisit")
    assert (rec.refers_to, rec.refers_to_target_uri, rec.refers_to_date) == (
        first.record_id, "http://e.org/x", first.date)
    assert_valid(w.files[0], warcio=False)  # chunked bodies, WARC 1.1 payload digests
    assert len(idx) == 2


def test_build_from_cdx_and_crawl_log(tmp_path: Path) -> None:
    idx = DedupIndex()
    assert idx.add_file(corpus_path("pywb/iana.cdx")) == ("cdx", 48)
    o = idx.lookup("http://www.iana.org/", "sha1:OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB")
    assert o is not None and (o.date, o.filename, o.source) == ("2014-01-26T20:06:24Z", "iana.warc.gz", "cdx")
    n = idx.add_file(corpus_path("netarchivesuite/crawllogs/heritrix3-2015/crawl.log"))
    assert n == ("crawllog", 105)  # fetched lines (status > 0) with a digest
    # the same capture from WARC and CDX is stored once, the WARC adds the record ID
    before = len(idx)
    idx.add_file(corpus_path("pywb/iana.warc.gz"))
    assert len(idx) == before
    o = idx.lookup("http://www.iana.org/", "sha1:OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB")
    assert o is not None and o.record_id is not None and o.record_id.startswith("<urn:uuid:")


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))


@pytest.mark.parametrize(("path", "kind", "added"), [
    ("pywb/iana.cdx", "cdx", 48),
    ("netarchivesuite/crawllogs/heritrix3-2015/crawl.log", "crawllog", 105),
    ("pywb/iana.warc.gz", "archive", 48),
])
def test_build_from_standard_input(monkeypatch: pytest.MonkeyPatch, path: str, kind: str,
                                   added: int) -> None:
    """Inputs are opened by io.sources: ``-`` is standard input for every kind."""
    data = corpus_path(path).read_bytes()
    _stdin(monkeypatch, data)
    assert detect_input("-") == kind
    _stdin(monkeypatch, data)
    idx = DedupIndex()
    assert idx.add_file("-") == (kind, added)
    from_path = DedupIndex()
    from_path.add_file(corpus_path(path))
    assert [o.digest for o in idx] == [o.digest for o in from_path]


@pytest.mark.parametrize("body", [
    b"5\r\nhello\r\n0\r\n",              # no empty line after the last chunk
    b"5 \r\nhello\r\n0\r\n\r\n",         # whitespace after the chunk size
    b"5\r\nhello\r\n0\r\n\r\n",          # well formed
    b"5\r\nhel",                         # cut inside a chunk
])
def test_writer_hook_looks_up_the_digest_the_writer_writes(tmp_path: Path, body: bytes) -> None:
    """The hook and the guided writer compute the payload digest with one digester, so a
    second identical response is found whatever its chunked coding looks like."""
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    with WarcWriter(tmp_path) as w:
        d = DedupWriter(w, DedupIndex())
        first = d.response("http://e.org/", head, body)
        second = d.response("http://e.org/", head, iter([body]))  # (a stream: spooled)
    assert (first.type, second.type) == ("response", "revisit")
    revisit = next(r for r in warckit.open(w.files[0]) if r.type == "revisit")
    assert revisit.headers.first("WARC-Payload-Digest") == first.payload_digest


@pytest.mark.parametrize("body", [b"5\r\nhello\r\n0\r\n", b"5\r\nhello\r\n0\r\n\r\n", b"5\r\nhel"])
def test_build_computes_the_digest_the_writer_declares(tmp_path: Path, body: bytes) -> None:
    """A response without WARC-Payload-Digest is indexed under the digest the guided
    writer declares for the same HTTP message (one digester), even when its chunked coding
    is not well formed (then: the body as stored)."""
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    block = head + body
    (tmp_path / "plain.warc").write_bytes(
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://e.org/\r\n"
        b"Content-Type: application/http;msgtype=response\r\n"
        b"Content-Length: " + str(len(block)).encode() + b"\r\n\r\n" + block + b"\r\n\r\n")
    idx = DedupIndex()
    assert idx.add_file(tmp_path / "plain.warc") == ("archive", 1)
    with WarcWriter(tmp_path / "w") as w:
        declared = w.response("http://e.org/", head, body).payload_digest
    found = idx.lookup("http://e.org/", declared)
    assert found is not None and found.record_id == "<urn:uuid:00000000-0000-0000-0000-000000000001>"
