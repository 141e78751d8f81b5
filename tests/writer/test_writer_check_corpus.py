"""``warckit check`` over every WARC file of the shared corpus, against its README.

Each row: file, records check reads, and the exact set of *error* codes expected.
The rows are checked against sources independent of warckit, below the table: the
record counts and the gzip layout against ../shared/corpus/README.md, digest errors
against its ``warcio check`` column, duplicate record IDs and trailers against the
raw bytes, forbidden fields against SPEC-DIGEST §1.3 (read by FastWARC); the other
errors of files the README calls clean carry the README's or the bytes' reason in
CLEAN_FILE_ERRORS. Warnings (``warcinfo-not-first``, ``dangling-reference``,
``old-version``…) are not part of the table except where the README names them (see
test_readme_specific_warnings).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from corpus_paths import CORPUS
from corpus_readme import ROWS, clean, count_agrees, gzip_members, trailing_bytes
from test_writer_validate import SPEC_FORBIDDEN
from warc_bytes import members, walk

from warckit.check.report import check_file
from warckit.cli import main

#: These tests read the shared corpus and its README (CI has them).
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available (set WARCKIT_CORPUS)")

TABLE: list[tuple[str, int, list[str]]] = [
    # README: single gzip stream corrupted mid-record (+34 B trailing)
    ("gowarc/corrupted-mid-record.warc.gz.open", 12, ['multi-record-member', 'trailing-garbage']),
    ("gowarc/corrupted-trailing-bytes.warc.gz.open", 30, ['multi-record-member', 'trailing-garbage']),
    ("gowarc/empty.warc.gz.open", 0, ['empty-file']),  # a failed write
    # README: 50 records in ONE gzip member (warcio rejects)
    ("gowarc/good.warc.gz.open", 50, ['multi-record-member']),
    ("gowarc/single-record.warc.gz.open", 1, []),
    ("gowarc/skip-non-open.warc.gz", 10, ['multi-record-member']),
    ("gowarc/test.warc.gz", 3, []),
    ("jwarc/cc.warc.gz", 1, []),
    ("jwarc/gzip_extra_sl.warc.gz", 1, []),
    ("jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz", 822, []),
    ("jwat/warc/invalid-warcfile-contenttype-recommended.warc", 7, ['duplicate-record-id', 'payload-digest-mismatch']),
    ("jwat/warc/invalid-warcfile-contenttype-warcinfo-recommended.warc", 1, []),
    ("jwat/warc/invalid-warcfile-digest-fields.warc", 4, ['block-digest-mismatch', 'duplicate-record-id', 'payload-digest-mismatch']),
    # README: duplicate fields
    ("jwat/warc/invalid-warcfile-duplicate-fields.warc", 1, ['repeated-field']),
    ("jwat/warc/invalid-warcfile-encoding-headers.warc.gz", 4, []),
    ("jwat/warc/invalid-warcfile-fields-empty.warc", 1, ['bad-content-length', 'bad-syntax', 'missing-trailer']),
    ("jwat/warc/invalid-warcfile-fields-invalidformat.warc", 1, ['bad-content-length', 'bad-syntax', 'missing-trailer']),
    ("jwat/warc/invalid-warcfile-fields-missing.warc", 1, ['bad-content-length', 'bad-syntax', 'short-trailer']),
    ("jwat/warc/invalid-warcfile-lonely-continuation.warc", 1, ['bad-content-length', 'missing-field']),
    ("jwat/warc/invalid-warcfile-lonely-monkeys.warc", 1, ['bad-content-length', 'missing-field', 'missing-trailer']),
    ("jwat/warc/invalid-warcfile-lonely-request-response-resource-conversion.warc", 4, ['bad-content-length', 'missing-field']),
    ("jwat/warc/invalid-warcfile-lonely-revisit.warc", 1, ['bad-content-length', 'missing-field']),
    ("jwat/warc/invalid-warcfile-lonely-warcinfo-metadata.warc", 2, ['bad-content-length', 'missing-field']),
    # README: one valid record followed by garbage text
    ("jwat/warc/invalid-warcfile-record-then-garbage.warc", 1, ['skipped-garbage']),
    ("jwat/warc/invalid-warcfile-segment-number-continuation.warc", 2, ['duplicate-record-id']),
    ("jwat/warc/invalid-warcfile-segment-number-response.warc", 2, ['duplicate-record-id']),
    ("jwat/warc/valid-warcfile-contenttype-continuation.warc", 1, []),
    ("jwat/warc/valid-warcfile-duplicate-concurrentto.warc", 1, []),
    ("jwat/warc/valid-warcfile-fields-continuation.warc", 1, []),
    ("jwat/warc/valid-warcfile-fields-metainfo.warc", 1, []),
    ("jwat/warc/valid-warcfile-fields-warcinfo.warc", 1, []),
    ("jwat/warc/valid-warcfile-non-warc-headers.warc", 1, []),
    ("jwat/warc/valid-warcfile-upper-lower-case.warc", 5, ['bad-syntax']),
    ("jwat/warc/valid-warcfile-utf8.warc", 1, []),
    ("netarchivesuite/warc/1-metadata-1.warc", 23, []),
    ("netarchivesuite/warc/NAS-20100909163324-00000-mette.kb.dk.warc", 120, []),
    ("netarchivesuite/warc/fyensdk.warc", 191, []),
    ("netarchivesuite/warc/netarkivet-20081105135926-00000.warc", 68, []),
    ("netarchivesuite/warc/netarkivet-20081105135926-00001.warc", 63, []),
    ("netarchivesuite/warc/netarkivet-20081105140044-00002.warc", 4, []),
    ("pywb/dupes.warc.gz", 25, []),
    # README: one response whose WARC-Payload-Digest deliberately mismatches
    ("pywb/example-extra.warc", 6, ['duplicate-record-id', 'missing-trailer', 'payload-digest-mismatch', 'short-trailer']),
    # README: WARC/1.0 with fractional-second WARC-Date (.000Z): a 1.0 grammar error
    ("pywb/example-url-agnostic-orig.warc.gz", 2, ['bad-syntax', 'short-trailer']),
    ("pywb/example-url-agnostic-revisit.warc.gz", 2, ['bad-syntax', 'short-trailer']),
    ("pywb/example-wget-1-14.warc.gz", 6, ['duplicate-record-id']),
    ("pywb/example-wpull.warc.gz", 4, ['forbidden-field']),
    # README: one request record 2 bytes longer than its Content-Length
    ("pywb/example.warc", 6, ['missing-trailer']),
    ("pywb/example.warc.gz", 6, []),
    ("pywb/example2.warc.gz", 3, []),
    ("pywb/httpbin-resource.warc.gz", 1, []),
    ("pywb/iana.warc.gz", 343, []),
    ("pywb/missing-status-text.warc", 1, ['missing-trailer']),
    ("resiliparse/block-sized-records.warc", 3, []),
    ("resiliparse/block-sized-records.warc.gz", 3, []),
    # README: truncated gzip (clipped file): one error, not also what the cut causes
    ("resiliparse/clipped.warc.gz", 1, ['truncated-member']),
    ("resiliparse/clueweb-quirk.warc.gz", 30, ['payload-digest-mismatch']),
    ("resiliparse/warcfile.warc", 50, []),
    ("resiliparse/warcfile.warc.gz", 50, []),
    ("warc-specifications/20130729-heritrix-original.warc.gz", 1, []),
    ("warc-specifications/20130729-heritrix-revisit-with-http-headers.warc.gz", 1, []),
    ("warc-specifications/20141124-heritrix-server-not-modified.warc.gz", 1, ['short-trailer']),
    ("warc-specifications/20141129-heritrix-original.warc.gz", 1, []),
    ("warc-specifications/20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz", 1, []),
    # README: IIPC primer, clean
    ("warc-specifications/hello-world.warc", 6, []),
    ("warc-specifications/hello-world.warc.gz", 6, []),
    # README: wrong Content-Length (NUL byte before separator)
    ("warcio.js/example-bad-length.warc", 6, ['block-digest-mismatch', 'missing-trailer', 'payload-digest-mismatch', 'short-trailer']),
    ("warcio.js/example-resource.warc.gz", 1, []),
    ("warcio.js/example.warc", 7, ['forbidden-field']),
    ("warcio.js/post-test-more.warc", 6, []),
    ("warcio.js/redirect.warc", 2, []),
    ("warcio/example-bad-non-chunked.warc.gz", 6, ['block-digest-mismatch', 'multi-record-member']),
    ("warcio/example-bad.warc.gz.bad", 6, ['multi-record-member']),
    # README: base32 wrong value, base64 values: warcio check fails by design
    ("warcio/example-digest.warc", 4, ['bad-digest-value', 'duplicate-record-id']),
    ("warcio/example-iana.org-chunked.warc", 3, []),
    ("warcio/example-resource.warc.gz", 3, []),
    # README: WARC-Target-URI containing literal spaces
    ("warcio/example-space-in-target-uri.warc.gz", 2, ['bad-syntax']),
    # README: NUL padding before CRLFCRLF (Content-Length shorter than data)
    ("warcio/example-trunc.warc", 4, ['block-digest-mismatch', 'missing-trailer', 'payload-digest-mismatch']),
    ("warcio/example-wget-bad-target-uri.warc.gz", 6, []),
    # README: gzip member boundaries not aligned with records
    ("warcio/example-wrong-chunks.warc.gz", 2, ['block-digest-mismatch', 'missing-trailer', 'multi-record-member']),
    # README: clean WARC/1.0 (uri-agnostic profile is only a warning)
    ("warcio/example.warc", 6, []),
    ("warcio/example.warc.gz", 6, []),
    ("warcio/post-test.warc.gz", 6, []),
    ("webarchive-commons/IAH-urls-wget.warc", 36, ['duplicate-record-id']),
    ("webarchive-commons/IAH-urls-wget.warc.gz", 36, ['duplicate-record-id']),
    # README: no separators (missing CRLFCRLF)
    ("webarchive-commons/link-extraction-test.warc", 8, ['missing-field', 'missing-trailer', 'short-trailer']),
    ("webarchive-commons/mutliple-headers.warc", 1, []),
    ("webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.warc", 23, []),
    ("webarchive-discovery/IAH-20080430204825-00000-blackbook-truncated.warc.gz", 23, []),
    ("webarchive-discovery/compression/transfer_compression_brotli.warc", 5, []),
    ("webarchive-discovery/compression/transfer_compression_brotli.warc.gz", 5, []),
    ("webarchive-discovery/compression/transfer_compression_gzip.warc", 5, []),
    ("webarchive-discovery/compression/transfer_compression_gzip.warc.gz", 5, []),
    ("webarchive-discovery/compression/transfer_compression_none.warc", 5, []),
    ("webarchive-discovery/compression/transfer_compression_none.warc.gz", 5, []),
    ("webarchive-discovery/flashfrozen-jwat-recompressed.warc.gz", 82, ['duplicate-record-id']),
    ("webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz", 190, []),
    ("webarchive-discovery/gov.uk-revisit-warcs/BL-20140325122341434-00000-32090~opera~8443.warc.gz", 190, []),
    ("webarchive-discovery/ip-host-testcase.warc.gz", 6, []),
    # README (SPEC-DIGEST 1.4): minute-precision date without Z
    ("webarchive-discovery/truncated_datetime.warc", 5, ['bad-syntax']),
]


def test_table_covers_every_warc_file_in_the_corpus() -> None:
    if not CORPUS.is_dir():
        pytest.skip("corpus not available")
    on_disk = sorted(
        str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*")
        if p.is_file() and ".warc" in p.name and not p.name.endswith((".cdx", ".lz4"))
    )
    assert on_disk == sorted(name for name, _, _ in TABLE)


#: Rows on which today's ``check`` disagrees with the README, and the issue.
#: Rows where today's check disagrees with the corpus README (strict xfails; none left).
CHECK_WRONG: dict[str, str] = {}


def _check_cases() -> list[object]:
    return [
        pytest.param(*row, id=row[0], marks=pytest.mark.xfail(strict=True, reason=CHECK_WRONG[row[0]]))
        if row[0] in CHECK_WRONG else pytest.param(*row, id=row[0])
        for row in TABLE
    ]


@pytest.mark.parametrize("name,records,errors", _check_cases())
def test_check_corpus_file(name: str, records: int, errors: list[str]) -> None:
    path = CORPUS / name
    if not path.exists():
        pytest.skip("corpus not available")
    report = check_file(path)
    assert len(report.records) == records
    assert sorted(report.codes("error")) == errors
    assert report.ok is (errors == [])


# --- the table against sources that are not warckit ---------------------------------

#: Errors on files the README calls clean (both oracles read them, warcio check passes)
#: that no independent check below covers: the README's words or the bytes say why.
CLEAN_FILE_ERRORS: dict[str, dict[str, str]] = {
    "gowarc/empty.warc.gz.open": {"empty-file": "README: a gzip member holding zero bytes; a WARC "
                                  "with no record is a failed write"},
    "jwat/warc/invalid-warcfile-fields-missing.warc": {
        "bad-content-length": "README: every field present with an empty value",
        "bad-syntax": "README: every field present with an empty value",
        "short-trailer": "README: header-only record (the file ends after the head)",
    },
    "jwat/warc/invalid-warcfile-lonely-continuation.warc": {
        "bad-content-length": "README: continuation record with no other fields",
        "missing-field": "README: continuation record with no other fields",
    },
    "jwat/warc/invalid-warcfile-lonely-monkeys.warc": {
        "bad-content-length": "README: unknown WARC-Type, nothing else",
        "missing-field": "README: unknown WARC-Type, nothing else",
        "missing-trailer": "README: nothing else (31 bytes, LF line ends)",
    },
    "pywb/example-url-agnostic-orig.warc.gz": {"bad-syntax": "README: WARC/1.0 with fractional-second WARC-Date"},
    "pywb/example-url-agnostic-revisit.warc.gz": {"bad-syntax": "README: fractional WARC-Date in 1.0"},
    "pywb/missing-status-text.warc": {"missing-trailer": "bytes: every line ends CR CR LF, the block too"},
    "webarchive-discovery/truncated_datetime.warc": {"bad-syntax": "README: WARC-Date truncated to minutes without Z"},
}
#: Codes the independent checks below cover.
_CHECKED = {"duplicate-record-id", "forbidden-field", "short-trailer", "missing-trailer",
            "multi-record-member", "trailing-garbage", "block-digest-mismatch", "payload-digest-mismatch"}
_ROWS = {name: (records, set(errors)) for name, records, errors in TABLE}


def _trailer_errors(path: Path) -> set[str] | None:
    """short-/missing-trailer found in the bytes (None where warc_bytes cannot tell)."""
    parts, complete = members(path)
    gz = path.read_bytes()[:2] == b"\x1f\x8b"
    codes: set[str] = set()
    for data in parts if complete else []:
        walked = walk(data, one_record=gz)  # (a member: its first record only)
        if walked is None:
            return None
        codes |= {f.kind for f in walked[1]}
    return codes if complete else None


@pytest.mark.parametrize("name", sorted(_ROWS))
def test_record_counts_are_the_readmes(name: str) -> None:
    assert count_agrees(name, _ROWS[name][0]), ROWS[name]


@pytest.mark.parametrize("name", sorted(_ROWS))
def test_gzip_layout_errors_are_the_readmes(name: str) -> None:
    """multi-record-member where the README counts fewer or more complete members than
    records; trailing-garbage where it counts bytes after the last member."""
    records, errors = _ROWS[name]
    members = gzip_members(name)
    assert ("multi-record-member" in errors) == (members is not None and members >= 1 and records >= 1
                                                 and members != records)
    assert ("trailing-garbage" in errors) == (trailing_bytes(name) > 0)


@pytest.mark.parametrize("name", sorted(_ROWS))
def test_digest_errors_where_warcio_check_fails(name: str) -> None:
    """A digest mismatch in the table only where the README's ``warcio check`` failed."""
    digest_errors = _ROWS[name][1] & {"block-digest-mismatch", "payload-digest-mismatch", "bad-digest-value"}
    if digest_errors and name not in CHECK_WRONG:
        assert "check≠0" in ROWS[name].warcio
    if clean(name):
        assert not digest_errors


