"""The command line options of ``play`` and ``eval`` applied to a game of the
registry (``ttt_engine.games``): the board (``--size``, ``--board``), the move
notation (``--zero-based``) and the engines with their options.  Nothing here
knows a particular game: an option the chosen game or engines do not take is
refused, in one line, never ignored."""
from __future__ import annotations

import textwrap

from ttt_engine import games
from ttt_engine.cli._errors import EXIT_USAGE, CLIError, shorten
from ttt_engine.cli._files import board_error, read_board_text

__all__ = ["GAMES", "engine_help", "resolve_engine", "new_board", "notation",
           "check_engine_options", "ENGINE_OPTIONS"]

GAMES = games.GAMES

#: command line option -> (make_agent keyword, is it a budget)
ENGINE_OPTIONS = {"--simulations": ("simulations", True), "--time": ("time", True),
                  "--depth": ("depth", True), "--heuristic": ("heuristic", False),
                  "--network": ("network", False)}


def engine_help():
    """The ``--help`` section that lists the engines of every game."""
    lines = ["engines per game:"]
    for g in GAMES.values():
        lines.append(f"  {g.key} ({g.title}; default {g.default_engine}):")
        for e in g.engines.values():
            lines.extend(textwrap.wrap(e.help, 79, initial_indent=f"    {e.name:10}",
                                       subsequent_indent=" " * 14))
    return "\n".join(lines)


def resolve_engine(game, name, what="--opponent"):
    """The engine ``name`` of ``game``; a usage error listing its engines otherwise."""
    if name not in game.engines:
        raise CLIError(f"{what} {shorten(name)} is not an engine of {game.title}; choose from "
                       f"{', '.join(game.engines)}", EXIT_USAGE)
    return game.engines[name]


def _refuse(option, where):
    raise CLIError(f"{option} does not apply to {where}", EXIT_USAGE)


def notation(game, args):
    """The move-text keywords of ``game`` chosen on the command line."""
    if getattr(args, "zero_based", False):
        if "zero_based" not in game.notation:
            _refuse("--zero-based", game.title)
        return {"zero_based": True}
    return {}


def _size_options(game, text):
    """``--size`` as the game's board options: ``rows``/``cols`` (``RxC`` or ``N``)
    or ``size`` (``N``)."""
    t = text.lower().replace(" ", "")
    rows, x, cols = t.partition("x")
    try:
        rows, cols = int(rows), int(cols if x else rows)
    except ValueError:
        rows = cols = None
    if "rows" in game.options and "cols" in game.options:
        if rows is None:
            raise CLIError(f"--size {shorten(text)}: write ROWSxCOLS (e.g. 6x5) or N",
                           EXIT_USAGE)
        return {"rows": rows, "cols": cols}
    if "size" in game.options:
        if rows is None or rows != cols:
            raise CLIError(f"--size {shorten(text)}: {game.title} boards are square; write N",
                           EXIT_USAGE)
        return {"size": rows}
    _refuse("--size", game.title)


def new_board(game, args):
    """The start position: ``--board FILE`` (read with a bounded size), else a new
    board with ``--size``; a bad one is a one-line usage error."""
    size, path = getattr(args, "size", None), getattr(args, "board", None)
    if size is not None and path is not None:
        raise CLIError("give --board or --size, not both", EXIT_USAGE)
    if path is not None:
        text = read_board_text(path)
        try:
            return game.from_string(text)
        except ValueError as e:         # positions count from the first line with text
            raise board_error(path, text, e, len(text) - len(text.lstrip("\n"))) from None
    options = _size_options(game, size) if size is not None else {}
    try:
        return game.new_board(**options)
    except ValueError as e:
        raise CLIError(f"--size {shorten(size)}: {e}", EXIT_USAGE) from None


def check_engine_options(game, names, args):
    """Refuse an engine option that none of the engines ``names`` of ``game`` takes."""
    engines = [game.engines[n] for n in names]
    where = " or ".join(f"the {n} engine" for n in dict.fromkeys(names))
    takes = [option for option, (key, budget) in ENGINE_OPTIONS.items()
             if any(key in (e.budgets if budget else e.extra) for e in engines)]
    for option, (key, _budget) in ENGINE_OPTIONS.items():
        if getattr(args, key, None) is not None and option not in takes:
            _refuse(option, f"{where} of {game.title} (engine options there: "
                            f"{', '.join(takes) or 'none'})")
    learned = any(e.learned for e in engines)
    for option, key in (("--model", "model"), ("--train-episodes", "train_episodes"),
                        ("--retrain", "retrain")):
        if getattr(args, key, None) and not learned:
            _refuse(option, f"{where} of {game.title} (only to engines that learn a model)")


