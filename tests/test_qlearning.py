"""Q-learning trainer, QAgent, evaluate and model files.

The strongest check is ``test_kernel_matches_python_reference``: a plain-Python
transcription of the documented algorithm (same xoshiro256** stream, same
update rule) must give a bit-identical Q table.
"""
import os
import zipfile

import numpy as np
import pytest

import ttt_engine
from ttt_engine import Board, QAgent, EvalResult, evaluate
from ttt_engine.ttt import qagent as qagent_mod


def train(*args, **kw):
    """``ttt_engine.train`` in mode "random" (Q-learning against a random opponent)
    unless the test says otherwise; the default mode is tested separately."""
    kw.setdefault("mode", "random")
    return ttt_engine.train(*args, **kw)

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
M64 = (1 << 64) - 1


# ---------------------------------------------------------------- pure-Python reference
class XoshiroRef:
    """xoshiro256** seeded by splitmix64, as in src/engine/core/rng.pxd."""

    def __init__(self, seed):
        x = seed
        s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            s.append(z ^ (z >> 31))
        self.s = s

    @staticmethod
    def _rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s0, s1, s2, s3 = self.s
        result = (self._rotl((s1 * 5) & M64, 7) * 9) & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = self._rotl(s3, 45)
        self.s = [s0, s1, s2, s3]
        return result


def _wins(mask):
    return any(all(mask >> i & 1 for i in line) for line in LINES)


def _empty_cells(mine, theirs):
    return [i for i in range(9) if not (mine | theirs) >> i & 1]


def _random_cell(cells, r):
    return cells[((r >> 32) * len(cells)) >> 32]


def _greedy(row, cells):
    best, arg = -np.inf, 0
    for c in cells:              # ascending: ties go to the lowest cell
        if row[c] > best:
            best, arg = row[c], c
    return best, arg


def reference_train(episodes, alpha, gamma, eps, decay, eps_min, side, shaping, seed,
                    alpha_decay=1.0, alpha_min=0.0):
    q = np.zeros((19683, 9))
    rng = XoshiroRef(seed)
    counts = [0, 0, 0, 0]
    for _ in range(episodes):
        thr = int(eps * 4294967296.0)
        me = (rng.next() >> 63) if side == 2 else side
        wme, wopp = me + 1, 2 - me
        mine = theirs = idx = 0
        prev = None
        if me == 1:
            c = _random_cell(list(range(9)), rng.next())
            theirs, idx = 1 << c, wopp * 3 ** c
        while True:
            cells = _empty_cells(mine, theirs)
            best, greedy = _greedy(q[idx], cells)
            if prev is not None:
                q[prev] += alpha * (gamma * best - q[prev])
            r = rng.next()
            a = _random_cell(cells, r) if (r & 0xFFFFFFFF) < thr else greedy
            prev = (idx, a)
            mine |= 1 << a
            idx += wme * 3 ** a
            if _wins(mine):
                q[prev] += alpha * (1.0 - q[prev]); res = 0; break
            if mine | theirs == 0x1FF:
                q[prev] += alpha * (0.0 - q[prev]); res = 1; break
            cells = _empty_cells(mine, theirs)
            if shaping and any(_wins(theirs | 1 << c) for c in cells):
                q[prev] += alpha * (-0.8 - q[prev]); res = 3; break
            c = _random_cell(cells, rng.next())
            theirs |= 1 << c
            idx += wopp * 3 ** c
            if _wins(theirs):
                q[prev] += alpha * (-1.0 - q[prev]); res = 2; break
            if mine | theirs == 0x1FF:
                q[prev] += alpha * (0.0 - q[prev]); res = 1; break
        counts[res] += 1
        eps = max(eps_min, eps * decay)
        alpha = max(alpha_min, alpha * alpha_decay)
    return q, counts


@pytest.mark.parametrize("side,shaping", [("O", False), ("X", False), ("random", False),
                                          ("O", True), ("random", True)])
