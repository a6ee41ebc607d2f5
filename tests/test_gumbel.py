"""Gumbel root search in self-play (selfplay(gumbel=True)): the schedule of
sequential halving, valid moves and targets, the improved policy on a
position with one winning move, determinism, and bad options."""
import numpy as np
import pytest

from ttt_engine import games
from ttt_engine._core.algorithms import puct as _puct
from ttt_engine._core.algorithms import puct_selfplay as _puct_selfplay
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.search import _dispatch
from ttt_engine.selfplay import selfplay


def _schedule(m, n):
    """Sequential halving written plainly: ceil(log2 m) phases, each giving
    the actions left max(1, n // (phases * left)) visits each, in turn."""
    if m <= 1:
        return list(range(n))
    phases = int(np.ceil(np.log2(m)))
    visits, out, left = [0] * m, [], m
    while len(out) < n:
        for _ in range(max(1, n // (phases * left))):
            for i in range(left):
                out.append(visits[i])
                visits[i] += 1
        left = max(2, left // 2)
    return out[:n]


def _forest(board, trees, sims, k, seed=1):
    f = _puct.PUCTForest(board, trees, 1, 4096, seed, 1.25, 0.0, 1.25, 0.0, 0.25, 0,
                         board.max_plies if hasattr(board, "max_plies") else 9)
    _puct_selfplay.forest_set_gumbel(f, k, sims)
    for slot in range(trees):
        _dispatch(_puct.forest_set_root, f, board, slot)
    return f


@pytest.mark.parametrize("m,n", [(1, 5), (2, 7), (4, 15), (5, 40), (16, 99), (16, 10)])
def test_schedule_is_sequential_halving(m, n):
    board = games.get("ttt").new_board()
    f = _forest(board, 1, n + 1, 16)
    assert _puct_selfplay.forest_gumbel_schedule(f, m) == _schedule(m, n)


@pytest.mark.parametrize("game,sims,k", [("ttt", 2, 16), ("ttt", 5, 3), ("connect4", 8, 4),
                                         ("uttt", 6, 16)])
def test_moves_and_targets_are_distributions_over_legal_actions(game, sims, k):
    data = selfplay(game, UniformEvaluator(), games=6, simulations=sims, seed=3, gumbel=True,
                    gumbel_k=k)
    np.testing.assert_allclose(data.policies.sum(axis=1), 1.0, atol=1e-5)
    assert (data.policies >= 0).all()
    assert (data.policies[~data.masks] == 0).all()
    # every game recorded each of its plies from the first
    for gid in range(len(data.outcomes)):
        rows = np.flatnonzero(data.game_ids == gid)
        assert rows.size > 0 and data.plies[rows].tolist() == list(range(rows.size))


def _one_move(evaluator, board, trees, sims, k, seed):
    """One Gumbel search per tree from ``board``: the recorded targets."""
    f = _forest(board, trees, sims, k, seed)
    shape = board.observation().shape
    while True:
        n = _dispatch(_puct.forest_gather, f, board, sims)
        if n:
            logits, values = evaluator(f.observations[:n].reshape((n,) + shape), f.masks[:n])
            _dispatch(_puct.forest_backup, f, board, np.ascontiguousarray(logits, np.float32),
                      np.ascontiguousarray(values, np.float32))
        if _dispatch(_puct_selfplay.forest_advance, f, board, sims, 0) == trees:
            break
        if all(f.records(s)[0] for s in range(trees)):
            break
    return f.rec_policy[:, 0]


def test_two_simulations_find_the_one_winning_move():
    # X: 0 1 . / O O . / . . .  -- X to move wins only at 2
    board = games.get("ttt").new_board()
    for m in (0, 3, 1, 4):
        board.push(m)
    win = board.move_to_action(2)
    nlegal = len(board.legal_moves)

    def knows(obs, mask):
        logits = np.zeros(mask.shape, np.float32)
        logits[:, win] = 3.0                  # prior on the win: e^3 / (e^3 + 4) = 0.83
        return logits, np.zeros(len(obs), np.float32)

    targets = _one_move(knows, board, 32, 2, 16, seed=7)
    prior = np.exp(3.0) / (np.exp(3.0) + nlegal - 1)
    # the win is simulated in the trees whose Gumbel draw keeps it first;
    # there sigma(Q) lifts it far above its prior
    found = targets[:, win] > prior + 0.1
    assert found.sum() >= 24
    assert (targets[found, win] > 0.99).all()
    assert (targets[~found, win] == pytest.approx(prior, abs=1e-5))


def test_same_seed_same_data():
    kw = dict(games=6, simulations=10, seed=11, gumbel=True, gumbel_k=4)
    a = selfplay("connect4", UniformEvaluator(playouts=1), **kw)
    b = selfplay("connect4", UniformEvaluator(playouts=1), **kw)
    np.testing.assert_array_equal(a.observations, b.observations)
    np.testing.assert_array_equal(a.policies, b.policies)
    c = selfplay("connect4", UniformEvaluator(playouts=1), **dict(kw, seed=12))
    assert not np.array_equal(a.policies, c.policies)


def test_improved_policy_is_positive_on_every_legal_action():
    kw = dict(games=4, simulations=16, seed=2)
    a = selfplay("ttt", UniformEvaluator(), **kw)
    b = selfplay("ttt", UniformEvaluator(), gumbel=True, **kw)
    # a softmax, where a visit distribution leaves unvisited actions at 0
    assert (b.policies[b.masks] > 0).all()
    assert (a.policies[a.masks] == 0).any()


@pytest.mark.parametrize("k", [0, -3, 1000, "4", 2.5])
def test_bad_k_is_one_line(k):
    with pytest.raises((ValueError, TypeError), match="gumbel_k") as info:
        selfplay("ttt", UniformEvaluator(), games=2, simulations=4, seed=1, gumbel=True,
                 gumbel_k=k)
    assert "\n" not in str(info.value)


def test_training_with_gumbel(tmp_path):
    from ttt_engine.alphazero import config_for, load_checkpoint, train
    with pytest.raises(ValueError, match="gumbel_k"):
        config_for("ttt", gumbel_k=0)
    with pytest.raises(ValueError, match="gumbel must be True or False"):
        config_for("ttt", gumbel="yes")
    recs = []
    r = train("ttt", out=tmp_path / "g.npz", iterations=1, seed=3, progress=False,
              log=recs.append, hidden=(16,), games=4, simulations=8, batch_size=16,
              eval_simulations=2, gumbel=True, gumbel_k=3)
    assert r.iteration == 1
    ck = load_checkpoint(tmp_path / "g.ckpt.npz")
    assert ck.config.gumbel is True and ck.config.gumbel_k == 3
    # evaluated in C by the counting wrapper, and still counted
    assert recs[0]["evaluations_per_s"] > 0


def test_cli_gumbel_options(tmp_path, cli_env):
    import subprocess
    import sys
    code = ("import sys; from ttt_engine.cli import main; "
            f"sys.exit(main(['az', 'train', '--out', {str(tmp_path / 'x.npz')!r}, "
            "'--gumbel', '--gumbel-k', '0']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=cli_env, timeout=300)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "--gumbel-k" in r.stderr and "Traceback" not in r.stderr
