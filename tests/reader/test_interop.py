"""warcio and FastWARC as test-only oracles: same records at the same offsets.

For every corpus file that an oracle reads cleanly, warckit returns the same
records (type, target URI, date, record ID) at the same offsets. Strict mode is
used for files warckit accepts strictly, lenient mode for the rest.
"""

from __future__ import annotations

import pytest
from corpus_paths import CORPUS
from corpus_table import NOT_ARCHIVES, STRICT_ERRORS
from test_reader_corpus import ARCHIVES

import warckit

warcio_ai = pytest.importorskip("warcio.archiveiterator")
fastwarc = pytest.importorskip("fastwarc.warc")

#: These tests read the shared corpus by name (CI has it).
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available (set WARCKIT_CORPUS)")

WARCS = [n for n in ARCHIVES if n not in NOT_ARCHIVES and ".arc" not in n.replace(".warc", "")]
ARCS = [n for n in ARCHIVES if n not in NOT_ARCHIVES and n not in WARCS]


def _warckit(name: str) -> list[tuple[int, str, str | None, str | None, str | None]]:
    lenient = name in STRICT_ERRORS
    out = []
    with warckit.open(CORPUS / name, lenient=lenient) as reader:
        for r in reader:
            out.append((r.offset, r.type, r.target_uri, r.date_string, r.record_id))
    return out


def _warcio(name: str) -> list[tuple[int, str, str | None, str | None, str | None]] | None:
    out = []
    try:
        with open(CORPUS / name, "rb") as fh:
            it = warcio_ai.ArchiveIterator(fh, arc2warc=False)
            for r in it:
                h = r.rec_headers
                if r.format == "warc":
                    uri = h.get_header("WARC-Target-URI")
                    if uri and uri.startswith("<") and uri.endswith(">"):
                        uri = uri[1:-1]
                    out.append(
                        (it.get_record_offset(), r.rec_type.lower(), uri,
                         h.get_header("WARC-Date"), h.get_header("WARC-Record-ID"))
                    )
                else:
                    out.append((it.get_record_offset(), r.rec_type, h.get_header("uri"), None, None))
    except Exception:  # noqa: BLE001 - the oracle did not read it cleanly: no claim to test
        return None
    return out


def _fastwarc(name: str) -> list[tuple[int, str, str | None, str | None, str | None]] | None:
    out = []
    try:
        with open(CORPUS / name, "rb") as fh:
            for r in fastwarc.ArchiveIterator(fh, parse_http=False, record_types=fastwarc.WarcRecordType.any_type):
                uri = r.headers.get("WARC-Target-URI")
                if uri and uri.startswith("<") and uri.endswith(">"):
                    uri = uri[1:-1]
                out.append(
                    (r.stream_pos, r.headers.get("WARC-Type", "").lower(), uri,
                     r.headers.get("WARC-Date"), r.record_id)
                )
    except Exception:  # noqa: BLE001 - as above
        return None
    return out


#: Files on which an oracle's answer is wrong, with the reason (checked by hand against
#: warcio 1.8.1 and FastWARC 2.0.1). Each is a strict expected failure: when the oracle
#: starts agreeing with warckit the test fails, and the entry must go.
ORACLE_WRONG = {
    # warcio keeps going through damage and yields records warckit refuses or splits differently.
    ("warcio", "jwat/warc/invalid-warcfile-lonely-warcinfo-metadata.warc"): "warcio sees 1 of 2 records",
    ("warcio", "jwat/warc/valid-warcfile-fields-continuation.warc"): "warcio keeps folding whitespace in field values",
    ("warcio", "jwat/warc/valid-warcfile-fields-metainfo.warc"): "warcio keeps folding whitespace in field values",
    ("warcio", "jwat/warc/valid-warcfile-fields-warcinfo.warc"): "warcio keeps folding whitespace in field values",
    ("warcio", "jwat/warc/valid-warcfile-utf8.warc"): "warcio keeps folding whitespace in field values",
    ("warcio", "warcio/example-space-in-target-uri.warc.gz"): "warcio rewrites spaces in WARC-Target-URI as %20",
    ("warcio", "jwat/arc/test-arc-1.0-invalid-fields.arc"): "warcio accepts a filedesc line with invalid fields",
    ("warcio", "netarchivesuite/arc/2-metadata-1.arc"): "warcio reads the CDX lines inside a metadata record as records",
    ("warcio", "netarchivesuite/arc/input-nonarc.arc"): "warcio returns a bogus record for a text file",
}
#: Files whose field values warcio keeps with their leading folding whitespace: the
#: offsets, and the values once that whitespace is stripped, can still be compared.
FOLDED = [n for (o, n), why in ORACLE_WRONG.items() if "folding whitespace" in why]


def _cases(oracle: str, names: list[str]) -> list[object]:
    """One param per file; a known-wrong oracle answer is a strict expected failure."""
    params = []
    for name in names:
        why = ORACLE_WRONG.get((oracle, name))
        marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"{oracle} is wrong: {why}")] if why else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def _theirs(oracle: str, name: str, theirs: list | None) -> list:  # type: ignore[type-arg]
    if theirs is None:
        if (oracle, name) in ORACLE_WRONG:
            raise AssertionError(f"{oracle} does not read {name} at all")
        pytest.skip(f"{oracle} raises on {name}: no answer to compare with")
    return theirs


def _compare(oracle: str, name: str, theirs: list | None) -> None:  # type: ignore[type-arg]
    theirs = _theirs(oracle, name, theirs)
    ours = _warckit(name)
    if oracle == "fastwarc" and _whole_file_gzip(name):
        # FastWARC's stream_pos is not a usable offset inside one gzip member;
        # warckit reports the member offset (0). Compare everything else.
        ours = [t[1:] for t in ours]  # type: ignore[misc]
        theirs = [t[1:] for t in theirs]
    assert [t[:2] for t in ours] == [t[:2] for t in theirs]
    assert ours == theirs


def _whole_file_gzip(name: str) -> bool:
    with warckit.open(CORPUS / name, lenient=True) as reader:
        return any(not r.member_aligned for r in reader)


@pytest.mark.parametrize("name", _cases("warcio", WARCS))
def test_same_records_as_warcio(name: str) -> None:
    _compare("warcio", name, _warcio(name))


@pytest.mark.parametrize("name", _cases("fastwarc", WARCS))
def test_same_records_as_fastwarc(name: str) -> None:
    _compare("fastwarc", name, _fastwarc(name))


@pytest.mark.parametrize("name", FOLDED)
def test_folded_fields_same_offsets_types_and_values_as_warcio(name: str) -> None:
    """warcio keeps the folding whitespace (and turns a leading space of the URI into
    %20): offsets, and the type, date and record ID once stripped, still agree."""
    theirs = _warcio(name)
    assert theirs is not None
    ours = _warckit(name)
    assert len(ours) >= 1

    def stripped(t: tuple[object, ...]) -> tuple[object, ...]:
        return (t[0], *(v.strip() if isinstance(v, str) else v for v in (t[1], t[3], t[4])))

    assert [stripped(t) for t in ours] == [stripped(t) for t in theirs]


@pytest.mark.parametrize("name", _cases("warcio", ARCS))
def test_arc_same_offsets_as_warcio(name: str) -> None:
    theirs = _theirs("warcio", name, _warcio(name))
    ours = _warckit(name)
    assert [(o, u) for o, _, u, _, _ in ours] == [(o, u) for o, _, u, _, _ in theirs]
