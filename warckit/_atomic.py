"""Write an output file under a temporary name and rename it into place when complete.

Readers of the output never see half a file, and a failed run leaves the old one. When the
output is not a regular file (``/dev/null``, a named pipe, a terminal) it is written in
place instead: renaming a file over ``/dev/null`` would replace the device itself.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["replacing"]


@contextlib.contextmanager
def replacing(
    path: str | os.PathLike[str], suffix: str = ".tmp", *, exclusive: bool = False
) -> Iterator[BinaryIO]:
    """Open *path* for binary writing; the data replaces it only if the block succeeds.

    Args:
        path: The output file.
        suffix: Added to *path* for the temporary file.
        exclusive: Refuse to reuse an existing temporary file (``open(..., "xb")``).
    """
    dst = os.fspath(path)
    try:
        special = not stat.S_ISREG(os.stat(dst).st_mode)
    except FileNotFoundError:
        special = False
    if special:
        with open(dst, "wb") as out:
            yield out
        return
    tmp = dst + suffix
    try:
        with open(tmp, "xb" if exclusive else "wb") as out:
            yield out
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
