"""``FileReport.records``: a compact sequence of :class:`RecordReport`, no object per record."""

from __future__ import annotations

import gc
import gzip
import hashlib
import pickle
from pathlib import Path

import pytest

from warckit.check import FileReport, RecordReport, check_file
from warckit.check.report import RecordReports

_SAMPLE = [
    RecordReport(0, "warcinfo", "<urn:uuid:a>", "absent", "absent"),
    RecordReport(312, "response", "<urn:uuid:b>", "pass", "warc1.1"),
    RecordReport(2048, "revisit", None, "fail", "unchecked"),
    RecordReport(1 << 40, "response", "<urn:uuid:c>", "pass", "legacy"),
]


def test_records_read_back_as_added() -> None:
    records = RecordReports(_SAMPLE)
    assert len(records) == 4
    assert list(records) == _SAMPLE
    assert records[1] == _SAMPLE[1]
    assert records[-1] == RecordReport(1 << 40, "response", "<urn:uuid:c>", "pass", "legacy")
    assert records[1:3] == _SAMPLE[1:3]
    assert records[::-2] == [_SAMPLE[3], _SAMPLE[1]]
    with pytest.raises(IndexError):
        records[4]
    with pytest.raises(IndexError):
        records[-5]


def test_records_equal_lists_and_each_other() -> None:
    records = RecordReports(_SAMPLE)
    assert records == _SAMPLE
    assert _SAMPLE == list(records)
    assert records == RecordReports(_SAMPLE)
    assert records != RecordReports(_SAMPLE[:3])
    assert records != _SAMPLE[:3] + [RecordReport(1 << 40, "response", "<urn:uuid:c>", "pass", "warc1.1")]
    assert records != "not records"
    assert RecordReports() == []


def test_last_record_digests_are_set_later() -> None:
    records = RecordReports()
    records.add(10, "response", "<urn:uuid:x>")
    assert records[0].block_digest == records[0].payload_digest == "absent"
    records.set_digests("fail", "pass")
    assert records[0] == RecordReport(10, "response", "<urn:uuid:x>", "fail", "pass")
    with pytest.raises(KeyError):
        records.add(20, "response", None, "maybe")


def test_records_pickle_and_the_report_with_them() -> None:
    report = FileReport("x.warc", "warc", None, RecordReports(_SAMPLE))
    again = pickle.loads(pickle.dumps(report))
    assert again == report
    assert again.records == _SAMPLE
    again.records.add(5000, "metadata", None)
    assert len(again.records) == 5 and len(report.records) == 4


def test_check_keeps_no_object_per_record(tmp_path: Path) -> None:
    path = tmp_path / "many.warc.gz"
    offsets = []
    with open(path, "wb") as out:
        for i in range(2000):
            offsets.append(out.tell())
            block = f"record {i}\n".encode()
            digest = "sha1:" + hashlib.sha1(block).hexdigest()
            head = (f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{i:08d}>\r\n"
                    f"WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: file:///{i}\r\n"
                    f"WARC-Block-Digest: {digest}\r\nContent-Type: text/plain\r\n"
                    f"Content-Length: {len(block)}\r\n\r\n").encode()
            out.write(gzip.compress(head + block + b"\r\n\r\n"))
    report = check_file(path)
    assert len(report.records) == 2000
    assert [r.offset for r in report.records] == offsets
    assert report.records[1999] == RecordReport(offsets[1999], "resource", "<urn:uuid:00001999>", "pass", "absent")
    gc.collect()
    assert sum(1 for o in gc.get_objects() if type(o) is RecordReport) < 10



