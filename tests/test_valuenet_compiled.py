"""The compiled value network (``ttt_engine._core.algorithms.valuenet``) against
a numpy reference written here from the feature rules (docs/valuenet.md): the
features of every game, the value (float32 to 1e-5, int16 to its rounding
bound), incremental == fresh after long push/pop walks, the refusals at the
boundary, and MCTS with the network at its leaves."""
import os
import pickle
import sys

import numpy as np
import pytest

from ttt_engine import games
from ttt_engine._core.algorithms.valuenet import CompiledValueNet, feature_set_of
from ttt_engine.agents import MCTSAgent
from ttt_engine.search import MCTS

sys.path.insert(0, os.path.dirname(__file__))
import connect4_reference  # noqa: E402
import uttt_reference  # noqa: E402

# (registry key, board options, feature-set name, F)
CASES = [
    ("ttt", {}, "ttt-v1", 19),
    ("uttt", {}, "uttt-v2", 379),
    ("connect4", {}, "connect4-v2", 183),
    ("clobber", {"rows": 6, "cols": 5}, "clobber-6x5-v2", 399),
    ("clobber", {"rows": 4, "cols": 4}, "clobber-4x4-v2", 209),
    ("quixo", {"size": 5}, "quixo-5x5-v1", 51),
    ("quixo", {"size": 4}, "quixo-4x4-v1", 33),
]
IDS = [c[2] for c in CASES]


# ------------------------------------------------------------ the reference
def reference_features(key, board):
    """The active features from the rules, read off the board's text."""
    second = games.get(key).sides[1]
    o_to_move = board.to_move == second
    if key == "uttt":           # the marks and the threats (tests/uttt_reference.py)
        return uttt_reference.value_features(board.to_string())
    if key == "connect4":       # the discs and the threats (tests/connect4_reference.py)
        return connect4_reference.value_features(board.to_string())
    if key == "clobber":
        return clobber_reference(board)
    if key == "quixo":
        text = list(board.to_string())
        marks = ("X", "O")
    else:
        text = [ch for ch in board.to_string() if ch in "XO.-"]
        marks = ("X", "O")
    n = len(text)
    feats = [c for c in range(n) if text[c] == marks[0]] + \
            [n + c for c in range(n) if text[c] == marks[1]]
    feats += [2 * n] if o_to_move else []
    return sorted(feats)