# (not invalid-warcfile-duplicate-fields, where one record names two IDs: repeated-field)
@pytest.mark.parametrize("name", sorted(n for n in _ROWS if "repeated-field" not in _ROWS[n][1]))
def test_duplicate_record_ids_in_the_bytes(name: str) -> None:
    heads = b"".join(members(CORPUS / name)[0])
    ids = re.findall(rb"(?im)^WARC-Record-ID:[ \t]*(\S+)", heads)
    assert ("duplicate-record-id" in _ROWS[name][1]) == (len(ids) != len(set(ids)))


def test_forbidden_fields_read_by_fastwarc() -> None:
    """Fields SPEC-DIGEST §1.3 forbids for a record's type and version, as FastWARC reads them."""
    fastwarc = pytest.importorskip("fastwarc.warc")

    def forbidden(path: Path) -> bool | None:
        found = False
        try:
            with open(path, "rb") as fh:
                for rec in fastwarc.ArchiveIterator(fh, parse_http=False, record_types=fastwarc.WarcRecordType.any_type):
                    version = rec.headers.status_line.split("/")[-1].strip()
                    rtype = rec.headers.get("WARC-Type", "").lower()
                    if version in SPEC_FORBIDDEN:
                        found |= any((rtype, field) in SPEC_FORBIDDEN[version] for field, _ in rec.headers)
        except Exception:  # noqa: BLE001 - FastWARC does not read this file: no claim
            return None
        return found

    compared = 0
    for name, (_, errors) in _ROWS.items():
        found = forbidden(CORPUS / name)
        if found is not None:
            assert ("forbidden-field" in errors) == found, name
            compared += 1
    assert compared > 80


