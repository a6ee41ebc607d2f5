"""One rule at every entry point: bad input gets one clear line, the same from
every entry point that takes it.

``REFUSALS`` is the table: (entry point, input, message fragments).  An entry
point is a callable of one input (a board, keywords, a command line); a
library entry point must raise a one-line ``ValueError`` (``FileNotFoundError``
for a missing file) containing every fragment, a console one must exit 2 with
the one line ``ttt-engine: error: ...`` containing them.  A new entry point
joins by adding a row.
"""
from __future__ import annotations

import os
import pickle
import re

import pytest

import ttt_engine
from ttt_engine import alphazero, analysis, clobber, connect4, games, quixo, search, ttt, uttt
from ttt_engine.agents import AlphaBetaAgent, MCTSAgent, PerfectAgent
from ttt_engine.cli import build_parser, main
from ttt_engine.clobber.play import ClobberAgent
from ttt_engine.tree_agents import TreeQAgent

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------ entry points
class Console:
    """The console tool as an entry point: ``Console()(argv)`` runs it in this
    process (in an empty folder, see the test) and returns its exit status."""

    def __init__(self):
        self.__name__ = "ttt-engine"

    def __call__(self, argv):
        return main(argv)


CONSOLE = Console()


def agent(game, engine, **kw):
    """``select_move`` of an engine made through the registry for ``game``."""
    return games.get(game).make_agent(engine, **kw).select_move


def foreign(game, engine, board, title, board_words, **kw):
    """A row: the ``engine`` of ``game`` (its ``title``) made through the
    registry refuses ``board`` of another game, naming both."""
    other = type(board).__module__.split(".")[-2]
    return pytest.param(agent(game, engine, **kw), board,
                        (f"the {title} {engine} engine plays {title}, got {board_words}",),
                        id=f"{game}-{engine}-{other}")


def pickled(game, engine, **kw):
    """``select_move`` of such an agent after a round trip through pickle."""
    return pickle.loads(pickle.dumps(games.get(game).make_agent(engine, **kw))).select_move


def keywords(fn):
    """``fn`` called with the input as keywords."""
    return lambda kw: fn(**kw)


def finished():
    """A finished Tic-Tac-Toe game: X has the top row."""
    return ttt.Board.from_string("XXXOO....")


def train_resume(kw):
    return alphazero.train("ttt", progress=False, resume=True, **kw)


NEEDS_LIMIT = "needs a limit: "
ALPHABETA_LIMITS = "; pass depth= or time_limit="
UNFINISHED_UTTT = "Ultimate Tic-Tac-Toe cannot be solved exhaustively"
UNFINISHED_C4 = "Connect Four with 42 empty cells is beyond the exhaustive search"
GAME_OVER = "the game is over (X won): there is no move to"

def unbounded(search_fn, board, reason, game, limits=ALPHABETA_LIMITS):
    """A row: ``search_fn`` without a limit on a ``board`` its game says no
    exhaustive search finishes, refused naming the reason and the limits."""
    name = search_fn.__name__
    return pytest.param(search_fn, board, (f"{name} {NEEDS_LIMIT}{reason}", limits),
                        id=f"{name}-{game}")


