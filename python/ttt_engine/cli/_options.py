"""Argument parsing shared by the commands: one-line errors, typed options
with one range message format, the parser of a command built from its
declared help texts, and the option groups several commands use."""
from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Callable, Union

from ttt_engine import _util
from ttt_engine.cli._errors import PROG, shorten

__all__ = ["Parser", "per_game", "count", "whole", "seconds", "real", "fraction", "seed", "path", "Command", "examples", "add_command",
           "add_common", "add_engine_options", "add_quiet", "add_force",
           "MAX_GAMES", "MAX_SIMULATIONS", "MAX_EPISODES", "MAX_DEPTH", "MAX_SECONDS",
           "MAX_DELAY"]

MAX_GAMES = 10**9
MAX_SIMULATIONS = _util.MAX_SIMULATIONS
MAX_EPISODES = 10**12
MAX_DEPTH = _util.MAX_DEPTH
MAX_SECONDS = _util.MAX_SECONDS
MAX_DELAY = 60.0
SEED_MAX = _util.SEED_MAX


class Parser(argparse.ArgumentParser):
    """``argparse`` with a one-line error: ``ttt-engine: error: ...`` and exit 2,
    and no abbreviated options (every subparser is one of these): ``--game``
    must never be read as ``--games``."""

    def __init__(self, *args, allow_abbrev=False, **kwargs):
        super().__init__(*args, allow_abbrev=allow_abbrev, **kwargs)

    def error(self, message):
        self.exit(2, f"{PROG}: error: {message} (see '{self.prog} --help')\n")


def _int_text(text):
    """``text`` as an int: ``12``, ``1_000``, ``1e6``; None when it is not one."""
    t = text.strip().replace("_", "")
    try:
        return int(t)
    except ValueError:
        pass
    try:
        f = float(t)
    except ValueError:
        return None
    if not math.isfinite(f) or not f.is_integer():
        return None
    return int(f)


def count(lo, hi):
    """An argparse type: an integer in ``[lo, hi]`` (``1e6`` and ``1_000`` accepted),
    with the library's message for that range (:func:`ttt_engine._util.int_rule`)."""
    def parse(text):
        v = _int_text(text)
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{_util.int_rule(lo, hi)}, got {shorten(text)}")
        return v
    parse.__name__ = "integer"
    return parse


def whole(lo, hi):
    """An argparse type: an integer in ``[lo, hi]`` written in plain decimal
    digits only (a port, a number of workers: ``1e1`` or ``8_000`` is no such
    number), with the message of :func:`count`."""
    def parse(text):
        t = text.strip()
        v = int(t) if t.isascii() and t.isdigit() else None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{_util.int_rule(lo, hi)} in decimal digits, "
                                             f"got {shorten(text)}")
        return v
    parse.__name__ = "integer"
    return parse


def seconds(lo=0.0, hi=MAX_SECONDS, lo_open=True):
    """An argparse type: seconds in ``(lo, hi]`` (``[lo, hi]`` if not ``lo_open``).
    The default range is the library's one rule for time budgets
    (:func:`ttt_engine._util.check_seconds`), with its message."""
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        try:
            if (lo, hi, lo_open) == (0.0, MAX_SECONDS, True):
                return _util.check_seconds("", v)
            return _util.check_real("", v, low=lo, high=hi, low_open=lo_open)
        except _util.RangeError as e:
            rule = e.rule if "seconds" in e.rule else e.rule.replace("must be", "must be seconds")
            raise argparse.ArgumentTypeError(f"{rule}, got {shorten(text)}") from None
    parse.__name__ = "seconds"
    return parse


