"""ZipNum indexes that are bombs or corrupt: bounded memory, and errors that name the file and line."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from limits import run_limited

from warckit.cdx.zipnum import ZipNumIndex, write_zipnum
from warckit.cli import main
from warckit.errors import ParseError

LINE = b"com,example)/ 20240101000000 http://example.com/ text/html 200 AAAA - - 100 0 a.warc.gz\n"


def _small_index(tmp_path: Path) -> Path:
    lines = [b"com,example)/p%03d 20240101000000 http://example.com/p%03d text/html 200 A - - 10 %d a.warc.gz\n"
             % (i, i, i) for i in range(30)]
    return Path(write_zipnum(lines, tmp_path / "zn", block_lines=10).idx)


def test_block_that_inflates_to_256_mib_is_streamed(tmp_path: Path) -> None:
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = LINE * (1 << 20 // len(LINE) + 1)
    n = (256 << 20) // len(chunk)
    block = b"".join(comp.compress(chunk) for _ in range(n)) + comp.flush()
    (tmp_path / "bomb.cdx.gz").write_bytes(block)
    (tmp_path / "bomb.idx").write_bytes(b"com,example)/ 20240101000000\tbomb\t0\t%d\t1\n" % len(block))
    (tmp_path / "bomb.loc").write_bytes(b"bomb\tbomb.cdx.gz\n")
    code = f"""
import sys
from warckit.cli import main
rc = main(["query", {str(tmp_path / "bomb.idx")!r}, "http://example.com/", "--limit", "1"])
sys.stdout.flush()
print("rc", rc)
"""
    out = run_limited(code, limit_mb=200, timeout=60)
    assert out.splitlines() == [LINE.decode().rstrip("\n"), "rc 0"]
    # Every line of the block, streamed: the count is exact, memory stays bounded.
    count = f"""
from warckit.cdx.zipnum import ZipNumIndex
print(sum(1 for _ in ZipNumIndex({str(tmp_path / "bomb.idx")!r}).iter_from(b"")))
"""
    assert run_limited(count, limit_mb=200, timeout=120).strip() == str(n * len(chunk) // len(LINE))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (3, b"1000000000000", "is outside"),
        (2, b"-5", "decimal numbers"),
        (2, b"99999999", "is outside"),
        (3, b"0", "is outside"),
        (3, b"x", "decimal numbers"),
        (1, b"nowhere", "no location for part 'nowhere'"),
        (1, b"\xff", "not UTF-8"),
    ],
)
def test_bad_idx_entry_names_idx_file_and_line(tmp_path: Path, field: int, value: bytes, message: str) -> None:
    idx = _small_index(tmp_path)
    lines = idx.read_bytes().splitlines(keepends=True)
    fields = lines[1].rstrip(b"\n").split(b"\t")
    fields[field] = value
    lines[1] = b"\t".join(fields) + b"\n"
    idx.write_bytes(b"".join(lines))
    index = ZipNumIndex(idx)
    with pytest.raises(ParseError) as info:
        list(index.iter_from(b""))
    assert info.value.source == str(idx) and info.value.offset == len(lines[0])
    assert str(info.value).startswith(f"{idx}, offset {len(lines[0])}: line 2: ") and message in str(info.value)


def test_bad_idx_entry_via_cli_exits_1_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    idx = _small_index(tmp_path)
    idx.write_bytes(idx.read_bytes().replace(b"\t0\t", b"\t-7\t", 1))
    assert main(["query", str(idx), "http://example.com/p001"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{idx}" in err and "line 1" in err


def test_loc_with_bad_utf8_names_loc_file_and_line(tmp_path: Path) -> None:
    idx = _small_index(tmp_path)
    loc = idx.with_suffix(".loc")
    loc.write_bytes(b"other\tx.cdx.gz\n" + b"zn\tzn\xff.cdx.gz\n")
    with pytest.raises(ParseError) as info:
        ZipNumIndex(idx)
    assert info.value.source == str(loc) and "line 2 is not UTF-8" in str(info.value)


def test_damaged_and_truncated_blocks_name_the_shard(tmp_path: Path) -> None:
    idx = _small_index(tmp_path)
    shard = tmp_path / "zn.cdx.gz"
    data = bytearray(shard.read_bytes())
    first_len = int(idx.read_bytes().split(b"\n")[0].split(b"\t")[3])
    data[first_len - 6] ^= 0xFF  # the first block's CRC/size trailer
    shard.write_bytes(bytes(data))
    with pytest.raises(ParseError) as info:
        list(ZipNumIndex(idx).iter_from(b""))
    assert info.value.source == str(shard) and info.value.offset == 0 and "bad gzip data" in str(info.value)
    lines = idx.read_bytes().splitlines(keepends=True)
    fields = lines[0].split(b"\t")
    fields[3] = str(first_len - 10).encode()
    idx.write_bytes(b"\t".join(fields) + b"".join(lines[1:]))
    with pytest.raises(ParseError, match="truncated"):
        list(ZipNumIndex(idx).iter_from(b""))


def test_valid_index_reads_every_line(tmp_path: Path) -> None:
    idx = _small_index(tmp_path)
    got = list(ZipNumIndex(idx).iter_from(b"com,example)/p015"))
    assert len(got) == 15 and got[0].startswith(b"com,example)/p015 ") and got[-1].startswith(b"com,example)/p029 ")
