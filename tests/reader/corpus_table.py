"""What each corpus WARC/ARC file holds, from ../shared/corpus/README.md, and how warckit reads it.

``STRICT_ERRORS`` lists the files that break the standard in a way strict mode refuses
(with the error class and the offset it must name); everything else reads cleanly in
strict mode. ``LENIENT`` gives, for every damaged file, the records lenient mode must
return and the recovery codes it must report.
"""

from __future__ import annotations

from warckit.errors import CompressionError, HeaderParseError, HttpParseError, RecordParseError

#: Files that are not archives at all (gzip test vectors, indexes, a dictionary).
NOT_ARCHIVES = {
    "gowarc/dictionary",
    "jwat/gzip/invalid-compression.gz",
    "jwat/gzip/invalid-entries.gz",
    "jwat/gzip/invalid-magic.gz",
    "jwat/gzip/invalid-truncated.gz",
    "jwat/gzip/three-files.gz",
    "webarchive-commons/gzip/abcd.gz",
    "webarchive-commons/gzip/double-single-inflate-error.gz",
    "webarchive-commons/gzip/empty.gz",
    "webarchive-commons/gzip/hi-2.gz",
    "webarchive-commons/gzip/hi.gz",
    "resiliparse/block-sized-records.warc.lz4",  # LZ4 is in no WARC standard
    "resiliparse/warcfile.warc.lz4",
}

#: file -> (error class, offset named, records yielded before the error)
STRICT_ERRORS: dict[str, tuple[type[Exception], int, int]] = {
    "gowarc/corrupted-mid-record.warc.gz.open": (CompressionError, 1219, 11),
    "gowarc/corrupted-trailing-bytes.warc.gz.open": (CompressionError, 2362, 29),
    "jwat/arc/invalid-arcfile-record-then-garbage.arc": (RecordParseError, 0, 0),
    "jwat/arc/test-arc-1.0-dashed-fields.arc": (RecordParseError, 4453, 1),
    "jwat/arc/test-arc-1.0-invalid-fields.arc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-fields-empty.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-fields-invalidformat.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-fields-missing.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-lonely-continuation.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-lonely-monkeys.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-lonely-request-response-resource-conversion.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-lonely-revisit.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-lonely-warcinfo-metadata.warc": (RecordParseError, 0, 0),
    "jwat/warc/invalid-warcfile-record-then-garbage.warc": (RecordParseError, 1133, 1),
    "netarchivesuite/arc/2-metadata-1.arc": (RecordParseError, 142, 0),
    "netarchivesuite/arc/input-illegal.arc": (RecordParseError, 0, 0),
    "netarchivesuite/arc/input-nonarc.arc": (RecordParseError, 0, 0),
    "pywb/missing-status-text.warc": (RecordParseError, 0, 0),
    "resiliparse/clipped.warc.gz": (CompressionError, 0, 0),
    "warcio.js/example-bad-length.warc": (RecordParseError, 2561, 2),
    "warcio/bad.arc": (RecordParseError, 0, 0),
    "warcio/example-space-in-url.arc": (RecordParseError, 151, 1),
    "warcio/example-trunc.warc": (RecordParseError, 2560, 2),
    "warcio/example-wrong-chunks.warc.gz": (RecordParseError, 516, 0),
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc": (RecordParseError, 1399, 0),
    "webarchive-commons/link-extraction-test.warc": (RecordParseError, 1691, 1),
    # Framing is fine, but the HTTP head of a record is broken (strict .http raises).
    "pywb/example.warc": (HttpParseError, 4061, 4),
    "pywb/example-extra.warc": (HttpParseError, 3207, 3),
}
_ = HeaderParseError  # kept importable for tests that extend the table

#: damaged file -> (records lenient mode returns, recovery codes it must report)
LENIENT: dict[str, tuple[int, set[str]]] = {
    "gowarc/corrupted-mid-record.warc.gz.open": (12, {"trailing-garbage"}),
    "gowarc/corrupted-trailing-bytes.warc.gz.open": (30, {"trailing-garbage"}),
    "jwat/arc/invalid-arcfile-record-then-garbage.arc": (1, {"arc-no-version-block", "skipped-garbage"}),
    "jwat/warc/invalid-warcfile-lonely-warcinfo-metadata.warc": (2, {"bad-content-length"}),
    "jwat/warc/invalid-warcfile-record-then-garbage.warc": (1, {"skipped-garbage"}),
    "netarchivesuite/arc/2-metadata-1.arc": (2, {"arc-missing-newline"}),  # warcio's 44 are CDX lines misread as records
    "netarchivesuite/arc/input-nonarc.arc": (0, {"skipped-garbage"}),
    "pywb/missing-status-text.warc": (1, {"missing-trailer"}),
    "resiliparse/clipped.warc.gz": (1, {"truncated-member", "truncated-block"}),
    "warcio.js/example-bad-length.warc": (6, {"missing-trailer"}),
    "warcio/bad.arc": (4, {"arc-bad-length"}),
    "warcio/example-space-in-url.arc": (2, {"truncated-block"}),
    "warcio/example-trunc.warc": (4, {"missing-trailer"}),
    "warcio/example-wrong-chunks.warc.gz": (2, {"missing-trailer"}),
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc": (9, {"arc-missing-newline"}),
    "webarchive-commons/link-extraction-test.warc": (8, {"missing-trailer"}),
}

#: Record counts of clean files, from the corpus README (warcio / FastWARC agree).
COUNTS: dict[str, int] = {
    "warc-specifications/hello-world.warc": 6,
    "warc-specifications/hello-world.warc.gz": 6,
    "warcio/example.warc": 6,
    "warcio/example.warc.gz": 6,
    "warcio/example-bad-non-chunked.warc.gz": 6,
    "warcio/example-bad.warc.gz.bad": 6,
    "pywb/iana.warc.gz": 343,
    "pywb/dupes.warc.gz": 25,
    "gowarc/good.warc.gz.open": 50,
    "gowarc/skip-non-open.warc.gz": 10,
    "resiliparse/warcfile.warc": 50,
    "resiliparse/warcfile.warc.gz": 50,
    "resiliparse/clueweb-quirk.warc.gz": 30,
    "jwat/arc/IAH-20080430204825-00000-blackbook.arc.gz": 300,
    "netarchivesuite/arc/NetarchiveSuite-netarkivet.arc.gz": 66,
    "netarchivesuite/warc/netarkivet-20081105135926-00000.warc": 68,
    "webarchive-discovery/flashfrozen-jwat-recompressed.warc.gz": 82,
    "warcio/example.arc": 2,
    "warcio/example.arc.gz": 2,
    "jwat/warc/valid-warcfile-upper-lower-case.warc": 5,
}