#: Trailer errors the byte walk finds, for the files it can read (not: damaged heads,
#: folded fields, cut gzip; those rows rest on the README's description).
_TRAILERS = {name: found for name in _ROWS if (found := _trailer_errors(CORPUS / name)) is not None} if ROWS else {}


def test_byte_walk_reads_most_files() -> None:
    assert len(_TRAILERS) >= 80


@pytest.mark.parametrize("name", sorted(_TRAILERS))
def test_trailer_errors_in_the_bytes(name: str) -> None:
    assert _ROWS[name][1] & {"short-trailer", "missing-trailer"} == _TRAILERS[name]


@pytest.mark.parametrize("name", sorted(n for n in _ROWS if ROWS and clean(n)))
def test_errors_on_clean_files_have_a_reason(name: str) -> None:
    """A file both oracles read cleanly has only errors an independent check covers, or
    one the README (or the bytes) explains."""
    unexplained = _ROWS[name][1] - _CHECKED - set(CLEAN_FILE_ERRORS.get(name, {}))
    assert not unexplained
    if name in CLEAN_FILE_ERRORS:
        assert set(CLEAN_FILE_ERRORS[name]) <= _ROWS[name][1]


@pytest.mark.parametrize("name,code,field", [
    ("pywb/example-url-agnostic-revisit.warc.gz", "nonstandard-profile", "WARC-Profile"),
    ("jwat/warc/valid-warcfile-upper-lower-case.warc", "lowercase-version", None),
    ("resiliparse/clueweb-quirk.warc.gz", "old-version", None),
    ("pywb/httpbin-resource.warc.gz", "warcinfo-not-first", None),
    ("pywb/example.warc.gz", "dangling-reference", "WARC-Warcinfo-ID"),
])
def test_readme_specific_warnings(name: str, code: str, field: str | None) -> None:
    path = CORPUS / name
    if not path.exists():
        pytest.skip("corpus not available")
    found = [(i.code, i.field) for i in check_file(path).issues if i.severity == "warning"]
    assert (code, field) in found


