"""Rating fit and bootstrap throughput (``ttt_engine.tournament.ratings``).

Bar: 100 entrants x 10,000 games fitted in under a second.  The tournament's
own scaling over processes and Dask is measured by ``bench/tournament_scaling.py``.
"""
import numpy as np
from ttt_engine.tournament import ratings


def _games(n, games, seed=1):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 200, n)
    a = rng.integers(0, n, games)
    b = (a + rng.integers(1, n, games)) % n
    p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
    u = rng.random(games)
    outcome = np.where(u < 0.9 * p, 1, np.where(u < 0.9 * p + 0.1, 0, -1))
    return strength, a, b, outcome


def test_fit_100_entrants_10000_games(throughput):
    strength, a, b, outcome = _games(100, 10_000)

    def fit():
        w, d = ratings.counts_from_games(100, a, b, outcome)
        return ratings.elo(w, d)
    elo = throughput(fit, 10_000, "games", entrants=100)
    assert np.corrcoef(elo, strength)[0, 1] > 0.9


def test_bootstrap_8_entrants(throughput):
    strength, a, b, outcome = _games(8, 2_000)
    w, d = ratings.counts_from_games(8, a, b, outcome)
    r = throughput(lambda: ratings.bootstrap(w, d, samples=1000, seed=1), 1000, "resamples",
                   entrants=8)
    assert np.all(r.low <= r.high)