REFUSALS = [
    # 1. a search that can never finish: refused at once, naming the keywords to add
    unbounded(search.alphabeta, connect4.Board(), UNFINISHED_C4, "connect4"),
    unbounded(search.alphabeta, uttt.Board(), UNFINISHED_UTTT, "uttt"),
    unbounded(search.minimax, connect4.Board(), UNFINISHED_C4, "connect4"),
    unbounded(search.negamax, uttt.Board(), UNFINISHED_UTTT, "uttt"),
    unbounded(search.move_values, uttt.Board(), UNFINISHED_UTTT, "uttt", "; pass depth="),
    pytest.param(AlphaBetaAgent().select_move, connect4.Board(),
                 ("AlphaBetaAgent " + NEEDS_LIMIT + UNFINISHED_C4, "; pass depth= or time="),
                 id="AlphaBetaAgent-connect4"),
    pytest.param(search.alphabeta, quixo.Board(4),
                 ("alphabeta " + NEEDS_LIMIT + "4x4 Quixo cannot be searched exhaustively",
                  "quixo.solution(4)", ALPHABETA_LIMITS), id="alphabeta-quixo4"),
    pytest.param(AlphaBetaAgent().select_move, quixo.Board(),
                 ("AlphaBetaAgent " + NEEDS_LIMIT + "5x5 Quixo cannot be solved exhaustively; "
                  "pass depth= or time=",), id="AlphaBetaAgent-quixo"),
    pytest.param(keywords(clobber.solve), {"board": clobber.Board(8, 8)},
                 ("clobber.solve " + NEEDS_LIMIT + "Clobber with 64 stones",
                  "; pass max_nodes= and/or time_limit="), id="clobber.solve-8x8"),
    pytest.param(uttt.solve, uttt.Board(),
                 ("uttt.solve " + NEEDS_LIMIT, "pass max_nodes= and/or time_limit="),
                 id="uttt.solve"),
    pytest.param(quixo.solve, quixo.Board(), ("needs a limit", "max_nodes=", "time_limit="),
                 id="quixo.solve-5x5"),
    # ... and the exact answers, which take no limit, name the game's limited solve
    pytest.param(ttt_engine.solve, uttt.Board(),
                 ("solve: " + UNFINISHED_UTTT, "; use ttt_engine.uttt.solve(board, "
                  "max_nodes=..., time_limit=...)"), id="solve-uttt"),
    pytest.param(search.optimal_moves, connect4.Board(),
                 ("optimal_moves: " + UNFINISHED_C4, "use ttt_engine.connect4.solve(board, "
                  "max_nodes=..., time_limit=...)"), id="optimal_moves-connect4"),
    pytest.param(PerfectAgent().select_move, uttt.Board(),
                 ("PerfectAgent: " + UNFINISHED_UTTT, "use ttt_engine.uttt.solve(board, "),
                 id="PerfectAgent-uttt"),

    # 2. an agent made for one game refuses a board of another, naming both
    foreign("ttt", "mcts", connect4.Board(), "Tic-Tac-Toe", "a Connect Four board",
            simulations=100),
    foreign("ttt", "alphabeta", uttt.Board(), "Tic-Tac-Toe", "an Ultimate Tic-Tac-Toe board"),
    foreign("ttt", "az", connect4.Board(), "Tic-Tac-Toe", "a Connect Four board", simulations=10),
    foreign("ttt", "best", quixo.Board(), "Tic-Tac-Toe", "a Quixo board"),
    foreign("clobber", "random", ttt.Board(), "Clobber", "a Tic-Tac-Toe board", seed=1),
    foreign("clobber", "minimax", connect4.Board(), "Clobber", "a Connect Four board"),
    pytest.param(ClobberAgent().select_move, quixo.Board(),
                 ("ClobberAgent plays Clobber, got a Quixo board",), id="ClobberAgent-quixo"),
    foreign("uttt", "treeq", ttt.Board(), "Ultimate Tic-Tac-Toe", "a Tic-Tac-Toe board",
            simulations=10),
    pytest.param(pickled("ttt", "mcts", simulations=10), connect4.Board(),
                 ("the Tic-Tac-Toe mcts engine plays Tic-Tac-Toe, got a Connect Four board",),
                 id="pickled-ttt-mcts-connect4"),
    pytest.param(lambda b: games.get("connect4").analyse(
        b, engine=games.get("ttt").make_agent("mcts", simulations=10)), connect4.Board(),
                 ("the Tic-Tac-Toe mcts engine plays Tic-Tac-Toe, got a Connect Four board",),
                 id="analyse-with-ttt-mcts-connect4"),
    pytest.param(lambda b: games.get("connect4").analyse(
        b, engine=games.get("ttt").make_agent("alphabeta", depth=2)), connect4.Board(),
                 ("the Tic-Tac-Toe alphabeta engine plays Tic-Tac-Toe, got a Connect Four "
                  "board",), id="analyse-with-ttt-alphabeta-connect4"),
    pytest.param(lambda b: analysis.analyse(
        games.get("connect4"), b, games.get("ttt").make_agent("alphabeta", depth=2)),
                 connect4.Board(),
                 ("the Tic-Tac-Toe alphabeta engine plays Tic-Tac-Toe, got a Connect Four "
                  "board",), id="analysis.analyse-with-ttt-alphabeta-connect4"),

    # 3. --resume / resume=True without a checkpoint: the file expected, no new run
    pytest.param(train_resume, {"out": "typo.npz", "time": 3},
                 ("no checkpoint typo.ckpt.npz to continue",), id="train-resume-nothing"),
    pytest.param(CONSOLE, ["az", "train", "--game", "ttt", "--out", "typo.npz", "--time", "3",
                           "--resume"],
                 ("--resume: no checkpoint typo.ckpt.npz to continue",),
                 id="cli-az-train-resume-nothing"),

    # 5. an unknown keyword lists the valid ones (budgets included) and guesses
    pytest.param(keywords(lambda **kw: games.get("uttt").make_agent("mcts", **kw)),
                 {"simulatons": 10},
                 ("the Ultimate Tic-Tac-Toe mcts engine has no option 'simulatons'; valid: "
                  "simulations, time, seed; did you mean 'simulations'?",),
                 id="make_agent-typo"),
    pytest.param(keywords(lambda **kw: games.get("clobber").make_agent("alphabeta", **kw)),
                 {"heuristc": "safe"},
                 ("has no option 'heuristc'; valid: heuristic, depth, time, seed; did you mean "
                  "'heuristic'?",), id="make_agent-typo-extra"),
    pytest.param(keywords(games.get("clobber").new_board), {"row": 4},
                 ("Clobber has no option 'row'; valid options: rows, cols; did you mean "
                  "'rows'?",), id="new_board-typo"),
    pytest.param(keywords(lambda **kw: games.get("ttt").parse_move(ttt.Board(), "5", **kw)),
                 {"zero_base": True},
                 ("Tic-Tac-Toe move text has no option 'zero_base'; valid: zero_based; did you "
                  "mean 'zero_based'?",), id="parse_move-typo"),
    pytest.param(CONSOLE, ["play", "--game", "quixo", "--opponent", "mcts", "--depth", "3"],
                 ("--depth does not apply to the mcts engine of Quixo (engine options there: "
                  "--simulations, --time)",), id="cli-engine-option"),

    # 6. no abbreviated options: --game is never --games
    pytest.param(CONSOLE, ["az", "eval", "--game", "ttt", "--model", "x.npz"],
                 ("unrecognized arguments: --game ttt",), id="cli-az-eval-game"),
    pytest.param(CONSOLE, ["play", "--opp", "random"], ("unrecognized arguments: --opp",),
                 id="cli-play-abbreviated"),

    # 7. a finished game: every agent, tree search and analysis says so
    pytest.param(search.MCTS(seed=1).search, finished(), (GAME_OVER + " search",),
                 id="MCTS-finished"),
    pytest.param(AlphaBetaAgent(depth=2).select_move, finished(), (GAME_OVER + " select",),
                 id="AlphaBetaAgent-finished"),
    pytest.param(MCTSAgent(simulations=10, seed=1).select_move, finished(),
                 (GAME_OVER + " select",), id="MCTSAgent-finished"),
    pytest.param(TreeQAgent(simulations=10, seed=1).select_move, finished(),
                 (GAME_OVER + " select",), id="TreeQAgent-finished"),
    pytest.param(agent("ttt", "perfect"), finished(), (GAME_OVER + " select",),
                 id="ttt-perfect-finished"),
    pytest.param(games.get("ttt").analyse, finished(), ("the game is over",),
                 id="analyse-finished"),
    pytest.param(search.alphabeta, finished(), (GAME_OVER + " search",), id="alphabeta-finished"),
    pytest.param(search.minimax, finished(), (GAME_OVER + " search",), id="minimax-finished"),
    pytest.param(search.negamax, finished(), (GAME_OVER + " search",), id="negamax-finished"),
]


