"""Bradley-Terry / Elo ratings from game results, with bootstrap intervals.

The fit is the minorisation-maximisation (MM) iteration of Hunter, "MM
algorithms for generalized Bradley-Terry models" (Annals of Statistics 32,
2004), exactly as OpenSpiel's ``evaluation/elo.cc`` ``ComputeElo`` runs it:

- ``W[i, j] = smoothing + wins[i, j] + draws[i, j] / 2`` for every ordered pair
  (a draw is half a win each way; the smoothing, 0.1 by default, is added to
  every pair, played or not, so every rating is finite);
- ``N[i, j] = W[i, j] + W[j, i]`` and ``T[i] = sum_{j != i} W[i, j]``;
- starting from ``gamma = 1``, repeat ``gamma'[i] = T[i] / sum_{j != i}
  N[i, j] / (gamma[i] + gamma[j])``, normalise ``gamma'`` to sum 1 (never below
  the smallest denormal), and stop when ``max |gamma' - gamma| < 1e-10`` (the
  ratings then come from the iterate *before* that last step, as in elo.cc) or
  after 2000 iterations;
- ``elo[i] = 400 log10(gamma[i])``, shifted so that the lowest rating is 0.

Every step is a whole-matrix numpy operation, so 100 entrants fit in a few
milliseconds.  :func:`bootstrap` resamples the games of every pairing with
replacement and refits, for percentile confidence intervals.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ttt_engine._util import check_int, check_real, resolve_seed

__all__ = [
    "MAX_ITERATIONS",
    "SCALE",
    "SMOOTHING",
    "TOLERANCE",
    "Ratings",
    "bootstrap",
    "counts_from_games",
    "elo",
]

#: OpenSpiel's defaults (``elo.h``): smoothing added to every pair's win count,
#: Elo scale (400 points = a factor 10 in strength), iteration cap, tolerance.
SMOOTHING = 0.1
SCALE = 400.0
MAX_ITERATIONS = 2000
TOLERANCE = 1e-10

_TINY = np.nextafter(0.0, 1.0)      # std::numeric_limits<double>::denorm_min()


def _square(name, m, n=None):
    a = np.asarray(m)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or (n is not None and a.shape[0] != n):
        want = "a square matrix" if n is None else f"a {n}x{n} matrix"
        raise ValueError(f"{name} must be {want}, got shape {a.shape}")
    if a.dtype.kind not in "iuf" or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"{name} must hold finite non-negative counts")
    return a.astype(np.float64)


def _win_matrix(wins, draws, smoothing):
    w = _square("wins", wins)
    n = w.shape[0]
    if n < 1:
        raise ValueError("wins must describe at least one entrant")
    if draws is None:
        d = np.zeros_like(w)
    else:
        d = _square("draws", draws, n)
        if not np.array_equal(d, d.T):
            raise ValueError("draws must be symmetric: draws[i, j] == draws[j, i]")
    smoothing = check_real("smoothing", smoothing, low=0)
    return smoothing + w + 0.5 * d


def _mm(W, max_iterations, tolerance, gamma=None):
    """MM iterations on a stack of smoothed win matrices ``W`` (shape (..., n, n)).

    Returns the gammas of the iterate OpenSpiel reports for every matrix.
    """
    n = W.shape[-1]
    off = ~np.eye(n, dtype=bool)
    W = np.where(off, W, 0.0)
    N = W + np.swapaxes(W, -1, -2)
    T = W.sum(axis=-1)
    g = np.ones(W.shape[:-1]) if gamma is None else gamma
    done = np.zeros(W.shape[:-2], dtype=bool)
    out = g.copy()
    for _ in range(max_iterations):
        denom = (N / (g[..., :, None] + g[..., None, :])).sum(axis=-1)
        g_new = T / denom
        g_new = np.maximum(g_new / g_new.sum(axis=-1, keepdims=True), _TINY)
        converged = np.abs(g - g_new).max(axis=-1) < tolerance
        newly = converged & ~done
        out[newly] = g[newly]            # elo.cc reports the iterate before the last step
        done |= converged
        if done.all():
            return out
        g = g_new
    out[~done] = g[~done]
    return out


def _to_elo(gamma, scale):
    r = scale * np.log10(gamma)
    return r - r.min(axis=-1, keepdims=True)


def elo(wins, draws=None, *, smoothing=SMOOTHING, max_iterations=MAX_ITERATIONS,
        tolerance=TOLERANCE, scale=SCALE):
    """Elo ratings of ``n`` entrants from their head-to-head results.

    wins: ``(n, n)`` counts, ``wins[i, j]`` = games ``i`` won against ``j``.
    draws: optional symmetric ``(n, n)`` counts.  Returns a float array of
    ratings with the lowest at 0, computed as OpenSpiel's ``ComputeElo`` (see
    the module docstring): 400 points apart means 10:1 odds.
    """
    W = _win_matrix(wins, draws, smoothing)
    max_iterations = check_int("max_iterations", max_iterations, min=1)
    tolerance = check_real("tolerance", tolerance, low=0, low_open=True)
    scale = check_real("scale", scale, low=0, low_open=True)
    return _to_elo(_mm(W, max_iterations, tolerance), scale)


def counts_from_games(n, a, b, outcome):
    """Win and draw matrices from game arrays: entrant indices ``a``, ``b`` and
    ``outcome`` (+1: ``a`` won, 0: draw, -1: ``b`` won), all of equal length."""
    n = check_int("n", n, min=1)
    a, b, outcome = (np.asarray(x, dtype=np.int64).ravel() for x in (a, b, outcome))
    if not (a.shape == b.shape == outcome.shape):
        raise ValueError("a, b and outcome must have the same length")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError(f"entrant indices must be in [0, {n})")
    if np.any(a == b):
        raise ValueError("an entrant cannot play itself")
    if not np.isin(outcome, (-1, 0, 1)).all():
        raise ValueError("outcome must be +1, 0 or -1")
    flat = n * n
    wins = (np.bincount(a[outcome == 1] * n + b[outcome == 1], minlength=flat)
            + np.bincount(b[outcome == -1] * n + a[outcome == -1], minlength=flat))
    d = np.bincount(a[outcome == 0] * n + b[outcome == 0], minlength=flat).reshape(n, n)
    return wins.reshape(n, n), d + d.T


@dataclasses.dataclass(frozen=True)
class Ratings:
    """Elo ratings with bootstrap percentile intervals (``low``/``high``; NaN
    without a bootstrap).  ``names[i]`` is rated ``elo[i]``."""
    names: tuple
    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    samples: int

    def as_dict(self):
        return {n: (float(e), float(lo), float(hi))
                for n, e, lo, hi in zip(self.names, self.elo, self.low, self.high)}

    @property
    def degenerate(self):
        """Per entrant: its interval has no width (every resample gave the same
        rating: each of the games it depends on had one outcome), so it says
        nothing of the rating's uncertainty."""
        if not self.samples:
            return np.zeros(len(self.names), dtype=bool)
        return np.isclose(self.low, self.high, rtol=0.0, atol=1e-9)

    def interval_text(self, i):
        """``"[low, high]"`` of entrant ``i``; ``"[n/a]"`` for a degenerate
        interval; ``""`` without a bootstrap."""
        if not self.samples:
            return ""
        if self.degenerate[i]:
            return "[n/a]"
        return f"[{self.low[i]:.0f}, {self.high[i]:.0f}]"

    def __str__(self):
        lines = []
        for i in np.argsort(-self.elo, kind="stable"):
            ci = self.interval_text(i)
            lines.append(f"{self.names[i]:>16s} {self.elo[i]:7.0f}" + (f"  {ci}" if ci else ""))
        return "\n".join(lines)


