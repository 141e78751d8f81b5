"""The ``warckit`` command's parser and the run of one command (see :mod:`warckit.cli`)."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from ..errors import UsageError, WarckitError
from ._about import COMMANDS, version_text
from ._common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_STATUS_EPILOG,
    EXIT_USAGE,
    ArgumentParser,
    HelpFormatter,
    apply_storage_options,
    error_line,
)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["build_parser", "run"]


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
    parser = ArgumentParser(
        prog="warckit",
        description="Read, write, check and index WARC/ARC files; canonicalize URLs.",
        epilog=EXIT_STATUS_EPILOG,
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
    _finish(parser)
    return parser


def _finish(parser: argparse.ArgumentParser) -> None:
    """Give every (sub)command parser the shared formatter and the exit-status epilog."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                child.formatter_class = HelpFormatter
                if child.epilog is None:
                    child.epilog = EXIT_STATUS_EPILOG
                _finish(child)


def run(args_list: Sequence[str]) -> int:
    """Parse *args_list* and run the command; return the exit status."""
    args_list = list(args_list)
    only = args_list[0] if args_list and args_list[0] in COMMANDS else None
    parser = build_parser(only)
    try:
        args, extra = parser.parse_known_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    command = " ".join(filter(None, (args.command, getattr(args, "action", None))))
    intermixed = getattr(args, "_intermixed", None)
    if extra and intermixed and not any(e.startswith("-") and e != "-" for e in extra):
        # Positionals after options (`query INDEX --from 2014 URL`): argparse stops
        # filling a nargs="+" positional at the first option.
        getattr(args, intermixed).extend(extra)
    elif extra:
        print(f"warckit {command}: error: unrecognized arguments: {' '.join(extra)}",
              file=sys.stderr)
        return EXIT_USAGE
    previous = _raise_on_sigterm()
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _stop_again(previous_hook)
    try:
        # (A stop raised while an error is printed ends the command as a stop too.)
        try:
            apply_storage_options(args)
            return int(args.func(args))
        except UsageError as exc:
            print(error_line(command, exc), file=sys.stderr)
            return EXIT_USAGE
        except WarckitError as exc:
            print(error_line(command, exc), file=sys.stderr)
            return EXIT_FAILED
        except BrokenPipeError:
            # Output piped into `head`: not an error of ours.
            _close_stdout()
            return EXIT_OK
        except OSError as exc:
            print(error_line(command, exc), file=sys.stderr)
            return EXIT_FAILED
    except KeyboardInterrupt:
        return 130  # the shell's convention for SIGINT
    except Terminated:
        return 143  # (128 + SIGTERM)
    finally:
        sys.unraisablehook = previous_hook
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class Terminated(BaseException):
    """SIGTERM arrived: raised where the command is, so that it unwinds as on Ctrl-C
    (temporary outputs and pieces removed, worker processes stopped) instead of dying
    with its temporary files left behind. Forked workers inherit the handler."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def _stop_again(others: Callable[[Any], object]) -> Callable[[Any], None]:
    """The ``sys.unraisablehook`` while a command runs. A stop (SIGTERM, Ctrl-C) that lands
    in code whose exceptions Python prints as "Exception ignored" and drops (a weakref
    callback such as those of importlib's module locks, a ``__del__``) is raised again a
    millisecond later (``SIGALRM``), where the command can unwind; anything else goes to
    *others*, the hook before."""

    def hook(unraisable: Any) -> None:
        stop = unraisable.exc_value
        if isinstance(stop, (Terminated, KeyboardInterrupt)) and hasattr(signal, "setitimer"):

            def again(signum: int, frame: object) -> None:
                raise type(stop)

            try:
                signal.signal(signal.SIGALRM, again)
            except ValueError:  # (not the main thread)
                pass
            else:
                signal.setitimer(signal.ITIMER_REAL, 0.001)
                return
        others(unraisable)

    return hook


def _raise_on_sigterm() -> signal._HANDLER:
    """Make SIGTERM raise :class:`Terminated`; return the handler it replaced (``None``
    off the main thread, where no handler can be set)."""
    try:
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # (not the main thread: main() called from a thread)
        return None


def _close_stdout() -> None:
    try:
        # Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout already gone or replaced
        pass