def real(text):
    """An argparse type: a finite number (its range is checked by the library)."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {shorten(text)}")
    return v


def fraction(text):
    """An argparse type: a number in [0, 1] (a weight)."""
    v = real(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {shorten(text)}")
    return v


seed = count(0, SEED_MAX)


def path(text):
    """An argparse type: a file path or address, never empty or blank (an
    empty value is refused, not read as the option left out, the default or
    the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("must not be empty")
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must not be blank, got {shorten(text)}")
    return text


#: A part of a command's epilog: its text, or a function that gives it when
#: the parser is built (the engine list reads the game registry).
Section = Union[str, Callable[[], str]]


@dataclasses.dataclass(frozen=True)
class Command:
    """What a command's ``--help`` says, declared once in its module.

    ``help`` is the command's line in ``ttt-engine --help``; ``description``
    and the ``epilog`` sections are printed as written (line breaks kept), the
    sections separated by a blank line."""
    name: str
    help: str
    description: str
    epilog: tuple[Section, ...] = ()

    def epilog_text(self):
        """The epilog: the sections, a blank line between them (None if there are none)."""
        parts = [part() if callable(part) else part for part in self.epilog]
        return "\n\n".join(parts) or None


def examples(*lines):
    """An epilog section of example command lines, each shown after the program
    name (the heading says ``example`` when there is one)."""
    heading = "examples:" if len(lines) > 1 else "example:"
    return "\n".join([heading] + [f"  {PROG} {line}" for line in lines])


def add_command(subparsers, command, run):
    """The parser of ``command`` (a :class:`Command`) in ``subparsers``, with
    ``run`` as its ``run`` default."""
    p = subparsers.add_parser(command.name, formatter_class=argparse.RawDescriptionHelpFormatter,
                              help=command.help, description=command.description,
                              epilog=command.epilog_text())
    p.set_defaults(run=run)
    return p


def per_game(fact):
    """``fact(game)`` of every game of the registry for a help text, games with
    the same value together: "X or O for ttt, uttt, quixo, connect4; B or W
    for clobber" (a game added to the registry appears with no change here)."""
    from ttt_engine import games
    groups = {}
    for g in games.GAMES.values():
        groups.setdefault(fact(g), []).append(g.key)
    return "; ".join(f"{value} for {', '.join(keys)}" for value, keys in groups.items())


def add_quiet(p):
    """``--quiet`` (no progress bar) and the hidden ``--color`` of the commands
    that draw no board."""
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help=argparse.SUPPRESS)


def add_force(p):
    """``--force``: the one overwrite rule of every command that writes a file (an
    output file that exists is refused without it)."""
    p.add_argument("--force", action="store_true",
                   help="replace output files that exist (without it an existing one is "
                        "refused and left as it is)")


def add_common(p, games):
    """``--game``, ``--seed`` and ``--color`` (``games``: the valid game keys)."""
    first = list(games)[0]
    p.add_argument("--game", choices=list(games), default=first,
                   help=f"which game (default: {first})")
    p.add_argument("--seed", type=seed, default=None,
                   help="seed for the engines: same seed, same games with --simulations "
                        "or --depth budgets; --time budgets (and best's default thinking "
                        "time) depend on the machine's speed and load")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colours and box drawing: auto = only on a terminal without NO_COLOR")


def add_engine_options(p):
    g = p.add_argument_group("engine options")
    g.add_argument("--time", type=seconds(), metavar="SECONDS",
                   help="thinking time per move (mcts, alphabeta, tree learners)")
    g.add_argument("--simulations", type=count(1, MAX_SIMULATIONS), metavar="N",
                   help="MCTS simulations per move (default 20000 when --time is not given)")
    g.add_argument("--depth", type=count(1, MAX_DEPTH), metavar="D",
                   help="search depth (alphabeta, minimax)")
    g.add_argument("--heuristic", metavar="NAME",
                   help="Clobber evaluation: adaptive (default), adaptive-leaf, 1/2/3 (the "
                        "mover's seed heuristic), pieces, mobility, own_moves, safe, "
                        "neg_opp_moves, centre or a seed name B1..W3")
    g.add_argument("--network", type=path, metavar="PATH",
                   help="network file of the az engine, and of best where it is "
                        "network-guided (default: the game's shipped one; 'ttt-engine az "
                        "train --out PATH' makes one)")
    g.add_argument("--model", type=path, metavar="PATH",
                   help="model file of a learned engine (default: the cache, see below)")
    g.add_argument("--train-episodes", type=count(1, MAX_EPISODES), metavar="N", default=None,
                   help="episodes (games) when a learned engine has to learn its model")
    g.add_argument("--retrain", action="store_true",
                   help="learn a new model even if one is saved")