def bootstrap(wins, draws=None, *, names=None, samples=1000, level=0.95, seed=None,
              smoothing=SMOOTHING, max_iterations=MAX_ITERATIONS, tolerance=TOLERANCE,
              scale=SCALE):
    """Ratings with bootstrap confidence intervals over games.

    Each replicate redraws the games of every pairing with replacement (a
    multinomial draw of its wins, draws and losses with the observed
    frequencies, so every pairing keeps its number of games) and refits; all
    replicates iterate together as one stack of matrices.  Ratings are only
    defined up to a common shift, so each replicate is shifted to the point
    estimate's mean before the ``(1 - level) / 2`` and ``(1 + level) / 2``
    percentiles are taken.  ``samples=0`` gives the point estimate only.
    """
    point = elo(wins, draws, smoothing=smoothing, max_iterations=max_iterations,
                tolerance=tolerance, scale=scale)
    n = point.size
    names = tuple(str(i) for i in range(n)) if names is None else tuple(names)
    if len(names) != n:
        raise ValueError(f"names must have {n} entries, got {len(names)}")
    samples = check_int("samples", samples, min=0, max=1_000_000)
    level = check_real("level", level, low=0, high=1, low_open=True, high_open=True)
    if samples == 0:
        nan = np.full(n, np.nan)
        return Ratings(names, point, nan, nan.copy(), level, 0)
    w = np.asarray(wins, dtype=np.float64)
    d = np.zeros((n, n)) if draws is None else np.asarray(draws, dtype=np.float64)
    iu, ju = np.triu_indices(n, 1)
    counts = np.stack([w[iu, ju], d[iu, ju], w[ju, iu]], axis=-1)       # (pairs, 3)
    if not np.allclose(counts, np.round(counts)):
        raise ValueError("bootstrap needs whole-game counts")
    counts = np.round(counts).astype(np.int64)
    games = counts.sum(axis=-1)
    played = games > 0
    p = np.zeros(counts.shape)
    p[played] = counts[played] / games[played, None]
    p[~played, 1] = 1.0                   # unplayed pairs: zero games either way
    rng = np.random.default_rng(resolve_seed(seed))
    draw = rng.multinomial(games, p, size=(samples, games.size))        # (samples, pairs, 3)
    W = np.full((samples, n, n), float(smoothing))
    W[:, iu, ju] += draw[..., 0] + 0.5 * draw[..., 1]
    W[:, ju, iu] += draw[..., 2] + 0.5 * draw[..., 1]
    reps = _to_elo(_mm(W, max_iterations, tolerance), scale)
    reps += point.mean() - reps.mean(axis=-1, keepdims=True)
    q = np.percentile(reps, [50 * (1 - level), 50 * (1 + level)], axis=0)
    return Ratings(names, point, q[0], q[1], level, samples)