def test_kernel_matches_python_reference(side, shaping):
    kw = dict(alpha=0.3, gamma=0.9, epsilon=0.9, epsilon_decay=0.999, epsilon_min=0.05,
              alpha_decay=0.9995, alpha_min=0.05)
    n = 3000
    agent = train(n, side=side, shaping=shaping, seed=12345, progress=False, chunk=700, **kw)
    q, counts = reference_train(n, kw["alpha"], kw["gamma"], kw["epsilon"], kw["epsilon_decay"],
                                kw["epsilon_min"], {"X": 0, "O": 1, "random": 2}[side], shaping,
                                12345, kw["alpha_decay"], kw["alpha_min"])
    assert np.array_equal(agent.q, q)   # bit-identical
    tot = {k: sum(h[k] for h in agent.history) for k in ("wins", "draws", "losses", "cut")}
    assert [tot["wins"], tot["draws"], tot["losses"], tot["cut"]] == counts
    assert (tot["cut"] > 0) == shaping


def reference_evaluate(q, games, side, seed):
    rng = XoshiroRef(seed)
    out = [0, 0, 0]
    for _ in range(games):
        me = (rng.next() >> 63) if side == 2 else side
        mine = theirs = idx = 0
        if me == 1:
            c = _random_cell(list(range(9)), rng.next())
            theirs, idx = 1 << c, (2 - me) * 3 ** c
        while True:
            _, a = _greedy(q[idx], _empty_cells(mine, theirs))
            mine |= 1 << a
            idx += (me + 1) * 3 ** a
            if _wins(mine):
                out[0] += 1; break
            if mine | theirs == 0x1FF:
                out[1] += 1; break
            c = _random_cell(_empty_cells(mine, theirs), rng.next())
            theirs |= 1 << c
            idx += (2 - me) * 3 ** c
            if _wins(theirs):
                out[2] += 1; break
            if mine | theirs == 0x1FF:
                out[1] += 1; break
    return out


@pytest.mark.parametrize("side", ["X", "O", "random"])
def test_evaluate_matches_python_reference(side):
    agent = train(20_000, side="random", seed=3, progress=False)
    r = evaluate(agent, games=2000, side=side, seed=99)
    assert [r.wins, r.draws, r.losses] == reference_evaluate(agent.q, 2000, {"X": 0, "O": 1, "random": 2}[side], 99)
    assert r.games == 2000 and r.side == side and r.opponent == "random"


# ---------------------------------------------------------------- table invariants
def _occupied_mask():
    """(19683, 9) bool: cell occupied in the position of that index."""
    idx = np.arange(19683)
    digits = np.stack([(idx // 3 ** i) % 3 for i in range(9)], axis=1)
    return digits != 0, digits


@pytest.mark.parametrize("side,shaping", [("O", False), ("X", True), ("random", False)])
def test_illegal_actions_and_foreign_states_untouched(side, shaping):
    agent = train(300_000, side=side, shaping=shaping, seed=7, progress=False)
    occupied, digits = _occupied_mask()
    assert not agent.q[occupied].any(), "Q of an occupied cell was written"
    nx, no = (digits == 1).sum(1), (digits == 2).sum(1)
    x_to_move, o_to_move = nx == no, nx == no + 1
    touched = agent.q.any(axis=1)
    reachable = np.zeros(19683, bool)
    for i in np.flatnonzero(touched):
        reachable[i] = True
        Board.from_index(int(i))            # raises unless reachable
        assert not Board.from_index(int(i)).is_terminal()
    if side == "O":
        assert not touched[x_to_move].any()
    if side == "X":
        assert not touched[o_to_move].any()
    assert touched.sum() > 100


def test_reproducible_and_chunk_independent():
    a = train(200_000, seed=42, progress=False)
    b = train(200_000, seed=42, progress=False, chunk=33_333)
    c = train(200_000, seed=43, progress=False)
    assert a.q.tobytes() == b.q.tobytes()
    assert not np.array_equal(a.q, c.q)
    assert a.seed == 42 and a.episodes == 200_000
    e = train(0, seed=1, progress=False)
    assert e.episodes == 0 and not e.q.any() and e.history == []


def test_seed_none_is_recorded_and_replayable():
    a = train(50_000, progress=False)
    assert isinstance(a.seed, int)
    b = train(50_000, seed=a.seed, progress=False)
    assert np.array_equal(a.q, b.q)


def test_history_per_chunk():
    a = train(250_000, seed=1, progress=False, chunk=100_000, epsilon_decay=0.9999)
    h = a.history
    assert [x["episodes"] for x in h] == [100_000, 200_000, 250_000]
    assert [x["wins"] + x["draws"] + x["losses"] + x["cut"] for x in h] == [100_000, 100_000, 50_000]
    assert h[0]["epsilon"] == 0.01        # floor reached (0.7 * 0.9999**100_000 < 0.01)
    assert h[-1]["wins"] / 50_000 > 0.8          # it learns
    assert h[0]["alpha"] == pytest.approx(0.1 * 0.9999997 ** 100_000, rel=1e-9)


def test_progress_bar_does_not_change_result():
    a = train(30_000, seed=5, progress=True)
    b = train(30_000, seed=5, progress=False)
    assert np.array_equal(a.q, b.q)


# ---------------------------------------------------------------- agent API
def test_best_move_q_values_select_move():
    agent = QAgent()
    b = Board.from_string("X.O......")
    assert agent.best_move(b) == 1            # all zero: lowest legal cell
    agent.q[b.index, 5] = 0.3
    agent.q[b.index, 7] = 0.3
    agent.q[b.index, 0] = 9.0                 # occupied: never chosen
    assert agent.best_move(b) == 5 and agent.select_move(b) == 5
    qv = agent.q_values(b)
    assert sorted(qv) == b.legal_moves and qv[5] == 0.3 and 0 not in qv
    assert agent.name == "Q-learning"
    with pytest.raises(ValueError, match="game is over"):
        agent.best_move(Board.from_string("XXXOO...."))
    assert agent.q_values(Board.from_string("XXXOO....")) == {}
    with pytest.raises(ValueError, match="QAgent plays Tic-Tac-Toe, got str 'X.O......'"):
        agent.best_move("X.O......")


def test_qagent_constructor_checks_table():
    with pytest.raises(ValueError, match=r"shape \(19683, 9\)"):
        QAgent(np.zeros((10, 9)))
    with pytest.raises(ValueError, match="float64"):
        QAgent(np.zeros((19683, 9), np.float32))
    q = np.zeros((19683, 9))
    q[5, 3] = np.nan
    with pytest.raises(ValueError, match="non-finite.*state 5, cell 3"):
        QAgent(q)
    q = np.zeros((19683, 9))
    a = QAgent(q)
    a.q[0, 0] = 1
    assert q[0, 0] == 0 and a.q.flags.c_contiguous   # the agent owns a copy


def test_evaluate_result_and_validation():
    agent = train(100_000, seed=1, progress=False)
    r = evaluate(agent, games=5000, seed=1)
    assert isinstance(r, EvalResult)
    assert r.wins + r.draws + r.losses == 5000
    assert r.win_rate == r.wins / 5000
    assert "wins" in repr(r) and "side='O'" in repr(r)
    assert r == evaluate(agent, games=5000, seed=1)
    assert evaluate(agent.q, games=5000, seed=1) == r
    assert r.as_dict()["games"] == 5000
    for kw, msg in [(dict(games=0), "games"), (dict(games=1.5), "games"), (dict(side="x"), "side"),
                    (dict(opponent="perfectt"), "opponent"), (dict(seed=-1), "seed")]:
        with pytest.raises(ValueError, match=msg):
            evaluate(agent, **kw)
    with pytest.raises(ValueError, match="agent"):
        evaluate("agent")


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("kw,msg", [
    (dict(episodes=-1), "episodes must be an integer from 0 to"),
    (dict(episodes=2.5), "episodes must be an integer"),
    (dict(episodes="10"), "episodes must be an integer"),
    (dict(alpha=0), r"alpha must be in \(0, 1\]"),
    (dict(alpha=1.5), r"alpha must be in \(0, 1\]"),
    (dict(alpha=float("nan")), r"alpha must be in \(0, 1\], got nan"),
    (dict(gamma=-0.1), r"gamma must be in \[0, 1\]"),
    (dict(gamma=1.01), r"gamma must be in \[0, 1\]"),
    (dict(epsilon=1.2), r"epsilon must be in \[0, 1\]"),
    (dict(epsilon_min=-0.5), r"epsilon_min must be in \[0, 1\]"),
    (dict(epsilon=0.1, epsilon_min=0.2), "epsilon_min .* must be <= epsilon"),
    (dict(epsilon_decay=0), r"epsilon_decay must be in \(0, 1\]"),
    (dict(epsilon_decay=1.0001), r"epsilon_decay must be in \(0, 1\]"),
    (dict(alpha_decay=0), r"alpha_decay must be in \(0, 1\]"),
    (dict(alpha=0.05, alpha_min=0.1), "alpha_min .* must be <= alpha"),
    (dict(side="o"), "side must be one of"),
    (dict(side=1), "side must be one of"),
    (dict(shaping="yes"), "shaping must be True or False"),
    (dict(progress=None), "progress must be True or False"),
    (dict(seed=-3), "seed"),
    (dict(seed="abc"), "seed"),
    (dict(chunk=0), "chunk must be an integer from 1 to"),
    (dict(agent="x"), "agent must be a QAgent"),
])
def test_train_validation(kw, msg):
    kw.setdefault("episodes", 10)
    kw.setdefault("progress", False)
    with pytest.raises(ValueError, match=msg):
        train(**kw)


def test_train_boundary_values_accepted():
    train(10, alpha=1, gamma=0, epsilon=0, epsilon_min=0, epsilon_decay=1, alpha_decay=1,
          alpha_min=0, seed=0, progress=False)
    train(10, gamma=1, epsilon=1, epsilon_min=1, seed=2**64 - 1, progress=False)
    train(1e3, seed=1, progress=False)                 # integral float accepted


# ---------------------------------------------------------------- model files
def test_save_load_round_trip(tmp_path):
    a = train(100_000, side="random", shaping=True, seed=11, progress=False, chunk=40_000)
    p = tmp_path / "model.npz"
    a.save(p)
    b = QAgent.load(p)
    assert b.q.tobytes() == a.q.tobytes()
    assert b.q.dtype == np.float64 and b.q.flags.c_contiguous
    assert (b.side, b.shaping, b.episodes, b.seed) == ("random", True, 100_000, 11)
    assert b.hyperparameters == a.hyperparameters
    assert b.history == a.history
    assert evaluate(b, games=1000, seed=4) == evaluate(a, games=1000, seed=4)
    # a fresh agent without seed / history also round-trips; path used as given
    c = QAgent()
    c.save(tmp_path / "plain.model")
    assert os.path.exists(tmp_path / "plain.model")
    d = QAgent.load(str(tmp_path / "plain.model"))
    assert d.seed is None and d.history == [] and not d.q.any()
    # continue training the loaded agent
    train(1000, seed=1, progress=False, agent=d)
    assert d.episodes == 1000 and d.q.any()
    with zipfile.ZipFile(p) as z:          # no pickled members, only .npy arrays
        assert all(n.endswith(".npy") for n in z.namelist())


def _write_fields(path, **changes):
    a = QAgent()
    a.save(path)
    with np.load(path, allow_pickle=False) as z:
        fields = {k: z[k] for k in z.files}
    for k, v in changes.items():
        if v is None:
            del fields[k]
        else:
            fields[k] = v
    with open(path, "wb") as f:
        np.savez(f, **fields)


def test_load_rejects_bad_files(tmp_path):
    good = tmp_path / "good.npz"
    train(1000, seed=1, progress=False).save(good)
    data = good.read_bytes()

    with pytest.raises(FileNotFoundError, match="does not exist"):
        QAgent.load(tmp_path / "nope.npz")

    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"this is not a zip file at all" * 10)
    with pytest.raises(ValueError, match=r"not a ttt_engine model \(.npz\) file: it is a file "
                                         r"starting with b'this', not a zip archive") as e:
        QAgent.load(garbage)
    assert "pickle" not in str(e.value)          # never advise unpickling a stranger's file

    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="it is an empty file"):
        QAgent.load(empty)

    for frac in (0.3, 0.7, 0.95):
        trunc = tmp_path / f"trunc{frac}.npz"
        trunc.write_bytes(data[: int(len(data) * frac)])
        with pytest.raises(ValueError, match="not a readable ttt_engine model"):
            QAgent.load(trunc)

    cases = [
        (dict(q=np.full((19683, 9), np.nan)), r"non-finite value\(s\), first at state 0, cell 0"),
        (dict(q=np.zeros((19683, 8))), r"shape \(19683, 9\), got \(19683, 8\)"),
        (dict(q=np.zeros(19683 * 9)), r"shape \(19683, 9\)"),
        (dict(q=np.zeros((19683, 9), np.float32)), "dtype float64, got float32"),
        (dict(format_version=np.int64(2)), "unsupported model format version 2"),
        (dict(format_version=None), "no 'format_version' field"),
        (dict(q=None), "missing field.*q"),
        (dict(alpha=None, seed=None), r"missing field\(s\): seed, alpha"),
        (dict(side=np.str_("Z")), "side must be one of"),
        (dict(episodes=np.int64(-5)), "episodes must be >= 0"),
        (dict(alpha=np.str_("big")), "field 'alpha' must be a scalar"),
        (dict(history=np.zeros((3, 2))), "history must be a float array with 7 columns"),
        (dict(mode=np.str_("selfish")), "mode must be one of"),
    ]
    for i, (changes, msg) in enumerate(cases):
        p = tmp_path / f"bad{i}.npz"
        _write_fields(p, **changes)
        with pytest.raises(ValueError, match=msg):
            QAgent.load(p)
        assert str(p) in _message(QAgent.load, p)

    q = np.zeros((19683, 9))
    q[100, 4] = np.inf
    p = tmp_path / "inf.npz"
    _write_fields(p, q=q)
    with pytest.raises(ValueError, match="1 non-finite value.*state 100, cell 4: inf"):
        QAgent.load(p)

    pickled = tmp_path / "pickled.npz"       # an object array needs pickle: refused
    with open(pickled, "wb") as f:
        np.savez(f, format_version=np.int64(1), q=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="not a readable ttt_engine model"):
        QAgent.load(pickled)


def _message(fn, *args):
    try:
        fn(*args)
    except ValueError as e:
        return str(e)
    return ""


def test_save_is_atomic(tmp_path, monkeypatch):
    p = tmp_path / "model.npz"
    good = train(1000, seed=1, progress=False)
    good.save(p)
    before = p.read_bytes()

    def boom(f, **arrays):
        f.write(b"half a file")
        raise RuntimeError("disk full")

    monkeypatch.setattr(qagent_mod.np, "savez_compressed", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        train(2000, seed=2, progress=False).save(p)
    monkeypatch.undo()
    assert p.read_bytes() == before
    assert [f.name for f in tmp_path.iterdir()] == ["model.npz"]   # no temp file left
    assert np.array_equal(QAgent.load(p).q, good.q)


# ---------------------------------------------------------------- quality bars (defaults, fixed seed)
def test_default_quality_as_O():
    agent = ttt_engine.train(mode="random", seed=2026, progress=False)
    assert agent.episodes == qagent_mod.DEFAULT_EPISODES
    r = ttt_engine.evaluate(agent, games=100_000, side="O", seed=1)
    assert r.win_rate >= 0.92 and r.loss_rate <= 0.01, r


def test_default_quality_as_X():
    agent = ttt_engine.train(mode="random", side="X", seed=2026, progress=False)
    r = ttt_engine.evaluate(agent, games=100_000, side="X", seed=1)
    assert r.win_rate >= 0.994 and r.losses == 0, r
