"""``warckit serve``: usage errors, the config file, the serve extra being optional, worker
processes, and a graceful shutdown (SIGTERM/SIGINT finish what is in flight, exit 0)."""

from __future__ import annotations

import hashlib
import http.client
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import child
import pytest
from corpus_paths import CORPUS
from serve_process import Server, free_port, request

from warckit.cli import main
from warckit.errors import UsageError
from warckit.serve.config import CollectionSpec, ServeConfig, build_config, load_config_file

ERROR = re.compile(r"warckit serve: error: (\S.*)")
#: Tests that start the server need the serve extra; the others run without it.
needs_server = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("starlette", "uvicorn")),
    reason="the serve extra (starlette, uvicorn) is not installed")


@pytest.fixture
def site(tmp_path: Path) -> dict[str, str]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not available (set WARCKIT_CORPUS)")
    warcs = tmp_path / "warcs"
    warcs.mkdir()
    shutil.copyfile(CORPUS / "pywb/iana.warc.gz", warcs / "iana.warc.gz")
    index = warcs / "iana.cdxj"
    assert main(["index", "-f", "cdxj", "--sort", "-o", str(index), str(warcs / "iana.warc.gz")]) == 0
    return {"tmp": str(tmp_path), "warcs": str(warcs), "index": str(index),
            "missing": str(tmp_path / "missing.cdxj")}


