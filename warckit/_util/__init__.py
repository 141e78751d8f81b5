"""Small helpers every layer may use: frozen dataclass base, WARC/ARC dates, CPU count,
a package's lazily imported names."""
