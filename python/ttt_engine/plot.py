"""Learning curves from a training history (matplotlib, from the ``[plot]`` extra)."""
from __future__ import annotations

import io
import os

from ttt_engine import _util
from ttt_engine.alphazero.metrics import read_metrics

__all__ = ["plot_history", "plot_alphazero"]

_HINT = 'needs matplotlib: pip install "ttt_engine[plot]"'


def _require_matplotlib(what="plotting"):
    """``ImportError`` with the extra to install when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} {_HINT}") from None


def plot_history(history, path, title=None):
    """Write a PNG of the learning curves in ``history`` (``agent.history`` or a
    list of its dicts) to ``path``.

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


def plot_alphazero(records, path, title=None):
    """Write a PNG of an AlphaZero run's learning curves to ``path``.

    ``records``: the metrics records of :func:`ttt_engine.alphazero.train`
    (``Training.records``, or a metrics ``.jsonl`` path).  Panels against
    training time: the loss parts (policy cross-entropy, value MSE); the
    evaluation score (Tic-Tac-Toe: optimal moves of PUCT and of the raw
    policy over the 4520 positions; other games: the score against MCTS, and
    where the game has a yardstick, the raw policy's value-keeping and optimal
    moves on it);
    self-play outcomes and speed.  Written atomically; returns ``path``."""
    _require_matplotlib("plot_alphazero")
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if isinstance(records, (str, os.PathLike)):
        records = read_metrics(records)
    records = list(records)
    if not records or not all(isinstance(r, dict) and "seconds" in r for r in records):
        raise ValueError("records must be a non-empty list of AlphaZero metrics records "
                         "(dicts with 'seconds')")
    path = os.fspath(path)

    def series(key, scale=1.0):
        pts = [(r["seconds"] / 60, r[key] * scale) for r in records
               if isinstance(r.get(key), (int, float))]
        return [p[0] for p in pts], [p[1] for p in pts]

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    ax = axes[0]
    for key, label in (("policy_loss", "policy cross-entropy"), ("value_loss", "value MSE"),
                       ("loss", "total")):
        ax.plot(*series(key), label=label)
    ax.set_title("training loss")
    ax.set_xlabel("minutes")
    ax.legend(fontsize=8)

    ax = axes[1]
    shown = False
    for key, label in (("eval_optimality", "PUCT: optimal moves (4520 positions)"),
                       ("eval_prior_optimality", "raw policy: optimal moves"),
                       ("eval_score", "score vs MCTS"),
                       ("eval_policy_keeps", "raw policy: keeps the value (yardstick)"),
                       ("eval_policy_optimal", "raw policy: optimal (yardstick)")):
        x, y = series(key, 100.0)
        if x:
            ax.plot(x, y, marker="o", label=label)
            shown = True
    if shown:
        ax.legend(fontsize=8)
    ax.set_title("evaluation (%)")
    ax.set_xlabel("minutes")

    ax = axes[2]
    total = [max(1, r.get("first_wins", 0) + r.get("second_wins", 0) + r.get("draws", 0))
             for r in records]
    t = [r["seconds"] / 60 for r in records]
    for key, label in (("first_wins", "first player wins"), ("second_wins", "second wins"),
                       ("draws", "draws")):
        ax.plot(t, [r.get(key, 0) / n for r, n in zip(records, total)], label=label)
    ax.set_title("self-play outcomes")
    ax.set_xlabel("minutes")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    try:
        _util.atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=100), "plot")
    finally:
        plt.close(fig)
    return path
