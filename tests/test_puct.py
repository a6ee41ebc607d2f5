"""PUCT search and self-play: the compiled ``ttt_engine.search.PUCT`` against the
independent pure-Python reference (``tests/puct_reference.py``), PUCT with the
built-in uniform evaluator against exact Tic-Tac-Toe values, self-play targets,
bad evaluators and pickling."""
from __future__ import annotations

import hashlib
import math
import pickle
import random
import threading
import time

import numpy as np
import pytest

from puct_reference import ReferencePUCT, softmax_priors
from ttt_engine import games
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.search import PUCT, solve
from ttt_engine.selfplay import selfplay


# ---------------------------------------------------------------- evaluators
def hashed_evaluator(observations, legal_mask):
    """Logits and a value in [-0.95, 0.95] drawn from a generator seeded by a
    hash of each observation's bytes: deterministic, position-dependent,
    independent of how the positions are batched."""
    batch, actions = legal_mask.shape
    logits = np.empty((batch, actions), dtype=np.float32)
    values = np.empty(batch, dtype=np.float32)
    for i in range(batch):
        digest = hashlib.blake2b(np.ascontiguousarray(observations[i]).tobytes(),
                                 digest_size=8).digest()
        rng = np.random.default_rng(int.from_bytes(digest, "little"))
        logits[i] = rng.normal(0.0, 1.5, actions)
        values[i] = rng.uniform(-0.95, 0.95)
    return logits, values


def flat_evaluator(observations, legal_mask):
    """Uniform priors and value 0: every choice is a tie but for finished games."""
    batch, actions = legal_mask.shape
    return np.zeros((batch, actions), np.float32), np.zeros(batch, np.float32)


class Recording:
    """Wraps an evaluator; keeps the batch size of every call."""

    def __init__(self, inner):
        self.inner = inner
        self.batches = []

    def __call__(self, observations, legal_mask):
        self.batches.append(len(observations))
        return self.inner(observations, legal_mask)


def constant_evaluator(priors_by_action, value):
    """Logits log(p) for the given actions (others -inf-ish), a constant value."""
    def evaluate(observations, legal_mask):
        batch, actions = legal_mask.shape
        logits = np.full((batch, actions), -30.0, np.float32)
        for a, p in priors_by_action.items():
            logits[:, a] = math.log(p)
        return logits, np.full(batch, value, np.float32)
    return evaluate


# ---------------------------------------------------------------- positions
def _random_position(game, plies, seed, **options):
    board = games.get(game).new_board(**options)
    rng = random.Random(seed)
    for _ in range(plies):
        if board.is_terminal():
            break
        board.push(rng.choice(list(board.legal_moves)))
    assert not board.is_terminal()
    return board


def _ttt(text):
    return games.get("ttt").from_string(text)


# X O X / X O O / _ X _ : O to move; O at 6 draws, O at 8 lets X win at 6.
TWO_EMPTY = "XOX\nXOO\n.X."

POSITIONS = {
    "ttt-start": lambda: games.get("ttt").new_board(),
    "ttt-mid": lambda: _random_position("ttt", 3, 5),
    "ttt-late": lambda: _random_position("ttt", 5, 11),
    "uttt-start": lambda: games.get("uttt").new_board(),
    "uttt-mid": lambda: _random_position("uttt", 12, 3),
    "clobber-3x3": lambda: games.get("clobber").new_board(rows=3, cols=3),
    "clobber-3x4": lambda: games.get("clobber").new_board(rows=3, cols=4),
    "clobber-4x4-mid": lambda: _random_position("clobber", 4, 2, rows=4, cols=4),
    "quixo-3x3": lambda: games.get("quixo").new_board(size=3),
    "quixo-3x3-mid": lambda: _random_position("quixo", 6, 7, size=3),
    "quixo-5x5": lambda: games.get("quixo").new_board(size=5),
}


def _compiled_visits(puct):
    return {c["move"]: c["visits"] for c in puct.stats["children"]}


def _compare(board, evaluator, simulations, **kw):
    """Search ``board`` with both; return (compiled PUCT, reference)."""
    ref = ReferencePUCT(evaluator, **kw)
    ref_move = ref.search(board, simulations)
    puct = PUCT(evaluator, reuse=False, seed=1, **kw)
    move = puct.search(board.copy(), simulations=simulations)
    assert _compiled_visits(puct) == ref.visits(), "visit counts differ"
    assert move == ref_move
    assert puct.stats["best_move"] == ref_move
    return puct, ref


# ---------------------------------------------------------------- the reference by hand
def test_reference_by_hand_sequential():
    """O to move at X O X / X O O / _ X _, priors 0.25 on cell 6 (draws) and 0.75 on
    cell 8 (loses), value 0, c_puct 1.  By hand:
    sim 1 root; sim 2 -> 8 (U .75 vs .25); sim 3 -> 8 (Q 0 + .75*sqrt2/2 = .53 vs
    .25*sqrt2 = .35) then X wins at 6: W_8 = -1; sim 4 -> 6 (.433 vs -.5 + .433);
    sim 5 -> 6 (.25 vs 0.0) then the draw; sim 6 -> 6 (.186 vs .059)."""
    board = _ttt(TWO_EMPTY)
    assert board.to_move == "O" and list(board.legal_moves) == [6, 8]
    evaluator = constant_evaluator({6: 0.25, 8: 0.75}, 0.0)
    expected = {1: {6: 0, 8: 0}, 2: {6: 0, 8: 1}, 3: {6: 0, 8: 2}, 4: {6: 1, 8: 2},
                5: {6: 2, 8: 2}, 6: {6: 3, 8: 2}}
    # 1: no child visited, 5: a tie; both go to the higher prior (8), not the first move
    best = {1: 8, 2: 8, 3: 8, 4: 8, 5: 8, 6: 6}
    for sims, visits in expected.items():
        ref = ReferencePUCT(evaluator, c_puct=1.0)
        move = ref.search(board, sims)
        assert ref.root.visits == sims
        assert ref.visits() == visits, sims
        if sims in best:
            assert move == best[sims]
    ref = ReferencePUCT(evaluator, c_puct=1.0)
    ref.search(board, 3)
    # root W: +1 from the lost line (from X's view, the mover into the root)
    assert ref.root.value_sum == 1.0 and ref.root_value() == pytest.approx(-1 / 3)


