"""Fixtures: a loopback server (plain and TLS) per test, and the clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clients import CLIENTS
from loopback import Loopback, serve


@pytest.fixture(params=["http", "https"])
def srv(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Loopback]:
    """A server of its own for the test, plain and over TLS."""
    with serve(tmp_path if request.param == "https" else None) as server:
        yield server


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[Loopback]:
    """A plain-HTTP server of its own for the test."""
    with serve() as server:
        yield server


@pytest.fixture(params=CLIENTS)
def client(request: pytest.FixtureRequest) -> str:
    return str(request.param)