def _referring_file(path: Path, n: int = 400, bare: bool = True,
                    same: dict[int, int] | None = None) -> dict[str, list[int]]:
    """A gzip-per-record file whose records refer back, forward, nowhere, and (*bare*) to
    the warcinfo without angle brackets; returns the offsets of each kind of reference.
    *same* gives records the ID of an earlier one ``{record number: earlier number}``."""
    kinds: dict[str, list[int]] = {"back": [], "forward": [], "nowhere": [], "bare": []}
    with open(path, "wb") as out:
        for i in range(n):
            offset = out.tell()
            fields = [f"WARC-Type: {'warcinfo' if i == 0 else 'metadata'}",
                      f"WARC-Record-ID: <urn:uuid:{(same or {}).get(i, i):08d}>", "WARC-Date: 2026-12-01T09:00:00Z"]
            if i:
                fields.append(f"WARC-Target-URI: file:///{i}")
                fields.append(f"WARC-Concurrent-To: <urn:uuid:{i - 1:08d}>")
                kinds["back"].append(offset)
            if i % 10 == 3 and i + 5 < n:
                fields.append(f"WARC-Refers-To: <urn:uuid:{i + 5:08d}>")
                kinds["forward"].append(offset)
            if i % 37 == 5:
                fields.append(f"WARC-Concurrent-To: <urn:uuid:nowhere-{i}>")
                kinds["nowhere"].append(offset)
            if bare and i % 50 == 7:
                fields.append("WARC-Warcinfo-ID: urn:uuid:00000000")
                kinds["bare"].append(offset)
            block = f"record {i}\n".encode()
            head = "\r\n".join(["WARC/1.1", *fields, "Content-Type: text/plain",
                                f"Content-Length: {len(block)}", "", ""]).encode()
            out.write(gzip.compress(head + block + b"\r\n\r\n"))
    return kinds


def test_references_resolve_alike_in_one_piece_and_in_several(tmp_path: Path) -> None:
    path = tmp_path / "refs.warc.gz"
    kinds = _referring_file(path)
    one = check_file(path)
    dangling = [i for i in one.issues if i.code == "dangling-reference"]
    assert [i.offset for i in dangling] == kinds["nowhere"]
    assert all(i.field == "WARC-Concurrent-To" and "nowhere-" in i.message for i in dangling)
    assert one.codes() == {"dangling-reference", "bad-syntax"}  # (the bare WARC-Warcinfo-IDs)
    for jobs in (2, 3, 5):
        assert check_file(path, jobs=jobs, min_split_size=0) == one


@pytest.mark.parametrize("few", [0, 10_000])
def test_references_to_a_later_piece_resolve_looked_up_one_by_one_or_hashed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, few: int) -> None:
    import warckit.check.report as check_report

    path = tmp_path / "chain.warc.gz"
    with open(path, "wb") as out:  # each record names the next (any cut leaves one pending)
        for i in range(600):
            head = (f"WARC/1.1\r\nWARC-Type: {'warcinfo' if i == 0 else 'metadata'}\r\n"
                    f"WARC-Record-ID: <urn:uuid:{i:08d}>\r\nWARC-Date: 2026-12-01T09:00:00Z\r\n"
                    f"WARC-Refers-To: <urn:uuid:{i + 1 if i % 37 else 10_000 + i:08d}>\r\n"
                    "Content-Type: text/plain\r\nContent-Length: 0\r\n\r\n")
            out.write(gzip.compress(head.encode() + b"\r\n\r\n"))
    one = check_file(path)
    dangling = [i.offset for i in one.issues if i.code == "dangling-reference"]
    assert dangling == [r.offset for n, r in enumerate(one.records) if n % 37 == 0 or n == 599]
    # (up to *few* references left at the end are looked up in the pieces' IDs one by
    # one; more, and the pieces' IDs join the file's)
    monkeypatch.setattr(check_report, "_FEW_REFS", few)
    for jobs in (2, 3, 5):
        assert check_file(path, jobs=jobs, min_split_size=0) == one


def test_a_piece_sends_only_references_to_no_record_of_its_own(tmp_path: Path) -> None:
    from warckit.check.pieces import _check_piece
    from warckit.check.report import check_span

    path = tmp_path / "refs.warc.gz"
    kinds = _referring_file(path, bare=False)
    whole = check_file(path)
    start = whole.records[200].offset
    events, records, unique, refs, last, stopped, fmt, compression = _check_piece(
        check_span, str(path), FileReport(str(path)), True, start, None)
    assert records == whole.records[200:] and unique and not stopped
    ids = set(records.record_ids())
    # Back references to records before the piece and the dangling ones; none naming
    # a record of the piece, before or after the one that refers.
    assert all(value not in ids for _, value, _ in refs)
    assert [offset for _, _, offset in refs] == sorted(
        [o for o in kinds["nowhere"] if o >= start] + [whole.records[200].offset])


