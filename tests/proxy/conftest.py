"""Fixtures of the proxy tests: the local test site (HTTP and HTTPS on loopback), the
proxy's CA file, and ``warckit proxy`` child processes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_site import Site
from proxy_process import ProxyProcess, StartProxy


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Before Python 3.11 the proxy cannot intercept HTTPS (asyncio's start_tls on a
    stream): skip the end-to-end tests, which all record over HTTPS too."""
    if sys.version_info >= (3, 11):
        return
    skip = pytest.mark.skip(reason="warckit proxy intercepts HTTPS on Python 3.11 and later")
    here = Path(__file__).parent
    for item in items:
        if item.path.parent == here and item.path.name.startswith("test_proxy_"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The test site, for the whole session (its request log only grows)."""
    with Site(tmp_path_factory.mktemp("site")) as running:
        yield running


@pytest.fixture(scope="session")
def ca_cert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the proxies keep their CA (the first one creates it, the others reuse it)."""
    return tmp_path_factory.mktemp("ca") / "ca.pem"


@pytest.fixture
def start_proxy(tmp_path: Path, ca_cert: Path) -> Iterator[StartProxy]:
    """``start_proxy(*ARGS, out=DIR)``: a running ``warckit proxy``; each one still running
    at the end of the test is stopped and must shut down cleanly (exit 0, no ``.open``)."""
    started: list[ProxyProcess] = []

    def start(*args: str, out: Path | None = None) -> ProxyProcess:
        proxy = ProxyProcess(out or tmp_path / f"warcs{len(started)}", ca_cert, *args)
        started.append(proxy)
        return proxy

    yield start
    for proxy in started:
        if proxy.returncode is None:
            proxy.finish()
