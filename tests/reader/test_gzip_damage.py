"""Damaged gzip members: empty members inside a record, resync past a damaged member
(strict and lenient), and what ``check`` and ``ls`` make of it."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import subprocess
from pathlib import Path

import child
import pytest

import warckit
from warckit.check.report import check_file
from warckit.errors import CompressionError


def _record(i: int, body: bytes) -> bytes:
    digest = base64.b32encode(hashlib.sha1(body).digest()).decode()
    head = (
        f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{i:08d}-0000-0000-0000-000000000000>\r\n"
        f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Block-Digest: sha1:{digest}\r\n"
        f"WARC-Target-URI: http://example.com/{i}\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


def _bodies() -> list[bytes]:
    return [hashlib.sha256(str(i).encode()).digest() * (40 + 30 * i) for i in range(5)]


def _per_record(bodies: list[bytes]) -> tuple[bytes, list[int]]:
    """One gzip member per record; returns the file and the member offsets."""
    out, offsets = b"", []
    for i, body in enumerate(bodies):
        offsets.append(len(out))
        out += gzip.compress(_record(i, body), mtime=0)
    return out, offsets


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def _read_all(data: bytes, lenient: bool) -> tuple[list[tuple[int, bytes]], list[tuple[str, int | None]], list[str]]:
    """Records (offset, block), errors (text, offset) and issue codes, going on after each error."""
    records, errors, issues = [], [], []
    reader = warckit.open(io.BytesIO(data), lenient=lenient, on_warning=lambda i: issues.append(i.code))
    for _ in range(50):
        try:
            rec = next(reader)
            stream = rec.raw_stream()
            block = b""
            while chunk := stream.read(4096):
                block += chunk
            records.append((rec.offset, block))
        except StopIteration:
            break
        except CompressionError as exc:
            errors.append((exc.message, exc.offset))
    else:
        pytest.fail("the reader did not end")
    return records, errors, issues


def test_empty_member_inside_a_record_is_skipped() -> None:
    body = bytes(range(256)) * 40  # 10,240 bytes
    raw = _record(0, body)
    cut = len(raw) // 3
    data = gzip.compress(raw[:cut], mtime=0) + gzip.compress(b"", mtime=0) + gzip.compress(raw[cut:], mtime=0)
    assert len(gzip.compress(b"", mtime=0)) == 20
    with warckit.open(io.BytesIO(data)) as reader:
        rec = next(reader)
        stream = rec.raw_stream()
        got = b""
        while chunk := stream.read(1000):
            got += chunk
        assert got == body
    with warckit.open(io.BytesIO(data)) as reader:
        assert next(reader).read_block() == body
    report = check_file_bytes(data)
    assert report.ok, report.issues
    assert [r.block_digest for r in report.records] == ["pass"]


def check_file_bytes(data: bytes):  # type: ignore[no-untyped-def]
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".warc.gz") as f:
        f.write(data)
        f.flush()
        return check_file(f.name)


def test_strict_error_names_the_damaged_member_then_reading_goes_on() -> None:
    bodies = _bodies()
    data, offsets = _per_record(bodies)
    bad = _flip(data, offsets[2] + 40)  # inside the deflate data of the third member
    records, errors, issues = _read_all(bad, lenient=False)
    assert len(errors) == 1 and errors[0][1] == offsets[2]
    assert errors[0][0].startswith("gzip member is damaged")
    assert [(o, b) for o, b in records] == [(offsets[i], bodies[i]) for i in (0, 1, 3, 4)]
    assert issues == ["damaged-member"]


def test_lenient_resyncs_at_the_next_member_that_starts_a_record() -> None:
    bodies = _bodies()
    data, offsets = _per_record(bodies)
    bad = _flip(data, offsets[3] - 5)  # the CRC of the third member
    seen: list[warckit.Issue] = []
    with warckit.open(io.BytesIO(bad), lenient=True, on_warning=seen.append) as reader:
        got = [(r.offset, r.read_block()) for r in reader]
    assert got == [(offsets[i], bodies[i]) for i in (0, 1, 3, 4)]
    (issue,) = seen
    assert issue.code == "damaged-member" and issue.offset == offsets[2]
    assert "incorrect checksum" in issue.message
    assert f"skipped bytes {offsets[2]}-{offsets[3]} ({offsets[3] - offsets[2]} bytes)" in issue.message


def test_resync_skips_members_that_do_not_start_a_record() -> None:
    """A record split over two members: the second one is no place to resync."""
    bodies = _bodies()
    raw = _record(2, bodies[2])
    parts = [gzip.compress(_record(i, bodies[i]), mtime=0) for i in (0, 1)]
    parts += [gzip.compress(raw[:100], mtime=0), gzip.compress(raw[100:], mtime=0)]
    parts += [gzip.compress(_record(i, bodies[i]), mtime=0) for i in (3, 4)]
    data = b"".join(parts)
    damaged = len(parts[0]) + len(parts[1])
    resumed = damaged + len(parts[2]) + len(parts[3])
    bad = _flip(data, damaged + 30)
    records, errors, issues = _read_all(bad, lenient=True)
    assert not errors
    assert [o for o, _ in records] == [0, len(parts[0]), resumed, resumed + len(parts[4])]
    assert issues == ["damaged-member"]


def test_damage_in_the_last_member_is_named() -> None:
    bodies = _bodies()
    data, offsets = _per_record(bodies)
    bad = _flip(data, len(data) - 6)
    records, errors, issues = _read_all(bad, lenient=True)
    assert len(records) == 4 and not errors
    assert issues == ["damaged-member"]
    records, errors, issues = _read_all(bad, lenient=False)
    assert len(records) == 4 and errors == [("gzip member is damaged (incorrect checksum)", offsets[4])]


@pytest.fixture
def damaged_file(tmp_path: Path) -> tuple[Path, list[int]]:
    data, offsets = _per_record(_bodies())
    path = tmp_path / "damaged.warc.gz"
    path.write_bytes(_flip(data, offsets[2] + 40))
    return path, offsets


def test_check_names_the_damaged_member_and_goes_on(damaged_file: tuple[Path, list[int]]) -> None:
    path, offsets = damaged_file
    report = check_file(path)
    assert [r.offset for r in report.records] == [offsets[i] for i in (0, 1, 3, 4)]
    damage = [i for i in report.issues if i.code == "damaged-member"]
    assert len(damage) == 1 and damage[0].offset == offsets[2] and damage[0].severity == "error"
    assert "gzip member is damaged" in damage[0].message


def test_ls_lenient_exits_1_when_records_were_lost(damaged_file: tuple[Path, list[int]]) -> None:
    path, offsets = damaged_file
    run = subprocess.run(child.warckit_cli("ls", "--lenient", str(path)),
                         capture_output=True, text=True, env=child.env(), check=False)
    assert run.returncode == 1, run.stderr
    assert [int(line.split("\t")[0]) for line in run.stdout.splitlines()] == [offsets[i] for i in (0, 1, 3, 4)]
    assert "damaged-member" in run.stderr