def test_records_extend_at_once_or_one_by_one() -> None:
    records = RecordReports(_SAMPLE[:1])
    records.extend(RecordReports(_SAMPLE[1:3]))
    records.extend(iter(_SAMPLE[3:]))
    assert records == _SAMPLE
    assert pickle.loads(pickle.dumps(records)) == _SAMPLE
    assert records.unique_ids() == {"<urn:uuid:a>": 0, "<urn:uuid:b>": 312, "<urn:uuid:c>": 1 << 40}
    records.add(7, "response", "<urn:uuid:b>")
    assert records.unique_ids() is None
    # (records that all have an ID take a shorter way)
    assert RecordReports([_SAMPLE[3], _SAMPLE[0]]).unique_ids() == {"<urn:uuid:c>": 1 << 40, "<urn:uuid:a>": 0}
    assert RecordReports([_SAMPLE[0], _SAMPLE[1], _SAMPLE[0]]).unique_ids() is None


def _spy_on_records_seen(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    from warckit.check.report import _FileState

    taken: list[bool] = []
    seen = _FileState.records_seen

    def spy(self: _FileState, records: RecordReports, refs: list[tuple[str, str, int]], unique: bool) -> bool:
        taken.append(seen(self, records, refs, unique))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(_FileState, "records_seen", spy)
    return taken


def test_pieces_without_findings_are_taken_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "refs.warc.gz"
    kinds = _referring_file(path, bare=False)
    one = check_file(path)
    assert [(i.code, i.offset) for i in one.issues] == [("dangling-reference", o) for o in kinds["nowhere"]]
    taken = _spy_on_records_seen(monkeypatch)
    for jobs in (2, 3, 5):
        assert check_file(path, jobs=jobs, min_split_size=0) == one
    assert len(taken) == 1 + 2 + 4 and all(taken)


def test_a_piece_repeating_an_id_is_replayed_record_by_record(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "dup.warc.gz"
    _referring_file(path, bare=False, same={300: 10, 260: 250})
    one = check_file(path)
    dups = [i for i in one.issues if i.code == "duplicate-record-id"]
    assert [i.message.rsplit(" ", 1)[-1] for i in dups] == [str(one.records[250].offset), str(one.records[10].offset)]
    assert [i.offset for i in dups] == [one.records[260].offset, one.records[300].offset]
    taken = _spy_on_records_seen(monkeypatch)
    for jobs in (2, 3, 5):
        assert check_file(path, jobs=jobs, min_split_size=0) == one
    assert False in taken and True in taken  # (jobs=5: the second piece repeats nothing)


def test_only_unresolved_references_are_kept(tmp_path: Path) -> None:
    from warckit.check.report import _FileState, check_span

    path = tmp_path / "refs.warc.gz"
    kinds = _referring_file(path)
    state = _FileState(FileReport(str(path)))
    check_span(str(path), state, str(path), True)
    # References to records seen before are resolved as they are read; the forward
    # ones, the dangling ones and the bracket-less ones wait for the end of the file.
    assert sorted(offset for _, _, offset in state.refs) == sorted(
        kinds["forward"] + kinds["nowhere"] + kinds["bare"])
    assert len(kinds["back"]) > 5 * len(state.refs)


def test_a_repeated_id_is_reported_before_the_records_digest_findings(tmp_path: Path) -> None:
    path = tmp_path / "dup.warc.gz"
    offsets = []
    with open(path, "wb") as out:
        for i, body in enumerate([b"first\n", b"second\n"]):
            offsets.append(out.tell())
            head = ("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:same>\r\n"
                    f"WARC-Date: 2026-12-01T09:00:00Z\r\nWARC-Target-URI: file:///{i}\r\n"
                    f"WARC-Block-Digest: sha1:{hashlib.sha1(b'first' + bytes([i])).hexdigest()}\r\n"
                    f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            out.write(gzip.compress(head + body + b"\r\n\r\n"))
    report = check_file(path)
    assert [(i.code, i.offset) for i in report.issues] == [
        ("warcinfo-not-first", offsets[0]), ("block-digest-mismatch", offsets[0]),
        ("duplicate-record-id", offsets[1]), ("block-digest-mismatch", offsets[1])]
    assert [r.block_digest for r in report.records] == ["fail", "fail"]
