"""Ultimate Tic-Tac-Toe's yardstick suite: positions whose exact solve fits.

Positions of uniformly random games and of MCTS games with a little
randomness, from the first one with at most :data:`MAX_EMPTY` empty cells in
the open local boards (what the endgame solve counts,
``uttt.endgame_empty_cells``) to the end, each scored by the package's
alpha-beta searched to the end of the game (``search.move_values``, every
move with a full window: the fastest win, the slowest loss), kept only when
the position's value is proven within :data:`CAP` seconds first (the
package's bounded solve, ``uttt.solve``'s, on the same table) and the move
scores are exact: the endgames of at most 24 empty cells, where every
move's full-window search takes well under a second (from 26 cells on it
takes seconds to minutes a position).

And earlier positions where the solve still finishes: from :data:`MAX_EMPTY`
+ 1 to :data:`EARLIER_EMPTY` empty cells, every move's position solved by
the bounded solve (iterative deepening: the value and the distance to the
end) within :data:`EARLIER_CAP` seconds, the position kept only when every
move's is.
"""
from __future__ import annotations

from ttt_engine import _registry

__all__ = ["build", "MAX_EMPTY", "CAP", "EARLIER_EMPTY", "EARLIER_CAP"]

#: positions from this many empty cells in the open local boards on
MAX_EMPTY = 24
#: seconds the proof of a position's value may take (slower ones are left out)
CAP = 0.5
#: the earlier positions: up to this many empty cells
EARLIER_EMPTY = 28
#: seconds the solve of each move's position of an earlier position may take
EARLIER_CAP = 1.0


def child_scores(board, searcher, cap=EARLIER_CAP):
    """``{move: stored score}`` of ``board`` from the bounded solve of every
    move's position (None when one is not solved within ``cap`` seconds)."""
    from ttt_engine import _verbs
    out = {}
    for m, child in _verbs.children(board):
        if child.is_terminal():
            w = child.winner
            out[int(m)] = 0 if w == "draw" else 9_999 if w == board.to_move else -9_999
            continue
        r = _verbs.bounded_solve(child, None, cap, searcher=searcher)
        if r.value == "unknown" or (r.value != "draw" and r.plies is None):
            return None
        if r.value == "draw":
            out[int(m)] = 0
            continue
        p = r.plies + 1                     # the child's distance, and this move
        out[int(m)] = 10_000 - p if r.value == "loss" else -(10_000 - p)
    return out


def build(seed=1, progress=True, size=1200, candidates=1600, max_empty=MAX_EMPTY, cap=CAP,
          earlier=150, checkpoint=None, parts=("endgames", "earlier")):
    """The suite: ``size`` endgame positions of ``candidates`` scored and
    ``earlier`` earlier ones, most critical (``parts``: which of the two;
    ``checkpoint``: see ``_yardstick_build.sample_positions``)."""
    from ttt_engine import _verbs, uttt
    from ttt_engine._yardstick_build import compose, plies_score, sample_positions
    from ttt_engine.search import ABSearcher, move_values
    g = _registry.get("uttt")
    searcher = ABSearcher(1 << 20)

    def scorer(board):
        if _verbs.bounded_solve(board, None, cap, searcher=searcher).value == "unknown":
            return None
        scores, exact = move_values(board, depth=81, searcher=searcher)
        if not exact:
            return None
        return {int(m): plies_score(v) for m, v in scores.items()}

    chosen, info = [], {"seed": seed, "max_empty": max_empty, "cap": cap}
    if "endgames" in parts:
        strong = g.make_agent("mcts", simulations=100, seed=seed)
        found = sample_positions(
            "uttt", scorer, candidates, seed=seed, strong=strong, epsilon=0.15,
            accept=lambda b: uttt.endgame_empty_cells(b) <= max_empty, per_game=6,
            progress=progress, label="Ultimate Tic-Tac-Toe", checkpoint=checkpoint)
        chosen += list(_parts(compose("uttt", found, size=size, seed=seed), 0))
        info["scorer"] = "alpha-beta to the end (search.move_values, exact)"
    if "earlier" in parts and earlier:
        strong = g.make_agent("mcts", simulations=100, seed=seed + 1)
        found = sample_positions(
            "uttt", lambda b: child_scores(b, searcher), earlier * 3 // 2, seed=seed + 1,
            strong=strong, epsilon=0.15, per_game=2, progress=progress,
            accept=lambda b: max_empty < uttt.endgame_empty_cells(b) <= EARLIER_EMPTY,
            label="Ultimate Tic-Tac-Toe, earlier", checkpoint=checkpoint and
            f"{checkpoint}.earlier")
        chosen += list(_parts(compose("uttt", found, size=earlier, seed=seed), 2))
        info.update(earlier_empty=EARLIER_EMPTY, earlier_cap=EARLIER_CAP,
                    earlier_scorer="the bounded solve of every move's position")
    return compose("uttt", chosen, size=len(chosen), critical_share=1e-9, seed=seed,
                   sources=("random games", "mcts (100 simulations), 15% random moves",
                            "earlier: random games", "earlier: mcts (100 simulations)"),
                   info=info)


def _parts(suite, first_source):
    """``suite``'s positions as candidates of one part (sources from ``first_source``)."""
    for i in range(len(suite)):
        yield suite.lines[i], suite.scores[i], first_source + suite.sources[i], 0
