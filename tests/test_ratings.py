"""Elo ratings: OpenSpiel's MM fit checked against independent computations."""
import math

import numpy as np
import pytest
from ttt_engine.tournament import ratings


def openspiel_loops(win, draw, smoothing=0.1, max_iterations=2000, delta=1e-10, scale=400.0):
    """A line-by-line transcription of OpenSpiel's ComputeElo in plain Python loops."""
    n = len(win)
    W = [[smoothing + win[i][j] + 0.5 * draw[i][j] for j in range(n)] for i in range(n)]
    total = [0.0] * n
    N = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            total[i] += W[i][j]
            total[j] += W[j][i]
            N[i][j] = N[j][i] = W[i][j] + W[j][i]
    g = [1.0] * n
    for _ in range(max_iterations):
        new = []
        for i in range(n):
            s = sum(N[i][j] / (g[i] + g[j]) for j in range(n) if j != i)
            new.append(total[i] / s)
        t = sum(new)
        new = [max(x / t, 5e-324) for x in new]
        if max(abs(a - b) for a, b in zip(g, new)) < delta:
            break
        g = new
    r = [scale * math.log10(x) for x in g]
    return [x - min(r) for x in r]


def direct_mle(W, iters=200):
    """Maximise the smoothed Bradley-Terry log-likelihood
    sum_{i != j} W_ij log(g_i / (g_i + g_j)) by Newton's method on log g."""
    n = len(W)
    W = np.array(W, dtype=float)
    np.fill_diagonal(W, 0)
    x = np.zeros(n)
    for _ in range(iters):
        p = 1 / (1 + np.exp(x[None, :] - x[:, None]))       # P(i beats j)
        N = W + W.T
        grad = W.sum(1) - (N * p).sum(1)
        H = N * p * (1 - p)
        H = H - np.diag(H.sum(1))                             # Hessian (negative semidefinite)
        H[0, :] = 0
        H[0, 0] = 1                                           # pin x[0] = 0
        grad[0] = 0
        step = np.linalg.solve(H, grad)
        x = x - step
        if np.abs(step).max() < 1e-14:
            break
    r = 400 * x / math.log(10)
    return r - r.min()


def test_two_players_closed_form():
    # With two players the fit is gamma_1 / gamma_2 = W_12 / W_21.
    for w, d, l in [(3, 2, 1), (10, 0, 0), (0, 5, 0), (7, 1, 12)]:
        r = ratings.elo([[0, w], [l, 0]], [[0, d], [d, 0]])
        expect = 400 * math.log10((0.1 + w + d / 2) / (0.1 + l + d / 2))
        assert r[0] - r[1] == pytest.approx(expect, abs=1e-6)
        assert min(r) == 0


def test_matches_openspiel_transcription():
    rng = np.random.default_rng(5)
    for n in (3, 5, 8):
        win = rng.integers(0, 20, (n, n))
        np.fill_diagonal(win, 0)
        d = rng.integers(0, 6, (n, n))
        d = d + d.T
        np.fill_diagonal(d, 0)
        got = ratings.elo(win, d)
        want = openspiel_loops(win.tolist(), d.tolist())
        assert got == pytest.approx(want, abs=1e-9)
        assert got.min() == 0


def test_matches_direct_likelihood_maximisation():
    rng = np.random.default_rng(11)
    win = rng.integers(0, 30, (4, 4))
    np.fill_diagonal(win, 0)
    draws = np.array([[0, 2, 0, 1], [2, 0, 3, 0], [0, 3, 0, 4], [1, 0, 4, 0]])
    W = 0.1 + win + 0.5 * draws
    assert ratings.elo(win, draws) == pytest.approx(direct_mle(W), abs=1e-4)


def test_scale_and_smoothing_options():
    w = [[0, 9], [1, 0]]
    assert ratings.elo(w, smoothing=0)[0] == pytest.approx(400 * math.log10(9), abs=1e-6)
    assert ratings.elo(w, smoothing=0, scale=1)[0] == pytest.approx(math.log10(9), abs=1e-8)


