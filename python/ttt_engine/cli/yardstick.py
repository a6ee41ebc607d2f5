"""``ttt-engine yardstick``: an engine's moves judged exactly on the game's
yardstick suite (keeps the value / optimal on the critical positions beside a
random mover's exact expectation, by phase), every engine of a game at once
(``--all``), or the suite made again (``--build``)."""
from __future__ import annotations

import dataclasses
import os
import sys

from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_OK, EXIT_USAGE, CLIError
from ttt_engine.cli._games import GAMES, engine_help, resolve_engine

__all__ = ["COMMAND", "add_parser", "run"]

COMMAND = O.Command(
    name="yardstick",
    help="judge an engine's moves exactly on the game's suite of positions",
    description="""\
Ask an engine for its move in each position of the game's exact yardstick
suite and report how often the move keeps the game-theoretic value and how
often it is optimal, on the critical positions (where some move changes the
outcome) with 95% intervals beside a uniformly random mover's exact
expectation, by phase, then on every position.  --all: every engine of the
game, a Markdown table.  --build: make the game's suite again (minutes to an
hour of one core) and write it to --out (default: the shipped file); a build
stopped (Ctrl-C) keeps what it found in OUT.partial.json and the same command
continues from there.""",
    epilog=(engine_help, O.examples(
        "yardstick --game connect4 --engine mcts --simulations 2000",
        "yardstick --game quixo --all --simulations 1000 --sample 300",
        "yardstick --game clobber --build --out clobber_suite.npz")))

#: the budget options, and the make_agent keyword of each
BUDGETS = {"simulations": "--simulations", "time": "--time", "depth": "--depth"}


def add_parser(subparsers):
    p = O.add_command(subparsers, COMMAND, run)
    p.add_argument("--game", choices=list(GAMES), default=next(iter(GAMES)),
                   help=f"which game (default: {next(iter(GAMES))}, the first of the game list)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--engine", metavar="ENGINE",
                      help="the engine to judge (default: the game's default engine)")
    what.add_argument("--all", action="store_true", help="every engine of the game")
    what.add_argument("--build", action="store_true", help="make the game's suite again")
    p.add_argument("--suite", type=O.path, metavar="PATH",
                   help="a suite file instead of the shipped one")
    p.add_argument("--out", type=O.path, metavar="PATH",
                   help="with --build: where the suite goes (default: the shipped file)")
    p.add_argument("--sample", type=O.count(1, 10**7), metavar="N",
                   help="only N positions of the suite, drawn with --seed (the same for "
                        "every engine)")
    p.add_argument("--seed", type=O.seed, default=1, help="engines' seed and the sample's "
                   "(default 1)")
    p.add_argument("--board", metavar="OPTIONS",
                   help="only the positions on boards with these options, e.g. size=5 "
                        "(default: every board the engine plays; an engine bound to one "
                        "board, such as a network, is judged on that board's positions)")
    g = p.add_argument_group("budget (an engine takes the ones it uses; the first it takes "
                             "of --simulations, --time, --depth)")
    g.add_argument("--time", type=O.seconds(), metavar="SECONDS", help="thinking time a move")
    g.add_argument("--simulations", type=O.count(1, O.MAX_SIMULATIONS), metavar="N",
                   help="simulations a move")
    g.add_argument("--depth", type=O.count(1, O.MAX_DEPTH), metavar="D", help="search depth")
    O.add_quiet(p)
    return p


def _boards(game, text):
    """``--board`` as board options (``"size=5"`` -> ``{"size": 5}``), else
    ``"playable"``; a malformed one is a usage error."""
    if text is None:
        return "playable"
    import ast
    out = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in game.options:
            raise CLIError(f"--board takes board options as KEY=VALUE[,KEY=VALUE] with keys "
                           f"among {', '.join(game.options) or 'none'}, got {text!r:.40}",
                           EXIT_USAGE)
        try:
            out[key] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            out[key] = value.strip()
    return out


def _budget(args):
    return {k: getattr(args, k) for k in BUDGETS if getattr(args, k) is not None}


def _build(game, args):
    from ttt_engine import yardstick
    if args.suite or args.sample or _budget(args) or args.board:
        raise CLIError("--build takes --out and --seed only", EXIT_USAGE)
    out = args.out or yardstick.suite_path(game.key)
    from ttt_engine._util import check_output_path
    check_output_path(out, "suite")
    checkpoint = f"{out}.partial.json"
    if os.path.exists(checkpoint) and not args.quiet:
        print(f"continuing from {checkpoint} (remove it to start again)", file=sys.stderr)
    suite = yardstick.build(game.key, seed=args.seed, progress=not args.quiet,
                            checkpoint=checkpoint)
    yardstick.save(suite, out)
    exp = suite.random_expectation(critical=True)["all"]
    print(f"wrote {out}: {len(suite):,} positions, {sum(suite.critical):,} critical "
          f"({100 * suite.critical_share:.1f}%); a random mover keeps the value in "
          f"{100 * exp[0]:.1f}% of the critical ones", flush=True)
    return EXIT_OK


def run(args):
    """Judge the engine(s) or make the suite; returns the exit status."""
    from ttt_engine import yardstick
    from ttt_engine._yardstick_report import engine_agent, markdown, table
    game = GAMES[args.game]
    if args.build:
        return _build(game, args)
    if args.out:
        raise CLIError("--out applies to --build", EXIT_USAGE)
    suite = None
    if args.suite:
        try:
            suite = yardstick.load(args.suite, game.key)
        except ValueError as e:             # the contents of a file the user gave: usage
            raise CLIError(str(e), EXIT_USAGE) from None
    if suite is None:
        yardstick.shipped_suite(game.key)         # missing or damaged: one line, at once
    budget = _budget(args)
    boards = _boards(game, args.board)
    if args.all:
        try:
            rows = table([game.key], **{k: budget.get(k) for k in BUDGETS}, sample=args.sample,
                         seed=args.seed, progress=not args.quiet, boards=boards)
        except ValueError as e:
            if "no position of the" not in str(e):
                raise
            raise CLIError(str(e), EXIT_USAGE) from None
        print(markdown(rows), flush=True)
        return EXIT_OK
    name = resolve_engine(game, args.engine or game.default_engine, "--engine").name
    takes = game.engines[name].budgets
    for key, value in budget.items():
        if key not in takes:
            raise CLIError(f"{BUDGETS[key]} does not apply to the {game.title} {name} engine "
                           f"(it takes {', '.join(takes) or 'no budget'})", EXIT_USAGE)
    agent, words = engine_agent(game.key, name, seed=args.seed, **budget)
    try:
        r = yardstick.yardstick(agent, game=game.key, suite=suite, sample=args.sample,
                                seed=args.seed, progress=not args.quiet, boards=boards)
    except ValueError as e:
        if "no position of the" not in str(e) and "cannot play the suite's boards" not in str(e):
            raise
        raise CLIError(str(e), EXIT_USAGE) from None
    print(dataclasses.replace(r, agent=f"{name} ({words})"), flush=True)
    return EXIT_OK
