"""The commands that read take URLs: ls, index (also -j, by ranged reads of its pieces),
extract, check; --storage-option; exit 1 for unreachable data, 2 for usage."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from remote_files import local
from remote_servers import CountingS3, RangeServer

from warckit.cdx.build import write_index
from warckit.cdx.indexer import IndexOptions
from warckit.cli import main
from warckit.read import pieces
from warckit.read.pieces import split_points


def _run(capsysbinary: Any, *argv: str) -> tuple[int, bytes, bytes]:
    code = main(list(argv))
    out, err = capsysbinary.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["iana.warc.gz", "wget.warc", "blackbook.arc.gz"])
def test_ls_index_extract_check(http: RangeServer, served: Path, capsysbinary: Any, name: str) -> None:
    path, url = str(local(served, name)), http.url(name)
    assert _run(capsysbinary, "ls", url) == _run(capsysbinary, "ls", path)
    code, out, err = _run(capsysbinary, "index", "-j", "1", url)
    assert (code, err) == (0, b"") and out.count(b"\n") > 5
    assert out.replace(url.encode(), path.encode()) == _run(capsysbinary, "index", "-j", "1", path)[1]
    code, listing, _ = _run(capsysbinary, "ls", path)
    offset = listing.splitlines()[3].split(b"\t")[0].decode()
    for flags in ([], ["--headers"], ["--payload"]):
        assert _run(capsysbinary, "extract", *flags, url, offset) == \
            _run(capsysbinary, "extract", *flags, path, offset)
    code, out, err = _run(capsysbinary, "check", url)
    assert (code, err) == _run(capsysbinary, "check", path)[::2]
    assert out.replace(url.encode(), path.encode()) == _run(capsysbinary, "check", path)[1]


def test_s3_with_storage_options(s3: CountingS3, served: Path, capsysbinary: Any) -> None:
    path = str(local(served, "iana.warc.gz"))
    opts = ["--storage-option", "key=testing", "--storage-option", "secret=testing",
            "--storage-option", f"client_kwargs.endpoint_url={s3.endpoint}",
            "--storage-option", "client_kwargs.region_name=us-east-1"]
    assert _run(capsysbinary, "ls", *opts, "s3://bucket/iana.warc.gz") == _run(capsysbinary, "ls", path)
    assert s3.sent == Path(path).stat().st_size
    s3.reset_counts()
    code, out, _ = _run(capsysbinary, "extract", *opts, "s3://bucket/iana.warc.gz", "4009")
    assert (code, out) == _run(capsysbinary, "extract", path, "4009")[:2]
    assert s3.gets == 1 and s3.sent <= 64 << 10


def test_unreachable_is_exit_1_usage_is_exit_2(http: RangeServer, capsysbinary: Any) -> None:
    url = http.url("nope.warc.gz")
    assert _run(capsysbinary, "ls", url) == (
        1, b"", f"warckit ls: error: {url}: HTTP 404 Not Found\n".encode())
    http.status = 403
    code, _, err = _run(capsysbinary, "index", http.url("iana.warc.gz"))
    assert code == 1 and err.startswith(b"warckit index: error: http://127.0.0.1:")
    assert b"HTTP 403" in err and b"Traceback" not in err
    code, _, err = _run(capsysbinary, "ls", "--storage-option", "novalue", url)
    assert code == 2 and b"--storage-option must be KEY=VALUE" in err


def test_index_jobs_reads_pieces_by_ranges(http: RangeServer, served: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = local(served, "iana.warc.gz")
    url = http.url("iana.warc.gz")
    monkeypatch.setattr(pieces, "MIN_SPLIT_SIZE", 1 << 16)
    points = split_points(str(path), 3)
    assert len(points) == 2
    assert split_points(url, 3) == points
    expected = io.BytesIO()
    write_index([str(path)], expected, IndexOptions(), jobs=1)
    http.reset_counts()
    out = io.BytesIO()
    assert write_index([url], out, IndexOptions(), jobs=3) > 100
    assert out.getvalue().replace(url.encode(), str(path).encode()) == expected.getvalue()
    # The pieces were read by ranges starting where they start, not from byte 0 each.
    starts = {a for a, _ in http.ranges}
    assert 0 in starts and any(before <= a < at + 1 for a in starts for before, at in points[1:])
    # Each piece reads a little past its end (its last range doubled), and finding the
    # split points reads a window at each: bounded, on a small file up to ~2.5 times it.
    assert http.sent < 3 * path.stat().st_size


def test_recompress_and_arc2warc_read_urls(http: RangeServer, served: Path, tmp_path: Path,
                                           capsysbinary: Any) -> None:
    warc = local(served, "wget.warc")
    code, _, err = _run(capsysbinary, "recompress", "-o", str(tmp_path / "remote.warc.gz"),
                        http.url("wget.warc"))
    assert (code, err) == (0, b"")
    assert _run(capsysbinary, "recompress", "-o", str(tmp_path / "local.warc.gz"), str(warc))[0] == 0
    assert (tmp_path / "remote.warc.gz").read_bytes() == (tmp_path / "local.warc.gz").read_bytes()

    arc = local(served, "blackbook.arc.gz")
    code, _, err = _run(capsysbinary, "arc2warc", "--out-dir", str(tmp_path / "r"),
                          http.url("blackbook.arc.gz"))
    local_run = _run(capsysbinary, "arc2warc", "--out-dir", str(tmp_path / "l"), str(arc))
    assert (code, err) == (0, local_run[2]) and b"300 records" in err  # the summary line
    remote_ls = _run(capsysbinary, "ls", *sorted(map(str, (tmp_path / "r").iterdir())))[1]
    local_ls = _run(capsysbinary, "ls", *sorted(map(str, (tmp_path / "l").iterdir())))[1]

    def columns(listing: bytes) -> list[list[bytes]]:
        # type, date, URI (the warcinfo records are dated by the conversion)
        rows = [line.split(b"\t")[-3:] for line in listing.splitlines()]
        return [r for r in rows if r[0] != b"warcinfo"]

    assert columns(remote_ls) == columns(local_ls) and len(columns(local_ls)) > 100


def test_s3_endpoint_and_credentials_from_the_environment(s3: CountingS3, served: Path) -> None:
    import subprocess
    import sys

    import child

    path = str(local(served, "iana.warc.gz"))
    # The children run the warckit under test (child.env), not the checkout's.
    env = {k: v for k, v in child.env().items() if not k.startswith(("AWS_", "FSSPEC_"))}
    env.update(AWS_ENDPOINT_URL=s3.endpoint, AWS_ACCESS_KEY_ID="testing",
               AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
               HOME=str(served))  # (no ~/.aws of the machine's)
    run = subprocess.run([sys.executable, "-m", "warckit", "ls", "s3://bucket/iana.warc.gz"],
                         env=env, cwd=served, capture_output=True, timeout=60, check=False)
    local_run = subprocess.run([sys.executable, "-m", "warckit", "ls", path], env=env, cwd=served,
                               capture_output=True, timeout=60, check=False)
    assert (run.returncode, run.stderr) == (0, b"")
    assert run.stdout == local_run.stdout and run.stdout.count(b"\n") == 343
