"""Every WARC and ARC in the shared corpus indexes in every format.

Damaged files (listed in DAMAGED with what is wrong) fail in strict mode and are read with
``lenient=True``; the test checks both halves, so a file that starts or stops failing is
noticed. LZ4-compressed WARCs (resiliparse ``*.warc.lz4``) are left out: the reader has no
LZ4 support.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from corpus_paths import CORPUS

from warckit.cdx import (
    ALL_TYPES,
    CdxEntry,
    CdxjEntry,
    ClassicCdxEntry,
    IndexOptions,
    index_file,
    parse_line,
)
from warckit.errors import WarckitError

SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.gz.open", ".warc.gz.bad")

#: Files that strict reading rejects, and why.
DAMAGED: dict[str, str] = {
    "gowarc/corrupted-mid-record.warc.gz.open": "gzip stream broken mid-record",
    "gowarc/corrupted-trailing-bytes.warc.gz.open": "garbage after the last member",
    "jwat/arc/invalid-arcfile-record-then-garbage.arc": "record followed by garbage",
    "jwat/arc/test-arc-1.0-dashed-fields.arc": "ARC header fields of '-'",
    "jwat/arc/test-arc-1.0-invalid-fields.arc": "invalid ARC header fields",
    "jwat/warc/invalid-warcfile-fields-empty.warc": "empty Content-Length",
    "jwat/warc/invalid-warcfile-fields-invalidformat.warc": "Content-Length: very lengthy",
    "jwat/warc/invalid-warcfile-fields-missing.warc": "every field empty",
    "jwat/warc/invalid-warcfile-lonely-continuation.warc": "no Content-Length",
    "jwat/warc/invalid-warcfile-lonely-monkeys.warc": "no Content-Length",
    "jwat/warc/invalid-warcfile-lonely-request-response-resource-conversion.warc": "no Content-Length",
    "jwat/warc/invalid-warcfile-lonely-revisit.warc": "no Content-Length",
    "jwat/warc/invalid-warcfile-lonely-warcinfo-metadata.warc": "no Content-Length",
    "jwat/warc/invalid-warcfile-record-then-garbage.warc": "record followed by garbage",
    "netarchivesuite/arc/2-metadata-1.arc": "records not followed by a newline",
    "netarchivesuite/arc/input-illegal.arc": "no filedesc version block",
    "netarchivesuite/arc/input-nonarc.arc": "not an ARC file at all",
    "pywb/example-extra.warc": "HTTPX/1.1 status line",
    "pywb/example.warc": "request 2 bytes longer than its Content-Length",
    "pywb/missing-status-text.warc": "file ends inside a record head",
    "resiliparse/clipped.warc.gz": "truncated file",
    "warcio.js/example-bad-length.warc": "wrong Content-Length",
    "warcio/bad.arc": "ARC length -1 and missing newlines",
    "warcio/example-space-in-url.arc": "URL with spaces in the ARC header line",
    "warcio/example-trunc.warc": "truncated record",
    "warcio/example-wrong-chunks.warc.gz": "bad chunked encoding",
    "webarchive-commons/IAH-20080430204825-00000-blackbook-truncated.arc": "truncated ARC",
    "webarchive-commons/link-extraction-test.warc": "damaged record",
}


def _archives() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return sorted(
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name.endswith(SUFFIXES)
    )


ARCHIVES = _archives()
PARSERS = {"cdx": CdxEntry, "cdxj": CdxjEntry, "cdx11": ClassicCdxEntry, "cdx9": ClassicCdxEntry}


def test_corpus_is_complete() -> None:
    if not ARCHIVES:
        pytest.skip("corpus not available")
    assert len(ARCHIVES) == 119
    assert set(DAMAGED) <= set(ARCHIVES)


def _run(path: Path, fmt: str, lenient: bool) -> list[str]:
    opts = IndexOptions(format=fmt, types=ALL_TYPES, lenient=lenient)  # type: ignore[arg-type]
    return list(index_file(path, opts, on_warning=lambda issue: None))


@pytest.mark.parametrize("name", ARCHIVES)
def test_indexes_in_every_format(name: str) -> None:
    path = CORPUS / name
    for fmt in ("cdx", "cdxj", "cdx11", "cdx9"):
        if name in DAMAGED:
            with pytest.raises(WarckitError):
                _run(path, fmt, lenient=False)
            lines = _run(path, fmt, lenient=True)
        else:
            lines = _run(path, fmt, lenient=False)
        for line in lines:
            assert "\n" not in line and "\t" not in line
            entry = parse_line(line, fmt)  # type: ignore[arg-type]
            assert entry.format() == line
            if fmt == "cdx":
                assert len(line.split(" ")) == 8, line  # no space inside any field
            elif fmt == "cdx11":
                assert len(line.split(" ")) == 11, line
            elif fmt == "cdx9":
                assert len(line.split(" ")) == 9, line


#: Lines whose record warcio cannot read at the line's offset, or reads differently, and why.
WARCIO_DIFFERS = {
    ("warcio/example-wrong-chunks.warc.gz", 1130): "the record starts inside a gzip member (warcio starts "
    "reading at the member, mid-record)",
}


def _warcio_record_at(path: Path, offset: int) -> tuple[str | None, str | None, int | None]:
    """Target URI, date and record length of the record warcio reads at *offset*."""
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        fh.seek(offset)
        it = ArchiveIterator(fh, arc2warc=False)
        rec = next(iter(it))
        h = rec.rec_headers
        if rec.format == "warc":
            uri, date = h.get_header("WARC-Target-URI"), h.get_header("WARC-Date")
        else:
            uri, date = h.get_header("uri"), h.get_header("archive-date")
        it.read_to_end(rec)
        return uri, date, it.get_record_length()


def _uri(value: str | None) -> str:
    # warcio keeps folding whitespace and <> and turns spaces into %20
    return (value or "-").replace("%20", " ").strip().strip("<>").strip()


@pytest.mark.parametrize("name", ARCHIVES)
def test_cdx11_lines_point_at_their_records(name: str) -> None:
    """Each CDX-11 line's offset (V) is where warcio (an independent reader) finds a
    record with the line's URL (a), date (b) and, for undamaged files, length (S)."""
    pytest.importorskip("warcio.archiveiterator")
    path = CORPUS / name
    lines = [line.split(" ") for line in _run(path, "cdx11", lenient=name in DAMAGED)]
    offsets = [int(f[9]) for f in lines]
    assert offsets == sorted(offsets)
    compared = 0
    for fields in lines:
        url, date, length, offset = fields[2], fields[1], fields[8], int(fields[9])
        if offsets.count(offset) > 1 or (name, offset) in WARCIO_DIFFERS:
            continue  # several records in one gzip member: the offset is the member's
        try:
            their_uri, their_date, their_length = _warcio_record_at(path, offset)
        except Exception:  # noqa: BLE001 - warcio refuses some damaged heads
            assert name in DAMAGED, (name, offset)
            continue
        assert _uri(their_uri) == _uri(url), (name, offset)
        if date != "-":
            assert date.startswith(re.sub(r"\D", "", their_date or "")[:14]), (name, offset)
        if name not in DAMAGED and not url.startswith("filedesc:"):
            # (warcio counts one more separator byte after an ARC version block)
            assert length == str(their_length), (name, offset)
        compared += 1
    assert compared or not lines or name in DAMAGED or len(set(offsets)) == 1


def test_record_counts_of_known_files() -> None:
    """Exact numbers for a few files (all types indexed)."""
    counts = {
        "pywb/iana.warc.gz": 343,
        "jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz": 822,
        "netarchivesuite/arc/fyensdk.arc": 190,
        "netarchivesuite/arc/NetarchiveSuite-netarkivet.arc.gz": 66,
        "warc-specifications/hello-world.warc": 6,
    }
    for name, expected in counts.items():
        if name not in ARCHIVES:
            pytest.skip("corpus not available")
        assert len(_run(CORPUS / name, "cdx", False)) == expected, name
