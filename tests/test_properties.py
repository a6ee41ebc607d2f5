"""Property tests over every game of the registry (hypothesis): along random
move sequences, push/pop are inverse, the legal moves are those of the
independent pure-Python rules in tests/, equal positions hash equal, and every
move's text parses back to the move.  Each game's start options, its reference
rules, ... are its row ``REGISTRY_CASES`` in its own test file
``tests/test_<key>.py`` (``conftest.registry_cases``)."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import registry_cases

from ttt_engine import games

KEYS = list(games.GAMES)
PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
# a game: the start options (its row's hypothesis_options) and a sequence of
# choices (index into the legal moves)
CHOICES = st.lists(st.integers(0, 10**6), max_size=70)


def _play(game, options, choices):
    """Board after the random sequence, and the boards along the way."""
    b = game.new_board(**options)
    seen = [b.copy()]
    for k in choices:
        moves = b.legal_moves
        if not moves:
            break
        b.push(moves[k % len(moves)])
        seen.append(b.copy())
    return b, seen


def _on_random_games(key, check):
    """Run ``check(game, options, board, seen, pick)`` on random games of ``key``:
    the board after a random sequence of moves, the boards along the way (start
    included) and a random number."""
    game = games.get(key)

    @PROPERTY
    @given(registry_cases(key)["hypothesis_options"], CHOICES, st.integers(0, 10**6))
    def run(options, choices, pick):
        b, seen = _play(game, options, choices)
        check(game, options, b, seen, pick)
    run()


@pytest.mark.parametrize("key", KEYS)
def test_push_pop_are_inverse(key):
    def check(game, options, b, seen, pick):
        for before in reversed(seen[:-1]):
            m = b.moves[-1]
            b.pop()
            assert b == before and b.to_string() == before.to_string()
            assert b.hash() == before.hash() and b.to_move == before.to_move
            assert b.legal_moves == before.legal_moves and b.winner == before.winner
            assert m in b.legal_moves
        assert b.ply == 0 and b.moves == []
    _on_random_games(key, check)


@pytest.mark.parametrize("key", KEYS)
def test_legal_moves_equal_the_reference_rules(key):
    ref = registry_cases(key)["reference_legal"]

    def check(game, options, _b, seen, pick):
        for b in seen:
            assert sorted(b.legal_moves) == ref(b), b.to_string()
            assert (b.winner is None) == (len(b.legal_moves) > 0)
    _on_random_games(key, check)


def _same_position_other_order(moves, i):
    """The sequence with the i-th and (i+2)-th moves (same player) swapped."""
    swapped = list(moves)
    swapped[i], swapped[i + 2] = swapped[i + 2], swapped[i]
    return swapped


@pytest.mark.parametrize("key", KEYS)
def test_equal_positions_hash_equal(key):
    case = registry_cases(key)

    def check(game, options, b, _seen, pick):
        again = type(b).from_string(b.to_string(), **case["from_string_kw"](b))
        assert again == b and again.hash() == b.hash() and hash(again) == hash(b)
        # the same position reached in another order (a transposition), when legal
        moves = b.moves
        if len(moves) >= 3:
            i = pick % (len(moves) - 2)
            other = game.new_board(**options)
            for m in _same_position_other_order(moves, i):
                if m not in other.legal_moves:
                    return
                other.push(m)
            if case["moves_commute"]:        # e.g. placing marks
                assert other == b
            if other == b:
                assert other.hash() == b.hash() and hash(other) == hash(b)
    _on_random_games(key, check)


@pytest.mark.parametrize("key", KEYS)
def test_every_move_text_parses_back(key):
    def check(game, options, _b, seen, pick):
        for b in seen:
            for m in b.legal_moves:
                assert b.parse_move(b.move_to_str(m)) == m
                assert game.parse_move(b, game.move_to_str(b, m)) == m
    _on_random_games(key, check)


@pytest.mark.parametrize("key", KEYS)
def test_text_that_is_not_a_move_is_a_value_error(key):
    game = games.get(key)

    @PROPERTY
    @given(st.text(max_size=8))
    def check(text):
        b = game.new_board()
        try:
            m = game.parse_move(b, text)
        except ValueError as e:
            assert str(e)
        else:
            assert m in b.legal_moves
    check()
