"""Random playouts per second, per game, through the generic ``ttt_engine._core.playout``.

Games whose module has not landed yet on this branch are skipped.
"""
import importlib

import pytest

from ttt_engine._core.playout import random_playouts

# games per call: about 0.05-0.2 s each on one core of the project's machine
GAMES = {"ttt": 1_000_000, "uttt": 100_000, "clobber": 50_000, "quixo": 50_000}


def _board(game):
    if game == "ttt":
        from ttt_engine import Board
        return Board(), GAMES["ttt"]
    try:
        mod = importlib.import_module(f"ttt_engine.{game}")
    except ImportError:
        try:  # quixo's Cython Board lives in ttt_engine._core.quixo
            mod = importlib.import_module(f"ttt_engine.{game}_board")
        except ImportError:
            pytest.skip(f"ttt_engine.{game} not built on this branch")
    if game == "clobber":
        return mod.Board(rows=6, cols=5), GAMES[game]
    return mod.Board(), GAMES[game]


@pytest.mark.parametrize("game", ["ttt", "uttt", "clobber", "quixo"])
def test_random_playouts(throughput, game):
    board, n = _board(game)
    try:
        result = throughput(lambda: random_playouts(board, n, seed=1), n, "games", game=game)
    except TypeError as e:  # the game's Board is not in GameBoard yet
        pytest.skip(f"{game} is not on the game interface yet: {e}")
    assert result["games"] == n
    assert result["first_wins"] + result["second_wins"] + result["draws"] <= n
