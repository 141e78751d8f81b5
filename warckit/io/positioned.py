"""The seek/tell of a read-only file that knows its size and keeps its own position.

:class:`~warckit.io.remote.RemoteFile` (an object read by ranged requests) and
:class:`~warckit.io.zipped.MemberFile` (a stored ZIP member, a byte range of its
package) both read at ``_pos`` within ``size`` bytes; only their reads differ.
"""

from __future__ import annotations

import io

__all__ = ["Positioned"]


class Positioned:
    """Mixin (before the :mod:`io` base class): readable, seekable, ``tell`` and ``seek``
    over ``_pos`` and ``size`` (seeking past the end is allowed; reads there are empty)."""

    size: int
    _pos: int

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self.size + offset
        else:
            raise ValueError(f"invalid whence {whence}")
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos
