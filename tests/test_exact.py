"""Exact oracle, exact evaluation, self-play / curriculum training, learning curves."""
import functools
import sys

import numpy as np
import pytest

import ttt_engine
from ttt_engine import Board
from ttt_engine.ttt import exact
from ttt_engine._core.solvers.ttt import oracle as ttt_oracle
from conftest import ttt_winner
from test_qlearning import XoshiroRef, _random_cell, _greedy, _wins, _empty_cells



# ---------------------------------------------------------------- independent negamax
@functools.lru_cache(maxsize=None)
def ref_value(cells):
    """Negamax value for the side to move (pure Python, memoized on the cells)."""
    w = ttt_winner(cells)
    if w:
        return -1                     # the previous mover won
    if 0 not in cells:
        return 0
    mark = 1 if cells.count(1) == cells.count(2) else 2
    return max(-ref_value(cells[:i] + (mark,) + cells[i + 1:]) for i in range(9) if cells[i] == 0)


def ref_optimal(cells):
    mark = 1 if cells.count(1) == cells.count(2) else 2
    v = ref_value(cells)
    return [i for i in range(9) if cells[i] == 0
            and -ref_value(cells[:i] + (mark,) + cells[i + 1:]) == v]


def _all_positions():
    seen, stack = set(), [(0,) * 9]
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        if ttt_winner(c) or 0 not in c:
            continue
        mark = 1 if c.count(1) == c.count(2) else 2
        stack += [c[:i] + (mark,) + c[i + 1:] for i in range(9) if c[i] == 0]
    return seen


POSITIONS = _all_positions()


def test_oracle_counts_and_values():
    assert (ttt_oracle.N_REACHABLE, ttt_oracle.N_DECISIONS, ttt_oracle.N_TERMINAL) == (5478, 4520, 958)
    value, optimal, kind, decisions = ttt_oracle.tables()
    assert len(decisions) == 4520 and (kind == 1).sum() == 4520 and (kind == 2).sum() == 958
    assert value[0] == 0 and optimal[0] == 0x1FF        # empty board: draw, every move draws
    assert (value[kind == 0] == -2).all()
    for cells in POSITIONS:
        i = sum(v * 3 ** k for k, v in enumerate(cells))
        assert value[i] == ref_value(cells), cells
        if kind[i] == 1:
            assert [c for c in range(9) if optimal[i] >> c & 1] == ref_optimal(cells), cells
        else:
            assert optimal[i] == 0
    # public helper
    assert ttt_engine.oracle(Board()) == (0, list(range(9)))
    assert ttt_engine.oracle(Board.from_string("X...O...X")) == (0, [1, 3, 5, 7])
    assert ttt_engine.oracle(Board.from_string("XX.OO....")) == (1, [2])
    assert ttt_engine.oracle(Board.from_string("XXXOO....")) == (-1, [])


def perfect_table():
    """Q = 1 on optimal moves, 0 elsewhere: a perfect greedy agent."""
    value, optimal, kind, decisions = ttt_oracle.tables()
    q = np.zeros((19683, 9))
    for i in decisions:
        for c in range(9):
            if optimal[i] >> c & 1:
                q[i, c] = 1.0
    return q


def test_perfect_table_scores_100_percent():
    q = perfect_table()
    o = ttt_engine.optimality(q)
    assert (o.optimal, o.positions) == (4520, 4520)
    assert o.rate == o.rate_reached_x == o.rate_reached_o == 1.0
    for side in "XO":
        w = ttt_engine.worst_case(q, side)
        assert w.outcome == "draw" and w.never_loses
        r = ttt_engine.evaluate(q, games=20_000, side=side, opponent="perfect", seed=1)
        assert r.draws == 20_000


def test_one_wrong_move_is_detected():
    value, optimal, kind, decisions = ttt_oracle.tables()
    q = perfect_table()
    # walk the perfect agent's own line as X; stop at the first X decision where a
    # losing move exists, and make the table prefer that move
    line = list(ttt_engine.worst_case(q, "X").line)
    bad = None
    bb = Board()
    for m in line:
        if bb.to_move == "X" and bb.index in set(decisions.tolist()):
            losing = [c for c in bb.legal_moves if _child_value(bb, c, value) == 1]
            if losing:
                bad = (bb.index, losing[0])
                break
        bb.push(m)
    assert bad is not None
    q[bad[0], bad[1]] = 5.0
    o = ttt_engine.optimality(q)
    assert o.optimal == 4519 and o.optimal_reached_x == o.reached_x - 1
    w = ttt_engine.worst_case(q, "X")
    assert w.outcome == "loss" and not w.never_loses
    replay = Board()
    for m in w.line:
        replay.push(m)
    assert replay.winner == "O"
    assert ttt_engine.worst_case(q, "O").outcome == "draw"   # O's moves untouched
    assert ttt_engine.evaluate(q, games=20_000, side="X", opponent="perfect", seed=3).losses > 0


