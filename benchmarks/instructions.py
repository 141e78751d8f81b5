"""Instructions, not seconds: this checkout against another on the same paths, under callgrind.

Wall-clock ratios on a shared or virtual machine drift by 10-30 % between runs, which
hides a 3 % change. Valgrind's callgrind counts the instructions a process executes,
the same on every run whatever else the machine does, so a change on a hot path shows
as a difference in the count. It complements ``suite.py`` (which measures time against
the peers); it does not replace it: instructions do not see cache misses or threads
running side by side.

Each path runs in a fresh process under ``valgrind --tool=callgrind`` (about 50x
slower), once per checkout, on small corpora (``--size`` MB per mix, made by
``../shared/bench/make_corpus.py``, gzip-per-record). ``import`` is the interpreter
start and ``import warckit`` alone; every other row includes it. ``check`` is one
process (``jobs=1``): what ``warckit check`` does per record, without the split.

Usage::

    python benchmarks/instructions.py --baseline ../warckit-before            # all paths, 30 MB
    python benchmarks/instructions.py --baseline DIR --paths index --mixes small

Both checkouts must be built in place (``python setup.py build_ext --inplace``); both
are byte-compiled first (as an installed copy would be).
"""

from __future__ import annotations

import argparse
import compileall
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MAKE_CORPUS = ROOT.parent / "shared" / "bench" / "make_corpus.py"
WRITE_INPUT = ROOT.parent / "shared" / "corpus" / "pywb" / "iana.warc.gz"

# Run in the child as ``python -c``: ROOT, PATH and OFFSETS are defined before it.
WORK = {
    "import": "import warckit",
    "headers": """
import warckit
with warckit.open(PATH) as r:
    for rec in r:
        pass
""",
    "payload": """
import warckit
with warckit.open(PATH) as r:
    for rec in r:
        s = rec.raw_stream()
        while s.read(1 << 20):
            pass
""",
    "verify": """
import warckit
for _ in warckit.verify_file(PATH):
    pass
""",
    "check": """
from warckit.check.report import check_file
check_file(PATH, jobs=1)
""",
    "index": """
from warckit.cli import main
try:
    main(["index", PATH, "-o", "/dev/null", "-j", "1"])
except SystemExit as e:
    assert not e.code, e.code
""",
    "random": """
import json, warckit
for offset in json.load(open(OFFSETS)):
    rec = warckit.read_record_at(PATH, offset)
    s = rec.raw_stream()
    while s.read(1 << 20):
        pass
    getattr(rec, "close", lambda: None)()
""",
    "write": """
import tempfile, warckit
records = []
for rec in warckit.open(PATH):
    if rec.type == "response":
        block = rec.read_block()
        end = block.find(b"\\r\\n\\r\\n") + 4
        records.append((rec.target_uri or "", block[:end], block[end:]))
with tempfile.TemporaryDirectory() as d:
    with warckit.WarcWriter(d, fsync=False, max_bytes=None, threads=0) as w:
        for _ in range(20):
            for uri, head, body in records:
                req = w.request(uri, b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                w.response(uri, head, body, concurrent_to=req)
""",
}
#: Paths that read the generated corpora (the others have one fixed input).
PER_MIX = ("headers", "payload", "verify", "check", "index", "random")


def instructions(root: Path, path: str, data: Path, offsets: Path) -> int:
    """Instructions executed by one run of *path* with *root*'s warckit (all threads)."""
    code = f"import sys\nsys.path.insert(0, {str(root)!r})\nPATH = {str(data)!r}\nOFFSETS = {str(offsets)!r}\n"
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out",
             sys.executable, "-c", code + WORK[path]],
            cwd="/", capture_output=True, text=True, check=True)
    return sum(int(n.replace(",", "")) for n in re.findall(r"Collected : ([\d,]+)", out.stderr))


def corpus(mix: str, size: int, cache: Path) -> tuple[Path, Path]:
    """The gzip corpus of *mix* and a JSON list of 300 of its record offsets (made once)."""
    data = cache / f"{mix}-{size}.warc.gz"
    if not data.exists():
        subprocess.run([sys.executable, str(MAKE_CORPUS), "--mix", mix, "--compress", "gzip",
                        str(cache / f"{mix}-{size}"), str(size)], check=True, stdout=subprocess.DEVNULL)
    offsets = cache / f"{mix}-{size}.offsets-300.json"
    if not offsets.exists():
        sys.path.insert(0, str(ROOT))
        import warckit

        with warckit.open(data) as reader:
            every = [rec.offset for rec in reader]
        offsets.write_text(json.dumps(sorted(random.Random(7).sample(every, min(300, len(every))))))
    return data, offsets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", required=True, metavar="DIR", help="the other checkout (built in place)")
    ap.add_argument("--paths", default=",".join(WORK), help="comma-separated, from: " + ", ".join(WORK))
    ap.add_argument("--mixes", default="domain,cc,small")
    ap.add_argument("--size", type=int, default=30, help="MB of uncompressed WARC per mix (default 30)")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "warckit-bench"))
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("benchmarks/instructions.py needs valgrind (apt-get install valgrind)")
    base = Path(args.baseline).resolve()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    for root in (ROOT, base):
        compileall.compile_dir(str(root / "warckit"), quiet=1)
    print("| path | input | baseline (M instr.) | this checkout (M instr.) | ratio |")
    print("|---|---|---:|---:|---:|")
    for path in args.paths.split(","):
        inputs = [(m, *corpus(m, args.size, cache)) for m in args.mixes.split(",")] if path in PER_MIX \
            else [("iana" if path == "write" else "-", WRITE_INPUT, WRITE_INPUT)]
        for label, data, offsets in inputs:
            old = instructions(base, path, data, offsets)
            new = instructions(ROOT, path, data, offsets)
            print(f"| {path} | {label} | {old / 1e6:,.1f} | {new / 1e6:,.1f} | {new / old:.3f} |", flush=True)


if __name__ == "__main__":
    main()
