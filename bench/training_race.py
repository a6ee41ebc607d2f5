"""Training runs side by side: the learning curves of several AlphaZero runs
of one game on one plot, and the training time each takes to reach a level.

Each run is a metrics log (``OUT.metrics.jsonl`` of ``ttt-engine az train``),
named ``LABEL=PATH`` (the label defaults to the file's stem).  The curve is an
evaluation key of the log against training minutes: by default
``eval_policy_keeps`` where the logs have it (the raw policy on the game's
exact yardstick, Connect Four), else ``eval_score`` (against MCTS).  With
``--target`` each run's first evaluation at or above it is reported, and the
ratio of its time to the first run's (the baseline); ``--smooth K`` judges a
run by the mean of its last K evaluations, so one lucky sample does not count.

    python bench/training_race.py base=base.metrics.jsonl cap=cap.metrics.jsonl \\
        --target 0.80 --out docs/alphazero_connect4_race.png
"""
from __future__ import annotations

import argparse
import os
import sys

from ttt_engine.alphazero import read_metrics


def curve(records, key, smooth=1):
    """``[(minutes, value)]`` of ``key`` in ``records`` (the mean of the last
    ``smooth`` evaluations at each point)."""
    pts = [(r["seconds"] / 60, float(r[key])) for r in records
           if isinstance(r.get(key), (int, float))]
    out = []
    for i, (t, _) in enumerate(pts):
        window = [v for _, v in pts[max(0, i - smooth + 1):i + 1]]
        out.append((t, sum(window) / len(window)))
    return out


def first_reaching(points, target):
    """The first minute at which ``points`` reach ``target`` (None: never)."""
    return next((t for t, v in points if v >= target), None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="[LABEL=]METRICS",
                    help="metrics logs (.jsonl), the first the baseline")
    ap.add_argument("--key", default=None,
                    help="the evaluation to compare (default: eval_policy_keeps where "
                    "the logs have it, else eval_score)")
    ap.add_argument("--target", type=float, default=None,
                    help="report when each run first reaches this value")
    ap.add_argument("--smooth", type=int, default=1,
                    help="judge the mean of the last K evaluations (default 1)")
    ap.add_argument("--out", default=None, help="write the plot here (.png; needs [plot])")
    ap.add_argument("--title", default=None)
    args = ap.parse_args(argv)
    if args.smooth < 1:
        ap.error(f"--smooth must be >= 1, got {args.smooth}")
    runs = []
    for spec in args.runs:
        label, _, path = spec.rpartition("=")
        label = label or os.path.basename(path).split(".")[0]
        if not os.path.isfile(path):
            ap.error(f"no such metrics log: {path}")
        try:
            runs.append((label, read_metrics(path)))
        except ValueError as e:
            ap.error(str(e))
    key = args.key or ("eval_policy_keeps"
                       if all(any("eval_policy_keeps" in r for r in recs) for _, recs in runs)
                       else "eval_score")
    curves = [(label, curve(recs, key, args.smooth)) for label, recs in runs]
    for label, pts in curves:
        if not pts:
            ap.error(f"run {label!r} has no {key!r} evaluation")
    base_t = first_reaching(curves[0][1], args.target) if args.target is not None else None
    print(f"{key} (mean of the last {args.smooth} evaluations)" if args.smooth > 1 else key)
    print("| run | training minutes | evaluations | last | best |"
          + (f" first >= {args.target} (minutes) | time / baseline's |"
             if args.target is not None else ""))
    print("|---|---|---|---|---|" + ("---|---|" if args.target is not None else ""))
    for label, pts in curves:
        row = (f"| {label} | {pts[-1][0]:.1f} | {len(pts)} | {pts[-1][1]:.3f} | "
               f"{max(v for _, v in pts):.3f} |")
        if args.target is not None:
            t = first_reaching(pts, args.target)
            ratio = (f"{t / base_t:.2f}" if t is not None and base_t else "-")
            row += f" {'never' if t is None else f'{t:.1f}'} | {ratio} |"
        print(row)
    if args.out:
        from ttt_engine.plot import _require_matplotlib
        _require_matplotlib("the race plot")
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, pts in curves:
            ax.plot([t for t, _ in pts], [v for _, v in pts], marker="o", ms=3, label=label)
        if args.target is not None:
            ax.axhline(args.target, color="grey", ls=":", lw=1)
        ax.set_xlabel("training minutes")
        ax.set_ylabel(key)
        ax.set_title(args.title or key)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.out, dpi=100)
        plt.close(fig)
        print(f"plot written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