def test_unplayed_pairs_and_recovers_strengths():
    # a chain: 0 beats 1 beats 2, 0 and 2 never meet; the smoothing keeps it finite
    r = ratings.elo([[0, 10, 0], [0, 0, 10], [0, 0, 0]])
    assert np.all(np.isfinite(r)) and r[0] > r[1] > r[2] == 0
    # simulated games from known ratings are fitted close to them
    rng = np.random.default_rng(2)
    true = np.array([0, 100, 200, 400.0])
    a = rng.integers(0, 4, 40000)
    b = (a + rng.integers(1, 4, 40000)) % 4
    p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
    outcome = np.where(rng.random(40000) < p, 1, -1)
    w, d = ratings.counts_from_games(4, a, b, outcome)
    assert ratings.elo(w, d) == pytest.approx(true, abs=15)


def test_counts_from_games():
    w, d = ratings.counts_from_games(3, [0, 0, 1, 2, 2], [1, 2, 2, 0, 1], [1, 0, -1, 1, 0])
    assert w.tolist() == [[0, 1, 0], [0, 0, 0], [1, 1, 0]]
    assert d.tolist() == [[0, 0, 1], [0, 0, 1], [1, 1, 0]]
    with pytest.raises(ValueError, match="itself"):
        ratings.counts_from_games(2, [0], [0], [1])
    with pytest.raises(ValueError, match="outcome"):
        ratings.counts_from_games(2, [0], [1], [2])
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        ratings.counts_from_games(2, [0], [2], [1])


def test_bad_matrices():
    with pytest.raises(ValueError, match="square"):
        ratings.elo([[0, 1, 2], [1, 0, 3]])
    with pytest.raises(ValueError, match="non-negative"):
        ratings.elo([[0, -1], [1, 0]])
    with pytest.raises(ValueError, match="symmetric"):
        ratings.elo([[0, 1], [1, 0]], [[0, 1], [2, 0]])
    with pytest.raises(ValueError, match="smoothing"):
        ratings.elo([[0, 1], [1, 0]], smoothing=-1)


def test_bootstrap_intervals():
    w = np.array([[0, 30, 40], [10, 0, 25], [0, 15, 0]])
    d = np.array([[0, 0, 0], [0, 0, 10], [0, 10, 0]])
    r1 = ratings.bootstrap(w, d, names=["a", "b", "c"], samples=400, seed=3)
    r2 = ratings.bootstrap(w, d, names=["a", "b", "c"], samples=400, seed=3)
    assert np.array_equal(r1.low, r2.low) and np.array_equal(r1.high, r2.high)
    assert np.array_equal(r1.elo, ratings.elo(w, d))
    # intervals are around the point estimate, relative to the field's mean
    centred = r1.elo - r1.elo.mean()
    lo, hi = r1.low - r1.elo.mean(), r1.high - r1.elo.mean()
    assert np.all(lo < centred) and np.all(centred < hi)
    # ten times the games: intervals about sqrt(10) times narrower
    r10 = ratings.bootstrap(w * 10, d * 10, samples=400, seed=3)
    ratio = (r1.high - r1.low) / (r10.high - r10.low)
    assert np.all((ratio > 2) & (ratio < 5))
    none = ratings.bootstrap(w, d, samples=0)
    assert np.isnan(none.low).all() and none.samples == 0
    assert "a" in str(r1) and set(r1.as_dict()) == {"a", "b", "c"}


def test_an_interval_without_variance_is_said_to_be_none():
    one_sided = ratings.bootstrap([[0, 4], [0, 0]], names=("a", "b"), samples=200, seed=1)
    assert one_sided.degenerate.all() and one_sided.interval_text(0) == "[n/a]"
    assert "[n/a]" in str(one_sided)
    mixed = ratings.bootstrap([[0, 3], [1, 0]], names=("a", "b"), samples=200, seed=1)
    assert not mixed.degenerate.any() and mixed.interval_text(0).startswith("[")
    none = ratings.bootstrap([[0, 3], [1, 0]], samples=0)
    assert none.interval_text(0) == "" and "[" not in str(none)