@pytest.mark.parametrize("entry,given,fragments", REFUSALS)
def test_bad_input_gets_one_line_naming_the_fix(entry, given, fragments, tmp_path, monkeypatch,
                                               capsys):
    monkeypatch.chdir(tmp_path)                       # relative files land in an empty folder
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    if entry is CONSOLE:
        code = entry(list(given))
        err = capsys.readouterr().err
        lines = err.splitlines()
        assert code == 2 and len(lines) == 1, (code, err)
        line = lines[0]
        assert line.startswith("ttt-engine: error: ")
    else:
        with pytest.raises((ValueError, FileNotFoundError)) as info:
            entry(given)
        line = str(info.value)
        assert "\n" not in line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    assert os.listdir(tmp_path) in ([], ["cache"]), "a refused call wrote files"


# ------------------------------------------------------------------ what is not refused
def test_bounded_and_unbound_searches_still_run():
    """The refusals above cost no search that finishes: the same boards with a
    limit, agents built from their classes on any game, a bound agent on its game."""
    assert search.alphabeta(connect4.Board(), 2).depth == 2
    assert search.alphabeta(uttt.Board(), time_limit=0.05).best_move in uttt.Board().legal_moves
    assert AlphaBetaAgent(depth=1).select_move(connect4.Board()) in range(7)
    assert MCTSAgent(simulations=20, seed=1).select_move(connect4.Board()) in range(7)
    mcts = games.get("connect4").make_agent("mcts", simulations=20, seed=1)
    assert mcts.game == "connect4" and mcts.select_move(connect4.Board()) in range(7)
    assert MCTSAgent(simulations=20).game is None
    assert pickle.loads(pickle.dumps(mcts)).game == "connect4"
    r = clobber.solve(clobber.Board(8, 8), max_nodes=1000)
    assert r.value == "unknown"
    assert clobber.solve(clobber.Board(2, 3)).value == "loss"


