"""The HTTP clients a capture records, driven alike: a list of calls on one client
(one connection, where the client keeps connections alive)."""

from __future__ import annotations

import asyncio
import ssl
import urllib.error
import urllib.request
from collections.abc import Sequence
from loopback import Loopback

#: ``(method, path, body or None, extra headers)``
Call = tuple[str, str, "bytes | None", "dict[str, str]"]

CLIENTS = ("requests", "urllib3", "httpx", "httpx-async", "urllib")


def call(method: str, path: str, body: bytes | None = None, **headers: str) -> Call:
    return (method, path, body, {k.replace("_", "-"): v for k, v in headers.items()})


def fetch(client: str, srv: Loopback, calls: Sequence[Call]) -> list[tuple[int, bytes]]:
    """Make *calls* with *client*, following redirects; (status, decoded body) each."""
    context = ssl.create_default_context(cafile=str(srv.cafile)) if srv.cafile else None
    results: list[tuple[int, bytes]] = []
    if client == "requests":
        import requests

        with requests.Session() as session:
            for method, path, body, headers in calls:
                r = session.request(method, srv.url(path), data=body, headers=headers,
                                    verify=str(srv.cafile) if srv.cafile else True, timeout=30)
                results.append((r.status_code, r.content))
    elif client == "urllib3":
        import urllib3

        pool = urllib3.PoolManager(ca_certs=str(srv.cafile) if srv.cafile else None,
                                   timeout=30)
        for method, path, body, headers in calls:
            u = pool.request(method, srv.url(path), body=body, headers=headers)
            results.append((u.status, u.data))
        pool.clear()
    elif client == "httpx":
        import httpx

        with httpx.Client(verify=context or True, follow_redirects=True, timeout=30) as c:
            for method, path, body, headers in calls:
                x = c.request(method, srv.url(path), content=body, headers=headers)
                results.append((x.status_code, x.content))
    elif client == "httpx-async":
        import httpx

        async def run() -> None:
            async with httpx.AsyncClient(verify=context or True, follow_redirects=True,
                                         timeout=30) as c:
                for method, path, body, headers in calls:
                    x = await c.request(method, srv.url(path), content=body, headers=headers)
                    results.append((x.status_code, x.content))

        asyncio.run(run())
    elif client == "urllib":
        for method, path, body, headers in calls:
            request = urllib.request.Request(srv.url(path), data=body, headers=headers,
                                             method=method)
            try:
                with urllib.request.urlopen(request, context=context, timeout=30) as f:
                    results.append((f.status, f.read()))
            except urllib.error.HTTPError as e:  # 304 is an "error" to urllib
                results.append((e.code, e.read()))
    else:
        raise AssertionError(client)
    return results