def _usage(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    capsys.readouterr()
    assert main(["serve", *argv]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    match = ERROR.fullmatch(lines[0])
    assert match is not None, lines[0]
    return match[1]


def test_usage_errors_are_one_line_and_exit_2(site: dict[str, str], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.ini").write_text("[x]\n")
    (tmp_path / "unknown.toml").write_text('colour = "blue"\n')
    (tmp_path / "broken.toml").write_text("host = \n")
    (tmp_path / "broken.yaml").write_text("host: [\n")
    (tmp_path / "badcoll.yaml").write_text("collections:\n  web:\n    index: 3\n")
    (tmp_path / "badopt.toml").write_text('storage_options = ["novalue"]\n')
    cases = {
        (): "nothing to serve",
        ("bogus",): "NAME=INDEX: expected NAME=VALUE, not 'bogus'",
        ("web=",): "expected NAME=VALUE",
        ("we b={index}",): "bad collection name 'we b'",
        ("../x={index}",): "bad collection name '../x'",
        ("web={index}", "--archive", "other={tmp}"): "no collection named 'other'",
        ("web={index}", "--archive", "web={missing}"): "archive {missing}: not a directory or URL",
        ("web={index}", "--writable", "web", "--data", "{tmp}"): "web is already a collection",
        ("--writable", "inbox"): "needs --data DIR",
        ("web={index}", "--port", "70000"): "port: expected a whole number from 0 to 65535",
        ("web={index}", "--workers", "0"): "workers: expected a whole number from 1 to 256",
        ("--config", "{tmp}/c.ini"): "a config file is .toml, .yaml or .yml",
        ("--config", "{tmp}/nope.toml"): "nope.toml: No such file or directory",
        ("--config", "{tmp}/unknown.toml"): "unknown setting(s) colour",
        ("--config", "{tmp}/broken.toml"): "not valid TOML",
        ("--config", "{tmp}/broken.yaml"): "not valid YAML",
        ("--config", "{tmp}/badcoll.yaml"): "collections.web.index: expected a string or a list",
        ("web={index}", "--storage-option", "novalue"): "--storage-option must be KEY=VALUE",
        ("web={index}", "--config", "{tmp}/badopt.toml"): "--storage-option must be KEY=VALUE",
    }
    for argv, fragment in cases.items():
        message = _usage(capsys, [a.format(**site) for a in argv])
        assert fragment.format(**site) in message, (argv, message)


@needs_server
def test_port_in_use_or_unknown_host_is_a_usage_error(site: dict[str, str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    message = _usage(capsys, [f"web={site['index']}", "--host", "no.such.host.invalid"])
    assert message.startswith("--host no.such.host.invalid: ")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        message = _usage(capsys, [f"web={site['index']}", "--port", str(port)])
    assert message == f"--port {port}: address 127.0.0.1:{port} is already in use"


def test_without_the_serve_extra(site: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)  # as if not installed
    message = _usage(capsys, [f"web={site['index']}"])
    assert message.startswith("needs starlette") and message.endswith(": pip install 'warckit[serve]'")
    # Every other command, and --help, neither need nor load it.
    code = ("import sys\nsys.modules['starlette'] = None\nsys.modules['uvicorn'] = None\n"
            "from warckit.cli import main\n"
            "assert main(['--help']) == 0\nassert main(['serve', '--help']) == 0\n"
            f"assert main(['query', {site['index']!r}, 'http://www.iana.org/']) == 0\n")
    done = subprocess.run(child.python(code), env=child.env(), capture_output=True, text=True, check=False,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "warckit serve" in done.stdout and "org,iana)/ 2014" in done.stdout
    loaded = subprocess.run(child.python(
        "from warckit.cli import main\nmain(['query', '--help'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')))"),
        env=child.env(), capture_output=True, text=True, timeout=120, check=False)
    assert loaded.stdout.splitlines()[-1] == "[]"


def test_config_file_toml_and_yaml_say_what_the_command_line_says(tmp_path: Path,
                                                                  site: dict[str, str]) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "serve.toml").write_text(f"""\
host = "127.0.0.2"
port = 8099
data = "state"
workers = 2
replay = "http://pywb:8080/{{coll}}/{{timestamp}}/{{url}}"

[collections.web]
index = ["{site['index']}", "../warcs/iana.cdxj"]
archive = "{site['warcs']}"

[collections.inbox]
writable = true
""")
    (conf / "serve.yaml").write_text(f"""\
host: 127.0.0.2
port: 8099
data: state
workers: 2
replay: "http://pywb:8080/{{coll}}/{{timestamp}}/{{url}}"
collections:
  web:
    index: ["{site['index']}", ../warcs/iana.cdxj]
    archive: {site['warcs']}
  inbox:
    writable: true
""")
    from_cli = build_config([f"web={site['index']}", f"web={conf / '../warcs/iana.cdxj'}"],
                            archives=[f"web={site['warcs']}"], writable=["inbox"],
                            host="127.0.0.2", port=8099, data=str(conf / "state"), workers=2,
                            replay="http://pywb:8080/{coll}/{timestamp}/{url}")
    for name in ("serve.toml", "serve.yaml"):
        from_file = build_config([], file_settings=load_config_file(str(conf / name)))
        assert from_file == from_cli, name
    assert from_cli == ServeConfig(
        host="127.0.0.2", port=8099, data=str(conf / "state"), workers=2,
        replay="http://pywb:8080/{coll}/{timestamp}/{url}",
        collections=(CollectionSpec("web", (site["index"], str(conf / "../warcs/iana.cdxj")),
                                    (site["warcs"],)),
                     CollectionSpec("inbox", (), (), writable=True)))
    # The command line overrides the file: flags, and a collection's indexes and archives.
    other = tmp_path / "other"
    other.mkdir()
    overridden = build_config([f"web={site['index']}"], archives=[f"web={other}"], port=9000,
                              workers=1, file_settings=load_config_file(str(conf / "serve.toml")))
    assert overridden.port == 9000 and overridden.workers == 1 and overridden.host == "127.0.0.2"
    assert overridden.collections[0] == CollectionSpec("web", (site["index"],), (str(other),))
    # Default archive: the index's own directory.
    assert build_config([f"web={site['index']}"]).collections[0].archives == (site["warcs"],)
    with pytest.raises(UsageError, match="no index"):
        build_config([], file_settings={"collections": {"web": {"indexes": [], "archives": [],
                                                                "writable": False}}})
    assert ServeConfig.from_json(from_cli.to_json()) == from_cli


@needs_server
def test_serves_from_a_config_file_and_keeps_ingested_lines(site: dict[str, str],
                                                            tmp_path: Path) -> None:
    (tmp_path / "serve.yaml").write_text(
        f"collections:\n  web:\n    index: {site['index']}\n  inbox:\n    writable: true\n"
        "data: state\n")
    server = Server(["--config", str(tmp_path / "serve.yaml")], cwd=tmp_path)
    try:
        names = [c["name"] for c in json.loads(server.get("/").body)["collections"]]
        assert names == ["web", "inbox"]
        lines = Path(site["index"]).read_bytes()
        assert json.loads(server.get("/inbox", method="POST", body=lines).body)["added"] == \
            len(lines.splitlines())
    finally:
        assert server.stop() == 0
    assert (tmp_path / "state" / "inbox.sqlite").is_file()
    # The store was closed cleanly and keeps what was ingested across a restart.
    again = Server(["--config", str(tmp_path / "serve.yaml")], cwd=tmp_path)
    try:
        got = again.get("/inbox/cdx?url=http://www.iana.org/&output=cdxj")
        want = b"".join(ln for ln in lines.splitlines(keepends=True)
                        if ln.startswith(b"org,iana)/ "))
        assert got.status == 200 and got.body == want and want
    finally:
        assert again.stop(signal.SIGINT) == 0
    assert "Traceback" not in again.stderr()


@needs_server
def test_workers(site: dict[str, str], tmp_path: Path) -> None:
    server = Server([f"web={site['index']}", "--workers", "2", "--writable", "inbox",
                     "--data", str(tmp_path / "data")], cwd=tmp_path)
    try:
        want = Path(site["index"]).read_bytes()
        want = b"".join(ln for ln in want.splitlines(keepends=True) if ln.startswith(b"org,iana)/ "))
        for _ in range(8):
            got = server.get("/web/cdx?url=http://www.iana.org/&output=cdxj")
            assert got.status == 200 and got.body == want
        # Both processes write the one store; nothing is lost.
        failures: list[str] = []

        def post(w: int) -> None:
            for b in range(10):
                body = b"".join(b'org,workers)/%d/%d/%d 20240101000000 {"url": "http://workers.org/%d/%d/%d"}\n'
                                % (w, b, i, w, b, i) for i in range(20))
                got = request(server.port, "/inbox", method="POST", body=body)
                if got.status != 200:
                    failures.append(repr(got))

        threads = [threading.Thread(target=post, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []
        got = server.get("/inbox/cdx?url=workers.org&matchType=host&output=cdxj")
        assert len(got.body.splitlines()) == 4 * 10 * 20
    finally:
        assert server.stop() == 0
    pids = set(re.findall(r"Started server process \[(\d+)\]", server.stderr()))
    assert len(pids) == 2, server.stderr()


@needs_server
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a worker learns of its parent's death on Linux")
def test_workers_stop_when_the_command_is_killed(site: dict[str, str], tmp_path: Path) -> None:
    """``kill -9`` of the command leaves no worker serving on, unsupervised."""
    server = Server([f"web={site['index']}", "--workers", "2"], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while len(re.findall(r"Application startup complete", server.stderr())) < 2:
            assert time.monotonic() < deadline, server.stderr()
            time.sleep(0.05)
        kids = child.children_of(server.proc.pid)  # (the two workers, multiprocessing's tracker)
        assert len(kids) >= 2
        server.proc.kill()
        server.proc.wait()
        while any(map(child.alive, kids)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(child.alive, kids)), server.stderr()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", server.port), timeout=5).close()
    finally:
        server.stop()


@needs_server
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_finishes_a_slow_download_then_exits_0(site: dict[str, str], tmp_path: Path,
                                                      sig: int) -> None:
    big = Path(site["warcs"]) / "big.warc"
    block = os.urandom(1 << 20)
    size = 64 << 20
    with open(big, "wb") as fh:
        fh.writelines(block for _ in range(size >> 20))
    want = hashlib.sha256(block * (size >> 20)).hexdigest()
    server = Server([f"web={site['index']}"], cwd=tmp_path)
    before = _peak_rss_kib(server.proc.pid)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)  # a slow reader: small window
    s.settimeout(60)
    s.connect(("127.0.0.1", server.port))
    s.sendall(b"GET /web/warcs/big.warc HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(65536)
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"content-length: %d" % size in head.lower()
    digest = hashlib.sha256(body)
    received = len(body)
    server.proc.send_signal(sig)
    time.sleep(1.5)
    assert server.proc.poll() is None  # still sending what it started
    with pytest.raises(OSError):  # but no longer taking connections
        request(server.port, "/", timeout=5)
    while received < size:
        chunk = s.recv(1 << 16)
        assert chunk, f"connection closed after {received} of {size} bytes"
        digest.update(chunk)
        received += len(chunk)
    s.close()
    assert received == size and digest.hexdigest() == want
    assert (_peak_rss_kib(server.proc.pid) - before) * 1024 < size // 4  # streamed, not held
    assert server.proc.wait(60) == 0
    server.stop()
    assert "Traceback" not in server.stderr()
    assert "Shutting down" in server.stderr()
    assert server.proc.stdout is not None and server.proc.stdout.read() == b""  # logs: stderr
    assert '"GET /web/warcs/big.warc HTTP/1.1" 200' in server.stderr()


@needs_server
def test_damaged_index_exits_1_before_listening(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.cdx"
    bad.write_bytes(b"\x1f\x8b not an index\n")
    port = free_port()
    capsys.readouterr()
    assert main(["serve", f"web={bad}", "--port", str(port)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"warckit serve: error: {bad}, offset 0: "), lines
    with socket.socket() as s:  # the port was never taken
        s.bind(("127.0.0.1", port))


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@needs_server
def test_a_large_ingest_streams_in_bounded_memory(tmp_path: Path) -> None:
    server = Server(["--writable", "inbox", "--data", str(tmp_path / "data")], cwd=tmp_path)
    lines, size = 200_000, 0

    def body() -> Iterator[bytes]:
        nonlocal size
        for start in range(0, lines, 5000):
            chunk = b"".join(
                b'org,big,h%d)/p/%d 20240101000000 {"url": "http://h%d.big.org/p/%d", '
                b'"mime": "text/html", "status": "200", "filename": "x.warc.gz", '
                b'"offset": "%d", "length": "100"}\n' % (i % 1000, i, i % 1000, i, i)
                for i in range(start, start + 5000))
            size += len(chunk)
            yield chunk

    try:
        before = _peak_rss_kib(server.proc.pid)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        conn.request("POST", "/inbox", body=body(), encode_chunked=True)
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read()) == {"added": lines, "skipped": []}
        conn.close()
        grown = (_peak_rss_kib(server.proc.pid) - before) * 1024
        assert size > 30 << 20
        assert grown < size // 2, (grown, size)  # the body was never held whole
        got = server.get("/inbox/cdx?url=h7.big.org&matchType=host&output=cdxj")
        assert len(got.body.splitlines()) == lines // 1000
    finally:
        assert server.stop() == 0


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads")


@needs_server
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_a_client_that_goes_away_stops_its_download(site: dict[str, str], tmp_path: Path) -> None:
    big = Path(site["warcs"]) / "big.warc"
    big.write_bytes(os.urandom(1 << 20) * 32)
    server = Server([f"web={site['index']}"], cwd=tmp_path)
    try:
        assert server.get("/web/warcs/iana.warc.gz").status == 200  # the pools exist now
        settled = _threads(server.proc.pid)
        for _ in range(6):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
            s.sendall(b"GET /web/warcs/big.warc HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            s.close()  # 32 MiB not read: the server must not keep a thread on them
        # (anyio keeps an idle pool worker or two; a leaked download thread each would be +6)
        deadline = time.monotonic() + 20
        while _threads(server.proc.pid) > settled + 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _threads(server.proc.pid) <= settled + 2
        assert server.get("/").status == 200
    finally:
        assert server.stop() == 0
