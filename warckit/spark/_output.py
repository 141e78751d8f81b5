"""Where a job writes: a local directory (a shared file system on a cluster) or a fsspec URL.

Local files are written atomically (:func:`warckit.io.atomic.replacing`); a URL through
fsspec (an object store writes an object whole when it is closed).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from ..errors import UsageError
from ..io.atomic import replacing
from ..io.remote import is_url

__all__ = ["join", "listdir", "makedirs", "open_write"]


def _fs(url: str, storage_options: dict[str, Any] | None) -> Any:
    try:
        import fsspec  # type: ignore[import-untyped,unused-ignore]  # the remote extra
    except ImportError:
        raise UsageError(f"{url}: writing to a URL needs fsspec (pip install warckit[remote])") from None
    fs, _path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    return fs


def join(base: str, *names: str) -> str:
    """*names* under *base* (a directory or a URL)."""
    if is_url(base):
        return "/".join([base.rstrip("/"), *names])
    return os.path.join(base, *names)


def makedirs(path: str, storage_options: dict[str, Any] | None = None) -> None:
    """Create directory *path* (and its parents) if missing."""
    if is_url(path):
        _fs(path, storage_options).makedirs(path, exist_ok=True)
    else:
        os.makedirs(path, exist_ok=True)


def listdir(path: str, storage_options: dict[str, Any] | None = None) -> list[str]:
    """The names in directory *path* (``[]`` when it does not exist)."""
    if is_url(path):
        fs = _fs(path, storage_options)
        if not fs.exists(path):
            return []
        return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(path, detail=False))
    if not os.path.isdir(path):
        return []
    return sorted(os.listdir(path))


@contextmanager
def open_write(path: str, storage_options: dict[str, Any] | None = None) -> Iterator[IO[bytes]]:
    """*path* opened for binary writing; a local file appears only if the block succeeds."""
    if is_url(path):
        with _fs(path, storage_options).open(path, "wb") as fh:
            yield fh
    else:
        with replacing(path) as fh:
            yield fh