def test_payload_conventions_reported(corpus: Path) -> None:
    # Chunked responses stored raw: their payload digests follow the legacy convention.
    chunked = check_file(corpus / "warcio" / "example-iana.org-chunked.warc")
    assert [(r.type, r.payload_digest) for r in chunked.records] == [
        ("warcinfo", "absent"), ("response", "legacy"), ("request", "absent")]
    extra = check_file(corpus / "pywb" / "example-extra.warc")
    assert [r.payload_digest for r in extra.records] == [
        "pass", "absent", "unchecked", "fail", "absent", "unchecked"]
    from collections import Counter

    iana = Counter(r.payload_digest for r in check_file(corpus / "pywb" / "iana.warc.gz").records)
    assert iana == {"absent": 172, "unchecked": 123, "legacy": 25, "pass": 23}


def test_cli_exit_codes_and_json(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = str(corpus / "warc-specifications" / "hello-world.warc.gz")
    bad = str(corpus / "pywb" / "example.warc")
    assert main(["check", clean]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{clean}: ok (6 records, 0 errors, 0 warnings)")
    assert main(["check", "--json", clean, bad]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(d["file"], d["ok"], d["errors"]) for d in lines] == [(clean, True, 0), (bad, False, 1)]
    assert [(f["code"], f["severity"], f["offset"]) for f in lines[1]["findings"]][:2] == [
        ("bad-http-head", "warning", 4061),  # the request is 2 bytes short: its head has no end
        ("missing-trailer", "error", 4061),
    ]
    assert [r["type"] for r in lines[0]["records"]] == [
        "warcinfo", "request", "response", "metadata", "resource", "resource"]
    assert main(["check", "-v", bad]) == 1
    assert "offset 4061 request" in capsys.readouterr().out
