"""``warckit proxy --workers N``: N processes on one port, each writing its own files, with
statistics, limits and dedup entries shared between them."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import child
import pytest
from captures import (
    assert_warckit_check,
    exchanges,
    read_records,
    sha1_label,
    sha1_of,
    warcprox_meta,
)
from local_site import Site, text_entity
from proxy_process import TIMEOUT, ProxyProcess, StartProxy, proxied_session, warc_files

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the workers' pids are found in /proc")

#: A worker's file name carries its pid: ``PREFIX-TIMESTAMP-SERIAL-PID~HOST~PORT``.
_PID = re.compile(r"^[^-]+-\d{17}-\d{5}-(\d+)~")


def _workers(proxy: ProxyProcess) -> list[int]:
    """The pids of the proxy's worker processes (its children)."""
    return child.children_of(proxy.proc.pid)


def _get(proxy: ProxyProcess, url: str, meta: dict[str, object] | None = None) -> tuple[int, dict[str, object]]:
    """GET *url* through *proxy* on a new connection (so the kernel picks the worker)."""
    with proxied_session(proxy) as s:
        headers = {"Connection": "close"}
        if meta is not None:
            headers["Warcprox-Meta"] = json.dumps(meta)
        r = s.get(url, headers=headers, timeout=TIMEOUT)
        return r.status_code, warcprox_meta(r.headers.get("Warcprox-Meta"))


def _status(proxy: ProxyProcess) -> dict[str, object]:
    import requests

    with requests.Session() as s:
        s.trust_env = False
        return dict(s.get(proxy.url + "/status", timeout=TIMEOUT).json())


def _eventually(read: object, want: object, seconds: float = 10.0) -> object:
    deadline = time.monotonic() + seconds
    while True:
        got = read()  # type: ignore[operator]
        if got == want or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def test_two_workers_share_the_port_and_write_their_own_files(start_proxy: StartProxy,
                                                              site: Site) -> None:
    proxy = start_proxy("--workers", "2")
    assert "; 2 workers)" in proxy.stderr()
    workers = _workers(proxy)
    assert len(workers) == 2
    paths = {site.url(f"/text/workers/{i}", scheme): f"/text/workers/{i}"
             for i in range(30) for scheme in ("http", "https")}
    urls = list(paths)
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda u: _get(proxy, u), urls))
    assert [status for status, _ in answers] == [200] * len(urls)
    # each worker counts its own; /status (from either) adds up every worker's, shared
    # every 0.2 s
    got = _eventually(lambda: _status(proxy)["stats"]["__all__"]["total"]["urls"], len(urls))  # type: ignore[index]
    assert got == len(urls)
    files = proxy.finish()
    written_by = {int(_PID.match(p.name).group(1)) for p in files}  # type: ignore[union-attr]
    assert written_by == set(workers)  # (60 connections: both workers got some)
    records = read_records(files)
    found = exchanges(records)
    assert sorted(e.response.target_uri for e in found) == sorted(urls)
    for e in found:
        entity = text_entity(paths[str(e.response.target_uri)])
        assert e.response.entity == entity
        assert e.response.payload_digest == sha1_label(sha1_of(entity))
    assert_warckit_check(files)
    assert "stopped; 2 file(s) written" in proxy.stderr()


def test_limits_hold_across_workers(start_proxy: StartProxy, site: Site) -> None:
    proxy = start_proxy("--workers", "2")
    meta = {"stats": {"buckets": ["job"]}, "limits": {"job/total/urls": 5}}
    statuses = []
    for i in range(12):
        statuses.append(_get(proxy, site.url(f"/text/limit/{i}"), meta)[0])
        time.sleep(0.5)  # (two flushes: every worker knows the last count)
    assert statuses == [200] * 5 + [420] * 7
    files = proxy.finish()
    assert len([r for r in read_records(files) if r.type == "response"]) == 5


