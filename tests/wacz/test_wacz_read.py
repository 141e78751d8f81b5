"""Reading a WACZ: warckit.open, ls/index/check, query by the embedded index by ranged
reads only, and validation reporting every problem."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import ROOT, corpus_path

import warckit
from warckit.cdx.query import Query, run_query
from warckit.cli import main
from warckit.read.wacz import WaczReader
from warckit.wacz import WaczIndex, create_wacz, validate_wacz

SAMPLE = ROOT / "examples" / "sample.warc.gz"


def _records(source: Any) -> list[tuple[int, str, str | None, str]]:
    with warckit.open(source) as reader:
        return [(r.offset, r.type, r.record_id, hashlib.sha256(r.content_stream().read()).hexdigest())
                for r in reader]


class CountingFile(io.RawIOBase):
    """A file that counts the bytes read through it (and refuses to be read whole)."""

    def __init__(self, path: Path) -> None:
        self._f = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.size = path.stat().st_size
        self.read_bytes = 0
        self.reads = 0
        self.name = str(path)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._f.seek(offset, whence)

    def tell(self) -> int:
        return self._f.tell()

    def readinto(self, buffer: Any) -> int:
        n = self._f.readinto(buffer)
        self.read_bytes += n
        self.reads += 1
        return n

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:  # to the end: only ever near it (the ZIP's last record)
            assert self.size - self._f.tell() <= 65_536 + 22, "a whole-file read"
        data = self._f.read(size)
        self.read_bytes += len(data)
        self.reads += 1
        return data

    def close(self) -> None:
        self._f.close()
        super().close()


@pytest.fixture
def three(tmp_path: Path) -> tuple[Path, list[Path]]:
    warcs = [corpus_path("pywb/example.warc.gz"), SAMPLE, corpus_path("warcio/example.warc")]
    out = tmp_path / "three.wacz"
    create_wacz(warcs, out, plain_max_lines=5)
    return out, warcs


def test_open_iterates_every_warc_in_datapackage_order(three: tuple[Path, list[Path]]) -> None:
    out, warcs = three
    expected = [rec for w in warcs for rec in _records(w)]
    assert _records(out) == expected
    with open(out, "rb") as fh:  # a file object works as well
        assert _records(fh) == expected
    with warckit.open(out) as reader:
        assert isinstance(reader, WaczReader)
        assert [m.name for m in reader.members] == [f"archive/{w.name}" for w in warcs]
        names = {(reader.member, reader.name) for _ in reader}
    assert names == {(f"archive/{w.name}", f"{out}#archive/{w.name}") for w in warcs}
    # A local WARC still gets the plain reader.
    with warckit.open(SAMPLE) as reader:
        assert type(reader) is warckit.ArchiveReader


def test_ls_index_check_accept_a_wacz(three: tuple[Path, list[Path]], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    out, warcs = three
    capsys.readouterr()
    assert main(["ls", str(out)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0] == f"{out}#archive/example.warc.gz\t0\t333\twarcinfo\t2014-01-03T03:03:22Z\t-"
    assert len(listed) == sum(len(_records(w)) for w in warcs)
    index = tmp_path / "i.cdxj"
    assert main(["index", "-f", "cdxj", "--sort", "-o", str(index), str(out)]) == 0
    embedded = b"".join(run_line for run_line in WaczIndex(out).iter_all())
    assert index.read_bytes() == embedded
    capsys.readouterr()
    assert main(["check", "--no-digests", str(out)]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if not line.startswith(" ")][:3] == [
        f"{out}#archive/example.warc.gz: ok (6 records, 0 errors, 1 warnings)",
        f"{out}#archive/sample.warc.gz: ok (6 records, 0 errors, 0 warnings)",
        f"{out}#archive/example.warc: ok (6 records, 0 errors, 1 warnings)"]


@pytest.mark.parametrize("plain_max_lines", [10**9, 50])
def test_query_and_record_read_by_ranges(tmp_path: Path, bench_warc: Any, plain_max_lines: int) -> None:
    warc = bench_warc("small", 8)
    out = tmp_path / "q.wacz"
    summary = create_wacz([warc], out, plain_max_lines=plain_max_lines)
    assert summary.captures > 1000
    with WaczIndex(out) as full:
        lines = list(full.iter_all())
    target = json.loads(lines[len(lines) // 2].split(b" ", 2)[2])
    counting = CountingFile(out)
    with WaczIndex(counting, name="q.wacz") as index:
        found = list(run_query([index], Query(target["url"])))
        assert target in [e.fields for e in found]
        entry = next(e for e in found if e.fields == target)
        with index.record(entry) as record:
            body = record.content_stream().read()
            assert record.target_uri == target["url"]
            assert record.offset == int(target["offset"])
    # Central directory, index (a binary search, or the .idx and one block), one record:
    # about 1-1.5 % of this 4 MB package (the share falls as packages grow).
    assert counting.read_bytes < min(counting.size / 50, 80_000), (counting.read_bytes, counting.size)
    with warckit.read_record_at(warc, int(target["offset"])) as direct:
        assert direct.content_stream().read() == body
    # The command line answers from the same index.
    assert main(["query", "--json", str(out), target["url"]]) == 0


def test_validate_reports_every_problem(tmp_path: Path) -> None:
    good = tmp_path / "good.wacz"
    create_wacz([SAMPLE], good)
    report = validate_wacz(good, check=True)
    assert report.ok and report.issues == [] and report.index_lines == 3 and report.resources == 3
    # Rewrite the package: one WARC byte flipped, one index offset moved, one page line broken,
    # datapackage.json untouched (so its hashes no longer match).
    src = zipfile.ZipFile(good)
    bad = tmp_path / "bad.wacz"
    with zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "archive/sample.warc.gz":
                data = data[:700] + bytes([data[700] ^ 0xFF]) + data[701:]
            elif info.filename == "indexes/index.cdx":
                data = data.replace(b'"offset": "1303"', b'"offset": "1304"')
            elif info.filename == "pages/pages.jsonl":
                data += b"{broken\n"
            dst.writestr(info, data)
    report = validate_wacz(bad)
    codes = [i.code for i in report.issues]
    assert codes.count("hash-mismatch") == 3
    assert {"index-no-record", "bad-page"} <= set(codes)
    assert not report.ok
    no_record = [i for i in report.issues if i.code == "index-no-record"]
    assert [i.source for i in no_record] == [f"{bad}#indexes/index.cdx"] * 2
    assert "line 1: no record at offset 607" in no_record[0].message  # the flipped byte
    assert "line 3: no record at offset 1304" in no_record[1].message
    assert main(["wacz", "validate", str(bad)]) == 1
    assert main(["wacz", "validate", "--json", str(good)]) == 0


@pytest.mark.parametrize(("member", "change", "codes"), [
    ("indexes/index.cdx", (b"com,example)/about 20261130090000", b"com,example)/about 20201130090000"),
     {"index-date-mismatch", "hash-mismatch"}),
    ("indexes/index.cdx", (b'"url": "https://example.com/about"', b'"url": "https://example.com/abouT"'),
     {"index-url-mismatch", "hash-mismatch"}),
    ("archive/sample.warc.gz", None, {"deflated", "index-unknown-warc"}),
    ("datapackage-digest.json", (b"sha256:", b"sha256:00"), {"datapackage-hash-mismatch"}),
])
def test_validate_findings(tmp_path: Path, member: str, change: tuple[bytes, bytes] | None,
                           codes: set[str]) -> None:
    good = tmp_path / "good.wacz"
    create_wacz([SAMPLE], good)
    src = zipfile.ZipFile(good)
    bad = tmp_path / "bad.wacz"
    with zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == member:
                if change is None:
                    info.compress_type = zipfile.ZIP_DEFLATED
                else:
                    assert change[0] in data
                    data = data.replace(*change)
            dst.writestr(info, data)
    assert {i.code for i in validate_wacz(bad).issues} == codes


def test_record_reads_stop_at_the_entry_length(three: tuple[Path, list[Path]]) -> None:
    out, warcs = three
    by_name = {w.name: w for w in warcs}
    counting = CountingFile(out)
    seen = set()
    with WaczIndex(counting) as index:
        entries = [e for raw in index.iter_all() for e in run_query([index], Query(
            json.loads(raw.split(b" ", 2)[2])["url"])) if e.format().encode() == raw.rstrip(b"\n")]
        for entry in entries:
            fields = entry.fields
            before = counting.read_bytes
            with index.record(entry) as record:
                body = record.content_stream().read()
                offset = record.offset
            # The record's bytes plus its ZIP local header (read to find the data).
            assert counting.read_bytes - before <= int(fields["length"]) + 4 + 30 + 64, fields
            with warckit.read_record_at(by_name[fields["filename"]], offset) as direct:
                assert body == direct.content_stream().read()
            seen.add(fields["filename"])
    assert seen == {"example.warc.gz", "sample.warc.gz", "example.warc"}


@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_a_truncated_package_is_a_typed_error(tmp_path: Path, cut: float,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.wacz"
    create_wacz([SAMPLE], good)
    data = good.read_bytes()
    bad = tmp_path / "bad.wacz"
    bad.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(warckit.errors.ParseError) as info, warckit.open(bad) as reader:
        list(reader)
    assert info.value.source == str(bad)
    with pytest.raises(warckit.errors.ParseError):
        WaczIndex(bad)
    assert [i.code for i in validate_wacz(bad).issues] == ["not-a-zip"]
    for argv in (["ls", str(bad)], ["query", str(bad), "https://example.com/"],
                 ["wacz", "validate", str(bad)]):
        capsys.readouterr()
        assert main(argv) == 1
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        if argv[0] != "wacz":
            assert captured.err.startswith(f"warckit {argv[0]}: error: {bad}: not a readable ZIP file")
