"""Every game of the registry has the whole public surface, and each verb
behaves the same in every game.  What differs between games (perft counts, a
position each solves, ...) is its row ``REGISTRY_CASES`` in its own test file
``tests/test_<key>.py`` (``conftest.registry_cases``)."""
import pickle
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import registry_cases

from ttt_engine import games

KEYS = list(games.GAMES)
BOARD_VERBS = ["push", "pop", "legal_moves", "winner", "is_terminal", "to_move", "copy",
               "from_string", "to_string", "moves", "ply", "hash", "parse_move",
               "move_to_str", "_repr_svg_"]
ACTION_VERBS = ["num_actions", "action_mask", "observation", "move_to_action",
                "action_to_move"]
MODULE_VERBS = ["Board", "perft", "random_playouts", "solve", "SolveResult"]


@pytest.fixture(params=KEYS)
def game(request):
    return games.get(request.param)


def test_module_surface(game):
    for name in MODULE_VERBS:
        assert hasattr(game.module, name), f"{game.module.__name__} lacks {name}"
        assert name in game.module.__all__
    for name in ("perft", "random_playouts", "solve"):
        assert getattr(game.module, name).__doc__


def test_board_surface(game):
    b = game.new_board()
    for name in BOARD_VERBS:
        assert hasattr(b, name), f"{game.key} Board lacks {name}"


def test_board_action_surface(game):
    b = game.new_board()
    missing = [v for v in ACTION_VERBS if not hasattr(b, v)]
    assert not missing, f"{game.key} Board lacks the action methods {missing}"
    assert b.num_actions == registry_cases(game.key)["num_actions"]
    mask = b.action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (b.num_actions,)
    legal = sorted(b.move_to_action(m) for m in b.legal_moves)
    assert list(np.flatnonzero(mask)) == legal
    assert all(b.action_to_move(b.move_to_action(m)) == m for m in b.legal_moves)
    obs = b.observation()
    assert obs.dtype == np.int8 and obs.ndim == 3


def test_push_pop_copy_and_moves_agree(game):
    b = game.new_board()
    start = b.to_string()
    played = []
    for i in range(5):
        m = b.legal_moves[(3 * i + 1) % len(b.legal_moves)]
        c = b.copy()
        b.push(m)
        played.append(m)
        assert c.to_string() != b.to_string() and c.ply == b.ply - 1
        assert b.moves == played and b.ply == len(played)
        assert b.to_move == game.sides[(i + 1) % 2]
    for m in reversed(played):
        assert b.pop() == m
    assert b.to_string() == start and b.ply == 0 and b.moves == []


def test_illegal_push_is_a_value_error_and_empty_pop_an_index_error(game):
    b = game.new_board()
    with pytest.raises(IndexError, match="no pushed moves"):
        b.pop()
    b.push(b.legal_moves[0])
    taken = b.moves[0]
    if taken in b.legal_moves:          # Quixo: the same move may be legal again
        return
    with pytest.raises(ValueError):
        b.push(taken)


def test_a_bool_is_no_move(game):
    b = game.new_board()
    for flag in (True, False):
        with pytest.raises(ValueError, match=r"True|False"):
            b.push(flag)
    assert b.moves == []


def test_board_constructors_name_their_options(game):
    key = game.key
    with pytest.raises(ValueError, match=rf"^{key}\.Board has no option 'bogus'; valid options: "
                       + (", ".join(game.options) or "none")):
        game.Board(bogus=1)
    with pytest.raises(ValueError, match=rf"^{key}\.Board\(\) takes .*; read a position with "
                       rf"{key}\.Board\.from_string\("):
        game.Board(*game.options.values(), game.new_board().to_string())
    assert game.Board(**game.options) == game.new_board()


def test_string_round_trip_equality_and_hash(game):
    b = game.new_board()
    for m in b.legal_moves[:1] + [None]:
        if m is not None:
            b.push(m)
        kw = registry_cases(game.key)["from_string_kw"](b)
        same = type(b).from_string(b.to_string(), **kw)
        assert same == b and same.hash() == b.hash() and hash(same) == hash(b)
        assert pickle.loads(pickle.dumps(b)) == b
    assert isinstance(b.hash(), int) and 0 <= b.hash() < 2**64
    assert str(b)


def test_a_damaged_board_pickle_is_refused(game):
    b = game.new_board()
    b.push(b.legal_moves[0])
    data = pickle.dumps(b)
    state = b.__reduce__()[1][1]
    assert state in data
    with pytest.raises(ValueError, match=f"not a pickled {game.title} board .* damaged"):
        pickle.loads(data.replace(state, b"\xff" * len(state)))
    back = pickle.loads(data)
    assert back == b and back.moves == b.moves
    back.pop()
    assert back == game.new_board()


def test_text_round_trip_of_every_legal_move(game):
    b = game.new_board()
    for m in b.legal_moves:
        text = b.move_to_str(m)
        assert isinstance(text, str) and b.parse_move(text) == m
        assert game.parse_move(b, game.move_to_str(b, m)) == m


@pytest.mark.parametrize("move", [-5, 1.5, 10**6, "x", True, None])
def test_move_text_and_drawing_refuse_what_is_no_move_code(game, move):
    b = game.new_board()
    with pytest.raises(ValueError, match="move|cell|column"):
        game.move_to_str(b, move)
    if move is not None:            # None: no move to highlight
        with pytest.raises(ValueError, match="move|cell|column"):
            game.draw(b, last_move=move)


def test_draw_refuses_a_style_that_is_no_function(game):
    with pytest.raises(ValueError, match=r"style must be None or a function"):
        game.draw(game.new_board(), style=5)