def _child_value(board, cell, value):
    b = board.copy()
    b.push(cell)
    return value[b.index]          # for the opponent: 1 = the move loses


def test_ceilings_vs_random():
    assert exact.best_vs_random("X") == pytest.approx(191 / 192)
    assert exact.best_vs_random("X", never_lose=True) == pytest.approx(191 / 192)
    assert exact.best_vs_random("O", never_lose=True) == pytest.approx(0.9164021164)
    assert exact.best_vs_random("O") == pytest.approx(0.9386243386)


def test_exact_vs_random_agrees_with_sampling():
    agent = ttt_engine.train(200_000, mode="random", side="random", seed=8, progress=False)
    for side in "XO":
        e = ttt_engine.exact_vs_random(agent, side)
        assert e.win + e.draw + e.loss == pytest.approx(1.0)
        n = 400_000
        r = ttt_engine.evaluate(agent, games=n, side=side, seed=17)
        for p, k in ((e.win, r.wins), (e.draw, r.draws), (e.loss, r.losses)):
            sigma = max((p * (1 - p) / n) ** 0.5, 1e-9)
            assert abs(k / n - p) < 4.5 * sigma + 1e-12, (side, p, k / n)


def test_exact_agrees_with_python_enumeration():
    agent = ttt_engine.train(50_000, mode="random", side="random", seed=4, progress=False)
    q = agent.q

    @functools.lru_cache(maxsize=None)
    def dist(cells, me):
        w = ttt_winner(cells)
        if w:
            return (1.0, 0.0, 0.0) if w == me + 1 else (0.0, 0.0, 1.0)
        if 0 not in cells:
            return (0.0, 1.0, 0.0)
        mover = 0 if cells.count(1) == cells.count(2) else 1
        empty = [i for i in range(9) if cells[i] == 0]
        if mover == me:
            idx = sum(v * 3 ** k for k, v in enumerate(cells))
            _, a = _greedy(q[idx], empty)
            return dist(cells[:a] + (me + 1,) + cells[a + 1:], me)
        tot = np.zeros(3)
        for a in empty:
            tot += dist(cells[:a] + (mover + 1,) + cells[a + 1:], me)
        return tuple(tot / len(empty))

    for me, side in ((0, "X"), (1, "O")):
        e = ttt_engine.exact_vs_random(agent, side)
        assert (e.win, e.draw, e.loss) == pytest.approx(dist((0,) * 9, me), abs=1e-12)


# ---------------------------------------------------------------- self-play kernel
def reference_selfplay(episodes, alpha, gamma, eps, decay, eps_min, seed, q=None, rng=None):
    q = np.zeros((19683, 9)) if q is None else q
    rng = XoshiroRef(seed) if rng is None else rng
    for _ in range(episodes):
        thr = int(eps * 4294967296.0)
        m = [0, 0]
        idx, p, prev = 0, 0, None
        while True:
            cells = _empty_cells(m[0], m[1])
            best, greedy = _greedy(q[idx], cells)
            if prev is not None:
                q[prev] += alpha * (-gamma * best - q[prev])
            r = rng.next()
            a = _random_cell(cells, r) if (r & 0xFFFFFFFF) < thr else greedy
            prev = (idx, a)
            m[p] |= 1 << a
            idx += (p + 1) * 3 ** a
            if _wins(m[p]):
                q[prev] += alpha * (1.0 - q[prev]); break
            if m[0] | m[1] == 0x1FF:
                q[prev] += alpha * (0.0 - q[prev]); break
            p ^= 1
        eps = max(eps_min, eps * decay)
    return q


def test_selfplay_kernel_matches_python_reference():
    kw = dict(alpha=0.5, gamma=0.9, epsilon=0.8, epsilon_decay=0.999, epsilon_min=0.1,
              alpha_decay=1.0, alpha_min=0.0)
    agent = ttt_engine.train(2000, mode="self-play", seed=77, progress=False, chunk=300, **kw)
    q = reference_selfplay(2000, 0.5, 0.9, 0.8, 0.999, 0.1, 77)
    assert np.array_equal(agent.q, q)


