"""Peak memory while writing, reading and verifying one 5 GiB record.

    PYTHONPATH=. python benchmarks/bench_memory.py [--gib 5] [--dir /tmp]

Three processes, each reporting its own peak RSS (``VmHWM``):

1. *write*: the guided writer streams a 5 GiB body of unknown length (generated in
   1 MiB pieces) into a ``.warc.gz`` file, computing block and payload digests on the way;
2. *read*: iterate the file and read the record's payload through ``payload_stream()``
   in 1 MiB pieces;
3. *verify*: ``warckit.check.verify_digests`` over the same record.

The issue's bar is a peak under 100 MB for streaming a 5 GB record. Takes about a
minute on the reference machine (the body is zeros, so deflate is fast; hashing is not).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PEAK = """
def _peak_mb():
    with open("/proc/self/status") as st:
        return next(int(l.split()[1]) for l in st if l.startswith("VmHWM:")) / 1024
"""

WRITE = _PEAK + """
import io, warckit
class Zeros(io.RawIOBase):
    def __init__(self, n): self.left = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.left, 1 << 20)
        b[:k] = bytes(k)
        self.left -= k
        return k
w = warckit.WarcWriter(DIR, prefix="mem", fsync=False, max_bytes=None)
with w:
    rec = w.resource("http://example.com/big.bin", Zeros(SIZE), content_type="application/octet-stream")
print(rec.path, rec.length, f"{_peak_mb():.1f}")
"""

READ = _PEAK + """
import warckit
total = 0
with warckit.open(PATH, types={"resource"}) as reader:
    for rec in reader:
        s = rec.payload_stream()
        while True:
            b = s.read(1 << 20)
            if not b:
                break
            total += len(b)
print(total, f"{_peak_mb():.1f}")
"""

VERIFY = _PEAK + """
import warckit
with warckit.open(PATH) as reader:
    oks = [warckit.check.verify_digests(rec).ok for rec in reader]
print(all(oks), len(oks), f"{_peak_mb():.1f}")
"""


def _run(code: str, **values: object) -> tuple[list[str], float]:
    prelude = "".join(f"{k} = {v!r}\n" for k, v in values.items())
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", prelude + code], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gib", type=float, default=5.0)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    size = int(args.gib * (1 << 30))
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        (path, length, peak), secs = _run(WRITE, DIR=d, SIZE=size)
        print(f"write  {size:,} B body -> {int(length):,} B gzip record  {secs:6.1f} s  peak RSS {peak} MB")
        (total, peak), secs = _run(READ, PATH=path)
        assert int(total) == size, total
        print(f"read   payload {int(total):,} B                      {secs:6.1f} s  peak RSS {peak} MB")
        (ok, n, peak), secs = _run(VERIFY, PATH=path)
        print(f"verify {n} records, all digests ok: {ok}            {secs:6.1f} s  peak RSS {peak} MB")


if __name__ == "__main__":
    main()