def test_reference_by_hand_virtual_loss():
    """The same position with batch_size 2: call 1 evaluates the root alone (the
    second selection meets the pending root); call 2 gathers 8 then, with 8
    counted as a pending loss (Q = -1), 6; call 3 meets X's win under 8 (backed
    up at once) and stops at 4 simulations."""
    board = _ttt(TWO_EMPTY)
    evaluator = Recording(constant_evaluator({6: 0.25, 8: 0.75}, 0.0))
    ref = ReferencePUCT(evaluator, c_puct=1.0, batch_size=2)
    ref.search(board, 3)
    assert ref.visits() == {6: 1, 8: 1}
    assert evaluator.batches == [1, 2]
    ref = ReferencePUCT(evaluator, c_puct=1.0, batch_size=2)
    ref.search(board, 4)
    assert ref.visits() == {6: 1, 8: 2}
    ref = ReferencePUCT(evaluator, c_puct=1.0, batch_size=2)
    ref.search(board, 6)
    assert ref.visits() == {6: 3, 8: 2}


def test_reference_ties_and_schedule():
    """Uniform priors and zero values from the empty board: simulations 2..10
    visit the cells in order (every score ties, the first child wins); the
    c_base schedule with a huge c_base is plain c_puct = c_init."""
    board = games.get("ttt").new_board()
    for sims in range(1, 11):
        ref = ReferencePUCT(flat_evaluator)
        ref.search(board, sims)
        assert ref.visits() == {m: int(m < sims - 1) for m in range(9)}
    ref = ReferencePUCT(flat_evaluator, c_base=1.0, c_init=0.0)
    assert ref.exploration(2) == pytest.approx(math.log(4.0))
    a = ReferencePUCT(hashed_evaluator, c_puct=1.7)
    b = ReferencePUCT(hashed_evaluator, c_base=1e12, c_init=1.7)
    board = _random_position("ttt", 2, 1)
    a.search(board, 200)
    b.search(board, 200)
    assert a.visits() == b.visits()


def test_reference_softmax_float32():
    logits = np.array([1.0, 2.0, 3.0, 100.0], np.float32)
    p = softmax_priors(logits, [0, 1, 2])
    assert all(type(x) is np.float32 for x in p)
    e = np.exp(np.array([-2.0, -1.0, 0.0]))
    assert np.allclose(p, e / e.sum(), rtol=1e-7)


def test_reference_finds_the_win_with_flat_priors():
    """Only finished games give values: the search must find O's draw (6) and
    not the loss (8); from X's side a one-move win is taken."""
    ref = ReferencePUCT(flat_evaluator)
    assert ref.search(_ttt(TWO_EMPTY), 50) == 6
    ref = ReferencePUCT(flat_evaluator)
    assert ref.search(_ttt("XX.\nOO.\n..."), 200) == 2


# ---------------------------------------------------------------- compiled vs reference
def test_compiled_by_hand_cases():
    board = _ttt(TWO_EMPTY)
    for batch_size, sims, visits in [(1, 3, {6: 0, 8: 2}), (1, 5, {6: 2, 8: 2}),
                                     (1, 6, {6: 3, 8: 2}), (2, 3, {6: 1, 8: 1}),
                                     (2, 4, {6: 1, 8: 2}), (2, 6, {6: 3, 8: 2})]:
        evaluator = Recording(constant_evaluator({6: 0.25, 8: 0.75}, 0.0))
        puct = PUCT(evaluator, c_puct=1.0, batch_size=batch_size, reuse=False, seed=0)
        puct.search(board.copy(), simulations=sims)
        assert _compiled_visits(puct) == visits, (batch_size, sims)
        assert puct.stats["simulations"] == sims
    assert puct.search(board.copy(), simulations=5) == 8   # tie -> the higher prior
    assert puct.search(board.copy(), simulations=6) == 6


@pytest.mark.parametrize("batch_size", [1, 3, 8])
@pytest.mark.parametrize("schedule", [None, (10.0, 0.5)])
@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_same_visits_as_reference_hashed(position, schedule, batch_size):
    board = POSITIONS[position]()
    kw = dict(c_puct=1.25, batch_size=batch_size)
    if schedule is not None:
        kw.update(c_base=schedule[0], c_init=schedule[1])
    sims = 120 if position.startswith(("uttt", "quixo-5")) else 250
    puct, ref = _compare(board, hashed_evaluator, sims, **kw)
    children = puct.stats["children"]
    assert [c["move"] for c in children] == list(board.legal_moves)
    assert [c["action"] for c in children] == [board.move_to_action(m) for m in board.legal_moves]
    by_move = {c.move: c for c in ref.root.children}
    for c in children:
        r = by_move[c["move"]]
        assert np.float32(c["prior"]) == r.prior          # float32 priors, bit for bit
        if r.visits:
            assert c["mean"] == pytest.approx(r.value_sum / r.visits, abs=1e-9)
    assert puct.stats["simulations"] == sims
    assert puct.stats["root_value"] == pytest.approx(ref.root_value(), abs=1e-9)
    assert puct.stats["evaluations"] == ref.evaluations
    assert puct.stats["evaluator_calls"] == ref.evaluator_calls
    pi = puct.policy(1.0)
    assert pi.dtype == np.float32 and pi.shape == (board.num_actions,)
    assert np.allclose(pi, ref.policy(board.num_actions, 1.0), atol=1e-6)
    assert np.allclose(puct.policy(0.5), ref.policy(board.num_actions, 0.5), atol=1e-6)
    one_hot = puct.policy(0)
    assert one_hot.sum() == 1 and one_hot[board.move_to_action(ref.best_move())] == 1


@pytest.mark.parametrize("batch_size", [1, 4])
@pytest.mark.parametrize("position", ["ttt-start", "ttt-late", "uttt-start", "uttt-mid",
                                      "clobber-3x4",
                                      "quixo-3x3", "quixo-5x5"])
def test_same_visits_as_reference_flat(position, batch_size):
    """Uniform priors, zero values: ties everywhere, so tie-breaking and the
    terminal values decide every visit."""
    board = POSITIONS[position]()
    _compare(board, flat_evaluator, 150, batch_size=batch_size, c_puct=1.0)


@pytest.mark.parametrize("batch_size", [1, 5])
def test_batches_match_reference(batch_size):
    """The compiled search calls the evaluator with the same batches."""
    board = POSITIONS["uttt-mid"]()
    rec_c, rec_r = Recording(hashed_evaluator), Recording(hashed_evaluator)
    PUCT(rec_c, batch_size=batch_size, reuse=False, seed=0).search(board.copy(), simulations=90)
    ReferencePUCT(rec_r, batch_size=batch_size).search(board, 90)
    assert rec_c.batches == rec_r.batches
    assert max(rec_c.batches) <= batch_size


