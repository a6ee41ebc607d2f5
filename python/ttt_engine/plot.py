"""Learning curves from a training history (matplotlib, from the ``[plot]`` extra)."""
from __future__ import annotations

import io
import os

from ttt_engine import _util

__all__ = ["plot_history"]


def plot_history(history, path, title=None):
    """Write a PNG of the learning curves in ``history`` (``agent.history`` or a
    list of its dicts) to ``path``, like seed 001's curves.

    Panels: training outcome rates per chunk (wins / draws / losses; in
    self-play X wins / draws / O wins) with epsilon; exact optimality over the
    4520 positions; exact win and loss rates against a uniformly random
    opponent as X and as O (the last two need ``metrics_every`` > 0 in
    ``train``).  Returns ``path``.  Needs matplotlib: ``pip install "ttt_engine[plot]"``.
    """
    try:
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('plot_history needs matplotlib: pip install "ttt_engine[plot]"') from None
    history = getattr(history, "history", history)
    if not isinstance(history, (list, tuple)) or not history:
        raise ValueError("history must be a non-empty list of per-chunk records (agent.history)")
    if not all(isinstance(h, dict) and "episodes" in h for h in history):
        raise ValueError("every history record must be a dict with an 'episodes' key")
    _util.check_output_path(path, "plot")
    path = os.fspath(path)

    def series(key):
        pts = [(h["episodes"], h[key]) for h in history if key in h]
        return [p[0] for p in pts], [p[1] for p in pts]

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    ax = axes[0]
    ep = [h["episodes"] for h in history]
    n = [max(1, h.get("wins", 0) + h.get("draws", 0) + h.get("losses", 0) + h.get("cut", 0))
         for h in history]
    selfplay = any(h.get("self_play") for h in history)
    labels = {"wins": "wins" + (" (self-play: X wins)" if selfplay else ""), "draws": "draws",
              "losses": "losses" + (" (self-play: O wins)" if selfplay else "")}
    for key, color in (("wins", "tab:green"), ("draws", "tab:gray"), ("losses", "tab:red")):
        ax.plot(ep, [h.get(key, 0) / k for h, k in zip(history, n)], label=labels[key], color=color)
    ax.plot(*series("epsilon"), label="epsilon", color="tab:blue", linestyle="--")
    sp = [h["episodes"] for h in history if h.get("self_play")]
    if sp and len(sp) < len(history):
        ax.axvline(sp[0], color="k", linestyle=":", label="self-play starts")
    ax.set_title("training games per chunk")
    ax.set_xlabel("episodes")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)

    ax = axes[1]
    x, y = series("optimality")
    if x:
        ax.plot(x, [100 * v for v in y], label="all 4520 positions", color="tab:purple")
        for key, lab in (("optimality_reached_x", "reached as X"), ("optimality_reached_o", "reached as O")):
            xx, yy = series(key)
            ax.plot(xx, [100 * v for v in yy], label=lab)
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no exact metrics\n(train with metrics_every > 0)", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_title("optimal greedy moves (%)")
    ax.set_xlabel("episodes")

    ax = axes[2]
    for key, lab, style in (("exact_win_x", "win as X", "-"), ("exact_win_o", "win as O", "-"),
                            ("exact_loss_x", "loss as X", ":"), ("exact_loss_o", "loss as O", ":")):
        xx, yy = series(key)
        if xx:
            ax.plot(xx, [100 * v for v in yy], label=lab, linestyle=style)
    ax.set_title("exact result vs random (%)")
    ax.set_xlabel("episodes")
    if ax.lines:
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    buf = io.BytesIO()
    fmt = os.path.splitext(path)[1][1:].lower()      # the file's type, else a PNG
    fmt = fmt if fmt in fig.canvas.get_supported_filetypes() else "png"
    try:
        fig.savefig(buf, format=fmt, dpi=100)
    finally:
        plt.close(fig)
    _util.atomic_write(path, lambda f: f.write(buf.getvalue()), "plot")
    return path
