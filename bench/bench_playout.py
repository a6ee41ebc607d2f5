"""Random playouts per second, per game of the registry, through each game
module's ``random_playouts(board, n, seed)`` (the generic
``ttt_engine._core.algorithms.playout`` loop)."""
import pytest

from ttt_engine import games

# games per call: about 0.05-0.2 s each on one core of the project's machine (a game
# not listed plays DEFAULT_PER_CALL)
PER_CALL = {"ttt": 1_000_000, "uttt": 100_000, "clobber": 50_000, "quixo": 50_000}
DEFAULT_PER_CALL = 100_000


@pytest.mark.parametrize("game", list(games.GAMES))
def test_random_playouts(throughput, game):
    g = games.get(game)
    board = g.new_board()              # the default start: Clobber 6x5, Quixo 5x5
    n = PER_CALL.get(game, DEFAULT_PER_CALL)
    result = throughput(lambda: g.module.random_playouts(board, n, seed=1), n, "games",
                        game=game)
    assert result["games"] == n
    assert result["first_wins"] + result["second_wins"] + result["draws"] == n
