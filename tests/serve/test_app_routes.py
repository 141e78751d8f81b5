"""``warckit serve`` over loopback: every route and its error cases, against a real process."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from corpus_paths import CORPUS
from serve_process import Server, request

import warckit
from warckit.cli import main

#: Corpus files served (copied under a name each): gzip per record, plain WARC, gzipped ARC.
WARCS = {
    "example.warc.gz": "pywb/example.warc.gz",
    "iana.warc.gz": "pywb/iana.warc.gz",
    "warcio-example.warc": "warcio/example.warc",
    "example.arc.gz": "warcio/example.arc.gz",
}


def _index(out: Path, *warcs: Path, fmt: str = "cdxj", extra: tuple[str, ...] = ()) -> None:
    assert main(["index", "-f", fmt, "--sort", *extra, "-o", str(out), *map(str, warcs)]) == 0


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    root = tmp_path_factory.mktemp("site")
    warcs, idx, data = root / "warcs", root / "idx", root / "data"
    warcs.mkdir()
    idx.mkdir()
    for name, rel in WARCS.items():
        shutil.copyfile(CORPUS / rel, warcs / name)
    (root / "secret.warc").write_bytes(b"WARC/1.1\r\nnot to be served\r\n")
    os.symlink(root / "secret.warc", warcs / "escape.warc")  # leads outside: refused
    os.symlink("iana.warc.gz", warcs / "alias.warc.gz")  # stays inside: served
    shutil.copyfile(CORPUS / WARCS["iana.warc.gz"], warcs / ".hidden.warc")
    # all.cdxj beside the WARCs (its default archive); a and b stacked elsewhere.
    _index(warcs / "all.cdxj", *(warcs / n for n in WARCS))
    _index(idx / "a.cdxj", warcs / "example.warc.gz", warcs / "warcio-example.warc")
    _index(idx / "b.cdx", warcs / "iana.warc.gz", fmt="cdx")
    _index(idx / "zip.cdxj", warcs / "iana.warc.gz", extra=("--zipnum", str(idx / "zip"),
                                                             "--block-lines", "20"))
    lines = (warcs / "all.cdxj").read_bytes().splitlines(keepends=True)
    (idx / "unsorted.cdxj").write_bytes(b"".join(reversed(lines)))
    server = Server([
        f"web={warcs / 'all.cdxj'}",
        f"stack={idx / 'a.cdxj'}", f"stack={idx / 'b.cdx'}", "--archive", f"stack={warcs}",
        f"zip={idx / 'zip.idx'}", "--archive", f"zip={warcs}",
        f"bad={idx / 'unsorted.cdxj'}",
        "--writable", "inbox", "--data", str(data),
    ], cwd=root)
    yield {"server": server, "root": root, "warcs": warcs, "idx": idx, "data": data}
    assert server.stop() == 0


def _query(capfdbinary: pytest.CaptureFixture[bytes], *args: str) -> bytes:
    capfdbinary.readouterr()
    main(["query", *args])
    return capfdbinary.readouterr().out


def test_home_lists_the_collections(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    got = json.loads(server.get("/").body)
    port = server.port
    assert got == {"collections": [
        {"name": "web", "writable": False, "indexes": 1, "cdx": f"http://127.0.0.1:{port}/web/cdx"},
        {"name": "stack", "writable": False, "indexes": 2,
         "cdx": f"http://127.0.0.1:{port}/stack/cdx"},
        {"name": "zip", "writable": False, "indexes": 1, "cdx": f"http://127.0.0.1:{port}/zip/cdx"},
        {"name": "bad", "writable": False, "indexes": 1, "cdx": f"http://127.0.0.1:{port}/bad/cdx"},
        {"name": "inbox", "writable": True, "indexes": 1,
         "cdx": f"http://127.0.0.1:{port}/inbox/cdx"},
    ]}
    assert json.loads(server.get("/stack").body) == got["collections"][1]
    missing = server.get("/nowhere")
    assert missing.status == 404 and missing.text == "no collection named 'nowhere'\n"


@pytest.mark.parametrize(("url", "match"), [
    ("http://www.iana.org/", "exact"),
    ("http://example.com/", "exact"),
    ("iana.org/_css/", "prefix"),
    ("iana.org", "domain"),
    ("http://www.iana.org/", "host"),
])
def test_cdx_equals_warckit_query(site: dict[str, object], capfdbinary: pytest.CaptureFixture[bytes],
                                  url: str, match: str) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    from urllib.parse import quote

    for coll, indexes in (("web", [site["warcs"] / "all.cdxj"]),  # type: ignore[operator]
                          ("zip", [site["idx"] / "zip.idx"])):  # type: ignore[operator]
        want = _query(capfdbinary, "--match", match, *map(str, indexes), url)
        got = server.get(f"/{coll}/cdx?url={quote(url)}&matchType={match}&output=cdxj")
        assert got.status == 200, got
        assert got.body == want, (coll, url)
        assert want or coll == "zip"  # (the ZipNum index has only iana.warc.gz)
    # Stacked indexes (a CDXJ and a new-style CDX) answer as warckit query over both.
    want = _query(capfdbinary, "--match", match,
                  str(site["idx"] / "a.cdxj"), str(site["idx"] / "b.cdx"), url)  # type: ignore[operator]
    got = server.get(f"/stack/cdx?url={quote(url)}&matchType={match}&output=text")
    assert got.status == 200
    assert got.body == want


#: Query strings of every CDX API parameter (repeated filters too), run through the server
#: and in-process by the same functions: the app hands them over untouched.
PARAMS = [
    "url=iana.org&matchType=domain&from=20140126200700&to=2014012620080",
    "url=*.iana.org&limit=3&output=json",
    "url=iana.org/_css/*&sort=reverse&limit=4",
    "url=http://www.iana.org/_css/2013.1/fonts/Inconsolata.otf&closest=20140126200900&sort=closest",
    "url=iana.org&matchType=domain&filter=mime:css&filter=!=status:404&fl=url,timestamp,status&output=text",
    "url=iana.org&matchType=domain&filter=~url:.*js$&output=cdxj",
    "url=iana.org&matchType=domain&fl=urlkey,length&output=json&limit=5",
    "url=iana.org&matchType=host&output=text",
]
ZIPNUM_PARAMS = [
    "url=iana.org&matchType=domain&showNumPages=true",
    "url=iana.org&matchType=domain&page=0&pageSize=1",
    "url=iana.org&matchType=domain&page=1&pageSize=1&output=json",
]


def test_every_cdx_parameter_over_loopback(site: dict[str, object]) -> None:
    from urllib.parse import parse_qsl

    from warckit.cdx.query import Index
    from warckit.serve.cdxapi import cdx_response, parse_cdx_request

    server = site["server"]
    assert isinstance(server, Server)
    for coll, index, queries in (("web", site["warcs"] / "all.cdxj", PARAMS),  # type: ignore[operator]
                                 ("zip", site["idx"] / "zip.idx", ZIPNUM_PARAMS)):  # type: ignore[operator]
        for query in queries:
            media, chunks = cdx_response([Index(str(index))], parse_cdx_request(parse_qsl(query)))
            want = b"".join(chunks)
            got = server.get(f"/{coll}/cdx?{query}")
            assert got.status == 200, (query, got)
            assert got.headers["content-type"].split(";")[0] == media.split(";")[0]
            assert got.body == want and want, query
    # Bad parameters: 400, one line naming the parameter.
    for query, name in (("url=iana.org&from=2015&to=2014", "from"), ("matchType=exact", "url"),
                        ("url=iana.org&matchType=nope", "matchType"),
                        ("url=iana.org&filter=~url:(", "filter"), ("url=iana.org&output=xml", "output"),
                        ("url=iana.org&page=0", "page")):
        bad = server.get(f"/web/cdx?{query}")
        assert bad.status == 400, (query, bad)
        assert bad.text.count("\n") == 1 and name in bad.text, (query, bad.text)


def test_cdx_errors_are_one_line_with_a_status(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    bad_param = server.get("/web/cdx?url=http://example.com/&limit=lots")
    assert bad_param.status == 400
    assert "limit" in bad_param.text and bad_param.text.count("\n") == 1
    assert server.get("/nowhere/cdx?url=example.com").status == 404
    unsorted = server.get("/bad/cdx?url=http://www.iana.org/")
    assert unsorted.status == 500
    assert "unsorted.cdxj" in unsorted.text and "offset" in unsorted.text
    assert unsorted.text.count("\n") == 1 and "Traceback" not in unsorted.text


def test_cdx_error_after_the_first_chunk_cuts_the_connection(tmp_path: Path) -> None:
    # Larger than the whole-file order check (8 MiB): disorder is found mid-stream.
    line = b'com,example)/ 20140101000000 {"url": "http://example.com/", "filename": "x.warc.gz", "offset": "%d", "length": "10"}\n'
    index = tmp_path / "late.cdxj"
    with open(index, "wb") as fh:
        fh.writelines(line.replace(b"20140101000000", b"2014%010d" % i) % i for i in range(100_000))
        fh.write(line.replace(b"20140101000000", b"20130101000000") % 0)  # out of order
        fh.writelines(line.replace(b"20140101000000", b"2015%010d" % i) % i for i in range(10))
    server = Server([f"late={index}"], cwd=tmp_path)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        conn.request("GET", "/late/cdx?url=http://example.com/&output=cdxj")
        resp = conn.getresponse()
        assert resp.status == 200
        with pytest.raises(http.client.IncompleteRead):
            resp.read()
        conn.close()
        assert server.get("/").status == 200  # the server carries on
    finally:
        assert server.stop() == 0
    assert "response cut off" in server.stderr() and "late.cdxj" in server.stderr()
    assert "Traceback" not in server.stderr()


def test_cdx_error_within_the_first_part_gets_a_status(tmp_path: Path) -> None:
    # Disorder 1,500 lines (about 190 kB, past the first 64 kB chunk) into the answer, in a
    # file past the whole-file check's 8 MiB: the answer's first part (up to WHOLE_BYTES)
    # is made before any header goes out, so no 200 is sent and cut off.
    line = b'com,example)/ 2014%010d {"url": "http://example.com/", "filename": "x.warc.gz", "offset": "%d", "length": "10"}\n'
    index = tmp_path / "early.cdxj"
    with open(index, "wb") as fh:
        fh.writelines(b"com,a%07d)/ 20140101000000 {}\n" % i for i in range(300_000))
        fh.writelines(line % (i, i) for i in range(1500))
        fh.write(line.replace(b"2014", b"2013") % (0, 0))  # out of order
    assert index.stat().st_size > 8 << 20
    server = Server([f"early={index}"], cwd=tmp_path)
    try:
        got = server.get("/early/cdx?url=http://example.com/&output=cdxj")
        assert got.status == 500 and b"not sorted" in got.body and b"early.cdxj" in got.body
        assert got.body.count(b"\n") == 1
    finally:
        assert server.stop() == 0


# -- /warcs ---------------------------------------------------------------------------------

def test_warcs_whole_file_head_and_ranges(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    data = (site["warcs"] / "iana.warc.gz").read_bytes()  # type: ignore[operator]
    size = len(data)
    whole = server.get("/web/warcs/iana.warc.gz")
    assert whole.status == 200 and whole.body == data
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-length"] == str(size)
    assert "content-encoding" not in whole.headers
    head = server.get("/web/warcs/iana.warc.gz", method="HEAD")
    assert head.status == 200 and head.body == b""
    assert head.headers["content-length"] == str(size) and head.headers["accept-ranges"] == "bytes"
    for spec, start, end in (("334-2591", 334, 2592), ("786000-", 786000, size),
                             ("-100", size - 100, size), ("0-0", 0, 1),
                             (f"10-{size + 50}", 10, size)):
        part = server.get("/web/warcs/iana.warc.gz", headers={"Range": f"bytes={spec}"})
        assert part.status == 206, spec
        assert part.body == data[start:end], spec
        assert part.headers["content-range"] == f"bytes {start}-{end - 1}/{size}"
        assert part.headers["content-length"] == str(end - start)
        head = server.get("/web/warcs/iana.warc.gz", method="HEAD",
                          headers={"Range": f"bytes={spec}"})
        assert head.status == 206 and head.body == b""
        assert head.headers["content-range"] == f"bytes {start}-{end - 1}/{size}"
    for spec in (f"{size}-", f"{size + 10}-{size + 20}", "-0"):
        refused = server.get("/web/warcs/iana.warc.gz", headers={"Range": f"bytes={spec}"})
        assert refused.status == 416, spec
        assert refused.headers["content-range"] == f"bytes */{size}"
    # Several ranges, other units, nonsense: ignored (RFC 9110), the whole file.
    for value in ("bytes=0-1,5-6", "lines=1-2", "bytes=abc", "bytes=9-3"):
        full = server.get("/web/warcs/iana.warc.gz", headers={"Range": value})
        assert full.status == 200 and full.body == data, value


def test_warcs_serves_nothing_outside_the_archive(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    alias = server.get("/web/warcs/alias.warc.gz")  # a symlink to a file inside
    assert alias.status == 200
    assert alias.body == (site["warcs"] / "iana.warc.gz").read_bytes()  # type: ignore[operator]
    for path in ("/web/warcs/escape.warc", "/web/warcs/..%2Fsecret.warc", "/web/warcs/..",
                 "/web/warcs/%2e%2e", "/web/warcs/..%2f..%2fetc%2fpasswd",
                 "/web/warcs/missing.warc.gz", "/web/warcs/%00x", "/web/warcs/..%5Csecret.warc",
                 "/web/warcs/all.cdxj", "/web/warcs/.hidden.warc",  # not a WARC; hidden
                 "/nowhere/warcs/iana.warc.gz"):
        got = server.get(path)
        assert got.status == 404, path
        assert b"not to be served" not in got.body and b"root:" not in got.body
    # The writable collection has no archive: nothing at all.
    assert server.get("/inbox/warcs/iana.warc.gz").status == 404
    # Raw request lines (no client-side normalization of the dot segments).
    for target in ("/web/warcs/../secret.warc", "/web/warcs/../../secret.warc"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 404"), target
        assert b"not to be served" not in answer


# -- /record --------------------------------------------------------------------------------

def test_record_by_offset_with_and_without_length(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    checked = 0
    for name in WARCS:
        path = site["warcs"] / name  # type: ignore[operator]
        data = path.read_bytes()
        with warckit.open(str(path), lenient=True) as reader:
            extents = [(r.offset, r.length) for r in reader]
        for offset, length in extents:
            assert length is not None
            want = data[offset:offset + length]
            exact = server.get(f"/web/record?filename={name}&offset={offset}&length={length}")
            assert exact.status == 200 and exact.body == want, (name, offset)
            assert exact.headers["content-length"] == str(length)
            found = server.get(f"/web/record?filename={name}&offset={offset}")
            assert found.status == 200 and found.body == want, (name, offset)
            checked += 1
    assert checked > 20


def test_record_errors(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    size = (site["warcs"] / "iana.warc.gz").stat().st_size  # type: ignore[operator]
    cases = {
        "/web/record?offset=0": 400,
        "/web/record?filename=iana.warc.gz": 400,
        "/web/record?filename=iana.warc.gz&offset=-1": 400,
        "/web/record?filename=iana.warc.gz&offset=0&length=x": 400,
        "/web/record?filename=iana.warc.gz&offset=0&length=0": 400,
        f"/web/record?filename=iana.warc.gz&offset={size}": 400,
        f"/web/record?filename=iana.warc.gz&offset={size - 10}&length=11": 400,
        "/web/record?filename=nope.warc.gz&offset=0": 404,
        "/web/record?filename=escape.warc&offset=0": 404,
        "/nowhere/record?filename=iana.warc.gz&offset=0": 404,
        "/web/record?filename=iana.warc.gz&offset=5": 500,  # no record starts there
    }
    for path, status in cases.items():
        got = server.get(path)
        assert got.status == status, (path, got)
        assert got.text.count("\n") == 1 and "Traceback" not in got.text, path
    damaged = server.get("/web/record?filename=iana.warc.gz&offset=5")
    assert damaged.text.startswith("iana.warc.gz, offset 5: ")


# -- ingest ---------------------------------------------------------------------------------

def test_ingest_then_query_then_delete(site: dict[str, object],
                                       capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    index = site["idx"] / "a.cdxj"  # type: ignore[operator]
    lines = index.read_bytes()
    url = "http://example.com/"
    want = _query(capfdbinary, str(index), url)
    assert want
    added = server.get("/inbox", method="POST", body=lines)
    assert added.status == 200, added
    assert json.loads(added.body) == {"added": len(lines.splitlines()), "skipped": []}
    got = server.get(f"/inbox/cdx?url={url}&output=cdxj")
    assert got.status == 200 and got.body == want
    # One bad line rejects the whole batch, naming the line.
    batch = b'com,example,new)/ 20200101000000 {"url": "http://new.example.com/"}\nnot a cdx line\n'
    refused = server.get("/inbox", method="POST", body=batch)
    assert refused.status == 400 and "line 2" in refused.text, refused
    assert server.get("/inbox/cdx?url=http://new.example.com/&output=cdxj").body == b""
    skipped = server.get("/inbox?badLines=skip", method="POST", body=batch)
    assert skipped.status == 200
    result = json.loads(skipped.body)
    assert result["added"] == 1 and [s["line"] for s in result["skipped"]] == [2]
    assert server.get("/inbox/cdx?url=http://new.example.com/&output=cdxj").body.startswith(
        b"com,example,new)/ 20200101000000")
    assert server.get("/inbox?badLines=maybe", method="POST", body=batch).status == 400
    # Delete what was added: the collection answers nothing again.
    deleted = server.get("/inbox/delete", method="POST", body=lines)
    assert deleted.status == 200 and json.loads(deleted.body)["deleted"] == len(lines.splitlines())
    assert server.get(f"/inbox/cdx?url={url}&output=cdxj").body == b""
    # Read-only and unknown collections.
    read_only = server.get("/web", method="POST", body=lines)
    assert read_only.status == 405 and read_only.headers["allow"] == "GET, HEAD"
    assert server.get("/web/delete", method="POST", body=lines).status == 405
    assert server.get("/nowhere", method="POST", body=lines).status == 404
    assert server.get("/nowhere/delete", method="POST", body=lines).status == 404


def test_concurrent_ingest_and_queries_lose_nothing(site: dict[str, object]) -> None:
    server = site["server"]
    assert isinstance(server, Server)
    writers, batches, per_batch = 4, 10, 50
    failures: list[str] = []

    def lines_of(w: int, b: int) -> bytes:
        return b"".join(
            b'org,concurrent,w%d)/b%03d/%03d 20240101000000 {"url": "http://w%d.concurrent.org/b%03d/%03d", '
            b'"mime": "text/html", "status": "200", "filename": "x.warc.gz", "offset": "0", "length": "1"}\n'
            % (w, b, i, w, b, i) for i in range(per_batch))

    def write(w: int) -> None:
        for b in range(batches):
            got = request(server.port, "/inbox", method="POST", body=lines_of(w, b))
            if got.status != 200 or json.loads(got.body)["added"] != per_batch:
                failures.append(f"post {w}/{b}: {got}")

    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                got = request(server.port,
                              "/inbox/cdx?url=concurrent.org&matchType=domain&output=cdxj")
            except (OSError, http.client.HTTPException) as exc:
                failures.append(f"query: {exc!r}")
                continue
            if got.status != 200 or any(not ln.startswith(b"org,concurrent,w")
                                        for ln in got.body.splitlines()):
                failures.append(f"query: {got}")

    readers = [threading.Thread(target=read) for _ in range(3)]
    posting = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in readers + posting:
        t.start()
    for t in posting:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert failures == []
    got = server.get("/inbox/cdx?url=concurrent.org&matchType=domain&output=cdxj")
    body = got.body.splitlines()
    assert len(body) == writers * batches * per_batch
    assert sorted(body) == sorted(ln for w in range(writers) for b in range(batches)
                                  for ln in lines_of(w, b).splitlines())
    server.get("/inbox/delete", method="POST",
               body=b"".join(lines_of(w, b) for w in range(writers) for b in range(batches)))


# -- Memento --------------------------------------------------------------------------------

def test_timemap_and_timegate_keep_the_urls_query(site: dict[str, object]) -> None:
    from warckit.cdx.query import Index
    from warckit.serve.memento import timegate_response, timemap_response

    server = site["server"]
    assert isinstance(server, Server)
    base = f"http://127.0.0.1:{server.port}"
    sources = [Index(str(site["warcs"] / "all.cdxj"))]  # type: ignore[operator]
    for url in ("http://www.iana.org/", "http://www.iana.org/_css/2013.1/screen.css",
                "http://example.com/?example=1"):
        media, chunks = timemap_response(sources, url, base=base, coll="web", replay=None)
        got = server.get(f"/web/timemap/link/{url}")
        assert got.status == 200
        assert got.headers["content-type"].startswith(media.split(";")[0])
        assert got.body == b"".join(chunks)
        for accept in (None, "Tue, 11 Feb 2014 00:00:00 GMT"):
            status, headers, body = timegate_response(sources, url, accept, base=base, coll="web",
                                                      replay=None)
            gate = server.get(f"/web/timegate/{url}",
                              headers={"Accept-Datetime": accept} if accept else {})
            assert gate.status == status
            assert gate.body == body
            for name, value in headers.items():
                assert gate.headers[name.lower()] == value
    assert server.get("/nowhere/timemap/link/http://example.com/").status == 404


def test_responses_stream_in_chunks(site: dict[str, object]) -> None:
    """A large file is sent as it is read: the first bytes arrive, the rest follows."""
    server = site["server"]
    assert isinstance(server, Server)
    big = site["warcs"] / "big.warc"  # type: ignore[operator]
    block = os.urandom(1 << 20)
    digest = hashlib.sha256()
    with open(big, "wb") as fh:
        for _ in range(48):
            fh.write(block)
            digest.update(block)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        conn.request("GET", "/web/warcs/big.warc")
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("content-length") == str(48 << 20)
        got = hashlib.sha256()
        while chunk := resp.read(1 << 16):
            got.update(chunk)
        assert got.hexdigest() == digest.hexdigest()
        conn.close()
    finally:
        big.unlink()


def test_parquet_index_collection(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    warcs = [CORPUS / WARCS["iana.warc.gz"], CORPUS / WARCS["example.warc.gz"]]
    assert main(["index", "-f", "parquet", "-o", str(tmp_path / "pq"), *map(str, warcs)]) == 0
    server = Server([f"pq={tmp_path / 'pq'}", "--archive", f"pq={CORPUS / 'pywb'}"], cwd=tmp_path)
    try:
        for url, match in (("http://www.iana.org/", "exact"), ("iana.org", "domain"),
                           ("example.com/", "prefix")):
            want = _query(capfdbinary, "--match", match, str(tmp_path / "pq"), url)
            got = server.get(f"/pq/cdx?url={url}&matchType={match}&output=text")
            assert got.status == 200 and want
            assert got.body == want, url
        assert server.get("/pq/warcs/iana.warc.gz").body == warcs[0].read_bytes()
    finally:
        assert server.stop() == 0
