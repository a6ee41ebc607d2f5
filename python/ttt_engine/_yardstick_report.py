"""Reports of the exact yardstick (:mod:`ttt_engine.yardstick`): every
registry engine of every game on the game's suite at stated budgets
(:func:`table`, :func:`markdown`), and one engine's measure as a function of
its thinking time (:func:`strength_curve`, :func:`plot_curves`)."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from ttt_engine import _registry, _util
from ttt_engine._yardstick_core import Result, _pct, yardstick

__all__ = ["engine_agent", "table", "markdown", "strength_curve", "plot_curves", "Row"]


def engine_agent(game, name, *, simulations=None, time=None, depth=None, seed=1):
    """``(agent, budget)``: the registry engine ``name`` of ``game`` (a key),
    given each budget it takes (simulations first, then time, then depth; the
    others left to the engine's default), and the budget in words."""
    g = _registry.get(game)
    if name not in g.engines:
        raise ValueError(f"unknown {g.title} engine {name!r}; valid engines: "
                         f"{', '.join(g.engines)}")
    takes = g.engines[name].budgets
    kw = {}
    for key, value in (("simulations", simulations), ("time", time), ("depth", depth)):
        if value is not None and key in takes and not kw:
            kw[key] = value
    agent = g.make_agent(name, seed=seed, **kw)
    budget = ", ".join(f"{v:,} simulations" if k == "simulations" else f"{v} s" if k == "time"
                       else f"depth {v}" for k, v in kw.items()) or "its default"
    return agent, budget


@dataclass(frozen=True)
class Row:
    """One engine of one game in :func:`table`: its ``result`` (a
    :class:`~ttt_engine.yardstick.Result`) or why it could not be measured."""
    game: str
    engine: str
    budget: str
    result: Result = None
    reason: str = None


def table(games=None, engines=None, *, simulations=1000, time=None, depth=None, sample=None,
          seed=1, progress=False, boards="playable"):
    """Every registry engine (``engines``: only these names) of every game
    (``games``: only these keys) on the game's shipped suite, each given the
    budgets it takes (``engine_agent``): a list of ``Row``.  ``boards``: as
    :func:`~ttt_engine.yardstick.yardstick` takes it; by default an engine
    that cannot play some of the suite's boards (a network bound to another
    board) is judged on the boards it plays (its result's ``boards`` says
    which), and one that plays none of them is a row with the reason.
    ``sample``: that many positions of each suite (of the boards judged), the
    same ones for every engine judged on the same boards."""
    keys = list(_registry.GAMES) if games is None else list(games)
    rows = []
    for key in keys:
        g = _registry.get(key)
        for name in g.engines:
            if engines is not None and name not in engines:
                continue
            agent, budget = engine_agent(key, name, simulations=simulations, time=time,
                                         depth=depth, seed=seed)
            if progress:
                print(f"{g.title}: {name} ({budget})", file=sys.stderr, flush=True)
            try:
                r = yardstick(agent, game=key, sample=sample, seed=seed, progress=progress,
                              boards=boards)
            except ValueError as e:
                if "cannot play the suite's boards" not in str(e):
                    raise
                rows.append(Row(key, name, budget, None, str(e)))
                continue
            import dataclasses
            rows.append(Row(key, name, budget, dataclasses.replace(r, agent=name)))
    return rows


def markdown(rows):
    """The rows of :func:`table` as Markdown: one table a game, leading with
    keeps / optimal on the critical positions beside the random mover's exact
    expectation, then by phase, then every position."""
    out = []
    for key in dict.fromkeys(r.game for r in rows):
        g = _registry.get(key)
        mine = [r for r in rows if r.game == key]
        first = next((r.result for r in mine if r.result), None)
        n = f" ({first.positions:,} positions, {first.critical_keeps['all'].n:,} critical)" \
            if first else ""
        out += [f"**{g.title}**{n}", "",
                "| engine | budget | critical: keeps / optimal | random mover (exact) | "
                "opening | middle | end | all positions |",
                "|---|---|---|---|---|---|---|---|"]
        for r in mine:
            if r.result is None:
                why = r.reason.split(": train")[0]      # the reason, not the remedy
                out.append(f"| {r.engine} | {r.budget} | not measured: {why} | | | | | |")
                continue
            cells = r.result.row().split(" | ")
            budget = r.budget + (f"; on the {r.result.positions:,} positions with "
                                 f"{r.result.boards}" if r.result.boards else "")
            out.append(f"| {r.engine} | {budget} | " + " | ".join(cells[1:]))
        out.append("")
    return "\n".join(out)


def strength_curve(agent, budgets, game=None, *, kind="time", sample=None, seed=1,
                   progress=False):
    """``[(budget, Result)]``: the yardstick of ``agent`` at each of ``budgets``
    (seconds a move with ``kind="time"``, else simulations): ``agent`` an
    engine name of ``game`` (a key), or a function ``budget -> agent`` (the
    game: ``game``, else the one the agents are bound to, ``agent.game``)."""
    _util.check_choice("kind", kind, ("time", "simulations"))
    if not budgets:
        raise ValueError("budgets must name at least one budget")
    if isinstance(agent, str):
        if game is None:
            raise ValueError("strength_curve of an engine name needs game= (a registry key)")
        name = agent

        def agent(b):
            return engine_agent(game, name, seed=seed, **{kind: b})[0]
    elif not callable(agent):
        raise ValueError(f"agent must be an engine name or a function budget -> agent, got "
                         f"{agent!r}")
    out = []
    for b in budgets:
        a = agent(b)
        key = game or getattr(a, "game", None)
        if key is None:
            raise ValueError("strength_curve needs game= for agents bound to no game")
        out.append((b, yardstick(a, game=key, sample=sample, seed=seed, progress=progress)))
    return out


def plot_curves(curves, path, title=None, kind="time"):
    """A PNG at ``path`` of the curves ``{label: strength_curve(...)}``: keeps
    the value (solid) and optimal (dashed) on the critical positions against
    the budget (log scale) with their 95% intervals, and the random mover's
    exact expectation.  Needs matplotlib (``pip install "ttt_engine[plot]"``)."""
    from ttt_engine.plot import _require_matplotlib
    _require_matplotlib("plot_curves")
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    _util.check_output_path(path, "plot")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rnd = None
    for (label, curve), colour in zip(curves.items(), ("tab:blue", "tab:orange", "tab:green",
                                                       "tab:red", "tab:purple")):
        xs = [b for b, _ in curve]
        for kind_, style in (("critical_keeps", "-"), ("critical_optimal", "--")):
            shares = [getattr(r, kind_)["all"] for _, r in curve]
            ys = [100 * s.rate for s in shares]
            lo = [100 * s.interval[0] for s in shares]
            hi = [100 * s.interval[1] for s in shares]
            ax.plot(xs, ys, style, marker="o", color=colour,
                    label=f"{label}: {'keeps the value' if kind_ == 'critical_keeps' else 'optimal'}")
            ax.fill_between(xs, lo, hi, color=colour, alpha=0.12)
        rnd = curve[0][1].random["all"]
    if rnd is not None:
        ax.axhline(100 * rnd[0], color="gray", lw=1, label="random mover: keeps (exact)")
        ax.axhline(100 * rnd[1], color="gray", lw=1, ls="--", label="random mover: optimal")
    ax.set_xscale("log")
    ax.set_xlabel("seconds a move" if kind == "time" else "simulations a move")
    ax.set_ylabel("% of critical positions")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)
    return path


def curve_rows(label, curve):
    """Markdown rows of one curve: budget, keeps / optimal on the critical positions."""
    return [f"| {label} | {b} | {_pct(r.critical_keeps['all'].rate)} / "
            f"{_pct(r.critical_optimal['all'].rate)} | {r.critical_keeps['all'].n:,} |"
            for b, r in curve]
