"""Gzip members built byte by byte, for the decoder tests (importable as ``gzip_members``).

``gzip.compress`` writes one header only; these set the fields a decoder must honour
or reject: a header CRC (FHCRC), right or wrong, and stored (level 0) deflate blocks.
"""

from __future__ import annotations

import zlib

_MTIME_XFL_OS = b"\0\0\0\0" + b"\x00\xff"  # MTIME 0, XFL 0, OS unknown


def member(data: bytes, *, level: int = 6, header_crc: bool | None = None) -> bytes:
    """One gzip member of *data* at deflate *level*; with *header_crc* True or False the
    header carries a right or wrong FHCRC."""
    flags = 0 if header_crc is None else 2
    header = b"\x1f\x8b\x08" + bytes([flags]) + _MTIME_XFL_OS
    if header_crc is not None:
        crc16 = zlib.crc32(header) & 0xFFFF ^ (0 if header_crc else 0x5A5A)
        header += crc16.to_bytes(2, "little")
    comp = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = comp.compress(data) + comp.flush()
    return (header + body + zlib.crc32(data).to_bytes(4, "little")
            + (len(data) & 0xFFFFFFFF).to_bytes(4, "little"))
