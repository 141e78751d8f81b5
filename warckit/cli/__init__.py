"""The ``warckit`` command: parse arguments, call the library, print.

Each subcommand lives in its own module ``warckit.cli.NAME`` with two functions,
``add_parser(subparsers)`` and ``run(args) -> int``. Exit status: 0 success,
1 bad input (a :class:`~warckit.errors.WarckitError`, message names file and offset),
2 usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .._version import __version__
from ..errors import UsageError, WarckitError

#: Subcommand modules, in the order ``warckit --help`` lists them.
COMMANDS: tuple[str, ...] = (
    "ls",
    "extract",
    "check",
    "index",
    "merge",
    "query",
    "surt",
    "recompress",
    "arc2warc",
    "crawllog2warc",
    "dedup",
)


def version_text() -> str:
    """What ``warckit --version`` prints: the version, then each hot module's implementation."""
    import platform

    from .. import _speedups

    modules = _speedups.status()
    used = sum(s.implementation == "c" for s in modules.values())
    lines = [f"warckit {__version__} ({platform.python_implementation()} {platform.python_version()})",
             f"compiled hot modules: {used} of {len(modules)} in use"
             + ("" if used == len(modules) else "; the others run their pure-Python twins (slower)")]
    width = max(len(name) for name in modules)
    for name, s in modules.items():
        if s.implementation == "c":
            detail = "compiled" + (f": {', '.join(s.libraries)}" if s.libraries else "")
        else:
            detail = f"pure Python: {s.reason}"
        lines.append(f"  {name:<{width}}  {detail}")
    return "\n".join(lines)


class _VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` (argparse's own action rewraps lines)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser with every available subcommand registered.

    Args:
        only: Register just this subcommand (so that running one command does not
            import the implementation of every other).
    """
    parser = argparse.ArgumentParser(
        prog="warckit",
        description="Read, write, check and index WARC/ARC files; canonicalize URLs.",
    )
    parser.add_argument("--version", action=_VersionAction,
                        help="show the version and which hot modules are compiled, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"warckit.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"warckit.cli.{name}":
                continue  # subcommand not part of this build
            raise
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``warckit`` command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    only = args_list[0] if args_list and args_list[0] in COMMANDS else None
    parser = build_parser(only)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"warckit {args.command}: {exc}", file=sys.stderr)
        return 2
    except WarckitError as exc:
        print(f"warckit {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # Output piped into `head`: not an error of ours.
        try:
            sys.stdout.close()
        except Exception:  # pragma: no cover - nothing left to do
            pass
        return 0
    except OSError as exc:
        print(f"warckit {args.command}: {exc}", file=sys.stderr)
        return 1
