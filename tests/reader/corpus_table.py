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

#: Every file strict mode refuses -> (records lenient mode returns, the exact set of
#: recovery codes it reports). Counts are the README's (see test_lenient_counts_are_the_readmes);
#: codes name the damage the README describes for the file.
LENIENT: dict[str, tuple[int, set[str]]] = {
    # README: single gzip stream corrupted mid-record (FastWARC: 12 records, then error)
    "gowarc/corrupted-mid-record.warc.gz.open": (12, {"trailing-garbage"}),
    # README: 55 non-gzip bytes at the end (FastWARC: 30 records, then error)
    "gowarc/corrupted-trailing-bytes.warc.gz.open": (30, {"trailing-garbage"}),
    # README: ARC record followed by garbage (and no version block)
    "jwat/arc/invalid-arcfile-record-then-garbage.arc": (1, {"arc-no-version-block", "skipped-garbage"}),
    # README: filedesc with dash placeholders; 2 records
    "jwat/arc/test-arc-1.0-dashed-fields.arc": (2, {"arc-bad-line", "arc-missing-newline"}),
    # README: filedesc line with invalid values: reported and skipped, the record is kept
    "jwat/arc/test-arc-1.0-invalid-fields.arc": (1, {"arc-bad-line", "arc-missing-newline"}),
    # README: empty values incl. Content-Length, "so the block cannot be delimited"
    "jwat/warc/invalid-warcfile-fields-empty.warc": (1, {"bad-content-length", "missing-trailer"}),
    "jwat/warc/invalid-warcfile-fields-invalidformat.warc": (1, {"bad-content-length", "missing-trailer"}),
    # README: every field with an empty value, header-only record
    "jwat/warc/invalid-warcfile-fields-missing.warc": (1, {"bad-content-length", "short-trailer"}),
    # README: records without Content-Length
    "jwat/warc/invalid-warcfile-lonely-continuation.warc": (1, {"bad-content-length"}),
    "jwat/warc/invalid-warcfile-lonely-monkeys.warc": (1, {"bad-content-length", "bare-lf", "missing-trailer"}),
    "jwat/warc/invalid-warcfile-lonely-request-response-resource-conversion.warc": (4, {"bad-content-length"}),
    "jwat/warc/invalid-warcfile-lonely-revisit.warc": (1, {"bad-content-length"}),
    "jwat/warc/invalid-warcfile-lonely-warcinfo-metadata.warc": (2, {"bad-content-length"}),
    # README: one valid record followed by garbage text
    "jwat/warc/invalid-warcfile-record-then-garbage.warc": (1, {"skipped-garbage"}),
    # README: CDX lines inside a metadata record (warcio's 44 "records" are those lines)
    "netarchivesuite/arc/2-metadata-1.arc": (2, {"arc-missing-newline"}),
    "netarchivesuite/arc/input-illegal.arc": (1, {"arc-no-version-block"}),
    # a text file: no record (warcio's one is bogus)
    "netarchivesuite/arc/input-nonarc.arc": (0, {"skipped-garbage"}),
    # README: HTTP status line without reason phrase
    "pywb/missing-status-text.warc": (1, {"missing-trailer", "no-colon", "bad-http-head"}),
    # README: one response whose payload digest mismatches (the framing damage is in the bytes:
    # a revisit followed by 2 of the 4 trailer bytes, two records 1 byte longer than declared)
    # (a block cut short by its Content-Length also cuts its HTTP head: bad-http-head)
    "pywb/example-extra.warc": (6, {"missing-trailer", "short-trailer", "bad-http-head"}),
    # README: one request record 2 bytes longer than its Content-Length
    "pywb/example.warc": (6, {"missing-trailer", "bad-http-head"}),
    # README: truncated gzip (last member cut off mid-stream): one damage, one report
    "resiliparse/clipped.warc.gz": (1, {"truncated-member"}),
    # README: wrong Content-Length (NUL byte before separator)
    "warcio.js/example-bad-length.warc": (6, {"missing-trailer", "short-trailer"}),
    # README: length -1, 18-digit dates, length "abc" (a block taken up to the next record
    # keeps its newline: no arc-missing-newline on top)
    "warcio/bad.arc": (4, {"arc-bad-length"}),
    # README: URL field containing spaces
    "warcio/example-space-in-url.arc": (2, {"truncated-block"}),
    # README: NUL padding before CRLFCRLF (Content-Length shorter than data)
    "warcio/example-trunc.warc": (4, {"missing-trailer"}),
    # README: gzip member boundaries not aligned with records (3 members, 2 records)
    "warcio/example-wrong-chunks.warc.gz": (2, {"missing-trailer"}),
    # README: decompressed without the newline separators (the .arc.gz twin has 9 records)
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc": (9, {"arc-missing-newline"}),
    # README: some records lack the CRLFCRLF separator (FastWARC reads 8)
    "webarchive-commons/link-extraction-test.warc": (8, {"missing-trailer", "short-trailer"}),
}

#: Damaged files whose README count is not the one lenient mode must give, and why.
README_COUNT_DIFFERS: dict[str, str] = {
    "jwat/arc/test-arc-1.0-invalid-fields.arc": "warcio counts the invalid filedesc line as a record",
    "netarchivesuite/arc/2-metadata-1.arc": "warcio reads the CDX lines inside a metadata record as records",
    "netarchivesuite/arc/input-nonarc.arc": "warcio returns a bogus record for a text file",
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc":
        "warcio stops after the version block; the gzip twin in webarchive-discovery/ has 9",
}

#: Damaged files on which today's lenient reading disagrees with the README, and the issue.
LENIENT_WRONG: dict[str, str] = {
    "resiliparse/clipped.warc.gz": "truncated files reported once: the reader still reports one cut "
    "member as truncated-block and truncated-member (check folds them into one finding)",
}
