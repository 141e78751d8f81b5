"""Long fuzz campaign, run by hand outside CI: compiled vs pure twins on every input.

    python tests/fuzz/campaign.py --seed 1 --seconds 600 [--inputs 1000000] [--parsers warc,arc,...]

Each input is a mutated seed (see ``seeds.py``: plain, gzip-per-record, whole-file
gzip, zstd with and without a dictionary, ARC, gzipped ARC; or a header block, an
HTTP head, a WARC-Date). It goes through the compiled and the pure build of warckit,
loaded side by side in this one process, strict and lenient; for a whole archive
every record's offset, length, type, status, issues and a digest of its decoded
content are compared, and the error type and offset where reading stopped. A finding
is any disagreement, any exception that is not a ``WarckitError``, or an input that
takes longer than ``--hang`` seconds; each is saved under ``--out`` and reported.
Exit status: 0 with no findings, 1 with findings.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import signal
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzz.seeds import SEEDS, inner, recompress

_SUBMODULES = (
    "errors", "headers", "http", "records", "reader", "_chunked", "_compression", "_dates",
    "verify", "digests", "segments",
)


def _load_twins() -> tuple[dict[str, ModuleType], dict[str, ModuleType]]:
    """Import warckit twice: compiled, then pure; return each copy's modules by name."""
    import importlib

    def snapshot() -> dict[str, ModuleType]:
        for name in _SUBMODULES:
            importlib.import_module(f"warckit.{name}")
        return {k: v for k, v in sys.modules.items() if k == "warckit" or k.startswith("warckit.")}

    os.environ.pop("WARCKIT_NO_EXTENSIONS", None)
    compiled = snapshot()
    if compiled["warckit._speedups"].IMPLEMENTATION != "c":  # type: ignore[attr-defined]
        sys.exit("the compiled modules are not built: python setup.py build_ext --inplace")
    for k in compiled:
        del sys.modules[k]
    os.environ["WARCKIT_NO_EXTENSIONS"] = "1"
    pure = snapshot()
    os.environ.pop("WARCKIT_NO_EXTENSIONS")
    assert pure["warckit._speedups"].IMPLEMENTATION == "py"  # type: ignore[attr-defined]
    return compiled, pure


class Hang(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise Hang


# --- mutation -----------------------------------------------------------------

_INTERESTING = [
    b"\r\n", b"\n", b"\r", b"\r\n\r\n", b": ", b"0", b"9" * 20, b"-1", b"\x00", b"\xff", b"\xc3",
    b"\xd9\xa1\xd9\xa2", b"\xc2\xb2", b" \t", b"\r\n ", b"\r\n\t", b"WARC/1.0\r\n", b"WARC/1.1\r\n",
    b"Content-Length: ", b"chunked", b"gzip", b"br", b"zstd", b"HTTP/1.1 ", b"9999-12-31T23:59:60Z",
    b"0001-01-01T00:00:00+01:00", b"\x1f\x8b\x08\x00", b"\x28\xb5\x2f\xfd", b"\x5d\x2a\x4d\x18",
    b"filedesc://", b"ffffffff\r\n", b"%", b"\x1d",
]


def mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 5, 8))):
        n = len(buf) or 1
        pos = rng.randrange(n)
        op = rng.randrange(8)
        if op == 0:
            buf[pos : pos + 1] = bytes([rng.randrange(256)])
        elif op == 1:
            buf[pos : pos + 1] = bytes([buf[pos] ^ (1 << rng.randrange(8))]) if buf else b"\x01"
        elif op == 2:
            del buf[pos : pos + rng.choice((1, 2, 4, 16, 256))]
        elif op == 3:
            buf[pos:pos] = rng.choice(_INTERESTING)
        elif op == 4:
            buf[pos : pos + rng.randrange(1, 8)] = rng.choice(_INTERESTING)
        elif op == 5:  # duplicate a slice (repeated headers, records)
            end = min(len(buf), pos + rng.choice((8, 64, 512)))
            buf[pos:pos] = buf[pos:end] * rng.choice((1, 2, 50))
        elif op == 6:  # digits
            buf[pos : pos + rng.randrange(1, 4)] = str(rng.choice((0, 1, 7, 255, 65536, 2**31, 2**63, 10**20))).encode()
        else:
            del buf[pos:]
    return bytes(buf)


def make_input(rng: random.Random, name: str) -> bytes:
    seed = SEEDS[name]
    if name != "warc" and name != "arc" and rng.random() < 0.5:
        return recompress(name, mutate(rng, inner(name, seed)))  # damage inside the compression
    return mutate(rng, seed)


# --- running one input through a build ------------------------------------------


def read_archive(mods: dict[str, ModuleType], data: bytes, lenient: bool) -> tuple[Any, ...]:
    sys.modules.update(mods)  # lazy imports inside warckit resolve to this build
    wk: Any = mods["warckit"]
    rows: list[Any] = []
    try:
        with wk.open(io.BytesIO(data), lenient=lenient, max_header_size=1 << 16) as reader:
            for rec in reader:
                h = hashlib.blake2b(digest_size=8)
                status = rec.http_status if rec.has_http else None
                stream = rec.content_stream(decode_content=True, max_decoded=1 << 24)
                while piece := stream.read(1 << 16):
                    h.update(piece)
                date = rec.date if rec.format == "warc" else None
                rows.append((rec.offset, rec.stream_offset, rec.type, status, h.hexdigest(), str(date),
                             rec.length, tuple(i.code for i in rec.issues)))
                if len(rows) > 5000:
                    break
    except mods["warckit.errors"].WarckitError as exc:  # type: ignore[attr-defined]
        return tuple(rows), type(exc).__name__, getattr(exc, "offset", None), None
    except Hang:
        raise
    except Exception as exc:  # noqa: BLE001  (the point: any other exception is a finding)
        return tuple(rows), type(exc).__name__, None, traceback.format_exc()
    return tuple(rows), None, None, None


