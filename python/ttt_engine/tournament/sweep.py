"""Hyperparameter sweeps: a function over a grid, several seeded repeats per point.

:func:`sweep` runs ``fn(**point, seed=s)`` for every point of the grid's
Cartesian product and every repeat, one task each, on any executor; every run's
seed derives from the sweep's seed, the point and the repeat number, so the
same seed gives the same numbers on any executor.  :func:`qlearning_sweep` is
the ready sweep of Tic-Tac-Toe Q-learning measured exactly against the solved
game.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import math

import numpy as np

from ttt_engine._util import atomic_write, check_int, check_output_path, check_real, resolve_seed
from ttt_engine.tournament._runner import (
    check_executor,
    check_picklable,
    open_results,
    run_tasks,
)

__all__ = [
    "QLEARNING_METRICS",
    "SweepError",
    "SweepResult",
    "qlearning_run",
    "qlearning_sweep",
    "run_seed",
    "sweep",
]

FORMAT = 1


class SweepError(RuntimeError):
    """Some runs failed; ``result`` holds the finished ones, ``errors`` the failures."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result
        self.errors = result.errors


def run_seed(seed, point, repeat):
    """The seed of repeat ``repeat`` at grid point ``point`` (a dict)."""
    key = json.dumps(point, sort_keys=True).encode()
    words = np.frombuffer(key + b"\0" * (-len(key) % 4), dtype="<u4")
    ss = np.random.SeedSequence([seed, repeat, *map(int, words)])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _run(task):
    metrics = task["fn"](**task["point"], seed=task["seed"])
    if not isinstance(metrics, dict):
        raise TypeError(f"the sweep function must return a dict of metrics, got "
                        f"{type(metrics).__name__}")
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in metrics.items()}


def _grid(grid):
    if not isinstance(grid, dict) or not grid:
        raise ValueError("grid must be a non-empty dict: parameter name -> list of values")
    points = []
    for name, values in grid.items():
        if not isinstance(name, str) or not name.isidentifier() or name == "seed":
            raise ValueError(f"grid parameter names must be identifiers other than 'seed', "
                             f"got {name!r}")
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ValueError(f"grid[{name!r}] must be a list of values, got {values!r}")
        values = list(values)
        if not values:
            raise ValueError(f"grid[{name!r}] is empty")
        for k, v in enumerate(values):
            if not isinstance(v, (int, float, str, bool)) or (isinstance(v, float)
                                                               and not math.isfinite(v)):
                raise ValueError(f"grid[{name!r}] values must be finite numbers, strings or "
                                 f"booleans, got {v!r}")
            if v in values[:k]:         # the same setting twice would be run and counted twice
                raise ValueError(f"grid[{name!r}] lists {v!r} twice")
        points.append([(name, v) for v in values])
    return {k: list(v) for k, v in grid.items()}, [dict(p) for p in itertools.product(*points)]


