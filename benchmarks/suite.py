"""warckit's benchmark suite: every hot path side by side with its peers and the floors.

One command makes the corpora (``../shared/bench/make_corpus.py``, mixes ``domain``,
``cc`` and ``small``), runs each path with every contender in its own process,
alternating A B C … for ``--runs`` rounds after a warm-up, and writes
``benchmarks/RESULTS.md``: medians, paired ratios (run by run, against FastWARC or the
named floor) and each process's peak RSS, with the machine, Python, commit (and the files
of the measured code that differ from it at the end) and the build measured: which hot
modules are compiled and which ISA-L and libdeflate they call. It refuses to run
when any hot module of the warckit under test (the checkout's) is on its pure-Python
twin, unless ``--allow-pure`` is given (the report then says so).

Usage::

    python benchmarks/suite.py                 # 1 GB per mix, 5 runs (takes a while)
    python benchmarks/suite.py --quick         # 100 MB per mix, 3 runs
    python benchmarks/suite.py --mixes cc --paths headers,payload --size 300
    python benchmarks/suite.py --baseline ../warckit-before   # this checkout vs another, side by side

Paths: headers (iterate, headers only), payload (iterate and read every block),
verify (block + payload digests), check (``warckit check`` vs ``fastwarc check -p``),
index (new-style CDX vs fastwarc index and
cdxj-indexer), random (1,000 records read at random offsets), plus the write and
SURT benchmarks (bench_write.py, bench_surt.py), whose reports are included, and startup
(``--version``, ``import warckit``, opening the sample and reading its first record, and
``index`` and ``check`` of the sample, each over a bare ``python -c pass``). Every
contender of a path also runs pinned to one CPU (``taskset -c 0``) in the same rounds: the
tables' "1 CPU" columns (``--no-one-cpu`` leaves them out).

``--baseline DIR`` adds DIR's warckit (another checkout, built in place) as the
contenders ``warckit@base`` and ``warckit-py@base``, run in the same alternating rounds,
and a ``vs warckit@base`` column: before and after a change, measured side by side. The
write and SURT benchmarks then also run DIR's own scripts against DIR's warckit.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MAKE_CORPUS = ROOT.parent / "shared" / "bench" / "make_corpus.py"

# Each contender is Python code run in a fresh process with PATH (the corpus) and
# OFFSETS (a JSON file of record offsets) defined; the process reports its own peak RSS.
_PEAK = """
import sys
with open("/proc/self/status") as _st:
    sys.stderr.write("PEAK_KB %s\\n" % next(l.split()[1] for l in _st if l.startswith("VmHWM:")))
"""

READ_CONTENDERS = {
    "isal-gunzip": """
from isal import igzip
with igzip.open(PATH, "rb") as f:
    while f.read(1 << 20):
        pass
""",
    "fastwarc": """
from fastwarc.warc import ArchiveIterator, WarcRecordType
with open(PATH, "rb") as f:
    for r in ArchiveIterator(f, parse_http=False, record_types=WarcRecordType.any_type):
        if PAYLOAD:
            r.reader.read()
""",
    "warcio": """
from warcio.archiveiterator import ArchiveIterator
with open(PATH, "rb") as f:
    for r in ArchiveIterator(f):
        if PAYLOAD:
            r.content_stream().read()
""",
    "warckit": """
import warckit
with warckit.open(PATH) as reader:
    for r in reader:
        if PAYLOAD:
            s = r.raw_stream()
            while s.read(1 << 20):
                pass
""",
}
READ_CONTENDERS["warckit-py"] = READ_CONTENDERS["warckit"]

VERIFY_CONTENDERS = {
    "isal+sha1": """
import hashlib
from isal import igzip
h = hashlib.sha1()
with igzip.open(PATH, "rb") as f:
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        h.update(b)
""",
    "fastwarc": """
from fastwarc.warc import ArchiveIterator, WarcRecordType
with open(PATH, "rb") as f:
    for r in ArchiveIterator(f, parse_http=True, record_types=WarcRecordType.any_type):
        r.verify_block_digest(consume=False)
        if r.record_type != WarcRecordType.revisit:
            r.verify_payload_digest(consume=True)