@pytest.mark.parametrize("key,engine", [(k, e) for k in KEYS for e in ("alphabeta", "minimax")
                                         if e in games.get(k).engines])
def test_depth_first_engines_keep_their_seed(key, engine):
    game = games.get(key)
    assert game.make_agent(engine, seed=5).seed == 5
    for bad in (-1, "abc"):
        with pytest.raises(ValueError, match="seed must be an integer"):
            game.make_agent(engine, seed=bad)


def test_parse_move_names_the_syntax(game):
    b = game.new_board()
    with pytest.raises(ValueError, match=r"[Mm]ove|cell"):
        b.parse_move("not a move")


def test_svg_is_well_formed(game):
    b = game.new_board()
    b.push(b.legal_moves[0])
    svg = b._repr_svg_()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and float(root.get("width")) > 0
    assert "to move" in svg


def test_perft(game):
    b = game.new_board()
    want = registry_cases(game.key)["perft"]
    assert [game.module.perft(b, d) for d in (0, 1, 2)] == [1, *want]
    with pytest.raises(ValueError, match="depth"):
        game.module.perft(b, -1)
    with pytest.raises(ValueError, match=rf"plays {game.title}, got "):
        game.module.perft(None, 2)
    other = games.get(next(k for k in KEYS if k != game.key)).new_board()
    with pytest.raises(ValueError, match=rf"plays {game.title}, got "):
        game.module.perft(other, 1)


def test_random_playouts(game):
    b = game.new_board()
    r = game.module.random_playouts(b, 300, seed=4)
    assert set(r) == {"games", "first_wins", "second_wins", "draws", "seed"}
    assert r["games"] == 300 == r["first_wins"] + r["second_wins"] + r["draws"]
    assert r["seed"] == 4
    assert game.module.random_playouts(b, 300, seed=4) == r
    assert b.ply == 0
    with pytest.raises(ValueError, match="n"):
        game.module.random_playouts(b, -1)
    with pytest.raises(ValueError, match=rf"plays {game.title}, got "):
        game.module.random_playouts("start", 10)


def test_solve_result_shape(game):
    make, want, limits = registry_cases(game.key)["solve_small"]
    b = make()
    r = game.module.solve(b, **limits)
    if want is None:            # a position whose value the game's row does not know
        assert r.value in ("win", "loss", "draw")
        want = r.value
    assert r.value == want and r.exact and r.outcome == {"win": 1, "draw": 0, "loss": -1}[want]
    assert r.winner == {"win": b.to_move, "draw": "draw"}.get(r.value, r.winner)
    if r.value != "loss":
        assert r.best_move in b.legal_moves
        c = b.copy()
        c.push(r.best_move)
        if not c.is_terminal():
            after = game.module.solve(c, max_nodes=10**9)
            assert after.value == {"win": "loss", "draw": "draw"}[r.value]
    assert r.nodes >= 0 and r.seconds >= 0


def test_solve_limits(game):
    case = registry_cases(game.key)
    b = game.new_board(**case["solve_limit_options"])
    one_node = case["solve_one_node"]
    r = game.module.solve(b, max_nodes=1) if one_node is not None else None
    if one_node == "unknown":
        assert r.value == "unknown" and not r.exact and r.win is None and r.outcome is None
    with pytest.raises(ValueError, match="max_nodes"):
        game.module.solve(b, max_nodes=0)
    with pytest.raises(ValueError, match="time_limit"):
        game.module.solve(b, time_limit=-1)
    with pytest.raises(ValueError, match=rf"plays {game.title}, got "):
        game.module.solve(None)


def test_unbounded_solves_are_refused():
    import ttt_engine
    from ttt_engine import quixo, uttt
    with pytest.raises(ValueError, match="limit"):
        uttt.solve(uttt.Board())
    with pytest.raises(ValueError, match=r"uttt\.solve.*unknown"):
        ttt_engine.solve(uttt.Board())
    with pytest.raises(ValueError, match="uttt.solve"):
        ttt_engine.optimal_moves(uttt.Board())
    with pytest.raises(ValueError, match="limit"):
        quixo.solve(quixo.Board())
    with pytest.raises(ValueError, match="quixo.solve"):
        ttt_engine.solve(quixo.Board())
    r = uttt.solve(uttt.Board(), time_limit=0.2)
    assert r.value == "unknown" and r.seconds < 5
    r = quixo.solve(quixo.Board(), max_nodes=1000)
    assert r.value == "unknown" and r.nodes >= 1000


def test_solve_scores_a_finished_game_for_the_player_to_move(game):
    case = registry_cases(game.key)
    b = game.new_board(**case["solve_finished_options"])
    import random
    rng = random.Random(2)
    while not b.is_terminal():
        b.push(rng.choice(b.legal_moves))
    r = game.module.solve(b, **case["solve_finished_limits"])
    want = ("draw" if b.winner == "draw" else "win" if b.winner == b.to_move else "loss")
    assert r.value == want and r.best_move is None and r.exact


def test_old_uttt_signatures_still_work_with_a_warning():
    from ttt_engine import uttt
    with pytest.warns(DeprecationWarning, match=r"perft\(board, depth\)"):
        assert uttt.perft(2) == 720
    with pytest.warns(DeprecationWarning):
        assert uttt.perft(1, uttt.Board()) == 81
    with pytest.warns(DeprecationWarning, match=r"random_playouts\(board, n, seed\)"):
        x, o, d, plies = uttt.random_playouts(50, seed=1)
    assert x + o + d == 50 and plies > 0
    new = uttt.random_playouts(uttt.Board(), 50, seed=1)
    assert (new["first_wins"], new["second_wins"], new["draws"]) == (x, o, d)
