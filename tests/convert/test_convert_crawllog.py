"""crawl.log parser: columns, padding, annotations, digests, extra info, errors."""

from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest
from corpus_paths import CORPUS, corpus_path

from warckit.errors import Issue, ParseError
from warckit.record.digests import Digest
from warckit.tools.crawllog import (
    CrawlLogEntry,
    Duplicate,
    parse_fetch_timestamp,
    parse_line,
    read_crawl_log,
    split_annotations,
)

H3_DOCS = ("2011-06-23T17:12:08.802Z   200       1299 http://content-5.powells.com/robots.txt LREP "
           "http://content-5.powells.com/cgi-bin/imageDB.cgi?isbn=9780385518635 text/plain #014 "
           "20110623171208574+225 sha1:YIUOKDGOLGI5JYHDTXRFFQ5FF4N2EJRV - -")
WARCPROX = ("2017-08-03T21:45:24.496Z   200       2189 https://autismcouncil.wisconsin.gov/robots.txt P "
            "https://autismcouncil.wisconsin.gov/ text/plain #001 20170803214523617+365 "
            "sha1:PBS2CEF7B4OSEXZZF3QE2XN2VHYCPNPX https://autismcouncil.wisconsin.gov/ duplicate:digest "
            '{"warcFileOffset":942,"contentSize":2495,"warcFilename":"ARCHIVEIT-2159-TEST-JOB319150-'
            '20170803214522386-00000.warc.gz"}')
DEDUP_2006 = ("2006-10-17T14:22:29.399Z   200      18803 http://www.bok.hi.is/ X http://bok.hi.is/ "
              "text/html #041 20061017142229087+180 OHCVML7NJ4STPQSRRWY7WWJL6T5H2R6L - "
              'duplicate:"ORIGIN",3t')
NAS_2007 = ("2007-12-27T12:51:31.991Z   200        242 "
            "http://netarkivet.dk/netarchive_alm/billeder/netarkivet_guidelines_05.gif E "
            "http://netarkivet.dk/index-en.php image/gif #019 20071227125131946+17 "
            "sha1:LMIW33PQDYKCP74JCOMX5QEPV5BU4YMM - "
            'duplicate:"2-2-20071227104527-00000-kb-test-har-002.kb.dk.arc,57084",content-size:491')
QUOTA = ("2006-02-23T10:52:53.441Z -5003          - http://www.drive-badmintonklub.dk/pdf/Saernummer.pdf "
         "LLL http://www.drive-badmintonklub.dk/arkiv/40aars-jubilaeum-2004.htm no-type #030 - - - "
         "Q:group-max-all-kb")


def test_heritrix3_docs_line() -> None:
    e = parse_line(H3_DOCS, 7)
    assert e == CrawlLogEntry(
        line_number=7,
        log_time=datetime(2011, 6, 23, 17, 12, 8, 802000, tzinfo=timezone.utc),
        status=200, size=1299, url="http://content-5.powells.com/robots.txt",
        discovery_path="LREP", via="http://content-5.powells.com/cgi-bin/imageDB.cgi?isbn=9780385518635",
        mime="text/plain", thread="#014",
        fetch_time=datetime(2011, 6, 23, 17, 12, 8, 574000, tzinfo=timezone.utc),
        fetch_duration_ms=225, digest=Digest("sha1", "YIUOKDGOLGI5JYHDTXRFFQ5FF4N2EJRV", "sha1"),
        source_tag=None, annotations=(), extra=None, duplicate=None)
    assert not e.is_duplicate
    assert e.raw == H3_DOCS


def test_extra_info_json_and_duplicate_digest() -> None:
    e = parse_line(WARCPROX)
    assert e.source_tag == "https://autismcouncil.wisconsin.gov/"
    assert e.annotations == ("duplicate:digest",)
    assert e.extra == {"warcFileOffset": 942, "contentSize": 2495,
                       "warcFilename": "ARCHIVEIT-2159-TEST-JOB319150-20170803214522386-00000.warc.gz"}
    assert e.duplicate == Duplicate("digest", "identical-payload-digest", "duplicate:digest")
    assert e.content_size == 2495


def test_bare_digest_and_quoted_annotation() -> None:
    e = parse_line(DEDUP_2006)
    assert e.digest == Digest("sha1", "OHCVML7NJ4STPQSRRWY7WWJL6T5H2R6L", "")
    assert e.digest.canonical() == "sha1:OHCVML7NJ4STPQSRRWY7WWJL6T5H2R6L"
    assert e.annotations == ('duplicate:"ORIGIN"', "3t")
    assert e.attempts == 3
    assert e.duplicate == Duplicate("arc-reference", "identical-payload-digest", 'duplicate:"ORIGIN"',
                                    "ORIGIN", None)


