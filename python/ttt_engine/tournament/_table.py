"""The result of a round robin: W-D-L tables, scores, ratings, text output."""
from __future__ import annotations

import functools
import math

import numpy as np

from ttt_engine.tournament import ratings as _ratings

__all__ = ["TournamentResult"]


class TournamentResult:
    """Finished games of a round robin and what follows from them.

    names: entrants in order.  records: one dict per game (``a``, ``b``,
    ``game``, ``seed``, ``first``, ``winner`` (a name, or None for a draw),
    ``plies``, ``seconds``; ``capped`` True for a draw by a move cap).  errors: failed tasks (empty after a clean run).
    yardstick: None, or ``{name: ttt_engine.yardstick.Result}`` of every
    entrant on the game's exact yardstick suite (``round_robin(yardstick=N)``).
    """

    def __init__(self, names, games_per_pair, seed, records, errors=(), bootstrap=1000,
                 yardstick=None):
        self.names = tuple(names)
        self.games_per_pair = games_per_pair
        self.seed = seed
        self.records = list(records)
        self.errors = list(errors)
        self.bootstrap_samples = bootstrap
        self.yardstick = yardstick

    @functools.cached_property
    def _counts(self):
        """``c[colour, i, j, k]``: games of ``i`` against ``j`` with ``i`` moving
        first (colour 0) or second (1), ``k`` = 0 win, 1 draw, 2 loss for ``i``."""
        n = len(self.names)
        idx = {name: i for i, name in enumerate(self.names)}
        c = np.zeros((2, n, n, 3), dtype=np.int64)
        for r in self.records:
            i, j = idx[r["a"]], idx[r["b"]]
            ci = 0 if r["first"] == r["a"] else 1
            k = 1 if r["winner"] is None else (0 if r["winner"] == r["a"] else 2)
            c[ci, i, j, k] += 1
            c[1 - ci, j, i, 2 - k] += 1
        return c

    def wdl(self, a, b, colour=None):
        """``(wins, draws, losses)`` of ``a`` against ``b``; ``colour="first"`` /
        ``"second"``: only the games where ``a`` moved first / second."""
        i, j = (self._index(x, w) for x, w in ((a, "a"), (b, "b")))
        if colour not in (None, "first", "second"):
            raise ValueError(f"colour must be 'first', 'second' or None (both), got {colour!r}")
        c = self._counts
        if colour is None:
            v = c[0, i, j] + c[1, i, j]
        else:
            v = c[{"first": 0, "second": 1}[colour], i, j]
        return tuple(int(x) for x in v)

    def capped(self, a, b):
        """How many of the draws between ``a`` and ``b`` a move cap ended (the
        rest are true draws)."""
        i, j = (self._index(x, w) for x, w in ((a, "a"), (b, "b")))
        return int(self._capped[i, j])

    @property
    def capped_games(self):
        """How many of all the games a move cap ended (drawn, not by the rules)."""
        return int(self._capped.sum()) // 2

    @functools.cached_property
    def _capped(self):
        idx = {name: i for i, name in enumerate(self.names)}
        c = np.zeros((len(self.names),) * 2, dtype=np.int64)
        for r in self.records:
            if r.get("capped") and r["winner"] is None:
                i, j = idx[r["a"]], idx[r["b"]]
                c[i, j] += 1
                c[j, i] += 1
        return c

    def _index(self, name, what):
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"{what} must be an entrant of this tournament "
                             f"({', '.join(self.names)}), got {name!r}") from None

    @property
    def table(self):
        """``{(a, b): (W, D, L)}`` for every ordered pair of entrants."""
        return {(a, b): self.wdl(a, b) for a in self.names for b in self.names if a != b}

    @property
    def table_by_colour(self):
        """``{(a, b): {"first": (W, D, L), "second": (W, D, L)}}``, ``a``'s view."""
        return {(a, b): {"first": self.wdl(a, b, "first"), "second": self.wdl(a, b, "second")}
                for a in self.names for b in self.names if a != b}

    @property
    def games(self):
        return len(self.records)

    @property
    def scores(self):
        """``{name: (W + D/2) / games}`` over all its games (NaN before any)."""
        c = self._counts.sum(axis=(0, 2))             # (n, 3)
        n = c.sum(axis=1)
        s = np.where(n > 0, (c[:, 0] + 0.5 * c[:, 1]) / np.maximum(n, 1), np.nan)
        return {name: float(v) for name, v in zip(self.names, s)}

    def matrices(self):
        """``(wins, draws)`` as ``(n, n)`` arrays in ``names`` order."""
        c = self._counts.sum(axis=0)
        return c[..., 0], c[..., 1]

    def ratings(self, samples=None, seed=None, level=0.95):
        """Elo ratings (OpenSpiel's MM fit, lowest = 0) with bootstrap intervals
        (``samples`` replicates; default as the tournament's ``bootstrap``; the
        default seed derives from the tournament's, so it is reproducible)."""
        w, d = self.matrices()
        samples = self.bootstrap_samples if samples is None else samples
        seed = (self.seed if seed is None else seed)
        return _ratings.bootstrap(w, d, names=self.names, samples=samples, level=level,
                                  seed=seed)

    @functools.cached_property
    def rating(self):
        """:meth:`ratings` with the defaults, computed once."""
        return self.ratings()

    def markdown(self):
        """The W-D-L table (row's result against the column, with the draws a
        move cap ended in brackets), score and Elo with its interval, as Markdown; with a
        yardstick, each entrant's share of moves that keep the value (with its
        95% interval) and of optimal moves on the critical positions (where some
        move changes the outcome), beside a random mover's exact expectation."""
        r = self.rating
        ys = self.yardstick
        head = "| row vs column (W-D-L) | " + " | ".join(self.names) + " | score | Elo |"
        if ys:
            head += (" critical: keeps value % [95% interval] | optimal % | random mover "
                     "(exact) |")
        extra = 3 if ys else 0
        lines = [head, "|---|" + "---|" * (len(self.names) + 2 + extra)]
        scores = self.scores
        for i, a in enumerate(self.names):
            cells = []
            for b in self.names:
                if a == b:
                    cells.append("")
                    continue
                w, d, l = self.wdl(a, b)
                c = self.capped(a, b)
                cells.append((f"{w}-{d}-{l}" + (f" ({c} capped)" if c else ""))
                             if w + d + l else "")
            s = scores[a]
            ci = r.interval_text(i)
            ci = f" {ci}" if ci else ""
            row = (f"| **{a}** | " + " | ".join(cells)
                   + f" | {'' if math.isnan(s) else f'{s:.2f}'} | {r.elo[i]:.0f}{ci} |")
            if ys:
                k, o = ys[a].critical_keeps["all"], ys[a].critical_optimal["all"]
                lo, hi = k.interval
                rk, ro = ys[a].random["all"]
                row += (f" {100 * k.rate:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] |"
                        f" {100 * o.rate:.1f} | {100 * rk:.1f} / {100 * ro:.1f} |")
            lines.append(row)
        return "\n".join(lines)

    def colour_markdown(self):
        """Per-colour W-D-L: row moving first / row moving second."""
        lines = ["| row vs column: as first / as second | " + " | ".join(self.names) + " |",
                 "|---|" + "---|" * len(self.names)]
        for a in self.names:
            cells = ["" if a == b else
                     "{} / {}".format("-".join(map(str, self.wdl(a, b, "first"))),
                                      "-".join(map(str, self.wdl(a, b, "second"))))
                     for b in self.names]
            lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def summary(self):
        """A JSON-able dict of the tables, scores and ratings."""
        r = self.rating
        return {"names": list(self.names), "games_per_pair": self.games_per_pair,
                "seed": self.seed, "games": self.games, "capped_games": self.capped_games,
                "table": {f"{a} vs {b}": list(v) for (a, b), v in self.table.items()},
                "capped": {f"{a} vs {b}": self.capped(a, b) for (a, b) in self.table},
                "by_colour": {f"{a} vs {b}": {k: list(x) for k, x in v.items()}
                              for (a, b), v in self.table_by_colour.items()},
                "scores": self.scores,
                "elo": {n: [float(e), float(lo), float(hi)] for n, e, lo, hi in
                        zip(self.names, r.elo, r.low, r.high)},
                "errors": [{k: v for k, v in e.items() if k != "traceback"}
                           for e in self.errors],
                **({"yardstick": {n: _yardstick_summary(y) for n, y in self.yardstick.items()}}
                   if self.yardstick else {})}

    def __str__(self):
        return self.markdown()

    def __repr__(self):
        return (f"TournamentResult({len(self.names)} entrants, {self.games} games, "
                f"seed={self.seed})")


def _yardstick_summary(result):
    """An entrant's yardstick as JSON: positions, and for every phase and
    ``"all"`` the moves that keep the value / are optimal as ``k``, ``n``,
    ``rate`` and the 95% ``interval``, on every position (``keeps``,
    ``optimal``) and on the critical ones (``critical_keeps``,
    ``critical_optimal``, beside ``random``: a random mover's exact expected
    keeps and optimal shares there)."""
    def share(s):
        return {"k": s.k, "n": s.n, "rate": s.rate, "interval": list(s.interval)}
    return {"positions": result.positions, "seconds": round(result.seconds, 2),
            "keeps": {p: share(s) for p, s in result.keeps.items()},
            "optimal": {p: share(s) for p, s in result.optimal.items()},
            "critical_keeps": {p: share(s) for p, s in result.critical_keeps.items()},
            "critical_optimal": {p: share(s) for p, s in result.critical_optimal.items()},
            "random": {p: list(v) for p, v in result.random.items()}}
