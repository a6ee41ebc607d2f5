"""Self-play beyond its targets (tests/test_puct.py checks those): the board
symmetries used to augment the data (every transformed position is a real
position of the game, reached by the transformed moves) and play on an
executor."""
import random

import numpy as np
import pytest

from ttt_engine import games
from ttt_engine.selfplay import symmetries

CASES = [("ttt", {}, 8), ("uttt", {}, 8), ("clobber", {"rows": 4, "cols": 5}, 4),
         ("clobber", {"rows": 5, "cols": 5}, 8), ("quixo", {"size": 5}, 8),
         ("quixo", {"size": 4}, 8)]


def _transformed(g, options, board, actions, obs_index, action_index):
    """The transformed position: the transformed moves replayed from the start
    when the start is symmetric, else (Clobber with an even side, whose flip
    swaps the colours of the start) the transformed grid read as text."""
    start = g.new_board(**options)
    start_obs = start.observation().reshape(-1)
    if np.array_equal(start_obs[obs_index], start_obs):
        inverse = np.argsort(action_index)
        t = start
        for a in actions:
            t.push(t.action_to_move(int(inverse[a])))
        return t
    assert g.key == "clobber"
    planes = board.observation().reshape(2, -1)[:, obs_index.reshape(2, -1)[0]]
    me, other = board.to_move, "W" if board.to_move == "B" else "B"
    cells = np.where(planes[0] == 1, me, np.where(planes[1] == 1, other, "_"))
    rows, cols = options["rows"], options["cols"]
    text = "\n".join(" ".join(cells[r * cols:(r + 1) * cols]) for r in range(rows))
    return type(board).from_string(text, to_move=me)


@pytest.mark.parametrize("key,options,count", CASES)
def test_transformed_moves_reach_transformed_positions(key, options, count):
    g = games.get(key)
    proto = g.new_board(**options)
    syms = symmetries(key, proto.observation().shape, proto.num_actions)
    assert len(syms) == count
    rng = random.Random(7)
    checked = 0
    for _game in range(6):
        b = g.new_board(**options)
        actions = []
        while not b.is_terminal() and len(actions) < 30:
            m = rng.choice(b.legal_moves)
            actions.append(b.move_to_action(m))
            b.push(m)
            obs = b.observation().reshape(-1)
            mask = b.action_mask()
            for obs_index, action_index in syms:
                t = _transformed(g, options, b, actions, obs_index, action_index)
                assert np.array_equal(t.observation().reshape(-1), obs[obs_index])
                assert np.array_equal(t.action_mask(), mask[action_index])
                checked += 1
    assert checked > 50


def test_identity_comes_first_and_maps_are_permutations():
    for key, options, _ in CASES:
        b = games.get(key).new_board(**options)
        syms = symmetries(key, b.observation().shape, b.num_actions)
        op, ap = syms[0]
        assert np.array_equal(op, np.arange(op.size))
        assert np.array_equal(ap, np.arange(ap.size))
        for op, ap in syms:
            assert sorted(op) == list(range(op.size))
            assert sorted(ap) == list(range(ap.size))


def test_unknown_action_layout_is_refused():
    with pytest.raises(ValueError, match="10 actions on a 3x3 board are not one per cell"):
        symmetries("ttt", (2, 3, 3), 10)


def test_the_symmetries_are_the_games_declaration(monkeypatch):
    """selfplay reads the symmetries each game declares (its entry's
    ``symmetries``), not a guess from the action count: a game that declares
    none trains on its positions as played, and a declared rule is used as is."""
    import dataclasses

    from ttt_engine import _symmetry, selfplay
    real = games.get
    for declared, expected in ((None, 1), (_symmetry.identity, 1), (_symmetry.cells, 8)):
        entry = dataclasses.replace(real("ttt"), symmetries=declared)
        monkeypatch.setattr(selfplay._games, "get", lambda key, e=entry: e)
        syms = symmetries("ttt", (2, 3, 3), 9)
        assert len(syms) == expected
        assert np.array_equal(syms[0][0], np.arange(18)) and np.array_equal(syms[0][1],
                                                                            np.arange(9))
    # the same action count as Tic-Tac-Toe's, another rule: what the game says counts
    entry = dataclasses.replace(real("connect4"), symmetries=_symmetry.columns)
    monkeypatch.setattr(selfplay._games, "get", lambda key: entry)
    assert len(symmetries("connect4", (2, 9, 9), 9)) == 2


def test_selfplay_on_an_executor_joins_the_parts_in_order():
    """Games split over an executor's workers come back as one data set with
    game ids in order, each part reproducible from the seed."""
    from concurrent.futures import ThreadPoolExecutor

    from ttt_engine.evaluators import UniformEvaluator
    from ttt_engine.selfplay import selfplay
    with ThreadPoolExecutor(2) as ex:
        a = selfplay("ttt", UniformEvaluator(), games=10, simulations=20, seed=4, executor=ex,
                     workers=3)
        b = selfplay("ttt", UniformEvaluator(), games=10, simulations=20, seed=4, executor=ex,
                     workers=3)
    assert len(a.outcomes) == 10
    assert sorted(set(a.game_ids.tolist())) == list(range(10))
    assert (np.diff(a.game_ids) >= 0).all()
    for key in ("observations", "policies", "values", "game_ids"):
        assert np.array_equal(getattr(a, key), getattr(b, key))
    with pytest.raises(ValueError, match="workers= needs an executor"):
        selfplay("ttt", UniformEvaluator(), games=2, simulations=5, workers=2)