""",
    "warckit": """
import warckit
for offset, report in warckit.verify_file(PATH, jobs=2):
    pass
""",
}
VERIFY_CONTENDERS["warckit-py"] = VERIFY_CONTENDERS["warckit"]

#: ``warckit check`` (every CPU, the default; and one process) against ``fastwarc check -p``
#: (block and payload digests); both print only what is wrong.
CHECK_CONTENDERS = {
    "fastwarc check -p": ["fastwarc", "check", "-p", "-q", "{path}"],
    "warckit check": [sys.executable, "-m", "warckit", "check", "-q", "--no-progress", "{path}"],
    "warckit check -j 1": [sys.executable, "-m", "warckit", "check", "-q", "--no-progress", "-j", "1", "{path}"],
}

INDEX_CONTENDERS = {
    "fastwarc index": ["fastwarc", "index", "{path}"],
    "cdxj-indexer": ["cdxj-indexer", "{path}", "-o", "/dev/null"],
    "warckit index": [sys.executable, "-m", "warckit", "index", "{path}", "-o", "/dev/null"],
}

RANDOM_CONTENDERS = {
    "fastwarc": """
import json
from fastwarc.warc import ArchiveIterator, WarcRecordType
offsets = json.load(open(OFFSETS))
with open(PATH, "rb") as f:
    for off in offsets:
        f.seek(off)
        r = next(iter(ArchiveIterator(f, parse_http=False, record_types=WarcRecordType.any_type)))
        r.reader.read()
""",
    "warcio": """
import json
from warcio.archiveiterator import ArchiveIterator
offsets = json.load(open(OFFSETS))
with open(PATH, "rb") as f:
    for off in offsets:
        f.seek(off)
        r = next(iter(ArchiveIterator(f)))
        r.content_stream().read()
""",
    "warckit": """
import json, warckit
for off in json.load(open(OFFSETS)):
    r = warckit.read_record_at(PATH, off)
    r.raw_stream().read()
""",
    # (as the fastwarc contender reads: one file opened once, then a seek per record)
    "warckit, open file": """
import json, warckit
with open(PATH, "rb") as f:
    for off in json.load(open(OFFSETS)):
        r = warckit.read_record_at(f, off)
        r.raw_stream().read()