def test_tree_reuse_matches_reference():
    """search, advance(move), search again: the kept subtree gives the same counts."""
    board = POSITIONS["clobber-4x4-mid"]()
    puct = PUCT(hashed_evaluator, reuse=True, seed=0)
    ref = ReferencePUCT(hashed_evaluator)
    for _ in range(3):
        move = puct.search(board.copy(), simulations=80)
        assert move == ref.search(board, 80)
        assert _compiled_visits(puct) == ref.visits()
        board.push(move)
        if board.is_terminal():
            break
        puct.advance(move)
        ref.advance(move)


def test_tree_reuse_by_descent_matches_reference():
    """Without advance: the next search finds its root two plies down."""
    board = POSITIONS["quixo-3x3-mid"]()
    puct = PUCT(hashed_evaluator, reuse=True, batch_size=2, seed=0)
    ref = ReferencePUCT(hashed_evaluator, batch_size=2)
    for i in range(3):
        move = puct.search(board.copy(), simulations=150)
        assert puct.stats["reused"] == (i > 0)
        assert move == ref.search(board, 150)
        assert _compiled_visits(puct) == ref.visits()
        reply = max(ref.root.children[[c.move for c in ref.root.children].index(move)].children,
                    key=lambda c: c.visits, default=None)
        if reply is None:
            break
        ref.advance(move)
        ref.advance(reply.move)
        board.push(move)
        board.push(reply.move)
        if board.is_terminal():
            break


def test_board_not_changed_and_bad_arguments():
    board = POSITIONS["ttt-mid"]()
    before = board.copy()
    PUCT(hashed_evaluator, seed=0).search(board, simulations=30)
    assert board == before
    with pytest.raises(ValueError):
        PUCT(hashed_evaluator).search(_ttt("XXX\nOO.\n..."), simulations=10)
    for kw in [dict(c_puct=-1.0), dict(batch_size=0), dict(max_nodes=0),
               dict(dirichlet_alpha=-0.3), dict(noise_fraction=1.5)]:
        with pytest.raises(ValueError):
            PUCT(hashed_evaluator, **kw)
    with pytest.raises(ValueError):
        PUCT(hashed_evaluator).search(board, simulations=-1)


def test_dirichlet_noise_is_seeded_and_changes_root_priors():
    board = games.get("ttt").new_board()

    def priors(seed, alpha=0.3):
        puct = PUCT(flat_evaluator, dirichlet_alpha=alpha, seed=seed, reuse=False)
        puct.search(board.copy(), simulations=50)
        return [c["prior"] for c in puct.stats["children"]], _compiled_visits(puct)

    p1, v1 = priors(1)
    assert priors(1) == (p1, v1)
    assert sum(p1) == pytest.approx(1.0, abs=1e-5)
    assert len({round(p, 6) for p in p1}) > 1            # no longer uniform
    assert priors(2)[0] != p1
    assert min(p1) >= 0.75 / 9 - 1e-6                      # (1 - 0.25) * P + 0.25 * eta


# ---------------------------------------------------------------- uniform evaluator vs exact values
def _ttt_positions():
    """Every non-terminal Tic-Tac-Toe position reachable from the start (unique)."""
    seen, out = set(), []
    stack = [games.get("ttt").new_board()]
    while stack:
        b = stack.pop()
        key = b.hash()
        if key in seen or b.is_terminal():
            continue
        seen.add(key)
        out.append(b)
        for m in b.legal_moves:
            c = b.copy()
            c.push(m)
            stack.append(c)
    return out


def _unique_winning_move(board):
    """The only move that keeps a win (None unless the position is a win with one)."""
    if solve(board) != 1:
        return None
    winning = []
    for m in board.legal_moves:
        c = board.copy()
        c.push(m)
        if solve(c) == -1 or (c.is_terminal() and c.winner == board.to_move):
            winning.append(m)
    return winning[0] if len(winning) == 1 else None


@pytest.fixture(scope="module")
def decisive_ttt():
    """(board, unique winning move) for a fixed sample of Tic-Tac-Toe positions
    won by the side to move with exactly one winning move, and (board, value)
    for a fixed sample of lost positions (every move loses)."""
    rng = random.Random(20240)
    positions = _ttt_positions()
    rng.shuffle(positions)
    wins, losses = [], []
    for b in positions:
        v = solve(b)
        if v == 1 and len(wins) < 60:
            m = _unique_winning_move(b)
            if m is not None:
                wins.append((b, m))
        elif v == -1 and len(losses) < 40:
            losses.append(b)
    assert len(wins) == 60 and len(losses) == 40
    return wins, losses


@pytest.mark.parametrize("evaluator", ["uniform", "flat"])
def test_uniform_evaluator_finds_unique_wins(decisive_ttt, evaluator):
    """1,500 simulations from each won position: PUCT plays the one winning move
    (a search with a flipped backup sign or a broken selection misses most of
    them).  The flat evaluator (value 0) is deterministic; the random-playout
    one is seeded, and allowed one miss in 60."""
    wins, _ = decisive_ttt
    misses = []
    for i, (board, move) in enumerate(wins):
        ev = UniformEvaluator() if evaluator == "uniform" else flat_evaluator
        puct = PUCT(ev, seed=i, reuse=False)
        if puct.search(board.copy(), simulations=1500) != move:
            misses.append(board.to_string())
    assert len(misses) <= (1 if evaluator == "uniform" else 0), misses


def test_uniform_evaluator_root_value_sign(decisive_ttt):
    """The root value has the sign of the exact value on decisive positions:
    positive on the won positions, negative on the lost ones."""
    wins, losses = decisive_ttt
    wrong = []
    for i, board in enumerate([b for b, _ in wins] + losses):
        puct = PUCT(UniformEvaluator(), seed=100 + i, reuse=False)
        puct.search(board.copy(), simulations=2000)
        if np.sign(puct.stats["root_value"]) != solve(board):
            wrong.append((board.to_string(), puct.stats["root_value"], solve(board)))
    assert len(wrong) <= 2, wrong


def test_uniform_evaluator_priors_and_seed():
    """The built-in uniform evaluator (playouts in C): uniform root priors,
    every simulation but the root's below a child, the same seed the same tree."""
    board = games.get("ttt").new_board()
    puct = PUCT(UniformEvaluator(playouts=4), seed=3, reuse=False)
    puct.search(board, simulations=300)
    assert puct.stats["simulations"] == 300
    assert all(c["prior"] == pytest.approx(1 / 9) for c in puct.stats["children"])
    assert sum(c["visits"] for c in puct.stats["children"]) == 299
    again = PUCT(UniformEvaluator(playouts=4), seed=3, reuse=False)
    again.search(board, simulations=300)
    assert again.stats["children"] == puct.stats["children"]