def clobber_reference(board):
    """Clobber's contacts (docs/valuenet.md), from the board's text: every
    stone with its count of orthogonal enemies; every orthogonally adjacent
    pair of cells (the horizontal ones, then the vertical) holding a B and a W,
    by which of the two holds the B; W to move."""
    grid = [row.split() for row in board.to_string().splitlines()]
    rows, cols = len(grid), len(grid[0])
    n = rows * cols
    feats = []
    for r in range(rows):
        for c in range(cols):
            me = grid[r][c]
            if me == "_":
                continue
            enemies = 0
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= rr < rows and 0 <= cc < cols and grid[rr][cc] not in ("_", me):
                    enemies += 1
            feats.append(((0 if me == "B" else 5) + enemies) * n + r * cols + c)
    edge = 0
    for cells in ([((r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)],
                  [((r, c), (r + 1, c)) for r in range(rows - 1) for c in range(cols)]):
        for (r1, c1), (r2, c2) in cells:
            pair = grid[r1][c1] + grid[r2][c2]
            if pair in ("BW", "WB"):
                feats.append(10 * n + 2 * edge + (pair == "WB"))
            edge += 1
    if board.to_move == "W":
        feats.append(10 * n + 2 * edge)
    return sorted(feats)


def reference_value(w1, b1, w2, b2, feats):
    acc = b1.astype(np.float64) + w1[feats].astype(np.float64).sum(axis=0)
    return float(np.tanh(np.clip(acc, 0.0, 1.0) @ w2.astype(np.float64) + float(b2)))


def random_weights(F, H=256, seed=0, scale=0.15):
    rng = np.random.default_rng(seed)
    return (rng.normal(0, scale, (F, H)).astype(np.float32),
            rng.normal(0.3, 0.2, H).astype(np.float32),
            rng.normal(0, 0.15, H).astype(np.float32), np.float32(0.05))


def save_npz(path, game, fs, w1, b1, w2, b2):
    """The spec's file layout (a few lines until the trainer's loader joins)."""
    tmp = str(path) + ".tmp.npz"
    np.savez(tmp, kind=np.array("value_network"), version=np.array(1), game=np.array(game),
             features=np.array(fs), w1=w1, b1=b1, w2=w2, b2=np.float32(b2),
             meta=np.array('{"seed": 0}'))
    os.replace(tmp, path)


def load_npz(path, quantised=False):
    with np.load(path) as z:
        assert str(z["kind"]) == "value_network" and int(z["version"]) == 1
        return CompiledValueNet(z["w1"], z["b1"], z["w2"], z["b2"], str(z["features"]),
                                quantised=quantised)


def positions(key, opts, n, seed):
    """Boards along seeded random games (the finished ones included)."""
    rng = np.random.default_rng(seed)
    g = games.get(key)
    out = []
    while len(out) < n:
        b = g.new_board(**opts)
        out.append(b.copy())
        while not b.is_terminal() and len(b.moves) < 60:
            moves = b.legal_moves
            b.push(moves[int(rng.integers(len(moves)))])
            out.append(b.copy())
    return out[:n]


# ------------------------------------------------------------ features and values
@pytest.mark.parametrize("key,opts,fs,F", CASES, ids=IDS)
def test_features_and_values_equal_the_reference(tmp_path, key, opts, fs, F):
    w1, b1, w2, b2 = random_weights(F, seed=F)
    path = tmp_path / "net.npz"
    save_npz(path, key, fs, w1, b1, w2, b2)
    net, qnet = load_npz(path), load_npz(path, quantised=True)
    assert net.num_features == F and qnet.quantised and not net.quantised
    assert qnet.quantisation_step == 1.0 / qnet.q1
    w2sum = float(np.abs(w2).sum())
    worst = 0.0
    for board in positions(key, opts, 150, seed=F):
        assert feature_set_of(board) == fs
        ref = reference_features(key, board)
        assert net.features(board).tolist() == ref
        want = reference_value(w1, b1, w2, b2, ref)
        assert net.value(board) == pytest.approx(want, abs=1e-5)
        # int16: every weight off by at most half a step, the output's by half of 1/q2
        err = abs(qnet.value(board) - want)
        assert err <= (len(ref) + 1) * 0.5 / qnet.q1 * w2sum + 256 * 0.5 / qnet.q2
        worst = max(worst, err)
    assert worst < 0.02


@pytest.mark.parametrize("key,opts,fs,F", CASES, ids=IDS)
@pytest.mark.parametrize("quantised", [False, True])
def test_incremental_equals_fresh_over_long_walks(key, opts, fs, F, quantised):
    w1, b1, w2, b2 = random_weights(F, seed=1)
    net = CompiledValueNet(w1, b1, w2, b2, fs, quantised=quantised)
    board = games.get(key).new_board(**opts)
    n, maxdiff, same = net.walk(board, 20000, seed=7, max_ply=80)
    assert n == 20000
    if quantised:
        assert same and maxdiff == 0.0      # integer accumulators: exact
    else:
        assert maxdiff <= 1e-5


@pytest.mark.parametrize("quantised", [False, True])
def test_clobber_contacts_on_the_full_8x8_board(quantised):
    """The largest board: its columns fill the bitboards' rows (no empty
    column between one row's last cell and the next row's first)."""
    F = 865
    w1, b1, w2, b2 = random_weights(F, seed=8, scale=0.05)
    net = CompiledValueNet(w1, b1, w2, b2, "clobber-8x8-v2", quantised=quantised)
    for board in positions("clobber", {"rows": 8, "cols": 8}, 120, seed=8):
        assert net.features(board).tolist() == clobber_reference(board)
    n, maxdiff, same = net.walk(games.get("clobber").new_board(rows=8, cols=8), 5000, seed=8,
                                max_ply=80)
    assert n == 5000 and maxdiff <= (0.0 if quantised else 1e-5)


def test_walk_from_midgame_and_every_hidden_size():
    board = positions("uttt", {}, 30, seed=3)[-1]
    for H in (1, 15, 17, 64):
        w1, b1, w2, b2 = random_weights(379, H=H, seed=H)
        net = CompiledValueNet(w1, b1, w2, b2, "uttt-v2")
        assert net.value(board) == pytest.approx(
            reference_value(w1, b1, w2, b2, reference_features("uttt", board)), abs=1e-5)
        assert net.walk(board, 3000, seed=H)[1] <= 1e-5


def test_pickle_round_trip():
    w1, b1, w2, b2 = random_weights(183, H=32)
    for q in (False, True):
        net = CompiledValueNet(w1, b1, w2, b2, "connect4-v2", quantised=q)
        copy = pickle.loads(pickle.dumps(net))
        board = positions("connect4", {}, 10, seed=5)[-1]
        assert copy.value(board) == net.value(board) and copy.quantised == q


# ------------------------------------------------------------ bad input
def test_bad_input_is_one_clear_value_error():
    w1, b1, w2, b2 = random_weights(379, H=32)
    net = CompiledValueNet(w1, b1, w2, b2, "uttt-v2")
    with pytest.raises(ValueError, match="'uttt-v2' cannot evaluate a board of feature set "
                                         "'connect4-v2'"):
        net.value(games.get("connect4").new_board())
    # a network of Connect Four's feature set before the threats
    old = CompiledValueNet(*random_weights(85, H=16), "connect4-v1")
    with pytest.raises(ValueError, match="'connect4-v1' cannot evaluate a board of feature set "
                                         "'connect4-v2'"):
        old.value(games.get("connect4").new_board())
    with pytest.raises(ValueError, match="must be a ttt_engine game Board"):
        net.value("not a board")
    with pytest.raises(ValueError, match="w1 has shape|w1 must be"):
        CompiledValueNet(w1[0], b1, w2, b2, "uttt-v2")
    with pytest.raises(ValueError, match=r"b1 has shape \(31,\), expected \(32,\)"):
        CompiledValueNet(w1, b1[:31], w2, b2, "uttt-v2")
    with pytest.raises(ValueError, match="feature_set must be a name"):
        CompiledValueNet(w1, b1, w2, b2, "uttt")
    bad = w1.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        CompiledValueNet(bad, b1, w2, b2, "uttt-v2")
    # the right name but the wrong number of rows
    short = CompiledValueNet(w1[:150], b1, w2, b2, "uttt-v2")
    with pytest.raises(ValueError, match="has 150 input features, its boards have 379"):
        short.value(games.get("uttt").new_board())
    # a clobber network of another size
    cl = CompiledValueNet(*random_weights(399, H=16), "clobber-6x5-v2")
    with pytest.raises(ValueError, match="'clobber-4x4-v2'"):
        cl.value(games.get("clobber").new_board(rows=4, cols=4))


def test_int16_refuses_weights_that_could_overflow():
    w1, b1, w2, b2 = random_weights(379, H=32)
    with pytest.raises(ValueError, match="too large for the int16 accumulator"):
        CompiledValueNet(w1 * 100, b1, w2, b2, "uttt-v2", quantised=True)
    # the same weights are fine in float32
    CompiledValueNet(w1 * 100, b1, w2, b2, "uttt-v2")


# ------------------------------------------------------------ MCTS with the network
def _uttt_net(H=64, seed=0):
    return CompiledValueNet(*random_weights(379, H=H, seed=seed), "uttt-v2")


@pytest.mark.parametrize("weight", [1.0, 0.5])
@pytest.mark.parametrize("solver", [False, True])
def test_mcts_with_the_network_plays_legal_moves_and_repeats(weight, solver):
    board = positions("uttt", {}, 12, seed=11)[-1]
    net = _uttt_net()
    moves = []
    for _ in range(2):
        m = MCTS(seed=5, value_network=net, value_weight=weight, solver=solver)
        moves.append(m.search(board, simulations=3000))
        st = m.stats
        assert st["simulations"] == 3000
        # each child's first visit is its score at the root's expansion; the root
        # counts its own first visit and the simulations that went down a child
        assert sum(c["visits"] for c in st["children"]) == (
            st["root_visits"] - 1 + len(st["children"]))
        assert all(-1.0 <= c["mean"] <= 1.0 for c in st["children"])
    assert moves[0] == moves[1] and moves[0] in board.legal_moves
    # the network's values are fractions: means that no +-1/0 playout count gives
    means = [c["mean"] * c["visits"] for c in st["children"]]
    assert any(abs(x - round(x)) > 1e-3 for x in means)


def test_mcts_network_alone_differs_from_playouts_and_threads_repeat():
    board = positions("uttt", {}, 8, seed=2)[-1]
    net = _uttt_net(seed=4)
    a = MCTS(seed=1, value_network=net)
    b = MCTS(seed=1)
    a.search(board, simulations=4000)
    b.search(board, simulations=4000)
    assert a.stats["children"] != b.stats["children"]
    runs = []
    for _ in range(2):
        m = MCTS(seed=9, value_network=net, threads=2)
        runs.append((m.search(board, simulations=4000), m.stats["children"]))
        assert m.stats["simulations"] == 4000
    assert runs[0] == runs[1]


def test_mcts_with_the_network_finds_a_one_move_win():
    # X to move wins Tic-Tac-Toe at once on cell 2 (row 0); O threatens cell 3
    board = games.get("ttt").new_board()
    for m in (0, 4, 1, 5):
        board.push(m)
    net = CompiledValueNet(*random_weights(19, H=16, seed=3), "ttt-v1")
    for solver in (False, True):
        m = MCTS(seed=3, value_network=net, solver=solver)
        assert m.search(board, simulations=2000) == 2
    m = MCTS(seed=3, value_network=net, solver=True)
    m.search(board, simulations=2000)
    assert m.stats["root_proven"] == 1


def test_mcts_refuses_another_games_board_and_bad_weight():
    net = _uttt_net()
    m = MCTS(seed=1, value_network=net)
    with pytest.raises(ValueError, match="cannot evaluate a board of feature set 'ttt-v1'"):
        m.search(games.get("ttt").new_board(), simulations=10)
    with pytest.raises(ValueError, match="value_weight"):
        MCTS(value_network=net, value_weight=1.5)
    with pytest.raises(ValueError, match="expected a ValueNetwork"):
        MCTS(value_network=object())


def test_mcts_takes_the_network_as_given_or_int16_when_it_fits():
    w1, b1, w2, b2 = random_weights(379, H=32)
    for q in (False, True):
        net = CompiledValueNet(w1, b1, w2, b2, "uttt-v2", quantised=q)
        assert MCTS(value_network=net).value_network is net
    arrays = {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "feature_set": "uttt-v2"}
    assert MCTS(value_network=arrays).value_network.quantised
    big = dict(arrays, w1=w1 * 100)          # overflows int16: float32 instead
    assert not MCTS(value_network=big).value_network.quantised


def test_mcts_agent_with_the_network_pickles_and_plays():
    net = _uttt_net()
    agent = MCTSAgent(simulations=500, seed=2, value_network=net, solver=True)
    board = games.get("uttt").new_board()
    move = agent.select_move(board)
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.select_move(board) == move
    assert move in board.legal_moves
    lines = agent._mcts.lines(k=2, depth=3)
    assert lines and all(-1.0 <= s["mean"] <= 1.0 for line in lines for s in line)


# ------------------------------------------------------------ alpha-beta with the network
def _negamax_reference(board, depth, value):
    """Plain negamax to ``depth`` with ``value(board)`` at the horizon (no
    position within reach may end the game)."""
    if depth == 0:
        return value(board)
    best = -2.0
    for m in board.legal_moves:
        board.push(m)
        assert not board.is_terminal()
        best = max(best, -_negamax_reference(board, depth - 1, value))
        board.pop()
    return best


@pytest.mark.parametrize("key,opts,fs,F", [CASES[2], CASES[3]], ids=[IDS[2], IDS[3]])
@pytest.mark.parametrize("quantised", [False, True])
def test_alphabeta_with_the_network_is_negamax_over_its_values(key, opts, fs, F, quantised):
    from ttt_engine.search import alphabeta
    w1, b1, w2, b2 = random_weights(F, H=32, seed=F + 1)
    net = CompiledValueNet(w1, b1, w2, b2, fs, quantised=quantised)
    board = positions(key, opts, 5, seed=4)[-1]
    if quantised:       # the compiled value from a fresh accumulator: the same integers
        def value(b):
            return net.value(b)
        tol = 1e-6
    else:               # the numpy reference
        def value(b):
            return reference_value(w1, b1, w2, b2, reference_features(key, b))
        tol = 1e-5
    for depth in (1, 2, 3):
        r = alphabeta(board, depth, value_network=net)
        assert r.value == pytest.approx(_negamax_reference(board.copy(), depth, value), abs=tol)
        assert r.best_move in board.legal_moves and not r.exact
    with pytest.raises(ValueError, match="cannot evaluate a board of feature set"):
        alphabeta(games.get("ttt").new_board(), 2, value_network=net)


def test_alphabeta_agent_with_the_network_pickles_and_plays():
    from ttt_engine.agents import AlphaBetaAgent
    net = CompiledValueNet(*random_weights(183, H=16, seed=2), "connect4-v2", quantised=True)
    agent = AlphaBetaAgent(depth=3, value_network=net)
    board = positions("connect4", {}, 5, seed=4)[-1]
    move = agent.select_move(board)
    assert move in board.legal_moves
    assert pickle.loads(pickle.dumps(agent)).select_move(board) == move


def _first_player_value(net, board):
    """The reference value of ``board`` for the player who moved into it (a
    finished game: its exact result)."""
    if board.is_terminal():
        w = board.winner
        return 0.0 if w in (None, "draw") else (1.0 if w != board.to_move else -1.0)
    return -net.value(board)


@pytest.mark.parametrize("key,opts", [("uttt", {}), ("connect4", {}),
                                      ("clobber", {"rows": 5, "cols": 5}), ("quixo", {"size": 5})])
def test_mcts_network_scores_the_leaf_itself_and_every_child(key, opts):
    """Without ``score_children`` a simulation scores the new leaf itself
    (not a random child of it): one simulation per child gives each child the
    network's value of that child.  With it, the root's expansion alone gives
    every child that value as its first visit."""
    g = games.get(key)
    feats = g.value_features
    checked = 0
    for board in positions(key, opts, 40, seed=21)[5::6]:
        if board.is_terminal():
            continue
        F = feats.count(board)
        net = CompiledValueNet(*random_weights(F, H=32, seed=F), feature_set_of(board))
        n = len(board.legal_moves)
        for score_children, sims in ((False, 1 + n), (True, 1)):
            m = MCTS(seed=1, value_network=net, score_children=score_children)
            m.search(board, simulations=sims)
            children = m.stats["children"]
            assert len(children) == n
            for c in children:
                child = board.copy()
                child.push(c["move"])
                assert c["visits"] == 1
                # values are kept in steps of 1/256 (mcts.VALUE_UNIT)
                assert c["mean"] == pytest.approx(_first_player_value(net, child), abs=0.003)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("key,opts", [("uttt", {}), ("connect4", {}),
                                      ("clobber", {"rows": 5, "cols": 5}), ("quixo", {"size": 5})])
def test_mcts_leaf_from_children_backs_up_the_best_child(key, opts):
    """With ``leaf_from_children`` a new leaf's reward is its best child's
    value (one ply of minimax), not its own: after two simulations the child
    the second one chose (the best first visit) holds its own value and the
    negated best value among its children."""
    g = games.get(key)
    checked = 0
    for board in positions(key, opts, 40, seed=23)[4::5]:
        if board.is_terminal():
            continue
        F = g.value_features.count(board)
        net = CompiledValueNet(*random_weights(F, H=32, seed=F + 1), feature_set_of(board))
        m = MCTS(seed=1, value_network=net, leaf_from_children=True)
        m.search(board, simulations=2)
        (c,) = [c for c in m.stats["children"] if c["visits"] == 2]
        child = board.copy()
        child.push(c["move"])
        if child.is_terminal():
            continue
        below = []
        for move in child.legal_moves:
            grandchild = child.copy()
            grandchild.push(move)
            below.append(_first_player_value(net, grandchild))
        own = _first_player_value(net, child)
        assert c["mean"] == pytest.approx((own - max(below)) / 2, abs=0.003)
        # the plain design backs up the child's own value again
        plain = MCTS(seed=1, value_network=net)
        plain.search(board, simulations=2)
        (p,) = [p for p in plain.stats["children"] if p["visits"] == 2]
        assert p["move"] == c["move"] and p["mean"] == pytest.approx(own, abs=0.003)
        checked += 1
    assert checked >= 5


def test_leaf_from_children_needs_score_children():
    net = CompiledValueNet(*random_weights(379, H=16, seed=3), "uttt-v2")
    with pytest.raises(ValueError, match="leaf_from_children=True needs score_children=True"):
        MCTS(value_network=net, score_children=False, leaf_from_children=True)
    with pytest.raises(ValueError, match="leaf_from_children"):
        MCTS(value_network=net, leaf_from_children="yes")


def _check_minimax(tree, net, board, path):
    """Every child's minimax value below ``path`` against the reference:
    a frontier child's network value (a finished game: its result), an
    expanded one's minus the best of its children's.  Returns the children's
    reference values and how many nodes were checked."""
    values, checked = [], 0
    for move, _visits, _mean, proven, mm in tree.children_of(path, minimax=True):
        child = board.copy()
        child.push(move)
        if tree.children_of(path + [move]):
            below, n = _check_minimax(tree, net, child, path + [move])
            want, checked = -max(below), checked + n
        else:
            want = _first_player_value(net, child)
        assert proven == 0
        assert mm == pytest.approx(want, abs=0.004), (path, move)
        values.append(want)
        checked += 1
    return values, checked


@pytest.mark.parametrize("key,opts", [("uttt", {}), ("connect4", {}),
                                      ("clobber", {"rows": 5, "cols": 5})])
def test_implicit_minimax_values_equal_the_reference(key, opts):
    """With ``minimax_weight`` every node keeps the minimax value of the
    network's values at its subtree's frontier: checked node by node against
    a negamax over the numpy reference's values, after a search and again
    after the tree was kept below the next position (compacted)."""
    g = games.get(key)
    board = positions(key, opts, 12, seed=5)[6]
    F = g.value_features.count(board)
    net = CompiledValueNet(*random_weights(F, H=32, seed=F + 2), feature_set_of(board))
    m = MCTS(seed=2, value_network=net, minimax_weight=0.4, leaf_from_children=True)
    m.search(board, simulations=150)
    tree = m._trees[0]
    _, checked = _check_minimax(tree, net, board, [])
    assert checked > 150
    # two plies on: the tree is kept below the new position and compacted
    for _ in range(2):
        board.push(max(m.stats["children"], key=lambda c: c["visits"])["move"])
        m.search(board, simulations=40)
    assert m.stats["reused"]
    _, checked = _check_minimax(tree, net, board, [])
    assert checked > 40


def test_minimax_weight_changes_the_search_and_repeats():
    net = CompiledValueNet(*random_weights(379, H=32, seed=9), "uttt-v2")
    board = positions("uttt", {}, 10, seed=1)[8]
    runs = {}
    for w in (0.0, 0.7, 0.7):
        m = MCTS(seed=3, value_network=net, minimax_weight=w)
        m.search(board, simulations=800)
        runs.setdefault(w, []).append([(c["move"], c["visits"]) for c in m.stats["children"]])
    assert runs[0.7][0] == runs[0.7][1]
    assert runs[0.7][0] != runs[0.0][0]
    agent = MCTSAgent(simulations=200, seed=1, value_network=net, minimax_weight=0.5)
    move = agent.select_move(board)
    assert move in board.legal_moves
    assert pickle.loads(pickle.dumps(agent)).select_move(board) == move


def test_minimax_weight_bad_input_is_one_clear_value_error():
    net = CompiledValueNet(*random_weights(379, H=16, seed=3), "uttt-v2")
    for kw, msg in (({"minimax_weight": 1.5}, "minimax_weight"),
                    ({"minimax_weight": 0.5}, "needs a value_network"),
                    ({"minimax_weight": 0.5, "value_network": net, "value_weight": 0.5},
                     "value_weight=1"),
                    ({"minimax_weight": 0.5, "value_network": net, "score_children": False},
                     "score_children=True")):
        with pytest.raises(ValueError, match=msg):
            MCTS(**kw)
    m = MCTS(value_network=net)
    m.search(positions("uttt", {}, 4, seed=1)[3], simulations=10)
    with pytest.raises(ValueError, match="keeps no minimax values"):
        m._trees[0].children_of([], minimax=True)


@pytest.mark.parametrize("key,opts,minimax", [("uttt", {}, 0.0), ("uttt", {}, 0.6),
                                              ("connect4", {}, 0.6), ("quixo", {"size": 5}, 0.0)])
def test_value_priors_select_by_puct_over_the_children_values(key, opts, minimax):
    """With ``prior_temp`` T the root's children, each scored once, get the
    priors softmax(value / T), and every later simulation enters the child
    maximising ``q + c_puct * P * sqrt(N) / (1 + n)`` (q: the mean, mixed with
    the minimax value under ``minimax_weight``): checked simulation by
    simulation against that formula, the priors computed here from the
    children's first values."""
    g = games.get(key)
    board = positions(key, opts, 12, seed=4)[7]
    F = g.value_features.count(board)
    net = CompiledValueNet(*random_weights(F, H=32, seed=F + 5), feature_set_of(board))
    T, C = 0.3, 1.7
    m = MCTS(seed=2, value_network=net, prior_temp=T, c_puct=C, minimax_weight=minimax,
             leaf_from_children=minimax > 0)
    m.search(board, simulations=1)
    tree = m._trees[0]
    first = {mv: q for mv, _n, q, _p in tree.children_of([])}
    assert len(first) == len(board.legal_moves)
    top = max(first.values())
    weights = {mv: np.exp((q - top) / T) for mv, q in first.items()}
    prior = {mv: w / sum(weights.values()) for mv, w in weights.items()}
    checked = 0
    for _ in range(40):
        rows = tree.children_of([], minimax=minimax > 0)
        N = m.stats["root_visits"]
        score = {}
        for row in rows:
            mv, n, q = row[0], row[1], row[2]
            if minimax > 0:
                q = q + minimax * (row[4] - q)
            score[mv] = q + C * prior[mv] * np.sqrt(N) / (1 + n)
        before = {row[0]: row[1] for row in rows}
        m.search(board, simulations=1)
        (entered,) = [mv for mv, n, _q, _p in tree.children_of([]) if n > before[mv]]
        assert score[entered] >= max(score.values()) - 1e-4
        checked += 1
    assert checked == 40
    # the plain value search (prior_temp 0) enters children by UCB1 instead
    plain = MCTS(seed=2, value_network=net, minimax_weight=minimax,
                 leaf_from_children=minimax > 0)
    plain.search(board, simulations=41)
    assert ([c["visits"] for c in plain.stats["children"]]
            != [c["visits"] for c in m.stats["children"]])


def test_prior_temp_repeats_pickles_and_bad_input_is_one_clear_value_error():
    net = CompiledValueNet(*random_weights(379, H=16, seed=3), "uttt-v2")
    board = positions("uttt", {}, 10, seed=1)[8]
    agent = MCTSAgent(simulations=300, seed=1, value_network=net, prior_temp=0.5,
                      solver=True, leaf_from_children=True, minimax_weight=0.6)
    move = agent.select_move(board)
    assert agent._config()["prior_temp"] == 0.5
    assert pickle.loads(pickle.dumps(agent)).select_move(board) == move
    for kw, msg in (({"prior_temp": -1}, "prior_temp"),
                    ({"prior_temp": "hot"}, "prior_temp"),
                    ({"prior_temp": 0.5}, "needs a value_network"),
                    ({"prior_temp": 0.5, "value_network": net, "score_children": False},
                     "score_children=True"),
                    ({"prior_temp": 0.5, "value_network": net, "prior": lambda o, m: None},
                     "two sources")):
        with pytest.raises(ValueError, match=msg):
            MCTS(**kw)