""",
}


#: Suffix of a contender's copy run on one CPU (``taskset -c 0``), in the same rounds.
ONE_CPU = " [1 CPU]"
#: Whether every table gets the one-CPU columns (``--no-one-cpu`` turns them off).
WITH_ONE_CPU = True

#: The reference column of the @base contenders (empty without ``--baseline``).
BASE_REF: list[str] = []
#: The checkout of ``--baseline`` (the ``@base`` contenders import warckit from it).
BASELINE: Path | None = None


def _env(name: str) -> dict[str, str]:
    root = BASELINE if name.endswith("@base") and BASELINE is not None else ROOT
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if name.removesuffix("@base").endswith("-py"):
        env["WARCKIT_NO_EXTENSIONS"] = "1"
    return env


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, int | None]:
    t0 = time.perf_counter()
    # (a non-zero exit is a finding of `check`, not a failure of the run; every other
    # contender exits 0 on these corpora)
    # cwd "/": with -c and -m Python puts the cwd first on sys.path, which would shadow PYTHONPATH.
    proc = subprocess.run(cmd, env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check="check" not in cmd)
    elapsed = time.perf_counter() - t0
    peak = None
    for line in proc.stderr.splitlines():
        if line.startswith("PEAK_KB "):
            peak = int(line.split()[1])
    return elapsed, peak


def _python_cmd(code: str, path: Path, payload: bool, offsets: Path | None) -> list[str]:
    prelude = f"PATH = {str(path)!r}\nPAYLOAD = {payload}\nOFFSETS = {str(offsets)!r}\n"
    return [sys.executable, "-c", prelude + code + _PEAK]


def with_baseline(contenders: dict[str, Any]) -> dict[str, Any]:
    """*contenders* plus an ``@base`` copy of each warckit one when ``--baseline`` is given."""
    if BASELINE is None:
        return contenders
    extra = {f"{n}@base": c for n, c in contenders.items() if n.startswith("warckit")}
    return contenders | extra


def measure(cmds: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, dict[str, object]]:
    """Warm up, then run every contender once per round, alternating; return stats.

    With :data:`WITH_ONE_CPU`, each contender also runs pinned to CPU 0 (``taskset -c 0``,
    so warckit sees one CPU: no read-ahead thread, one process), as ``NAME [1 CPU]``.
    """
    if WITH_ONE_CPU:
        cmds = cmds | {n + ONE_CPU: (["taskset", "-c", "0", *cmd], env) for n, (cmd, env) in cmds.items()}
    times: dict[str, list[float]] = {n: [] for n in cmds}
    peaks: dict[str, list[int]] = {n: [] for n in cmds}
    for cmd, env in cmds.values():
        _run(cmd, env)
    for _ in range(runs):
        for name, (cmd, env) in cmds.items():
            t, p = _run(cmd, env)
            times[name].append(t)
            if p is not None:
                peaks[name].append(p)
    return {
        n: {"times": times[n], "median": statistics.median(times[n]),
            "peak_mb": (max(peaks[n]) / 1024 if peaks[n] else None)}
        for n in cmds
    }


def _ratios(stats: dict[str, dict[str, object]], ref: str) -> dict[str, float]:
    out = {}
    for name, s in stats.items():
        pairs = [a / b for a, b in zip(s["times"], stats[ref]["times"])]  # type: ignore[arg-type]
        out[name] = statistics.median(pairs)
    return out


def table(stats: dict[str, dict[str, object]], size: int, refs: list[str]) -> str:
    """One row per contender: median, MB/s, paired ratios against each of *refs* and peak
    RSS; with one-CPU runs, their median and paired ratio against the first ref's."""
    one = WITH_ONE_CPU and any(n.endswith(ONE_CPU) for n in stats)
    head = "| contender | median s | MB/s | " + " | ".join(f"vs {r}" for r in refs) + " | peak RSS MB |"
    if one:
        head += f" 1 CPU: median s | 1 CPU: vs {refs[0]} |"
    lines = [head, "|" + "---|" * (4 + len(refs) + (2 if one else 0))]
    ratios = {r: _ratios(stats, r) for r in refs if r in stats}
    ratios_one = _ratios(stats, refs[0] + ONE_CPU) if one and refs[0] + ONE_CPU in stats else {}
    for name, s in stats.items():
        if name.endswith(ONE_CPU):
            continue
        med = float(s["median"])  # type: ignore[arg-type]
        cells = [name, f"{med:.3f}", f"{size / 1e6 / med:.0f}"]
        cells += [f"{ratios[r][name]:.2f}" if r in ratios else "-" for r in refs]
        peak = s["peak_mb"]
        cells.append(f"{peak:.0f}" if peak is not None else "-")
        if one:
            pinned = stats.get(name + ONE_CPU)
            cells.append(f"{float(pinned['median']):.3f}" if pinned else "-")  # type: ignore[arg-type]
            cells.append(f"{ratios_one[name + ONE_CPU]:.2f}" if pinned and ratios_one else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


SAMPLE = ROOT / "examples" / "sample.warc.gz"
#: Start-up: what a command costs before it does anything (#19: under 30 ms over a bare
#: interpreter for ``--version`` and for opening a file and reading its first record).
STARTUP_CONTENDERS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import warckit": [sys.executable, "-c", "import warckit"],
    "warckit.open + first record": [
        sys.executable, "-c", f"import warckit\nwith warckit.open({str(SAMPLE)!r}) as r:\n    next(iter(r))"],
    "warckit --version": [sys.executable, "-m", "warckit", "--version"],
    "warckit index (sample)": [sys.executable, "-m", "warckit", "index", str(SAMPLE), "-o", "/dev/null"],
    "warckit check (sample)": [sys.executable, "-m", "warckit", "check", "-q", "--no-progress", str(SAMPLE)],
    "fastwarc index (sample)": ["fastwarc", "index", str(SAMPLE)],
}
STARTUP_TITLE = f"## start-up (`examples/{SAMPLE.name}`, {SAMPLE.stat().st_size:,} bytes)"