# ---------------------------------------------------------------- self-play
def _replay_check(game, data, **options):
    """Every game's records are consecutive positions from the start: each next
    observation is one legal move away, the values are the final outcome from
    the side to move, and the last position has a move to that outcome."""
    g = games.get(game)
    ids = data.game_ids
    assert ids[0] == 0 and np.all(np.diff(ids) >= 0) and np.all(np.diff(ids) <= 1)
    assert set(np.unique(ids)) == set(range(len(data.outcomes)))
    for gid in range(len(data.outcomes)):
        rows = np.flatnonzero(ids == gid)
        board = g.new_board(**options)
        outcome = int(data.outcomes[gid])
        for j, row in enumerate(rows):
            assert np.array_equal(data.observations[row], board.observation())
            assert np.array_equal(data.masks[row], board.action_mask())
            side = j % 2
            expected = 0.0 if outcome == 2 else (1.0 if outcome == side else -1.0)
            assert data.values[row] == expected
            following = [board.copy() for _ in board.legal_moves]
            for c, m in zip(following, board.legal_moves):
                c.push(m)
            if j + 1 < len(rows):
                nxt = data.observations[rows[j + 1]]
                matches = [c for c in following
                           if not c.is_terminal() and np.array_equal(c.observation(), nxt)]
                assert matches, f"game {gid}: no legal move leads to record {j + 1}"
                board = matches[0]
            else:
                sides = g.sides
                want = "draw" if outcome == 2 else sides[outcome]
                assert any(c.is_terminal() and c.winner == want for c in following)


@pytest.mark.parametrize("game,options", [("ttt", {}), ("clobber", {"rows": 3, "cols": 4}),
                                          ("quixo", {"size": 3})])