def test_a_finished_board_is_scored_by_solve_and_has_no_move_values():
    """The value of a finished game (``solve``: the side to move has lost) and
    its moves (none); every search of a move refuses it (the table above)."""
    assert search.solve(finished()) == -1
    assert search.move_values(finished()) == ({}, True)


# ------------------------------------------------------------------ checkpoints
def test_a_checkpoint_prints_as_one_line(tmp_path):
    from ttt_engine.network import Network
    import numpy as np
    net = Network.init("ttt", hidden=(8,), seed=1)
    ck = alphazero.Checkpoint(str(tmp_path / "az.ckpt.npz"), net, alphazero.config_for("ttt"),
                              5, {"iteration": 12, "games": 3456},
                              [np.zeros((300, 300)) for _ in range(4)])
    text = repr(ck)
    assert "\n" not in text and len(text) < 200, text
    assert text == f"<AlphaZero checkpoint: ttt, iteration 12, 3,456 games played, " \
                   f"{tmp_path / 'az.ckpt.npz'}>"
    assert str(ck) == text


# ------------------------------------------------------------------ the games, everywhere
def _subparsers(parser):
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in _subparsers(sub))


def test_the_console_names_the_registry_games():
    """``ttt-engine --help`` names every game of the registry (and no other),
    and every ``--game`` offers exactly the registry's keys."""
    titles = [g.title for g in games.GAMES.values()]
    text = " ".join(build_parser().format_help().split())
    listed = re.search(r"engines of the (\d+) games here \(([^)]*)\)", text)
    assert listed, text
    assert int(listed.group(1)) == len(titles)
    assert listed.group(2).split(", ") == titles
    with_game = 0
    for name, sub in _subparsers(build_parser()):
        assert not sub.allow_abbrev, name
        for action in sub._actions:
            if "--game" in action.option_strings:
                with_game += 1
                if name == "kaggle run":     # the games Kaggle's arenas have, in registry order
                    keys = list(games.GAMES)
                    assert set(action.choices) <= set(keys), name
                    continue
                assert list(action.choices) == list(games.GAMES), name
    assert with_game >= 4


def test_the_readme_game_table_lists_the_registry_games():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| game (key) |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(re.match(r"\| (.+?) \(`(\w+)`\) \|", line).groups())
    assert rows == [(g.title, g.key) for g in games.GAMES.values()]


def test_an_endgame_is_searched_to_the_end():
    """Where a game says an exhaustive search finishes (an Ultimate Tic-Tac-Toe
    endgame of at most ``uttt.EXHAUSTIVE_CELLS`` open empty cells), no limit
    is needed: the exact value, with no refusal."""
    import random
    b, rng = uttt.Board(), random.Random(3)
    while b.exhaustive_limit() is not None:
        b.push(rng.choice(b.legal_moves))
    assert not b.is_terminal()
    r = search.alphabeta(b)
    assert r.exact and r.best_move in b.legal_moves
    before = b.copy()
    before.pop()
    with pytest.raises(ValueError, match=UNFINISHED_UTTT):
        search.alphabeta(before)

