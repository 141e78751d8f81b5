"""Bytes in and out: compression codecs, HTTP chunked decoding, atomic file creation."""