def test_dedup_entries_reach_the_other_workers(start_proxy: StartProxy, site: Site,
                                               tmp_path: Path) -> None:
    proxy = start_proxy("--workers", "2", "--dedup", str(tmp_path / "dedup.sqlite"))
    url = site.url("/etag")
    status, first = _get(proxy, url)
    assert status == 200 and first["capture-metadata"]["type"] == "response"  # type: ignore[index]
    time.sleep(0.5)  # (committed within a flush, 0.2 s)
    kinds = [_get(proxy, url)[1]["capture-metadata"]["type"] for _ in range(24)]  # type: ignore[index]
    assert kinds == ["revisit"] * 24
    files = proxy.finish()
    revisits = [r for r in read_records(files) if r.type == "revisit"]
    assert len(revisits) == 24
    assert {r.refers_to for r in revisits} == {first["capture-metadata"]["record-id"]}  # type: ignore[index]
    assert len({r.file for r in revisits}) == 2  # (24 connections: both workers wrote some)


def test_a_failing_worker_stops_the_others(start_proxy: StartProxy, site: Site) -> None:
    proxy = start_proxy("--workers", "2")
    assert [_get(proxy, site.url(f"/text/fail/{i}"))[0] for i in range(10)] == [200] * 10
    doomed, other = _workers(proxy)
    os.kill(doomed, signal.SIGKILL)
    assert proxy.proc.wait(TIMEOUT) == 1
    proxy.stop()
    assert f"worker {doomed} failed; stopping the others" in proxy.stderr()
    # the survivor shut down cleanly: its files are closed; the killed one's stays .open
    open_files = sorted(p.name for p in proxy.out.glob("*.open"))
    assert all(f"-{doomed}~" in name for name in open_files), open_files
    closed = warc_files(proxy.out)
    assert all(f"-{other}~" in p.name for p in closed)
    if closed:
        assert_warckit_check(closed)


def test_sigint_stops_every_worker(start_proxy: StartProxy, site: Site) -> None:
    proxy = start_proxy("--workers", "3")
    assert len(_workers(proxy)) == 3
    assert [_get(proxy, site.url(f"/text/sigint/{i}"))[0] for i in range(9)] == [200] * 9
    assert proxy.stop(signal.SIGINT) == 0
    assert list(proxy.out.glob("*.open")) == []
    assert len([r for r in read_records(warc_files(proxy.out)) if r.type == "response"]) == 9
    assert "Traceback" not in proxy.stderr()


@pytest.mark.parametrize("n", ["0", "65", "-1"])
def test_bad_worker_counts_are_usage_errors(tmp_path: Path, ca_cert: Path, n: str) -> None:
    import subprocess

    import child

    done = subprocess.run(child.warckit_cli("proxy", "--port", "0", "--out-dir", str(tmp_path),
                                            "--ca-cert", str(ca_cert), "--workers", n),
                          env=child.env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 2
    assert f"--workers {n}: want 1-64" in done.stderr
    assert "Traceback" not in done.stderr


def test_workers_stop_cleanly_when_the_parent_is_killed(start_proxy: StartProxy, site: Site) -> None:
    before = set(Path(tempfile.gettempdir()).glob("warckit-proxy-*"))
    proxy = start_proxy("--workers", "2")
    shared = set(Path(tempfile.gettempdir()).glob("warckit-proxy-*")) - before
    assert len(shared) == 1  # (the parent's statistics directory, in the TMPDIR it inherited)
    workers = _workers(proxy)
    assert [_get(proxy, site.url(f"/text/orphan/{i}"))[0] for i in range(8)] == [200] * 8
    os.kill(proxy.proc.pid, signal.SIGKILL)  # (no supervisor left: the kernel tells the workers)
    proxy.stop()
    deadline = time.monotonic() + TIMEOUT
    while any(map(child.alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(child.alive, workers))
    assert not any(d.exists() for d in shared)  # (the last worker out removed it)
    assert list(proxy.out.glob("*.open")) == []
    files = warc_files(proxy.out)
    assert len([r for r in read_records(files) if r.type == "response"]) == 8
    assert_warckit_check(files)


def test_a_port_in_use_is_refused_not_shared(tmp_path: Path, ca_cert: Path) -> None:
    import socket
    import subprocess

    import child

    with socket.socket() as taken:  # (as another program holding the port for its workers)
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(child.warckit_cli("proxy", "--port", str(port), "--out-dir", str(tmp_path),
                                                "--ca-cert", str(ca_cert), "--workers", "2"),
                              env=child.env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 1, done.stderr
    assert "Address already in use" in done.stderr and "Traceback" not in done.stderr
