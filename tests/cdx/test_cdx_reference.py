"""warckit's CDX-11 / CDXJ against the corpus reference indexes and against cdxj-indexer.

Every reference line is matched to warckit's line for the same file offset and compared
field by field. Deliberate differences, each with its reason:

``revisit-status``
    Old pywb wrote ``-`` (CDX-11) or no ``status`` (CDXJ) for revisits; cdxj-indexer 1.5
    writes the revisit's HTTP status, and so does warckit (SPEC-DIGEST §3.1).
``bare-digest``
    Old pywb CDXJ has bare base32 digests; cdxj-indexer 1.5 and warckit write ``sha1:…``
    (SPEC-DIGEST §3.2).
``unk-mime``
    Old pywb wrote ``unk`` for a response without an HTTP Content-Type; cdxj-indexer and
    warckit write ``-`` (CDX-11) or leave ``mime`` out (CDXJ).
``metadata-key``
    ``hello-world.warc.cdx`` was made with an old surt that turned ``metadata://gnu.org/x``
    into ``metadata)/gnu.org/x``; surt 0.3.1 (pywb, cdxj-indexer, OutbackCDX) gives
    ``org,gnu)/x``, and so does warckit.
``reduced-fixture``
    ``example.cdxj`` and ``example-no-digest.cdxj`` are hand-trimmed pywb test fixtures
    (keys removed on purpose); warckit's extra keys are not differences.
``partial-fixture``
    ``example-extra.cdx`` lists 2 of the 4 response/revisit records of its WARC.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from corpus_paths import corpus_path

from warckit.cdx import IndexOptions, index_file

CLASSIC = ("N", "b", "a", "m", "s", "k", "r", "M", "S", "V", "g")

#: (reference index, WARC(s) it describes, lenient reading needed)
REFERENCES: list[tuple[str, tuple[str, ...], bool]] = [
    ("pywb/example.cdx", ("pywb/example.warc.gz",), False),
    ("pywb/dupes.cdx", ("pywb/dupes.warc.gz",), False),
    ("pywb/example-extra.cdx", ("pywb/example-extra.warc",), True),
    ("pywb/iana.cdx", ("pywb/iana.warc.gz",), False),
    (
        "pywb/url-agnost-example.cdx",
        ("pywb/example-url-agnostic-orig.warc.gz", "pywb/example-url-agnostic-revisit.warc.gz"),
        False,
    ),
    ("warc-specifications/hello-world.warc.cdx", ("warc-specifications/hello-world.warc",), False),
    ("pywb/example.cdxj", ("pywb/example.warc.gz",), False),
    ("pywb/dupes.cdxj", ("pywb/dupes.warc.gz",), False),
    ("pywb/iana.cdxj", ("pywb/iana.warc.gz",), False),
    ("pywb/example2.cdxj", ("pywb/example2.warc.gz",), False),
    ("pywb/httpbin-resource.cdxj", ("pywb/httpbin-resource.warc.gz",), False),
    ("pywb/missing-status-text.cdxj", ("pywb/missing-status-text.warc",), True),
    (
        "pywb/url-agnost-example.cdxj",
        ("pywb/example-url-agnostic-orig.warc.gz", "pywb/example-url-agnostic-revisit.warc.gz"),
        False,
    ),
    ("pywb/example-no-digest.cdxj", ("pywb/example.warc.gz",), False),
]

REDUCED = {"pywb/example.cdxj", "pywb/example-no-digest.cdxj"}
PARTIAL = {"pywb/example-extra.cdx"}


def _fields(line: str, fmt: str) -> dict[str, str]:
    if fmt == "cdxj":
        key, ts, blob = line.split(" ", 2)
        out = {k: str(v) for k, v in json.loads(blob).items()}
        out["urlkey"], out["timestamp"] = key, ts
        return out
    values = line.split(" ")
    assert len(values) == 11, line
    return dict(zip(CLASSIC, values))


def _difference(name: str, ref: dict[str, str], mine: dict[str, str], fmt: str) -> str | None:
    """The documented reason for a differing field, or None if it is not documented."""
    revisit = (ref.get("m") or ref.get("mime")) == "warc/revisit"
    if name in ("s", "status") and revisit and ref.get(name, "-") == "-":
        return "revisit-status"
    if name == "digest" and mine.get(name) == "sha1:" + ref.get(name, ""):
        return "bare-digest"
    if name in ("m", "mime") and ref[name] == "unk" and mine.get(name, "-") == "-":
        return "unk-mime"
    if (
        name in ("N", "urlkey")
        and ref[name].startswith("metadata)/")
        and mine[name] == "org,gnu)/" + ref[name][len("metadata)/gnu.org/"):]
    ):
        return "metadata-key"
    return None


def _index(paths: tuple[str, ...], fmt: str, lenient: bool) -> list[str]:
    lines: list[str] = []
    for name in paths:
        opts = IndexOptions(format=fmt, lenient=lenient)  # type: ignore[arg-type]
        lines += index_file(corpus_path(name), opts, on_warning=lambda issue: None)
    return lines


@pytest.mark.parametrize(("ref", "warcs", "lenient"), REFERENCES, ids=[r[0] for r in REFERENCES])
def test_matches_reference_index(ref: str, warcs: tuple[str, ...], lenient: bool) -> None:
    fmt = "cdxj" if ref.endswith(".cdxj") else "cdx11"
    offset_key = "offset" if fmt == "cdxj" else "V"
    file_key = "filename" if fmt == "cdxj" else "g"
    ref_lines = [
        line.rstrip("\n")
        for line in corpus_path(ref).read_text("utf-8").splitlines()
        if line.strip() and not line.startswith(" CDX")
    ]
    mine = {
        (f[file_key], f[offset_key]): f
        for f in (_fields(line, fmt) for line in _index(warcs, fmt, lenient))
    }
    reasons: list[str] = []
    for line in ref_lines:
        r = _fields(line, fmt)
        m = mine.pop((r[file_key], r[offset_key]))
        for name in sorted(set(r) | set(m)):
            if r.get(name) == m.get(name):
                continue
            if name not in r:  # a key only warckit writes (CDXJ)
                if ref in REDUCED or (name == "status" and r.get("mime") == "warc/revisit"):
                    continue
                if name == "status" and "status" in m and r.get("mime") == "warc/revisit":
                    continue
                pytest.fail(f"{ref}: warckit adds {name}={m[name]!r} at offset {r[offset_key]}")
            reason = _difference(name, r, m, fmt)
            assert reason is not None, (
                f"{ref} offset {r[offset_key]} field {name}: ref {r.get(name)!r} warckit {m.get(name)!r}"
            )
            reasons.append(reason)
    if ref in PARTIAL:
        assert len(mine) == 2  # the two records the hand-made fixture leaves out
    else:
        assert mine == {}, f"warckit indexes records the reference lacks: {sorted(mine)}"
    # Every reference field matched or is a documented difference; record which.
    assert set(reasons) <= {"revisit-status", "bare-digest", "unk-mime", "metadata-key"}


def test_reference_line_exact_iana() -> None:
    """A whole CDX-11 line equal byte for byte (response, no deliberate difference)."""
    lines = _index(("pywb/iana.warc.gz",), "cdx11", False)
    assert lines[0] == (
        "org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 "
        "OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz"
    )
    ref = corpus_path("pywb/iana.cdx").read_text("utf-8").splitlines()
    assert lines[0] in ref


# -- cdxj-indexer as a live oracle -------------------------------------------------------

ORACLE_FILES: list[tuple[str, bool]] = [
    ("pywb/example.warc.gz", False),
    ("pywb/dupes.warc.gz", False),
    ("pywb/iana.warc.gz", False),
    ("pywb/example2.warc.gz", False),
    ("pywb/example-wget-1-14.warc.gz", False),
    ("pywb/example-wpull.warc.gz", False),
    ("pywb/example-url-agnostic-revisit.warc.gz", False),
    ("pywb/httpbin-resource.warc.gz", False),
    ("warc-specifications/hello-world.warc", False),
    ("warc-specifications/hello-world.warc.gz", False),
    ("warc-specifications/20141129-heritrix-revisit-with-http-headers-and-new-warc-headers.warc.gz", False),
    ("warcio/example.warc.gz", False),
    ("jwat/warc/IAH-20080430204825-00000-blackbook.warc.gz", False),
    ("netarchivesuite/warc/fyensdk.warc", False),
    ("netarchivesuite/warc/NAS-20100909163324-00000-mette.kb.dk.warc", False),
    ("netarchivesuite/arc/fyensdk.arc", False),
    ("netarchivesuite/arc/NetarchiveSuite-netarkivet.arc.gz", False),
    ("netarchivesuite/arc/input-1.arc", False),
    ("warcio/example-space-in-url.arc", True),
]


def _oracle(path: Path, fmt: str) -> list[str]:
    flag = {"cdxj": [], "cdx11": ["-11"], "cdx9": ["-9"]}[fmt]
    result = subprocess.run(
        ["cdxj-indexer", *flag, str(path)], capture_output=True, text=True, check=True
    )
    return [line for line in result.stdout.splitlines() if not line.startswith(" CDX")]


@pytest.mark.parametrize("fmt", ["cdxj", "cdx11", "cdx9"])
@pytest.mark.parametrize(("name", "lenient"), ORACLE_FILES, ids=[n for n, _ in ORACLE_FILES])
def test_same_as_cdxj_indexer(name: str, lenient: bool, fmt: str) -> None:
    path = corpus_path(name)
    try:
        expected = _oracle(path, fmt)
    except FileNotFoundError:
        pytest.skip("cdxj-indexer not installed")
    opts = IndexOptions(format=fmt, lenient=lenient)  # type: ignore[arg-type]
    mine = list(index_file(path, opts, on_warning=lambda issue: None))
    assert mine == expected


#: Files where cdxj-indexer (warcio) and warckit disagree on purpose:
#: file -> (number of differing lines, CDX-11 field positions that differ).
ORACLE_DIFFERENCES: dict[str, tuple[int, tuple[int, ...]]] = {
    # HTTPX/1.1 status line: warcio accepts it, warckit's lenient HTTP parser rejects it,
    # so mime (3) and status (4) are '-' for that record.
    "pywb/example-extra.warc": (1, (3, 4)),
    # Anonymised ARC whose HTTP records are blocks of 'XXXX' lines: warcio swallows the
    # lines up to the first empty one as "HTTP headers" and digests the rest; warckit
    # finds no HTTP head and digests the whole block (field 5, digest).
    "netarchivesuite/arc/3-3-20070119143010-00000-sb-test-har-001.statsbiblioteket.dk.arc": (
        3,
        (5,),
    ),
}


@pytest.mark.parametrize("name", sorted(ORACLE_DIFFERENCES))
def test_documented_differences_from_cdxj_indexer(name: str) -> None:
    path = corpus_path(name)
    try:
        expected = _oracle(path, "cdx11")
    except FileNotFoundError:
        pytest.skip("cdxj-indexer not installed")
    opts = IndexOptions(format="cdx11", lenient=True)
    mine = list(index_file(path, opts, on_warning=lambda issue: None))
    assert len(mine) == len(expected)
    count, positions = ORACLE_DIFFERENCES[name]
    differing = [(m.split(" "), r.split(" ")) for m, r in zip(mine, expected) if m != r]
    assert len(differing) == count
    for m, r in differing:
        assert [i for i, (a, b) in enumerate(zip(m, r)) if a != b] == list(positions)
