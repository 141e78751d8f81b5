"""The ``warckit`` command: parse arguments, call the library, print.

Each subcommand lives in its own module ``warckit.cli.NAME`` with two functions,
``add_parser(subparsers)`` and ``run(args) -> int``. The conventions they share (exit
status, the one-line error format, ``-`` and directory inputs, ``-o``/``--out-dir``/
``--force``) live in :mod:`warckit.cli._common`: exit status 0 success, 1 damaged or
unreadable input or a failed check, 2 usage error.
"""

from __future__ import annotations

import sys

from ._about import COMMANDS, version_text

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["COMMANDS", "build_parser", "main", "version_text"]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser with every available subcommand registered.

    Args:
        only: Register just this subcommand (so that running one command does not
            import the implementation of every other).
    """
    from ._main import build_parser as build

    return build(only)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``warckit`` command line; return the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["--version"]:
        # What the parser would do, without building it or importing argparse (every
        # subcommand's parser, and argparse's help formatter): start-up time.
        try:
            print(version_text(), flush=True)
        except BrokenPipeError:  # (`warckit --version | head -1`: not an error of ours)
            from ._main import _close_stdout

            _close_stdout()
        return 0
    from ._main import run

    return run(args_list)
