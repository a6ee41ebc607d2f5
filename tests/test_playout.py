"""Generic random playouts (ttt_engine._core.algorithms.playout)."""
import pytest

from ttt_engine import Board
from ttt_engine._core.algorithms.playout import random_playouts


def test_counts_add_up_and_board_unchanged():
    b = Board.from_string("X.O......")
    before = b.to_string()
    r = random_playouts(b, 1000, seed=7)
    assert r["games"] == 1000
    assert r["first_wins"] + r["second_wins"] + r["draws"] == 1000
    assert b.to_string() == before


def test_same_seed_same_result():
    b = Board()
    assert random_playouts(b, 5000, seed=3) == random_playouts(b, 5000, seed=3)
    assert random_playouts(b, 5000, seed=3) != random_playouts(b, 5000, seed=4)


def test_ttt_outcome_distribution():
    # Exact probabilities for uniformly random Tic-Tac-Toe from the empty board:
    # X 737/1260 = 0.58492, O 363/1260 = 0.28810, draw 160/1260 = 0.12698.
    n = 400_000
    r = random_playouts(Board(), n, seed=11)
    for key, p in (("first_wins", 737 / 1260), ("second_wins", 363 / 1260), ("draws", 160 / 1260)):
        sd = (p * (1 - p) / n) ** 0.5
        assert abs(r[key] / n - p) < 5 * sd, (key, r[key] / n, p)


def test_terminal_board_gives_its_result():
    b = Board.from_string("XXXOO....")
    r = random_playouts(b, 10, seed=1)
    assert r["first_wins"] == 10


@pytest.mark.parametrize("games", [-1, 1.5, "10", None])
def test_bad_games_rejected(games):
    with pytest.raises(ValueError, match="games"):
        random_playouts(Board(), games)


def test_bad_seed_rejected():
    with pytest.raises(ValueError, match="seed"):
        random_playouts(Board(), 10, seed=-1)


def test_other_games_dispatch():
    # every game's Board is accepted (the fused-def name clash would reject all but one)
    import ttt_engine.clobber as clobber
    import ttt_engine._core.games.quixo.board as quixo
    for board in (clobber.Board(rows=3, cols=3), quixo.Board()):
        r = random_playouts(board, 200, seed=1)
        assert r["first_wins"] + r["second_wins"] + r["draws"] == 200


def test_not_a_board_rejected():
    with pytest.raises(TypeError):
        random_playouts("X........", 10)


def test_random_games_lengths_and_outcomes():
    from ttt_engine._core.algorithms.playout import random_games
    n = 200_000
    r = random_games(Board(), n, seed=5)
    lengths = r["lengths"]
    assert lengths.sum() == n and r["first_wins"] + r["second_wins"] + r["draws"] == n
    assert r["plies"] == sum(k * c for k, c in enumerate(lengths))
    # a Tic-Tac-Toe game lasts 5 to 9 plies; draws all last 9
    assert set(k for k, c in enumerate(lengths) if c) == {5, 6, 7, 8, 9}
    assert lengths[9] >= r["draws"]
    p = 737 / 1260                                   # exact P(X wins) in random play
    assert abs(r["first_wins"] / n - p) < 5 * (p * (1 - p) / n) ** 0.5
    assert random_games(Board(), 1000, seed=9)["plies"] == random_games(Board(), 1000, seed=9)["plies"]


def test_random_games_other_games_and_long_bin():
    from ttt_engine._core.algorithms.playout import random_games
    from ttt_engine import clobber, quixo, uttt
    for board in (uttt.Board(), clobber.Board(6, 5), quixo.Board(5)):
        r = random_games(board, 200, seed=1, max_len=10)
        assert r["lengths"].sum() == 200 and r["lengths"][10] > 0   # all games exceed 10 plies
    with pytest.raises(ValueError, match="max_len"):
        random_games(Board(), 10, max_len=0)