def test_selfplay_illegal_untouched_and_reproducible():
    a = ttt_engine.train(300_000, mode="self-play", seed=5, progress=False)
    b = ttt_engine.train(300_000, mode="self-play", seed=5, progress=False, chunk=77_777)
    assert a.q.tobytes() == b.q.tobytes()
    idx = np.arange(19683)
    digits = np.stack([(idx // 3 ** i) % 3 for i in range(9)], axis=1)
    assert not a.q[digits != 0].any()
    h = a.history
    assert all(r["self_play"] == 1 for r in h)


# ---------------------------------------------------------------- default training bars
def test_default_train_is_optimal_and_never_loses():
    agent = ttt_engine.train(seed=2026, progress=False)
    assert agent.mode == "curriculum"
    o = ttt_engine.optimality(agent)
    assert o.rate >= 0.995, o
    for side in "XO":
        assert ttt_engine.worst_case(agent, side).never_loses
        assert ttt_engine.exact_vs_random(agent, side).loss == 0.0
    # among safe moves it prefers those that beat random play most often: the exact
    # ceilings for a never-losing player are 191/192 as X and 91.64% as O
    assert ttt_engine.exact_vs_random(agent, "X").win == pytest.approx(191 / 192)
    assert ttt_engine.exact_vs_random(agent, "O").win >= 0.9164
    # curriculum: first 20% against random, then self-play with epsilon reset to 0.6
    h = agent.history
    switch = next(r for r in h if r["self_play"])
    assert switch["episodes"] == 2_100_000
    assert [r["self_play"] for r in h].count(0) == 20
    assert h[-1]["optimality"] == o.rate


def test_random_mode_near_ceiling():
    for side, best in (("X", 191 / 192), ("O", 0.932)):
        agent = ttt_engine.train(mode="random", side=side, seed=11, progress=False, metrics_every=0)
        assert ttt_engine.exact_vs_random(agent, side).win >= best - 0.005


def test_curriculum_equals_random_then_selfplay():
    kw = dict(epsilon=0.9, epsilon_decay=0.999, epsilon_min=0.1, alpha=0.3, alpha_decay=1.0,
              alpha_min=0.0, seed=9, progress=False)
    a = ttt_engine.train(1000, mode="curriculum", curriculum_fraction=0.3,
                         curriculum_epsilon=0.5, chunk=128, curriculum_tiebreak=0.25, **kw)
    from test_qlearning import reference_train
    q, _ = reference_train(300, 0.3, 0.9, 0.9, 0.999, 0.1, 2, False, 9)
    # continue from the same generator state: rerun the random phase to get it
    rng = XoshiroRef(9)
    q2 = np.zeros((19683, 9))
    _replay_random_phase(q2, rng, 300)
    assert np.array_equal(q, q2)
    q_random = q2.copy()
    reference_selfplay(700, 0.3, 0.9, 0.5, 0.999, 0.1, None, q=q2, rng=rng)
    assert np.array_equal(a.q, q2 + 0.25 * q_random)     # tie-break by the random-phase table


def _replay_random_phase(q, rng, n):
    """Same as test_qlearning.reference_train(side=random), but on a given generator."""
    import test_qlearning as tq
    saved = tq.XoshiroRef
    tq.XoshiroRef = lambda seed: rng
    try:
        qq, _ = tq.reference_train(n, 0.3, 0.9, 0.9, 0.999, 0.1, 2, False, 0)
    finally:
        tq.XoshiroRef = saved
    q[:] = qq


@pytest.mark.parametrize("kw,msg", [
    (dict(mode="selfplay"), "mode must be one of"),
    (dict(curriculum_fraction=1.5), r"curriculum_fraction must be in \[0, 1\]"),
    (dict(curriculum_epsilon=-0.1), r"curriculum_epsilon must be in \[0, 1\]"),
    (dict(metrics_every=-1), "metrics_every must be an integer >= 0"),
    (dict(curriculum_tiebreak=2), r"curriculum_tiebreak must be in \[0, 1\]"),
    (dict(symmetry="no"), "symmetry must be True or False"),
    (dict(mode="self-play", shaping=True), "shaping applies to games against the random"),
    (dict(mode="self-play", side="X"), "side applies to mode 'random' or 'curriculum'"),
    (dict(mode="random", curriculum_fraction=0.5), "curriculum_fraction applies to mode "
                                                   "'curriculum'; mode='random'"),
    (dict(mode="self-play", curriculum_tiebreak=0), "curriculum_tiebreak applies"),
])
def test_mode_validation(kw, msg):
    with pytest.raises(ValueError, match=msg):
        ttt_engine.train(10, progress=False, **kw)


def test_exact_api_validation():
    with pytest.raises(ValueError, match="side must be one of"):
        ttt_engine.exact_vs_random(np.zeros((19683, 9)), "random")
    with pytest.raises(ValueError, match="agent must be a QAgent"):
        ttt_engine.optimality([1, 2, 3])

    class Bad:
        name = "bad"

        def select_move(self, board):
            return 0

    with pytest.raises(ValueError, match="chose illegal move 0"):
        ttt_engine.optimality(Bad())
    with pytest.raises(ValueError, match="oracle plays Tic-Tac-Toe, got str"):
        ttt_engine.oracle("X........")


# ---------------------------------------------------------------- learning curves
def test_history_metrics_and_plot(tmp_path):
    import matplotlib  # noqa: F401  (in the [test] extra: a missing one must fail)
    agent = ttt_engine.train(1_000_000, seed=3, progress=False, chunk=50_000, metrics_every=4)
    with_metrics = [r for r in agent.history if "optimality" in r]
    assert [r["episodes"] for r in with_metrics] == [200_000, 400_000, 600_000, 800_000, 1_000_000]
    assert all(0 <= r["optimality"] <= 1 and r["exact_loss_o"] >= 0 for r in with_metrics)
    out = ttt_engine.plot_history(agent.history, tmp_path / "curves.png")
    data = (tmp_path / "curves.png").read_bytes()
    assert out == str(tmp_path / "curves.png") and data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    ttt_engine.plot_history(agent, tmp_path / "again.png")          # an agent works too
    agent.save(tmp_path / "m.npz")
    loaded = ttt_engine.QAgent.load(tmp_path / "m.npz")
    assert loaded.history == agent.history
    with pytest.raises(ValueError, match="non-empty list"):
        ttt_engine.plot_history([], tmp_path / "x.png")


def test_plot_without_matplotlib(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install \"ttt_engine\[plot\]\""):
        ttt_engine.plot_history([{"episodes": 1}], tmp_path / "x.png")


# ---------------------------------------------------------------- symmetry
def _transform_board(cells, perm_t):
    out = [0] * 9
    for i, v in enumerate(cells):
        out[perm_t[i]] = v
    return tuple(out)


def test_symmetry_tables():
    from ttt_engine._core.learning.ttt import qlearning as ql
    perm, canon, ctrans = ql.symmetry_tables()
    assert sorted(map(tuple, perm.tolist())) == sorted(set(map(tuple, perm.tolist())))  # 8 distinct
    assert all(sorted(p) == list(range(9)) for p in perm.tolist())
    for cells in list(POSITIONS)[::7]:
        i = sum(v * 3 ** k for k, v in enumerate(cells))
        images = [sum(v * 3 ** k for k, v in enumerate(_transform_board(cells, perm[t]))) for t in range(8)]
        assert canon[i] == min(images)
        assert images[ctrans[i]] == canon[i]
    assert len({int(canon[sum(v * 3 ** k for k, v in enumerate(c))]) for c in POSITIONS}) == 765


@pytest.mark.parametrize("mode", ["self-play", "random"])
def test_symmetry_training_is_consistent(mode):
    from ttt_engine._core.learning.ttt import qlearning as ql
    perm, canon, ctrans = ql.symmetry_tables()
    side = {} if mode == "self-play" else {"side": "random"}     # self-play has no side
    a = ttt_engine.train(150_000, mode=mode, seed=4, progress=False, symmetry=True, **side)
    q = a.q
    idx = np.arange(19683)
    digits = np.stack([(idx // 3 ** i) % 3 for i in range(9)], axis=1)
    assert not q[digits != 0].any()                      # illegal cells untouched
    for cells in POSITIONS:                              # every row = its canonical row, mapped
        i = sum(v * 3 ** k for k, v in enumerate(cells))
        assert np.array_equal(q[i], q[canon[i]][perm[ctrans[i]]])
    if mode == "self-play":
        assert ttt_engine.optimality(a).rate == 1.0
    b = ttt_engine.train(150_000, mode=mode, seed=4, progress=False, symmetry=True, **side)
    assert np.array_equal(a.q, b.q)
    assert a.symmetry and not ttt_engine.train(10, mode=mode, progress=False).symmetry


# ---------------------------------------------------------------- cross-checks with the search core
def test_oracle_agrees_with_search_core():
    from ttt_engine import search
    value, optimal, kind, decisions = ttt_oracle.tables()
    for i in decisions[::5]:
        b = Board.from_index(int(i))
        assert search.optimal_moves(b) == [c for c in range(9) if optimal[i] >> c & 1], b


def test_qagent_plays_matches_with_search_agents():
    from ttt_engine import agents
    q = perfect_table()
    agent = ttt_engine.QAgent(q, name="perfect-table")
    res = agents.play_match(agent, agents.PerfectAgent(), games=20, seed=1)
    assert (res.wins, res.draws, res.losses) == (0, 20, 0)
    res = agents.play_match(agent, agents.RandomAgent(), games=40, seed=2)
    assert res.losses == 0 and res.wins > 20


def test_protocol_agents_are_tabulated():
    from ttt_engine import agents
    perfect = agents.PerfectAgent()
    o = ttt_engine.optimality(perfect)
    assert o.rate == 1.0
    assert ttt_engine.worst_case(perfect, "X").never_loses
    r = ttt_engine.evaluate(perfect, games=10_000, side="X", opponent="perfect", seed=1)
    assert r.draws == 10_000