class SweepResult:
    """Runs of a sweep: ``rows`` are dicts ``{"point": {...}, "repeat": r,
    "seed": s, "metrics": {...}}`` in grid order."""

    def __init__(self, grid, repeats, seed, rows, errors=()):
        self.grid, self.repeats, self.seed = grid, repeats, seed
        self.rows = list(rows)
        self.errors = list(errors)

    @property
    def metrics(self):
        names = []
        for r in self.rows:
            names += [k for k in r["metrics"] if k not in names]
        return names

    def aggregate(self):
        """One dict per grid point: the point, ``runs``, and for every numeric
        metric its ``mean``, ``min`` and ``max`` over the repeats."""
        by = {}
        for r in self.rows:
            by.setdefault(json.dumps(r["point"], sort_keys=True), (r["point"], []))[1].append(r)
        out = []
        for point, rows in by.values():
            agg = {**point, "runs": len(rows)}
            for m in self.metrics:
                vals = [r["metrics"][m] for r in rows if isinstance(r["metrics"].get(m),
                                                                     (int, float))]
                if vals:
                    agg[f"{m}_mean"] = float(np.mean(vals))
                    agg[f"{m}_min"] = float(np.min(vals))
                    agg[f"{m}_max"] = float(np.max(vals))
            out.append(agg)
        return out

    def csv(self):
        """Every run as CSV text: parameters, repeat, seed, metrics."""
        params = list(self.grid)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(params + ["repeat", "seed"] + self.metrics)
        for r in self.rows:
            w.writerow([r["point"][p] for p in params] + [r["repeat"], r["seed"]]
                       + [r["metrics"].get(m, "") for m in self.metrics])
        return buf.getvalue()

    def to_csv(self, path):
        """Write :meth:`csv` to ``path`` atomically."""
        check_output_path(path, "CSV file")
        text = self.csv()
        atomic_write(path, lambda f: f.write(text.encode()), "CSV file")

    def markdown(self, columns=None, fmt="{:.4g}"):
        """Per-point means (and min..max when they differ) as a Markdown table."""
        agg = self.aggregate()
        columns = columns or self.metrics
        params = list(self.grid)
        lines = ["| " + " | ".join(params + ["runs"] + list(columns)) + " |",
                 "|" + "---|" * (len(params) + 1 + len(columns))]
        for a in agg:
            cells = [str(a[p]) for p in params] + [str(a["runs"])]
            for m in columns:
                if f"{m}_mean" not in a:
                    cells.append("")
                    continue
                mean, lo, hi = a[f"{m}_mean"], a[f"{m}_min"], a[f"{m}_max"]
                cells.append(fmt.format(mean) if lo == hi else
                             f"{fmt.format(mean)} ({fmt.format(lo)}..{fmt.format(hi)})")
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def heatmap(self, path, metric, x, y, title=None):
        """A PNG heatmap of ``metric``'s mean over parameters ``x`` and ``y``
        (averaged over the other parameters); needs the ``[plot]`` extra."""
        check_output_path(path, "plot")
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("heatmaps need matplotlib: pip install 'ttt_engine[plot]'") from None
        for p in (x, y):
            if p not in self.grid:
                raise ValueError(f"{p!r} is not a grid parameter: {', '.join(self.grid)}")
        if x == y:
            raise ValueError(f"x and y must be two different grid parameters, got {x!r} twice")
        xs, ys = self.grid[x], self.grid[y]
        grid = np.full((len(ys), len(xs)), np.nan)
        for iy, vy in enumerate(ys):
            for ix, vx in enumerate(xs):
                vals = [r["metrics"][metric] for r in self.rows
                        if r["point"][x] == vx and r["point"][y] == vy
                        and isinstance(r["metrics"].get(metric), (int, float))]
                if vals:
                    grid[iy, ix] = np.mean(vals)
        fig, ax = plt.subplots(figsize=(1.2 * len(xs) + 2.5, 0.8 * len(ys) + 2))
        im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(xs)), [f"{v:g}" if isinstance(v, float) else str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [f"{v:g}" if isinstance(v, float) else str(v) for v in ys])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        for iy in range(len(ys)):
            for ix in range(len(xs)):
                if np.isfinite(grid[iy, ix]):
                    ax.text(ix, iy, f"{grid[iy, ix]:.3g}", ha="center", va="center",
                            color="w" if grid[iy, ix] < np.nanmean(grid) else "k", fontsize=8)
        fig.colorbar(im, ax=ax, label=metric)
        ax.set_title(title or f"{metric}: mean over runs", fontsize=10)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        plt.close(fig)
        atomic_write(path, lambda f: f.write(buf.getvalue()), "plot")

    def __str__(self):
        return self.markdown()


