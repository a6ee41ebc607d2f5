"""Opening suites for tournaments: fixed, distinct, legal, each opening twice with colours swapped."""
import json

import pytest
from ttt_engine import games
from ttt_engine.tournament import (
    OPENING_PLIES,
    SerialExecutor,
    opening_suite,
    play_game,
    round_robin,
)
from ttt_engine.tournament.round_robin import Entrant


@pytest.mark.parametrize("game", sorted(OPENING_PLIES))
def test_suite_is_fixed_distinct_legal_and_not_over(game):
    suite = opening_suite(game, 12)
    assert suite == opening_suite(game, 12)              # same arguments, same suite
    assert suite != opening_suite(game, 12, seed=99)     # another seed, another suite
    assert len({tuple(line) for line in suite}) == 12
    for line in suite:
        assert len(line) == OPENING_PLIES[game]
        board = games.get(game).new_board()
        for m in line:
            assert m in list(board.legal_moves)
            board.push(m)
        assert not board.is_terminal()


def test_suite_too_large_for_the_game_is_refused():
    assert len(opening_suite("ttt", 72, plies=2)) == 72       # 9 * 8 two-ply openings
    with pytest.raises(ValueError, match="found only 72 distinct"):
        opening_suite("ttt", 73, plies=2)


def test_each_opening_played_twice_with_colours_swapped(tmp_path):
    out = tmp_path / "games.jsonl"
    r = round_robin("ttt", ["perfect", "random"], 6, seed=3, executor=SerialExecutor(),
                    progress=False, out=str(out), openings=3, bootstrap=0)
    suite = opening_suite("ttt", 3)
    recs = sorted(r.records, key=lambda x: x["game"])
    assert [x["opening"] for x in recs] == [0, 0, 1, 1, 2, 2]
    for x in recs:
        # perfect plays the side to move after the opening in the even games
        assert x["first"] == ("perfect" if x["game"] % 2 == 0 else "random")
        if x["game"] % 2 == 0:     # X to move after X, O: perfect play never loses there
            assert x["winner"] in ("perfect", None)
        # replaying the record from its seed and opening gives the same game
        again = play_game("ttt", Entrant("perfect", "perfect"), Entrant("random", "random"),
                          x["seed"], a_first=(x["game"] % 2 == 0),
                          opening=suite[x["opening"]])
        assert again["winner"] == x["winner"] and again["plies"] == x["plies"]
        assert x["plies"] <= 9 - 2
    header = json.loads(out.read_text().splitlines()[0])
    assert header["openings"] == suite
    # the same command again plays nothing new; another suite is refused
    again = round_robin("ttt", ["perfect", "random"], 6, seed=3, executor=SerialExecutor(),
                        progress=False, out=str(out), openings=3, bootstrap=0)
    assert again.games == 6 and len(out.read_text().splitlines()) == 7
    with pytest.raises(ValueError, match="openings"):
        round_robin("ttt", ["perfect", "random"], 6, seed=3, executor=SerialExecutor(),
                    progress=False, out=str(out), openings=4, bootstrap=0)


def test_given_openings_and_bad_input():
    r = round_robin("ttt", ["perfect", "random"], 2, seed=1, executor=SerialExecutor(),
                    progress=False, openings=[[4, 0]], bootstrap=0)
    assert all(x["opening"] == 0 for x in r.records)
    for bad, why in [([[4, 4]], "not legal"), ([[0, 3, 1, 4, 2]], "ends the game"),
                     ([], "empty"), ("4", "number of random openings"), ([4], "list of moves")]:
        with pytest.raises(ValueError, match=why):
            round_robin("ttt", ["perfect", "random"], 2, seed=1, executor=SerialExecutor(),
                        progress=False, openings=bad)
    with pytest.raises(ValueError, match="needs openings"):
        round_robin("ttt", ["perfect", "random"], 2, executor=SerialExecutor(),
                    progress=False, opening_plies=2)