def test_selfplay_targets_consistent(game, options):
    data = selfplay(game, UniformEvaluator(), games=6, simulations=40, seed=5, **options)
    n = len(data)
    a = games.get(game).new_board(**options).num_actions
    assert data.observations.dtype == np.int8 and data.observations.shape[0] == n
    assert data.masks.dtype == np.bool_ and data.masks.shape == (n, a)
    assert data.policies.dtype == np.float32 and data.policies.shape == (n, a)
    assert data.values.dtype == np.float32 and data.values.shape == (n,)
    assert data.game_ids.dtype == np.int32 and data.outcomes.shape == (6,)
    assert np.allclose(data.policies.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(data.policies[~data.masks] == 0)
    assert np.all(data.policies >= 0)
    _replay_check(game, data, **options)


def test_selfplay_with_python_evaluator_and_parallel():
    data = selfplay("uttt", hashed_evaluator, games=3, simulations=16, seed=2, parallel=3)
    assert np.allclose(data.policies.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(data.policies[~data.masks] == 0)
    _replay_check("uttt", data)


def test_selfplay_expand_after_saves_evaluations():
    """expand_after=k in self-play, as in the search: a leaf's first k visits
    are random playouts, so the evaluator sees fewer positions for the same
    simulations; the targets stay distributions over legal moves, the games
    replay, and the same seed gives the same data."""
    calls = []

    def counting(observations, legal_mask):
        calls.append(len(observations))
        return hashed_evaluator(observations, legal_mask)

    seen = {}
    for k in (0, 1):
        calls.clear()
        data = selfplay("uttt", counting, games=3, simulations=48, seed=4, parallel=3,
                        playout_weight=1.0, mixed_playouts=2, expand_after=k)
        assert np.allclose(data.policies.sum(axis=1), 1.0, atol=1e-5)
        assert np.all(data.policies[~data.masks] == 0)
        assert data.stats["evaluations"] == sum(calls)
        _replay_check("uttt", data)
        seen[k] = sum(calls) / len(data)
        again = selfplay("uttt", counting, games=3, simulations=48, seed=4, parallel=3,
                         playout_weight=1.0, mixed_playouts=2, expand_after=k)
        assert np.array_equal(again.policies, data.policies)
    assert seen[1] < 0.8 * seen[0]
    for bad in (-1, 1.5):
        with pytest.raises((ValueError, TypeError), match="expand_after"):
            selfplay("ttt", UniformEvaluator(), games=1, simulations=4, expand_after=bad)


def test_selfplay_reproducible():
    kw = dict(games=5, simulations=30, temperature_moves=4, dirichlet_alpha=0.5)
    a = selfplay("ttt", UniformEvaluator(), seed=9, **kw)
    b = selfplay("ttt", UniformEvaluator(), seed=9, **kw)
    c = selfplay("ttt", UniformEvaluator(), seed=10, **kw)
    for name in ("observations", "masks", "policies", "values", "game_ids", "outcomes"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert not (len(a) == len(c) and np.array_equal(a.policies, c.policies))


def test_selfplay_concat_and_augment():
    a = selfplay("ttt", UniformEvaluator(), games=2, simulations=20, seed=1)
    b = selfplay("ttt", UniformEvaluator(), games=3, simulations=20, seed=2)
    both = a.concat(b)
    assert len(both) == len(a) + len(b) and len(both.outcomes) == 5
    assert np.array_equal(np.unique(both.game_ids), np.arange(5))
    aug = a.augment()
    assert len(aug) % len(a) == 0 and len(aug) > len(a)
    assert np.allclose(aug.policies.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(aug.policies[~aug.masks] == 0)
    # a symmetry keeps the number of stones of each side
    counts = aug.observations.reshape(len(aug), 2, -1).sum(axis=2)
    assert set(map(tuple, counts)) <= set(map(tuple, a.observations.reshape(len(a), 2, -1)
                                               .sum(axis=2)))


# ---------------------------------------------------------------- bad evaluators
class WrongLogitShape:
    def __call__(self, obs, mask):
        return np.zeros((len(obs), mask.shape[1] + 1), np.float32), np.zeros(len(obs), np.float32)


class WrongValueShape:
    def __call__(self, obs, mask):
        return np.zeros(mask.shape, np.float32), np.zeros(len(obs) + 1, np.float32)


class NaNLogits:
    def __call__(self, obs, mask):
        logits = np.zeros(mask.shape, np.float32)
        logits[:, :] = np.nan
        return logits, np.zeros(len(obs), np.float32)


class NaNValues:
    def __call__(self, obs, mask):
        return np.zeros(mask.shape, np.float32), np.full(len(obs), np.nan, np.float32)


class ValueTooBig:
    def __call__(self, obs, mask):
        return np.zeros(mask.shape, np.float32), np.full(len(obs), 1.5, np.float32)


class NotATuple:
    def __call__(self, obs, mask):
        return np.zeros(mask.shape, np.float32)


class Raises:
    def __call__(self, obs, mask):
        raise RuntimeError("network exploded")


@pytest.mark.parametrize("bad", [WrongLogitShape, WrongValueShape, NaNLogits, NaNValues,
                                 ValueTooBig, NotATuple, Raises])
@pytest.mark.parametrize("batch_size", [1, 4])
def test_bad_evaluator_is_a_clear_error(bad, batch_size):
    puct = PUCT(bad(), batch_size=batch_size, seed=0)
    with pytest.raises(ValueError, match=bad.__name__):
        puct.search(games.get("ttt").new_board(), simulations=20)
    # the object stays usable
    puct2 = PUCT(hashed_evaluator, seed=0)
    puct2.search(games.get("ttt").new_board(), simulations=20)


@pytest.mark.parametrize("bad", [ValueTooBig, NaNLogits, Raises])
def test_bad_evaluator_in_selfplay(bad):
    with pytest.raises(ValueError, match=bad.__name__):
        selfplay("ttt", bad(), games=2, simulations=10, seed=0)


# ---------------------------------------------------------------- pickling
def test_puct_pickles():
    board = POSITIONS["ttt-mid"]()
    puct = PUCT(UniformEvaluator(playouts=2), c_puct=1.5, batch_size=4, seed=7, reuse=False)
    clone = pickle.loads(pickle.dumps(puct))
    assert clone.search(board.copy(), simulations=200) == puct.search(board.copy(),
                                                                      simulations=200)
    assert _compiled_visits(clone) == _compiled_visits(puct)
    puct.search(board.copy(), simulations=50)             # after a search too
    pickle.loads(pickle.dumps(puct)).search(board.copy(), simulations=50)
    hashed = PUCT(hashed_evaluator, seed=1)
    assert pickle.loads(pickle.dumps(hashed)).search(board.copy(), simulations=40) in \
        board.legal_moves


def test_az_agent_pickles_and_plays():
    agent = games.get("ttt").make_agent("az", simulations=60, seed=3,
                                        network=UniformEvaluator())
    board = _ttt("XX.\nOO.\n...")
    assert agent.select_move(board.copy()) == 2
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.select_move(board.copy()) == 2


# ---------------------------------------------------------------- playout mixing
def _zero(observations, legal_mask):
    return (np.zeros(legal_mask.shape, np.float32), np.zeros(len(legal_mask), np.float32))


def test_playout_weight_brings_the_playouts_value():
    """A value-free evaluator finds nothing by itself; with the playouts mixed
    in (weight 1) the search sees the forced win and the root value says so."""
    empty = games.get("uttt").new_board()      # no finished game within reach
    blind = PUCT(_zero, seed=0)
    blind.search(empty, simulations=40)
    assert blind.stats["root_value"] == 0.0
    mixed = PUCT(_zero, seed=0, playout_weight=1.0)
    mixed.search(empty, simulations=40)
    assert mixed.stats["root_value"] != 0.0
    assert all(-1 <= c["mean"] <= 1 for c in mixed.stats["children"])
    b = games.get("ttt").new_board()
    for m in (0, 3, 1, 4):           # X to move wins at 2
        b.push(m)
    p = PUCT(_zero, seed=0, playout_weight=1.0, batch_size=4)
    assert p.search(b, simulations=300) == 2
    assert p.stats["root_value"] > 0.5
    again = PUCT(_zero, seed=0, playout_weight=1.0, batch_size=4)
    again.search(b, simulations=300)
    assert again.stats["children"] == p.stats["children"]      # seeded


def test_playout_weight_in_selfplay_and_validated():
    data = selfplay("ttt", _zero, games=4, simulations=30, seed=2, playout_weight=0.5)
    assert len(data.outcomes) == 4
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="playout_weight"):
            PUCT(_zero, playout_weight=bad)
        with pytest.raises(ValueError, match="playout_weight"):
            selfplay("ttt", _zero, games=1, simulations=5, playout_weight=bad)
    # the mean of several playouts: reproducible, different searches, validated
    a = selfplay("uttt", _zero, games=3, simulations=40, seed=2, playout_weight=1.0,
                 mixed_playouts=8)
    b = selfplay("uttt", _zero, games=3, simulations=40, seed=2, playout_weight=1.0,
                 mixed_playouts=8)
    one = selfplay("uttt", _zero, games=3, simulations=40, seed=2, playout_weight=1.0)
    assert np.array_equal(a.policies, b.policies)
    assert not (a.policies.shape == one.policies.shape and np.array_equal(a.policies,
                                                                          one.policies))
    with pytest.raises(ValueError, match="mixed_playouts"):
        selfplay("ttt", _zero, games=1, simulations=5, mixed_playouts=0)


def _random_playout_value(board):
    """Exact expected result of uniformly random play from ``board`` for its
    side to move (+1 win, 0 draw, -1 loss), by enumeration."""
    if board.is_terminal():
        w = board.winner
        return 0.0 if w == "draw" else (1.0 if w == board.to_move else -1.0)
    moves = board.legal_moves
    total = 0.0
    for m in moves:
        board.push(m)
        total -= _random_playout_value(board)
        board.pop()
    return total / len(moves)


@pytest.mark.parametrize("text", ["X...O....", "XO..X....", "X.O.O.X.."])
def test_mixed_value_is_the_mean_of_the_playouts(text):
    """With playout_weight=1 a leaf's value is the mean of ``mixed_playouts``
    random games: after one simulation the root's value is that mean, within
    sampling error of the exact expectation."""
    from ttt_engine import Board
    b = Board.from_string(text)
    exact = _random_playout_value(b.copy())
    p = PUCT(flat_evaluator, playout_weight=1.0, mixed_playouts=4000, seed=3)
    p.search(b, simulations=1)
    assert p.stats["root_value"] == pytest.approx(exact, abs=0.05)
    one = PUCT(flat_evaluator, playout_weight=1.0, seed=3)
    one.search(b, simulations=1)
    assert one.stats["root_value"] in (-1.0, 0.0, 1.0)        # a single game's result
    with pytest.raises(ValueError, match="mixed_playouts"):
        PUCT(flat_evaluator, mixed_playouts=0)
    assert pickle.loads(pickle.dumps(p)).mixed_playouts == 4000


def test_az_agent_root_parallel_sums_the_trees():
    """threads=2: two trees with split seeds, searched in two threads, their root
    visits summed; the same seed plays the same moves, a pickled copy too, and
    the move is the most visited of the sums (ties: the higher prior)."""
    from ttt_engine import uttt
    from ttt_engine.agents import AZAgent
    from ttt_engine.network import Network
    net = Network.init("uttt", hidden=(16,), seed=4)
    runs = []
    for agent in (AZAgent(net, simulations=300, seed=5, threads=2),
                  pickle.loads(pickle.dumps(AZAgent(net, simulations=300, seed=5, threads=2)))):
        b = uttt.Board()
        moves = []
        for _ in range(3):
            moves.append(agent.select_move(b))
            st = agent.last_stats
            assert st["threads"] == 2 and st["simulations"] == 300
            assert st["best_move"] == max(st["children"],
                                          key=lambda c: (c["visits"], c["prior"]))["move"]
            per_tree = [p.stats["children"] for p in agent._pucts]
            for c in st["children"]:
                assert c["visits"] == sum(x["visits"] for kids in per_tree for x in kids
                                          if x["move"] == c["move"])
            b.push(moves[-1])
            b.push(b.legal_moves[0])
        runs.append(moves)
    assert runs[0] == runs[1]


def test_puct_part_stops_on_the_shared_flag():
    from ttt_engine import uttt
    from ttt_engine.search import _puct_part
    p = PUCT(hashed_evaluator, seed=1, batch_size=4)
    stop = np.ones(1, dtype=np.int32)
    assert _puct_part(p, uttt.Board(), 1_000_000, None, stop) in uttt.Board().legal_moves
    assert p.stats["simulations"] <= 8          # one round of gathering, then it stopped


# ---------------------------------------------------------------- expand_after
def test_expand_after_values_young_leaves_by_playouts():
    """expand_after=k: a leaf below the root reaches the evaluator only once it
    has k visits (the visits before are random playouts), so the evaluator sees
    fewer positions for the same simulations; the root is always expanded, the
    search still finds the win, and the same seed gives the same tree."""
    calls = []

    def counting(observations, legal_mask):
        calls.append(len(observations))
        return _zero(observations, legal_mask)

    b = games.get("ttt").new_board()
    for m in (0, 3, 1, 4):           # X to move wins at 2
        b.push(m)
    seen = {}
    for k in (0, 1, 3):
        calls.clear()
        p = PUCT(counting, seed=1, playout_weight=1.0, expand_after=k, reuse=False)
        assert p.search(b, simulations=400) == 2
        st = p.stats
        assert st["simulations"] == 400 and sum(calls) == st["evaluations"]
        assert sum(c["visits"] for c in st["children"]) == 399      # all but the root's first
        seen[k] = st["evaluations"]
        again = PUCT(counting, seed=1, playout_weight=1.0, expand_after=k, reuse=False)
        again.search(b, simulations=400)
        assert again.stats["children"] == st["children"]
    assert seen[0] > seen[1] > seen[3] >= 1
    # one simulation: the root is evaluated and expanded whatever expand_after says
    p = PUCT(counting, seed=1, expand_after=5)
    assert p.search(games.get("uttt").new_board(), simulations=1) is not None
    assert p.stats["evaluations"] == 1 and len(p.stats["children"]) == 81
    for bad in (-1, 1.5, "2"):
        with pytest.raises((ValueError, TypeError), match="expand_after"):
            PUCT(counting, expand_after=bad)
    assert pickle.loads(pickle.dumps(PUCT(_zero, expand_after=2))).expand_after == 2


def test_a_full_arena_values_leaves_by_playouts_when_the_network_value_is_unused():
    """Once the arena cannot hold a leaf's children, a call to the evaluator
    would only buy a value; with playout_weight=1 that value is the playouts'
    alone, so such leaves are valued by playouts without the call (every
    simulation still counts).  With a network value in the mix the leaves
    still go to the evaluator (their playouts differ from call to call); with
    the network's value alone, a leaf valued before backs up its mean."""
    calls = []

    def counting(observations, legal_mask):
        calls.append(len(observations))
        return _zero(observations, legal_mask)

    b = games.get("uttt").new_board()
    evaluations = {}
    for w in (1.0, 0.5):
        calls.clear()
        p = PUCT(counting, seed=3, max_nodes=2048, playout_weight=w, mixed_playouts=2,
                 batch_size=1, reuse=False)
        p.search(b, simulations=3000)
        st = p.stats
        assert st["simulations"] == 3000 and sum(calls) == st["evaluations"]
        assert sum(c["visits"] for c in st["children"]) == 2999
        assert st["nodes_used"] > 2048 - 600         # the arena did fill
        evaluations[w] = st["evaluations"]
    assert evaluations[1.0] < 400 < 2500 < evaluations[0.5]


def test_a_full_arena_keeps_the_compiled_networks_leaf_values():
    """The compiled network gives a position the same value every time, so a
    leaf that the full arena cannot grow backs up the mean of its values
    instead of a new call: one leaf a batch, the same tree as the search that
    calls the same forward pass from Python for every leaf, with a fraction of
    the calls; and two threads in that regime still finish their budget."""
    from ttt_engine.network import Network
    net = Network.init("uttt", hidden=(16,), seed=4)

    class FromPython:          # the same pass, but not seen as compiled
        def __call__(self, observations, legal_mask):
            return net.compiled.forward(observations)

    b = games.get("uttt").new_board()
    runs = {}
    for name, evaluator in (("compiled", net), ("python", FromPython())):
        p = PUCT(evaluator, seed=3, max_nodes=2048, batch_size=1, reuse=False)
        p.search(b, simulations=3000)
        runs[name] = p.stats
    c, py = runs["compiled"], runs["python"]
    assert c["nodes_used"] > 2048 - 600 and c["simulations"] == py["simulations"] == 3000
    assert [(ch["visits"], round(ch["mean"], 9)) for ch in c["children"]] == \
        [(ch["visits"], round(ch["mean"], 9)) for ch in py["children"]]
    assert c["evaluations"] < 2000 < py["evaluations"]
    p = PUCT(net, seed=3, max_nodes=2048, batch_size=8, reuse=False, threads=2)
    p.search(b, simulations=3000)
    assert p.stats["simulations"] == 3000
    assert sum(ch["visits"] for ch in p.stats["children"]) == 2999


def test_expand_after_in_the_agent_and_the_registry():
    """AZAgent and make_agent('az') take expand_after (None: the shipped
    settings for the shipped network, else 0) and pass it to the search."""
    from ttt_engine import uttt
    from ttt_engine.agents import AZAgent, SHIPPED_SETTINGS
    from ttt_engine.network import Network
    net = Network.init("uttt", hidden=(16,), seed=4)
    assert AZAgent(net).expand_after == 0
    a = AZAgent(net, simulations=200, expand_after=1, playout_weight=1.0, seed=2)
    a.select_move(uttt.Board())
    assert a._puct.expand_after == 1 and a.last_stats["evaluations"] < 200
    make_agent = games.get("uttt").make_agent
    shipped = make_agent("az", time=0.01, seed=1)
    shipped.select_move(uttt.Board())
    want = SHIPPED_SETTINGS["uttt"].get("expand_after", 0)
    if isinstance(want, dict):
        want = want["time"]
    assert shipped.expand_after == want
    assert make_agent("az", expand_after=2).expand_after == 2
    with pytest.raises(ValueError, match="expand_after"):
        AZAgent(net, expand_after=-3)


# ---------------------------------------------------------------- MCTS-Solver
@pytest.mark.parametrize("batch_size", [1, 8])
def test_solver_proofs_agree_with_exhaustive_search(batch_size):
    """Every proof the solver makes, at the root and at each root child, is
    the exact game value; a proven win is played, a proven loss only when
    every move loses; wins and losses near the end are all proven."""
    proved = 0
    for b in random.Random(batch_size).sample(_ttt_positions(), 150):
        p = PUCT(UniformEvaluator(playouts=1), seed=3, solver=True, batch_size=batch_size,
                 reuse=False)
        move = p.search(b, simulations=3000)
        st = p.stats
        value = _check_proofs(b, st, move)
        if st["root_proven"]:
            proved += 1
        elif len(b.legal_moves) <= 4 and value != 0:
            raise AssertionError(f"{b.to_string()}: value {value} not proven in 3000 simulations")
        after = b.copy()
        after.push(move)
        if value == 1:
            assert st["root_proven"] != 1 or (
                (after.is_terminal() and after.winner == b.to_move) or solve(after) == -1)
    assert proved >= 40


def _check_proofs(b, st, move):
    """Every proof in a search's ``stats``, at the root and at each root
    child, is the exact game value, and the move played is not a proven loss
    while another move is unproven.  Returns the exact value of ``b``."""
    value = solve(b)
    if st["root_proven"]:
        assert st["root_proven"] == value, b.to_string()
    for c in st["children"]:
        if c["proven"]:
            child = b.copy()
            child.push(c["move"])
            won = child.is_terminal() and child.winner == b.to_move
            assert c["proven"] == (1 if won else -solve(child)), (b.to_string(), c)
    if any(c["proven"] != -1 for c in st["children"]):
        assert next(c for c in st["children"] if c["move"] == move)["proven"] != -1
    return value


def test_solver_ends_the_search_once_the_root_is_solved():
    """A solved root stops the search: the win in one is played after a
    handful of simulations, on a simulation or a time budget."""
    b = games.get("ttt").new_board()
    for m in (0, 3, 1, 4):           # X to move wins at 2
        b.push(m)
    p = PUCT(UniformEvaluator(playouts=1), seed=1, solver=True)
    assert p.search(b, simulations=100_000) == 2
    assert p.stats["root_proven"] == 1 and p.stats["simulations"] < 50
    q = PUCT(_zero, seed=1, solver=True, batch_size=8, reuse=False)
    assert q.search(b, time=5.0) == 2
    assert q.stats["root_proven"] == 1 and q.stats["time"] < 1.0
    # without the solver the same search runs its whole budget
    r = PUCT(UniformEvaluator(playouts=1), seed=1)
    assert r.search(b, simulations=2000) == 2 and r.stats["simulations"] == 2000


def test_solver_off_changes_nothing():
    """solver=False is the search the reference replays: same tree as before
    the option, no proofs reported."""
    b = games.get("uttt").new_board()
    one = PUCT(UniformEvaluator(playouts=1), seed=5)
    two = PUCT(UniformEvaluator(playouts=1), seed=5, solver=False)
    assert one.search(b, simulations=3000) == two.search(b, simulations=3000)
    assert one.stats["children"] == two.stats["children"]
    assert one.stats["root_proven"] == 0
    assert all(c["proven"] == 0 for c in one.stats["children"])


def test_solver_in_the_agent_the_registry_and_pickles():
    """AZAgent(solver=...) and make_agent('az', solver=...) pass it on; root
    parallelism merges the proofs; a pickled search keeps it."""
    from ttt_engine.agents import AZAgent
    b = games.get("ttt").new_board()
    for m in (0, 3, 1, 4):
        b.push(m)
    a = AZAgent(UniformEvaluator(playouts=1), simulations=400, solver=True, threads=2, seed=1)
    assert a.select_move(b) == 2
    won = next(c for c in a.last_stats["children"] if c["move"] == 2)
    assert won["proven"] == 1
    assert AZAgent(UniformEvaluator()).solver is False      # DEFAULTS for a given evaluator
    assert games.get("uttt").make_agent("az", solver=True).solver is True
    p = PUCT(UniformEvaluator(), solver=True)
    assert pickle.loads(pickle.dumps(p)).solver is True


# ---------------------------------------------------------------- tree parallelism
class _Concurrency:
    """Zero logits and values; counts the threads inside it at once."""

    def __init__(self, thread_safe, fail_after=None):
        self.thread_safe = thread_safe
        self.fail_after = fail_after
        self.inside = self.most = self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, observations, legal_mask):
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
            self.calls += 1
            calls = self.calls
        time.sleep(0.0005)          # room for the other thread to arrive
        with self.lock:
            self.inside -= 1
        if self.fail_after is not None and calls > self.fail_after:
            raise RuntimeError("evaluator broke")
        return _zero(observations, legal_mask)


@pytest.mark.parametrize("game", ["ttt", "uttt", "clobber", "quixo", "connect4"])
def test_tree_parallel_visits_add_up(game):
    """Two threads on one tree: the simulation budget is met exactly, every
    virtual loss is taken back (the root's children hold every visit but the
    root's own), and the next search reuses the tree."""
    b = games.get(game).new_board()
    p = PUCT(_zero, threads=2, batch_size=8, playout_weight=1, expand_after=1, seed=1,
             solver=True)
    move = p.search(b, simulations=3000)
    st = p.stats
    assert move in b.legal_moves
    assert st["simulations"] == st["root_visits"] == 3000
    assert sum(c["visits"] for c in st["children"]) == 2999
    b.push(move)
    b.push(b.legal_moves[0])
    p.search(b, simulations=2000)
    st = p.stats
    # the whole budget, unless the kept tree already proves the root (Tic-Tac-Toe)
    assert st["simulations"] == 2000 or (st["root_proven"] and st["simulations"] < 2000)
    assert st["root_visits"] == st["simulations"] + st["reused_visits"]
    # the reused root's own visits: its evaluation, and a first one by
    # playouts alone if it was a young leaf then (expand_after=1)
    assert st["root_visits"] - sum(c["visits"] for c in st["children"]) in (1, 2)


def test_tree_parallel_proofs_agree_with_exhaustive_search():
    """With two threads sharing the tree, every proof at the root and at its
    children is still the exact game value, and a proven loss is never played
    while another move is unproven."""
    proved = 0
    for b in random.Random(7).sample(_ttt_positions(), 100):
        p = PUCT(_zero, seed=3, solver=True, batch_size=4, threads=2, playout_weight=1,
                 expand_after=1, reuse=False)
        move = p.search(b, simulations=2000)
        _check_proofs(b, p.stats, move)
        proved += bool(p.stats["root_proven"])
    assert proved >= 30


@pytest.mark.parametrize("thread_safe", [False, True])
def test_tree_parallel_calls_the_evaluator_as_it_allows(thread_safe):
    """An evaluator that does not say it is thread-safe is called by one
    thread at a time; one that does, by both at once."""
    ev = _Concurrency(thread_safe)
    p = PUCT(ev, threads=2, batch_size=4, playout_weight=1, seed=2)
    p.search(games.get("uttt").new_board(), simulations=3000)
    assert p.stats["simulations"] == 3000
    assert ev.most == (2 if thread_safe else 1)


def test_tree_parallel_evaluator_error_and_bad_setups():
    """An evaluator failing in either thread: ValueError naming it, the
    search object still usable; the uniform evaluator (searched in C) cannot
    take threads."""
    ev = _Concurrency(True, fail_after=20)
    p = PUCT(ev, threads=2, batch_size=4, seed=2)
    b = games.get("uttt").new_board()
    with pytest.raises(ValueError, match="evaluator broke"):
        p.search(b, simulations=100_000)
    ev.fail_after = None
    p.search(b, simulations=500)
    assert p.stats["simulations"] == p.stats["root_visits"] == 500
    with pytest.raises(ValueError, match="uniform evaluator"):
        PUCT(UniformEvaluator(), threads=2)
    with pytest.raises(ValueError, match="threads"):
        PUCT(_zero, threads=0)
    assert pickle.loads(pickle.dumps(PUCT(UniformEvaluator(), threads=1))).threads == 1


def test_tree_parallel_agent_and_registry():
    """AZAgent(parallel='tree') searches one tree with every thread and plays
    the win; a mode that does not exist lists the ones that do."""
    from ttt_engine.agents import AZAgent
    b = games.get("ttt").new_board()
    for m in (0, 3, 1, 4):
        b.push(m)
    a = AZAgent(_zero, simulations=400, playout_weight=1, solver=True, threads=2,
                parallel="tree", seed=1)
    assert a.select_move(b) == 2
    assert a.last_stats["simulations"] <= 400 and a.last_stats["root_proven"] == 1
    assert len(a._pucts) == 1 and a._puct.threads == 2
    with pytest.raises(ValueError, match="'root', 'tree'"):
        AZAgent(_zero, parallel="leaf")
    with pytest.raises(ValueError, match="parallel='root'"):
        AZAgent(UniformEvaluator(), threads=2, parallel="tree")
    agent = games.get("uttt").make_agent("az", threads=2, parallel="tree", simulations=100)
    assert agent.parallel == "tree"
    assert agent.select_move(games.get("uttt").new_board()) in range(81)


def _ttt_after(moves):
    b = games.get("ttt").new_board()
    for m in moves:
        b.push(m)
    return b


def test_contempt_values_a_draw_against_the_searching_side():
    """contempt=c: a draw is worth -c to the side that searches and +c to its
    opponent, in finished games and in the playouts alike; 0 keeps a draw at 0;
    the tree kept between searches is dropped when the side to move at the
    root changes (its draws were valued for the other side)."""
    last = _ttt_after((0, 1, 2, 4, 3, 5, 7, 6))      # X to move, cell 8 left: a draw
    block = _ttt_after((0, 4, 8, 2, 6, 3, 5))         # O to move: 7 draws, 1 loses
    for c in (0.0, 0.3):
        p = PUCT(UniformEvaluator(), seed=1, contempt=c)
        assert p.search(last, simulations=50) == 8
        assert p.stats["root_value"] == pytest.approx(-c)
        assert p.stats["children"][0]["mean"] == pytest.approx(-c)
        # the same object, now for O: the tree is not reused, O's draw is -c too
        assert p.search(block, simulations=400) == 7
        assert p.stats["reused"] is False
        draw = {ch["move"]: ch["mean"] for ch in p.stats["children"]}[7]
        assert draw == pytest.approx(-c)
    # a network-guided search with mixed playouts values its draws the same way
    p = PUCT(_zero, seed=1, playout_weight=1.0, mixed_playouts=4, contempt=0.25)
    assert p.search(last, simulations=20) == 8
    assert p.stats["root_value"] == pytest.approx(-0.25)
    assert pickle.loads(pickle.dumps(p)).contempt == 0.25
    for bad in (-0.1, 1.0, float("nan"), "0.2"):
        with pytest.raises(ValueError, match="contempt"):
            PUCT(_zero, contempt=bad)


def test_contempt_in_the_agent_and_the_registry():
    agent = games.get("ttt").make_agent("az", simulations=50, seed=1, contempt=0.2)
    assert agent.contempt == 0.2
    last = _ttt_after((0, 1, 2, 4, 3, 5, 7, 6))
    assert agent.select_move(last) == 8
    # the finished game's value (the root's own is the network's, as trained)
    assert agent.last_stats["children"][0]["mean"] == pytest.approx(-0.2)
    assert pickle.loads(pickle.dumps(agent)).contempt == 0.2
    with pytest.raises(ValueError, match="contempt must be in"):
        games.get("uttt").make_agent("az", contempt=2)
