"""Command line and console frontend: ``ttt-engine`` (also ``python -m ttt_engine``).

Subcommands::

    ttt-engine play    play a game against an engine, or watch two engines
    ttt-engine eval    a saved model or an engine against random/perfect/another engine
    ttt-engine serve   a local web page: play, watch two engines, see them think
    ttt-engine yardstick  an engine's moves judged exactly on the game's suite of positions
    ...                and each game's own command (ttt-engine train: Tic-Tac-Toe's
                       Q-learning; clobber, quixo, connect4)

Each command is one module of this package exposing ``add_parser(subparsers)``
and ``run(args) -> exit status``; a module that has both is a command (found
when the parser is built, so adding a command is adding a module).  A game's
own command is the module its registry entry names (``Game.commands``, in the
game's package).  The games come from the library's registry, ``ttt_engine.games``.

Console conventions: anything that is not a legal move gets a one-line reason
and the prompt again; ``q`` quits (exit 0); end of input (Ctrl-D) exits 0;
Ctrl-C exits 130; every error is one line ``ttt-engine: error: ...`` on stderr
with the exit status of ``_errors`` (never a traceback), writing to a closed
pipe or a full disk included.  Colours and box drawing only when stdout is a
terminal and ``NO_COLOR`` is unset; plain text when piped.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import os
import pkgutil
import sys
import textwrap
import warnings

from ttt_engine.cli._errors import (
    EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, PROG, CLIError, EndOfInput, Quit,
)
from ttt_engine.cli._options import Parser

__all__ = ["main", "build_parser", "command_modules", "run_standalone"]

#: Environment variable that lets an unexpected error show its traceback.
DEBUG_ENV = "TTT_ENGINE_DEBUG"

#: Longest error message printed (the rest is cut).
ERROR_MAX = 300

#: Order of the commands in ``--help``; modules not listed here come after, by name,
#: and the games' own commands (``Game.commands``) last, in the game list's order.
ORDER = ("play", "serve", "eval")


def command_modules():
    """The command modules, in ``--help`` order: the ones of this package, then
    each game's own (its registry entry's ``commands``; the command is named
    after the game)."""
    from ttt_engine import games
    names = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
    names.sort(key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    mods = [importlib.import_module(f"{__name__}.{n}") for n in names]
    mods += [importlib.import_module(g.commands) for g in games.GAMES.values() if g.commands]
    return [m for m in mods if hasattr(m, "add_parser") and hasattr(m, "run")]


def _command_module(command):
    """The module of command ``command`` (a module of this package, or the game
    ``command``'s own commands); ``ValueError`` when there is none."""
    from ttt_engine import games
    if command in games.GAMES and games.get(command).commands:
        return importlib.import_module(games.get(command).commands)
    if not command.startswith("_") and command in {
            m.name for m in pkgutil.iter_modules(__path__)}:
        return importlib.import_module(f"{__name__}.{command}")
    raise ValueError(f"unknown command {command!r}")


def build_parser():
    """The ``ttt-engine`` parser with every command's subparser."""
    from ttt_engine import __version__, games
    titles = [g.title for g in games.GAMES.values()]     # the registry's games, in its order

    def fill(text):                 # never split a title such as Tic-Tac-Toe at a hyphen
        return textwrap.fill(text, 79, break_on_hyphens=False)

    parser = Parser(
        prog=PROG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=fill(f"Game-AI engine: play, train and evaluate engines of the "
                         f"{len(titles)} games here ({', '.join(titles)}) from the console."),
        epilog=fill("Run '%(prog)s COMMAND --help' for the options of a command. "
                    "Exit status: 0 ok (also q and Ctrl-D), 1 the work could not be done (a "
                    "file missing or not writable, a closed output), 2 bad usage (options, "
                    "arguments, input file contents), 130 Ctrl-C."),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for mod in command_modules():
        mod.add_parser(sub)
    return parser


def main(argv=None):
    """Entry point of ``ttt-engine`` / ``python -m ttt_engine``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    shown = io.StringIO()       # --help and --version, written below with error checks
    try:
        with contextlib.redirect_stdout(shown):
            args = build_parser().parse_args(argv)
    except SystemExit as e:     # --help, --version, or a usage error (already one line)
        if e.code:
            return e.code
        return _guarded(lambda _: print(shown.getvalue(), end=""), None, PROG)
    return _guarded(args.run, args, PROG)


def run_standalone(command, argv=None, prog=None):
    """Run one command (a game's, e.g. ``"quixo"``) with its own parser named
    ``prog``, as ``python -m ttt_engine.<module>`` does; returns the exit
    status (argparse errors exit through ``SystemExit`` as usual)."""
    mod = _command_module(command)
    parser = Parser(prog=prog or f"{PROG} {command}")
    mod.configure(parser)
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    return _guarded(args.run, args, parser.prog)


def _error(prog, message):
    """One line on stderr (a longer message is cut: it may echo user input)."""
    text = " ".join(str(message).split())
    if len(text) > ERROR_MAX:
        text = text[:ERROR_MAX - 3] + "..."
    with contextlib.suppress(OSError, ValueError):
        print(f"{prog}: error: {text}", file=sys.stderr, flush=True)


def _silence_stdout():
    """After an output error: point stdout at /dev/null so that the interpreter's
    final flush cannot print a second message."""
    with contextlib.suppress(OSError, ValueError):
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)


def _output_error(prog, e):
    _silence_stdout()
    what = "the output is closed" if e.errno == errno.EPIPE else (e.strerror or str(e))
    _error(prog, f"cannot write the output: {what}")
    return EXIT_ERROR


def _warning_line(prog):
    """A ``warnings.showwarning`` that writes ``prog: warning: message`` on one line."""
    def show(message, category, filename, lineno, file=None, line=None):
        text = " ".join(str(message).split())
        with contextlib.suppress(OSError, ValueError):
            print(f"{prog}: warning: {text}", file=sys.stderr, flush=True)
    return show


def _guarded(run, args, prog):
    """Run a command with the exit-status conventions: q/Ctrl-D 0, Ctrl-C 130,
    a ``CLIError`` or a library's ``ValueError`` one line, an output error one
    line and 1; never a traceback."""
    try:
        with warnings.catch_warnings():
            # a library's warning ("the book cannot be read: solving instead") is one line
            # for the console user, not a source file and line of our code
            warnings.showwarning = _warning_line(prog)
            code = run(args) or EXIT_OK
        sys.stdout.flush()
        return code
    except Quit:
        return _say_and_exit("Bye.", prog)
    except EndOfInput:
        return _say_and_exit("\nEnd of input: bye.", prog)
    except KeyboardInterrupt:
        with contextlib.suppress(OSError, ValueError):
            print("\nInterrupted.", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except CLIError as e:
        _flush_quietly()
        _error(prog, e)
        return e.code
    except ValueError as e:     # a library's input check on a value passed through
        _flush_quietly()
        _error(prog, e)
        return EXIT_ERROR
    except OSError as e:
        if e.errno in (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT) or \
                isinstance(e, BrokenPipeError):
            return _output_error(prog, e)
        _error(prog, e.strerror or str(e))
        return EXIT_ERROR
    except Exception as e:      # a bug: one line, the traceback on request
        if os.environ.get(DEBUG_ENV):
            raise
        _flush_quietly()
        _error(prog, f"internal error ({type(e).__name__}: {e}); set {DEBUG_ENV}=1 for the "
                     "traceback and please report it")
        return EXIT_ERROR


def _say_and_exit(text, prog):
    try:
        print(text, flush=True)
    except OSError as e:
        return _output_error(prog, e)
    return EXIT_OK


def _flush_quietly():
    try:
        sys.stdout.flush()
    except OSError:
        _silence_stdout()
