"""Hybrid compression: records whose payload is already compressed go to a separate
uncompressed series (compressing them again costs time and saves nothing)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMPRESSED_TYPES", "HybridPolicy"]

#: Media types whose payload is already compressed (routed by :class:`HybridPolicy`).
COMPRESSED_TYPES: tuple[str, ...] = (
    "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic",
    "video/", "audio/",
    "application/zip", "application/gzip", "application/x-gzip", "application/x-bzip2",
    "application/x-xz", "application/x-7z-compressed", "application/x-rar-compressed",
    "application/vnd.rar", "application/zstd", "application/x-zstd", "application/pdf",
    "application/vnd.openxmlformats-officedocument.", "application/epub+zip",
    "font/woff", "font/woff2", "application/font-woff",
)


@dataclass(frozen=True, slots=True)
class HybridPolicy:
    """Route records whose payload is already compressed to an uncompressed series.

    Args:
        content_types: Media-type prefixes (``"video/"``) or exact types treated as
            already compressed.
        min_size: Only payloads at least this large are routed (smaller ones compress
            fine with their record head). A body of unknown length counts as large.
        content_encodings: An HTTP ``Content-Encoding`` among these also counts as
            compressed.
    """

    content_types: tuple[str, ...] = COMPRESSED_TYPES
    min_size: int = 64 * 1024
    content_encodings: tuple[str, ...] = ("gzip", "x-gzip", "br", "zstd", "deflate", "compress")

    def uncompressed(self, content_type: str | None, size: int | None,
                     content_encoding: str | None = None) -> bool:
        """True when a payload of this type and size belongs in the uncompressed series."""
        if size is not None and size < self.min_size:
            return False
        if content_encoding and content_encoding.strip().lower() in self.content_encodings:
            return True
        if not content_type:
            return False
        mime = content_type.split(";", 1)[0].strip().lower()
        return any(mime.startswith(p) if p.endswith(("/", ".")) else mime == p
                   for p in self.content_types)