def startup(runs: int) -> str:
    """Start-up of each :data:`STARTUP_CONTENDERS` (one CPU is not measured apart: these
    run on one): median wall time and the paired median over ``python -c pass``."""
    cmds = {n: (c, _env(n)) for n, c in STARTUP_CONTENDERS.items()}
    times: dict[str, list[float]] = {n: [] for n in cmds}
    for cmd, env in cmds.values():
        _run(cmd, env)
    for _ in range(runs):
        for name, (cmd, env) in cmds.items():
            times[name].append(_run(cmd, env)[0])
    bare = times["python -c pass"]
    lines = [f"{runs} alternating runs after one warm-up; over `python -c pass`: paired median of the differences.",
             "", "| command | median ms | over `python -c pass` ms |", "|---|---|---|"]
    for name, t in times.items():
        over = statistics.median(a - b for a, b in zip(t, bare))
        lines.append(f"| {name} | {1000 * statistics.median(t):.1f} | {1000 * over:+.1f} |")
    return "\n".join(lines)


def make_corpora(mixes: list[str], size: int, workdir: Path, seed: int | None = None) -> dict[str, Path]:
    workdir.mkdir(parents=True, exist_ok=True)
    out = {}
    for mix in mixes:
        base = workdir / (f"{mix}-{size}" + (f"-seed{seed}" if seed is not None else ""))
        path = base.with_suffix(".warc.gz")
        if not path.exists():
            subprocess.run([sys.executable, str(MAKE_CORPUS), str(base), str(size), "--mix", mix,
                            "--compress", "gzip", *(["--seed", str(seed)] if seed is not None else [])],
                           check=True, stdout=subprocess.DEVNULL)
        out[mix] = path
    return out