def test_arc_reference_with_comma_inside_quotes() -> None:
    e = parse_line(NAS_2007)
    assert e.annotations == ('duplicate:"2-2-20071227104527-00000-kb-test-har-002.kb.dk.arc,57084"',
                             "content-size:491")
    assert e.duplicate is not None
    assert e.duplicate.kind == "arc-reference"
    assert e.duplicate.arc_filename == "2-2-20071227104527-00000-kb-test-har-002.kb.dk.arc"
    assert e.duplicate.arc_offset == 57084
    assert e.content_size == 491


def test_unfetched_quota_line() -> None:
    e = parse_line(QUOTA)
    assert (e.status, e.size, e.fetch_time, e.digest, e.mime) == (-5003, None, None, None, "no-type")
    assert e.annotations == ("Q:group-max-all-kb",)
    assert e.annotation_value("Q") == "group-max-all-kb"
    assert e.capture_time == e.log_time


def test_eleven_columns_and_2005_deduplicate_marker() -> None:
    line = ("2005-05-06T11:48:24.182Z   200       1410 http://www.kb.dk/bevarbogen/script.js LE "
            "http://www.kb.dk/bevarbogen/ application/x-javascript #020 20050506114824169+3 "
            'LLPRTJSSTYX4TCKRKGWG44NTPHUR2ZCH - deduplicate:"check-arc,42"')
    e = parse_line(line)
    assert e.duplicate == Duplicate("arc-reference", "identical-payload-digest",
                                    'deduplicate:"check-arc,42"', "check-arc", 42)
    eleven = parse_line(" ".join(line.split()[:11]))
    assert eleven.annotations == () and eleven.duplicate is None


@pytest.mark.parametrize(("annotation", "kind", "profile"), [
    ("duplicate:server-not-modified", "server-not-modified", "server-not-modified"),
    ("duplicate:uriAgnosticDigest", "uri-agnostic", "identical-payload-digest"),
    ("warcRevisit:digest", "digest", "identical-payload-digest"),
    ("warcRevisit:notModified", "server-not-modified", "server-not-modified"),
    ("warcRevisit:uriAgnosticDigest", "uri-agnostic", "identical-payload-digest"),
    ("Revisit:IdenticalPayloadDigest", "digest", "identical-payload-digest"),
])
def test_duplicate_markers(annotation: str, kind: str, profile: str) -> None:
    e = parse_line(H3_DOCS[:-1] + "3t," + annotation)
    assert e.duplicate == Duplicate(kind, profile, annotation)


def test_deduplicator_json_refers_to() -> None:
    line = (H3_DOCS[:-1] + 'Revisit:IdenticalPayloadDigest {"RevisitProfile":'
            '"http://netpreserve.org/warc/1.0/revisit/identical-payload-digest",'
            '"RevisitRefersToURI":"http://content-5.powells.com/robots.txt",'
            '"RevisitRefersToDate":"20110101000000"}')
    e = parse_line(line)
    assert e.duplicate == Duplicate("digest", "identical-payload-digest", "Revisit:IdenticalPayloadDigest",
                                    None, None, "http://content-5.powells.com/robots.txt", "20110101000000")


def test_split_annotations() -> None:
    assert split_annotations("-") == ()
    assert split_annotations('a,duplicate:"x,1",b') == ("a", 'duplicate:"x,1"', "b")
    assert split_annotations("le:SocketTimeoutException@HTTP,3t") == ("le:SocketTimeoutException@HTTP", "3t")


def test_fetch_timestamp_forms() -> None:
    assert parse_fetch_timestamp("20110623171208574+225") == (
        datetime(2011, 6, 23, 17, 12, 8, 574000, tzinfo=timezone.utc), 225)
    assert parse_fetch_timestamp("20110623171208574;225") == (
        datetime(2011, 6, 23, 17, 12, 8, 574000, tzinfo=timezone.utc), 225)
    assert parse_fetch_timestamp("20110623171208") == (
        datetime(2011, 6, 23, 17, 12, 8, tzinfo=timezone.utc), None)
    assert parse_fetch_timestamp("2011062317") is None
    assert parse_fetch_timestamp("20111323171208574+1") is None