def sweep(fn, grid, repeats, seed, executor=None, out=None, *, progress=True, workers=None):
    """Run ``fn(**point, seed=s)`` for every point of ``grid`` and ``repeats``
    seeds each.

    fn: a picklable function (module level) returning a dict of JSON-able
    metrics.  grid: ``{name: [values]}``; the points are the Cartesian product.
    seed: the sweep's seed (None draws one); run seeds derive from it
    (:func:`run_seed`).  executor: any :class:`concurrent.futures.Executor`,
    None = a process pool with ``workers`` processes (default one per core).
    out: JSON-lines file; runs
    are appended as they finish and a rerun with the same file runs only the
    missing ones (raising ``repeats`` adds runs); a foreign or corrupt file is
    refused, never overwritten.  Returns a :class:`SweepResult`; raises
    :class:`SweepError` (with the finished runs) if runs fail.
    """
    check_executor(executor)
    if not callable(fn):
        raise ValueError(f"fn must be a function, got {fn!r}")
    check_picklable(f"sweep function {getattr(fn, '__qualname__', fn)!r}", fn)
    grid, points = _grid(grid)
    repeats = check_int("repeats", repeats, min=1, max=10**6)
    workers = check_int("workers", workers, min=1, allow_none=True)
    header = {"ttt_engine": "sweep", "format": FORMAT,
              "fn": f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}",
              "grid": grid, "seed": None if seed is None else resolve_seed(seed)}
    keys = {json.dumps(p, sort_keys=True) for p in points}

    def check_record(r):
        if json.dumps(r.get("point"), sort_keys=True) not in keys:
            return f"point {r.get('point')!r} is not on this grid"
        if not isinstance(r.get("repeat"), int) or not isinstance(r.get("metrics"), dict):
            return "no repeat number or metrics"
        return None

    done, rfile = open_results(
        out, "sweep", header, same=["fn", "grid"], check_record=check_record,
        key=lambda r: (json.dumps(r["point"], sort_keys=True), r["repeat"]))
    seed = header["seed"]
    tasks = [{"fn": fn, "point": p, "repeat": k, "seed": run_seed(seed, p, k)}
             for p in points for k in range(repeats)
             if (json.dumps(p, sort_keys=True), k) not in done]
    rows = [r for r in done.values() if r["repeat"] < repeats]
    errors = []

    def on_result(task, metrics):
        row = {"point": task["point"], "repeat": task["repeat"], "seed": task["seed"],
               "metrics": metrics}
        rows.append(row)
        if rfile is not None:
            rfile.append([row])

    def on_error(task, message):
        errors.append({"point": task["point"], "repeat": task["repeat"], "seed": task["seed"],
                       "message": message})

    run_tasks(executor, _run, tasks, on_result, on_error, desc="sweep", progress=progress,
              workers=workers)
    order = {json.dumps(p, sort_keys=True): i for i, p in enumerate(points)}
    rows.sort(key=lambda r: (order[json.dumps(r["point"], sort_keys=True)], r["repeat"]))
    result = SweepResult(grid, repeats, seed, rows, errors)
    if errors:
        lines = [f"{e['point']} repeat {e['repeat']} (seed {e['seed']}): {e['message']}"
                 for e in errors]
        raise SweepError(f"{len(errors)} run(s) failed; the {len(rows)} finished runs are kept"
                         + (f" in {out}" if out else "") + ":\n  " + "\n  ".join(lines), result)
    return result


#: Metrics of :func:`qlearning_run`, in table order.
QLEARNING_METRICS = ("optimality", "never_loses", "worst_x", "worst_o", "win_x", "draw_x",
                     "loss_x", "win_o", "draw_o", "loss_o", "train_seconds")

_WORST = {"win": 1, "draw": 0, "loss": -1}


def qlearning_run(alpha, gamma, episodes, seed, **train_kwargs):
    """Train one Tic-Tac-Toe Q-learning agent and measure it exactly.

    Returns the share of the 4520 decision positions where its move is optimal
    (``optimality``), its worst result against any opponent as X and as O
    (``worst_x`` / ``worst_o``: +1 win, 0 draw, -1 loss; ``never_loses``: 1 if
    neither is a loss), and its exact win/draw/loss probabilities against a
    uniformly random opponent as X and as O.
    """
    import time

    from ttt_engine.ttt.exact import exact_vs_random, optimality, worst_case
    from ttt_engine.ttt.qagent import train
    t0 = time.perf_counter()
    agent = train(episodes=check_int("episodes", episodes, min=0), alpha=alpha, gamma=gamma,
                  seed=seed, progress=False, **train_kwargs)
    seconds = time.perf_counter() - t0
    wx, wo = worst_case(agent, "X"), worst_case(agent, "O")
    x, o = exact_vs_random(agent, "X"), exact_vs_random(agent, "O")
    return {"optimality": optimality(agent).rate,
            "never_loses": int(wx.never_loses and wo.never_loses),
            "worst_x": _WORST[wx.outcome], "worst_o": _WORST[wo.outcome],
            "win_x": x.win, "draw_x": x.draw, "loss_x": x.loss,
            "win_o": o.win, "draw_o": o.draw, "loss_o": o.loss,
            "train_seconds": round(seconds, 3)}


def qlearning_sweep(alpha=(0.05, 0.1, 0.3), gamma=(0.9, 0.99), episodes=(100_000, 1_000_000),
                    repeats=5, seed=None, executor=None, out=None, progress=True, workers=None):
    """:func:`sweep` of :func:`qlearning_run` over ``alpha`` x ``gamma`` x ``episodes``."""
    grid = {"alpha": [check_real("alpha", a, low=0, low_open=True, high=1) for a in alpha],
            "gamma": [check_real("gamma", g, low=0, high=1) for g in gamma],
            "episodes": [check_int("episodes", e, min=0) for e in episodes]}
    return sweep(qlearning_run, grid, repeats, seed, executor=executor, out=out,
                 progress=progress, workers=workers)