def random_offsets(path: Path, count: int, workdir: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    import warckit

    with warckit.open(path) as reader:
        offsets = [r.offset for r in reader]
    rng = random.Random(20261130)
    chosen = [rng.choice(offsets) for _ in range(count)]
    target = workdir / (path.name + ".offsets.json")
    target.write_text(json.dumps(chosen))
    return target


_BUILD = """
import json
from warckit import _speedups
print(json.dumps({n: [s.implementation, s.reason, list(s.libraries)] for n, s in _speedups.status().items()}))
"""


def build_status(name: str = "warckit") -> dict[str, list[object]]:
    """{module: [implementation, reason, libraries]} of the warckit contender *name* imports."""
    out = subprocess.run([sys.executable, "-c", _BUILD], env=_env(name), cwd="/", capture_output=True,
                         text=True, check=True).stdout
    status: dict[str, list[object]] = json.loads(out)
    return status


def describe_build(status: dict[str, list[object]]) -> str:
    """One line for RESULTS.md: per-module implementation, then the C libraries used."""
    mods = ", ".join(f"{n} {impl}" for n, (impl, _, _) in status.items())
    libs = sorted({lib for _, _, libraries in status.values() for lib in libraries})  # type: ignore[attr-defined]
    return f"{mods}; {'; '.join(libs) if libs else 'no C libraries'}"


def _commit(root: Path) -> str:
    """*root*'s commit, and the files of the measured code that differ from it when the
    report is written (a run that overlaps an edit measured neither tree)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout

    commit = git("rev-parse", "--short", "HEAD").strip()
    status = git("status", "--porcelain", "--untracked-files=no", "--", "warckit", "_speedups",
                 "setup.py")
    changed = [line[3:] for line in status.split("\n") if line.strip()]
    return f"{commit} **with uncommitted changes to {', '.join(changed)}**" if changed else commit


def import_hooks() -> list[str]:
    """The editable-install import hooks (``__editable__*finder``) that start with every Python
    process of this interpreter: a hook imports pathlib, fnmatch and importlib.util at site
    time, about 9 ms of every contender's start-up, the peers' included (a path-entry install,
    ``pip install -e . --config-settings editable_mode=compat``, has none)."""
    import sysconfig

    site_dir = Path(sysconfig.get_paths()["purelib"])
    return sorted(p.name for p in site_dir.glob("__editable__*finder.py"))


def machine() -> str:
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = _commit(ROOT)
    versions = []
    for mod in ("warcio", "fastwarc", "isal", "surt", "cdxj_indexer"):
        try:
            from importlib.metadata import version

            versions.append(f"{mod} {version(mod.replace('_', '-'))}")
        except Exception:
            pass
    return (f"{os.cpu_count()} cores, {model}; Python {platform.python_version()}; "
            f"commit {commit}; {', '.join(versions)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=1000, help="MB of uncompressed WARC per mix (default 1000)")
    ap.add_argument("--quick", action="store_true", help="100 MB per mix and 3 runs")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mixes", default="domain,cc,small")
    ap.add_argument("--paths", default="headers,payload,verify,check,index,random,write,surt,startup")
    ap.add_argument("--no-one-cpu", action="store_true",
                    help="leave out the one-CPU runs (taskset -c 0) and their columns")
    ap.add_argument("--seed", type=int, help="make_corpus.py --seed for the corpora (default: its own)")
    ap.add_argument("--workdir", default="/tmp/warckit-bench")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    ap.add_argument("--allow-pure", action="store_true",
                    help="run even if some hot modules are on their pure-Python twins")
    ap.add_argument("--baseline", metavar="DIR",
                    help="another warckit checkout (built in place) to measure side by side as warckit@base")
    args = ap.parse_args()
    global BASELINE, BASE_REF, WITH_ONE_CPU
    WITH_ONE_CPU = not args.no_one_cpu
    if args.baseline:
        BASELINE = Path(args.baseline).resolve()
        BASE_REF = ["warckit@base"]
    from _precompile import precompile

    precompile()  # as pip install does (see _precompile.py)
    if BASELINE is not None:
        precompile(BASELINE)  # (or the @base rows would pay the compiling at every start)
    status = build_status()
    if BASELINE is not None:
        status_base = build_status("warckit@base")
        if status_base != status:
            raise SystemExit(f"benchmarks/suite.py: the baseline's build differs: {describe_build(status_base)}")
    pure = {n: reason for n, (impl, reason, _) in status.items() if impl != "c"}
    if pure and not args.allow_pure:
        lines = "\n".join(f"  {n}: {reason}" for n, reason in pure.items())
        raise SystemExit(f"benchmarks/suite.py: the warckit under test ({ROOT}) runs these hot modules "
                         f"in pure Python:\n{lines}\nbuild them (python setup.py build_ext --inplace) "
                         "or pass --allow-pure to measure that build anyway")
    build = describe_build(status)
    print(f"build: {build}", flush=True)
    hooks = import_hooks()
    if hooks:
        print(f"benchmarks/suite.py: warning: this interpreter starts with an editable-install import hook "
              f"({', '.join(hooks)}): every process, the peers' included, pays about 9 ms for it "
              "(see benchmarks/README.md)", file=sys.stderr, flush=True)
    if args.quick:
        args.size, args.runs = 100, 3
    paths = args.paths.split(",")
    workdir = Path(args.workdir)
    per_mix = {"headers", "payload", "verify", "check", "index", "random"}
    corpora = make_corpora(args.mixes.split(","), args.size, workdir, args.seed) if per_mix & set(paths) else {}
    report = [
        "# warckit benchmark results",
        "",
        f"Machine: {machine()}.",
        (f"Start-up: every process runs an editable-install import hook ({', '.join(hooks)})."
         if hooks else "Start-up: no editable-install import hook."),
        (f"Build: {build}." + (f" **Partly pure Python ({', '.join(pure)}): --allow-pure.**" if pure else "")),
        f"Command: `python benchmarks/suite.py --size {args.size} --runs {args.runs} --mixes {args.mixes} --paths {args.paths}"
        + (f" --seed {args.seed}" if args.seed is not None else "") + (" --no-one-cpu" if args.no_one_cpu else "")
        + (f" --baseline {args.baseline}`; baseline commit {_commit(BASELINE)}." if BASELINE else "`."),
        "Whole-process wall time (start-up included), one warm-up, then alternating runs; "
        "ratios are paired medians (run by run); peak RSS is each process's own VmHWM."
        + (" The 1 CPU columns are the same commands pinned to one CPU (`taskset -c 0`: no read-ahead "
           "thread, one process), in the same rounds, against the reference pinned alike." if WITH_ONE_CPU else ""),
    ]
    for mix, path in corpora.items():
        size = path.stat().st_size
        report += ["", f"## {mix} ({size / 1e6:.0f} MB gzip, {args.size} MB uncompressed)"]
        for mode in ("headers", "payload"):
            if mode in paths:
                cmds = {n: (_python_cmd(c, path, mode == "payload", None), _env(n)) for n, c in with_baseline(READ_CONTENDERS).items()}
                stats = measure(cmds, args.runs)
                report += ["", f"### iterate, {'headers only' if mode == 'headers' else 'read every block'}", "",
                           table(stats, size, ["fastwarc", "isal-gunzip", *BASE_REF])]
                print(report[-1], flush=True)
        if "verify" in paths:
            cmds = {n: (_python_cmd(c, path, False, None), _env(n)) for n, c in with_baseline(VERIFY_CONTENDERS).items()}
            stats = measure(cmds, args.runs)
            report += ["", "### verify block + payload digests", "", table(stats, size, ["fastwarc", "isal+sha1", *BASE_REF])]
            print(report[-1], flush=True)
        if "check" in paths:
            cmds = {n: ([a.format(path=path) for a in c], _env(n)) for n, c in with_baseline(CHECK_CONTENDERS).items()}
            stats = measure(cmds, args.runs)
            report += ["", "### check (structure, fields, block + payload digests)", "",
                       table(stats, size, ["fastwarc check -p", *(["warckit check@base"] if BASELINE else [])])]
            print(report[-1], flush=True)
        if "index" in paths:
            cmds = {n: ([a.format(path=path) for a in c], _env(n)) for n, c in with_baseline(INDEX_CONTENDERS).items()}
            stats = measure(cmds, args.runs)
            report += ["", "### index (new-style CDX / fastwarc default / CDXJ)", "",
                       table(stats, size, ["fastwarc index", "cdxj-indexer", *(["warckit index@base"] if BASELINE else [])])]
            print(report[-1], flush=True)
        if "random" in paths:
            offsets = random_offsets(path, 1000, workdir)
            cmds = {n: (_python_cmd(c, path, False, offsets), _env(n)) for n, c in with_baseline(RANDOM_CONTENDERS).items()}
            stats = measure(cmds, args.runs)
            report += ["", "### 1,000 records read at random offsets", "", table(stats, size, ["fastwarc", *BASE_REF])]
            print(report[-1], flush=True)
    if "startup" in paths:
        report += ["", STARTUP_TITLE, "", startup(max(21, 4 * args.runs))]
        print(report[-1], flush=True)
    for name, script, extra in (("write", "bench_write.py", ["--rounds", "10"]), ("surt", "bench_surt.py", [])):
        if name not in paths:
            continue
        for who, root in [("", ROOT)] + ([("@base", BASELINE)] if BASELINE else []):
            assert root is not None
            out = subprocess.run([sys.executable, str(root / "benchmarks" / script), *extra], env=_env(name + who),
                                 capture_output=True, text=True, check=True).stdout
            report += ["", f"## {name}{who} (`benchmarks/{script} {' '.join(extra)}`)", "", "```", out.strip(), "```"]
            print(out, flush=True)
    Path(args.out).write_text("\n".join(report) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
