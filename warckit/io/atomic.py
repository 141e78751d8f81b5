"""Create output files safely: exclusive creation, temporary names, rename into place.

Every file warckit writes is created with :func:`create_exclusive` (``O_CREAT|O_EXCL|
O_NOFOLLOW``): a file or symlink already at the name makes the creation fail, so a
symlink planted at a temporary name can never redirect the data to its target.

:func:`replacing` writes an output under a fresh temporary name next to it and renames
it into place when complete: readers of the output never see half a file, and a failed
run leaves the old one. When the output is not a regular file (``/dev/null``, a named
pipe, a terminal) it is written in place instead: renaming a file over ``/dev/null``
would replace the device itself.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["create_exclusive", "open_exclusive", "removed_on_failure", "replacing", "temporary_name"]

_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
#: Fresh temporary names tried before giving up (each collision means a file or link
#: already sits at a random name: someone is planting them).
_ATTEMPTS = 100


def create_exclusive(path: str | os.PathLike[str], mode: int = 0o666) -> int:
    """Create *path* for writing and return its descriptor; never follows or reuses
    anything already there.

    Raises:
        FileExistsError: a file, directory or symlink (even a dangling one) is at *path*.
    """
    return os.open(path, _FLAGS, mode)


def open_exclusive(path: str | os.PathLike[str], *, buffering: int = -1) -> BinaryIO:
    """:func:`create_exclusive` as a binary file object (``buffering=0``: unbuffered)."""
    fd = create_exclusive(path)
    try:
        return os.fdopen(fd, "wb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def _token() -> str:
    """Eight random hex digits (os.urandom, what secrets.token_hex reads: importing
    secrets would cost every writing command hashlib and hmac)."""
    return os.urandom(4).hex()


def temporary_name(path: str, suffix: str) -> str:
    """A fresh temporary name next to *path*: ``path.<random>suffix``."""
    return f"{path}.{_token()}{suffix}"


def _create_temporary(dst: str, suffix: str) -> tuple[BinaryIO, str]:
    for _ in range(_ATTEMPTS):
        tmp = temporary_name(dst, suffix)
        try:
            return open_exclusive(tmp), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{dst}: no free temporary name after {_ATTEMPTS} attempts "
                          f"(something keeps creating files next to it)")


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """Open *path* for binary writing; the data replaces it only if the block succeeds.

    The data goes to a new file ``path.<random>suffix`` created exclusively (never an
    existing file or symlink), renamed over *path* at the end and removed on failure.

    Args:
        path: The output file.
        suffix: Ends the temporary file's name.
    """
    dst = os.fspath(path)
    try:
        special = not stat.S_ISREG(os.stat(dst).st_mode)
    except FileNotFoundError:
        special = False
    if special:
        try:
            with open(dst, "wb") as plain:
                yield plain
        except OSError as exc:
            _name_write_error(exc, dst)
            raise
        return
    out, tmp = _create_temporary(dst, suffix)
    with removed_on_failure(tmp, dst):
        with out:
            yield out
        os.replace(tmp, dst)


@contextlib.contextmanager
def removed_on_failure(path: str, output: str | None = None) -> Iterator[None]:
    """Remove the file *path* when the block fails. A write error that names no file (a
    write does not say which file was full) is made to name *output* (default: *path*)."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)
        if isinstance(exc, OSError):
            _name_write_error(exc, output or path)
        raise


#: Write errors that can only be the output's (a full disk or quota, a file too large).
_OUTPUT_ERRNOS = frozenset(filter(None, (getattr(errno, n, None) for n in ("ENOSPC", "EDQUOT", "EFBIG"))))


def _name_write_error(exc: OSError, dst: str) -> None:
    """Make *exc* name the output *dst* when it is a write error that names no file."""
    if exc.filename is None and exc.errno in _OUTPUT_ERRNOS:
        exc.filename = dst