@pytest.mark.parametrize(("line", "message"), [
    ("2005-05-06T11:47:26.551Z     1        xyz dns:x P http://x/ text/dns #001 20050506114726442+1 - -",
     "column 3 (size) 'xyz'"),
    ("2005-05-06 11:47:26     1        1 dns:x P http://x/ text/dns #001 20050506114726442+1 - -",
     "column"),
    ("2005-05-06T11:47:26.551Z   OK        1 dns:x P http://x/ text/dns #001 20050506114726442+1 - -",
     "column 2 (status) 'OK'"),
    ("2005-05-06T11:47:26.551Z   200        1 http://x/ P http://x/ text/html #001 yesterday - -",
     "column 9"),
    ("2005-05-06T11:47:26.551Z   200        1 http://x/ P http://x/ text/html #001 - NOTADIGEST -",
     "column 10"),
    ("2005-05-06T11:47:26.551Z   200        1 http://x/ P http://x/ text/html #001 - - - a {bad json}",
     "column 13"),
    ("2005-05-06T11:47:26.551Z   200        1 http://x/", "4 columns"),
])
def test_malformed_lines(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_line(line)


def test_strict_raises_with_line_number_and_offset_lenient_skips() -> None:
    good = H3_DOCS + "\n"
    bad = "2005-05-06T11:47:26.551Z     1        xyz dns:x P http://x/ text/dns #001 - - -\n"
    data = (good + "\n" + bad + good).encode()
    with pytest.raises(ParseError) as info:
        list(read_crawl_log(io.BytesIO(data), name="t.log"))
    assert "line 3" in str(info.value)
    assert info.value.offset == len(good) + 1
    assert info.value.source == "t.log"
    issues: list[Issue] = []
    entries = list(read_crawl_log(io.BytesIO(data), lenient=True, on_warning=issues.append, name="t.log"))
    assert [e.line_number for e in entries] == [1, 4]
    assert [(i.code, i.offset, i.severity) for i in issues] == [("crawl-log-line", len(good) + 1, "error")]


def test_text_stream_input() -> None:
    entries = list(read_crawl_log(io.StringIO(H3_DOCS + "\n" + NAS_2007 + "\n")))
    assert [e.status for e in entries] == [200, 200]


# Lines read (well-formed), duplicate-marked lines, malformed lines, ARC header skipped.
CORPUS_LOGS = {
    "crawl-4.log": (18, 2, 0, 0),
    "crawl-42.log": (157, 0, 0, 0),
    "crawl-680.log": (87, 0, 0, 1),
    "crawl-9.log": (219, 122, 0, 0),
    "crawl-long.log": (2, 0, 0, 0),
    "heritrix1-2006/crawl.log": (71, 0, 0, 0),
    "heritrix3-2015/crawl.log": (107, 0, 0, 0),
    "idna-crawl.log": (1547, 90, 0, 1),
    "invalid-crawl.log": (2, 0, 2, 0),
    "oldjobs-11/crawl.log": (1988, 0, 0, 0),
    "stop-reason-crawl.log": (5, 0, 0, 0),
}


def test_corpus_table_is_complete() -> None:
    if not CORPUS.is_dir():
        pytest.skip("corpus not available")
    found = {str(p.relative_to(CORPUS / "netarchivesuite" / "crawllogs"))
             for p in (CORPUS / "netarchivesuite" / "crawllogs").rglob("*.log")}
    assert found == set(CORPUS_LOGS)


@pytest.mark.parametrize("name", sorted(CORPUS_LOGS))
def test_corpus_crawl_logs(name: str) -> None:
    path = corpus_path(f"netarchivesuite/crawllogs/{name}")
    issues: list[Issue] = []
    entries = list(read_crawl_log(path, lenient=True, on_warning=issues.append))
    malformed = sum(i.code == "crawl-log-line" for i in issues)
    headers = sum(i.code == "arc-header-line" for i in issues)
    assert (len(entries), sum(e.is_duplicate for e in entries), malformed, headers) == CORPUS_LOGS[name]
    raw_dups = sum(1 for line in path.read_text("utf-8", "replace").splitlines()
                   if "duplicate:" in line or "warcRevisit:" in line or "Revisit:" in line)
    assert sum(e.is_duplicate for e in entries) == raw_dups


def test_corpus_details() -> None:
    entries = list(read_crawl_log(corpus_path("netarchivesuite/crawllogs/crawl-long.log")))
    assert entries[0].size == 5400000000 and entries[0].content_size == 5500000000
    idna = [e for e in read_crawl_log(corpus_path("netarchivesuite/crawllogs/idna-crawl.log"), lenient=True)]
    assert idna[0].url == "dns:www.xn--lejr-fra.dk" and idna[0].status == 1
    assert sum(e.status == -5003 for e in idna) == 1130
    old = list(read_crawl_log(corpus_path("netarchivesuite/crawllogs/crawl-42.log")))
    assert all(e.digest is None or e.digest.label == "" for e in old)


def test_read_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """A path of ``-`` is standard input (io.sources opens every input); messages name it."""
    import sys

    data = (H3_DOCS + "\nnot a crawl.log line\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    issues: list[Issue] = []
    entries = list(read_crawl_log("-", lenient=True, on_warning=issues.append))
    assert [e.url for e in entries] == ["http://content-5.powells.com/robots.txt"]
    assert [(i.code, i.source, i.offset) for i in issues] == [
        ("crawl-log-line", "<stdin>", len(H3_DOCS) + 1)]
