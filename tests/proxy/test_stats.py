"""The proxy's statistics: one process's (:class:`Stats`) and the workers' shared file
(:class:`SharedStats`), whose counts and files add up across processes at each flush."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from warckit.proxy.stats import SharedStats, Stats


def test_counts_per_bucket_and_kind() -> None:
    stats = Stats()
    stats.count(("job",), "new", 100)
    stats.count(("job", "other"), "revisit", 7)
    stats.count((), "new", 1)
    got = stats.snapshot()
    assert got["__all__"] == {"total": {"urls": 3, "wire_bytes": 108},
                              "new": {"urls": 2, "wire_bytes": 101},
                              "revisit": {"urls": 1, "wire_bytes": 7}}
    assert got["job"]["total"] == {"urls": 2, "wire_bytes": 107}
    assert got["other"]["new"] == {"urls": 0, "wire_bytes": 0}
    assert stats.snapshot(("nobody",)) == {"nobody": {k: {"urls": 0, "wire_bytes": 0}
                                                      for k in ("total", "new", "revisit")}}
    assert stats.reached({"job/total/urls": 3}) is None
    assert stats.reached({"job/total/urls": 3, "job/new/wire_bytes": 100}) == {"job/new/wire_bytes": 100}
    assert stats.reached({"nobody/total/urls": 0}) == {"nobody/total/urls": 0}
    stats.flush(["a.warc.gz"])  # (one process: nothing to share)
    assert stats.other_files() == []
    assert stats.snapshot(("job",))["job"]["total"]["urls"] == 2


def test_the_last_worker_to_leave_is_told_so(tmp_path: Path) -> None:
    path = tmp_path / "stats.sqlite"
    SharedStats.create(path, 3)
    assert [SharedStats.leave(path) for _ in range(3)] == [False, False, True]


def test_shared_counts_add_up_at_each_flush(tmp_path: Path) -> None:
    path = tmp_path / "stats.sqlite"
    SharedStats.create(path)
    a, b = SharedStats(path), SharedStats(path)
    try:
        a.count(("job",), "new", 10)
        a.count(("job",), "new", 20)
        assert b.snapshot(("job",))["job"]["total"]["urls"] == 0  # (a has not flushed)
        a.flush([])
        assert b.snapshot(("job",))["job"]["total"]["urls"] == 0  # (b has not taken them)
        b.count(("job",), "revisit", 5)
        assert b.reached({"job/total/urls": 2}) is None
        b.flush([])
        assert b.snapshot(("job",))["job"] == {"total": {"urls": 3, "wire_bytes": 35},
                                                "new": {"urls": 2, "wire_bytes": 30},
                                                "revisit": {"urls": 1, "wire_bytes": 5}}
        assert b.reached({"job/total/urls": 3}) == {"job/total/urls": 3}
        a.count(("job",), "new", 1)  # a's own, not yet flushed, counts for a at once
        assert a.snapshot(("job",))["job"]["total"]["urls"] == 3  # (2 flushed + 1; b's unseen)
        a.flush([])
        assert a.snapshot(("job",))["job"]["total"] == {"urls": 4, "wire_bytes": 36}
        a.flush([])  # (a flush with nothing new adds nothing)
        assert a.snapshot()["__all__"]["total"] == {"urls": 4, "wire_bytes": 36}
    finally:
        a.close()
        b.close()


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="forks")
def test_shared_files_are_each_workers_latest(tmp_path: Path) -> None:
    path = tmp_path / "stats.sqlite"
    SharedStats.create(path)
    pid = os.fork()
    if pid == 0:  # another worker: flushes its open file, then its closed one
        code = 1
        try:
            other = SharedStats(path)
            other.count((), "new", 1)
            other.flush(["W-1.warc.gz.open"])
            other.flush(["W-1.warc.gz"])
            other.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    mine = SharedStats(path)
    try:
        mine.flush(["M-1.warc.gz.open"])
        assert mine.other_files() == ["W-1.warc.gz"]
        assert mine.snapshot()["__all__"]["total"]["urls"] == 1
        mine.flush(["M-1.warc.gz"])
        assert SharedStats.all_files(path) == ["M-1.warc.gz", "W-1.warc.gz"]
    finally:
        mine.close()