def read_headers(mods: dict[str, ModuleType], data: bytes, lenient: bool) -> tuple[Any, ...]:
    sys.modules.update(mods)
    hp: Any = mods["warckit._speedups"].load("headers")  # type: ignore[attr-defined]
    try:
        fields, warnings = hp.parse_fields(data, 0, len(data), lenient)
        return fields, warnings, None, None
    except hp.HeadError as exc:
        return (), str(exc), exc.position, None
    except Exception as exc:  # noqa: BLE001
        return (), type(exc).__name__, None, traceback.format_exc()


def read_http(mods: dict[str, ModuleType], data: bytes, lenient: bool) -> tuple[Any, ...]:
    sys.modules.update(mods)
    http: Any = mods["warckit.record.http"]
    try:
        h = http.parse_http_head(data, lenient=lenient)
        return (h.status, h.chunked, tuple(h.content_encodings()), h.mime_type), None, None, None
    except mods["warckit.errors"].WarckitError as exc:  # type: ignore[attr-defined]
        return (), type(exc).__name__, None, None
    except Exception as exc:  # noqa: BLE001
        return (), type(exc).__name__, None, traceback.format_exc()


def read_date(mods: dict[str, ModuleType], data: bytes, lenient: bool) -> tuple[Any, ...]:
    sys.modules.update(mods)
    dates: Any = mods["warckit._util.dates"]
    try:
        return str(dates.parse_warc_date(data.decode("latin-1"))), None, None, None
    except mods["warckit.errors"].WarckitError as exc:  # type: ignore[attr-defined]
        return (), type(exc).__name__, None, None
    except Exception as exc:  # noqa: BLE001
        return (), type(exc).__name__, None, traceback.format_exc()


_HEAD = SEEDS["warc"].split(b"\r\n\r\n", 1)[0].split(b"\r\n", 1)[1] + b"\r\n"
_HTTP = SEEDS["warc"][SEEDS["warc"].index(b"HTTP/1.1 200") :].split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
#: Parser → (seed bytes or None for an archive seed, runner).
PARSERS: dict[str, tuple[bytes | None, Any]] = {
    **{name: (None, read_archive) for name in SEEDS},
    "headers": (_HEAD, read_headers),
    "http": (_HTTP, read_http),
    "date": (b"2024-05-06T07:08:09.123456Z", read_date),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=600.0, help="time budget")
    ap.add_argument("--inputs", type=int, default=0, help="stop after this many inputs per parser (0: time only)")
    ap.add_argument("--parsers", default=",".join(PARSERS), help="comma-separated, from: " + ",".join(PARSERS))
    ap.add_argument("--hang", type=int, default=20, help="seconds one input may take")
    ap.add_argument("--out", default="fuzz-findings", help="where failing inputs are saved")
    args = ap.parse_args(argv)
    names = args.parsers.split(",")
    compiled, pure = _load_twins()
    rng = random.Random(args.seed)
    out = Path(args.out)
    signal.signal(signal.SIGALRM, _on_alarm)
    counts: Counter[str] = Counter()
    findings: Counter[str] = Counter()
    seen: set[str] = set()
    start = time.monotonic()
    last = start
    while time.monotonic() - start < args.seconds:
        live = [n for n in names if not args.inputs or counts[n] < args.inputs]
        if not live:
            break
        name = rng.choice(live)
        seed, run = PARSERS[name]
        data = make_input(rng, name) if seed is None else mutate(rng, seed)
        lenient = rng.random() < 0.5
        counts[name] += 1
        kind = None
        detail = ""
        signal.alarm(args.hang)
        try:
            a = run(compiled, data, lenient)
            b = run(pure, data, lenient)
        except Hang:
            kind, detail = "hang", f"more than {args.hang} s"
        finally:
            signal.alarm(0)
        if kind is None:
            if a[3] is not None or b[3] is not None:
                kind, detail = f"not-WarckitError:{a[1] if a[3] else b[1]}", a[3] or b[3]
            elif a != b:
                kind, detail = "twins-disagree", f"compiled: {a!r}\npure:     {b!r}"
        if kind is not None:
            key = f"{name}:{kind}:{detail.strip().splitlines()[-1][:120] if detail else ''}"
            findings[f"{name}:{kind}"] += 1
            if key not in seen:
                seen.add(key)
                out.mkdir(parents=True, exist_ok=True)
                stem = out / f"{name}-{len(seen):03d}"
                stem.with_suffix(".bin").write_bytes(data)
                stem.with_suffix(".txt").write_text(f"{name} lenient={lenient} {kind}\n{detail}\n")
                print(f"FINDING {stem}.bin {name} lenient={lenient} {kind}: {detail.strip().splitlines()[-1][:200]}",
                      flush=True)
        now = time.monotonic()
        if now - last > 60:
            last = now
            total = sum(counts.values())
            print(f"[{now - start:.0f} s] {total} inputs ({total / (now - start):.0f}/s) {dict(findings)}", flush=True)
    elapsed = time.monotonic() - start
    total = sum(counts.values())
    print(f"seed {args.seed}: {total} inputs in {elapsed:.0f} s ({total / elapsed:.0f}/s)")
    for n in names:
        print(f"  {n:16} {counts[n]:9d} inputs")
    print(f"findings: {sum(findings.values())} ({len(seen)} distinct) {dict(findings)}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
