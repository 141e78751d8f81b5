"""``datapackage.json`` and ``datapackage-digest.json`` of a WACZ (spec 1.1.1).

A WACZ describes itself as a Frictionless data package: every file in the ZIP but the
two package files is a *resource* with its ``path``, ``sha256:`` ``hash`` and size in
``bytes``; ``datapackage-digest.json`` holds the hash of ``datapackage.json`` itself.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .._version import __version__

__all__ = ["DATAPACKAGE", "DIGEST", "WACZ_VERSION", "Resource", "datapackage_json", "digest_json"]

#: The WACZ specification version written.
WACZ_VERSION = "1.1.1"
DATAPACKAGE = "datapackage.json"
DIGEST = "datapackage-digest.json"


@dataclass(frozen=True, slots=True)
class Resource:
    """One file of the package: its path in the ZIP, ``sha256:<hex>`` and size in bytes."""

    path: str
    hash: str
    bytes: int

    def as_json(self) -> dict[str, Any]:
        # Frictionless names: lower case (py-wacz uses the base name, as here).
        return {"name": posixpath.basename(self.path).lower(), "path": self.path,
                "hash": self.hash, "bytes": self.bytes}


def now_w3c() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def datapackage_json(
    resources: Sequence[Resource],
    *,
    created: str | None = None,
    main_page_url: str | None = None,
    main_page_date: str | None = None,
    title: str | None = None,
    description: str | None = None,
) -> bytes:
    """The bytes of ``datapackage.json``.

    >>> data = datapackage_json([Resource("archive/a.warc.gz", "sha256:00", 1)],
    ...                         created="2024-01-01T00:00:00Z")
    >>> json.loads(data)["resources"][0]["name"], json.loads(data)["wacz_version"]
    ('a.warc.gz', '1.1.1')
    """
    package: dict[str, Any] = {"profile": "data-package",
                               "resources": [r.as_json() for r in resources]}
    if title:
        package["title"] = title
    if description:
        package["description"] = description
    if main_page_url:
        package["mainPageURL"] = main_page_url
    if main_page_date:
        package["mainPageDate"] = main_page_date
    package["created"] = created or now_w3c()
    package["wacz_version"] = WACZ_VERSION
    package["software"] = f"warckit {__version__}"
    return json.dumps(package, indent=2).encode("utf-8")


def digest_json(datapackage: bytes) -> bytes:
    """The bytes of ``datapackage-digest.json`` for the bytes of ``datapackage.json``."""
    return json.dumps({"path": DATAPACKAGE, "hash": "sha256:" + hashlib.sha256(datapackage).hexdigest()},
                      indent=2).encode("utf-8")
