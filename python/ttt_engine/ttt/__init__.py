"""Tic-Tac-Toe: the board (cells 0..8 row by row, X moves first), perft,
random playouts and the exact solver.

The board is compiled (``ttt_engine._core.games.ttt.board``); this module is its public face.
Every game module has the same verbs: see ``docs/api.md``.
"""
from ttt_engine import _game_text as _text
from ttt_engine import _symmetry, _verbs, engines
from ttt_engine._core.games.ttt.board import N_CELLS, N_STATES, Board
from ttt_engine._util import game_over
from ttt_engine._verbs import SolveResult
from ttt_engine._modelfile import ModelKind
from ttt_engine.games import Engine, Game, Oracle
from ttt_engine.ttt.features import VALUE_FEATURES

__all__ = ["N_CELLS", "N_STATES", "Board", "SolveResult", "perft", "random_playouts", "solve",
           "GAME"]


perft, random_playouts = _verbs.module_verbs(Board, "ttt", counts="9, 72, 504, ...")


def solve(board, *, max_nodes=None, time_limit=None, progress=False):
    """Exact value of ``board`` for the side to move (alpha-beta to the end: a
    few thousand positions).  Returns a :class:`ttt_engine.ttt.SolveResult`; ``value`` is
    ``"unknown"`` only if ``max_nodes`` / ``time_limit`` (seconds) stopped it.
    ``progress``: True shows each deepening on stderr, a callable receives a
    ``SolveProgress`` (``ttt_engine._progress``) after each (docs/api.md)."""
    _verbs.check_board(board, Board, "ttt.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    return _verbs.bounded_solve(board, max_nodes, time_limit, progress=progress,
                                where="ttt.solve")


# ---------------------------------------------------------------------------- text face
# Cells are typed 1-9 laid out like a phone keypad (``zero_based=True``: the
# cell numbers 0-8 of ``Board.push``).
def _base(zero_based):
    return 0 if zero_based else 1


def _parse(board, text, zero_based=False):
    base = _base(zero_based)
    lo, hi = base, base + 8
    t = _text.move_text(text, str(lo + 4))
    if not t:
        raise ValueError(f"empty input: type a cell number {lo}-{hi}")
    try:
        n = int(t)
    except ValueError:
        raise ValueError(f"{t!r} is not a Tic-Tac-Toe move: type a cell number "
                         f"{lo}-{hi}") from None
    if not lo <= n <= hi:
        raise ValueError(f"{n} is out of range: cells are numbered {lo}-{hi}")
    cell = n - base
    who = board.cells[cell]
    if who:
        raise ValueError(f"cell {n} is already taken by {'XO'[who - 1]}")
    if board.is_terminal():
        raise ValueError(f"the game is over ({game_over(board.winner)}): there is no move to make")
    return cell


def _format(board, move, zero_based=False):
    return str(int(move) + _base(zero_based))


def _draw(board, style, last, zero_based=False):
    base = _base(zero_based)
    cells = board.cells
    shown = [_text.mark(style, "XO"[cells[i] - 1], highlight=(i == last)) if cells[i]
             else style(str(i + base), "dim") for i in range(9)]
    rows = [shown[r * 3:r * 3 + 3] for r in range(3)]
    if _text.boxes(style):
        top, mid, bot = "┌───┬───┬───┐", "├───┼───┼───┤", "└───┴───┴───┘"
        lines = [top]
        for r, row in enumerate(rows):
            lines.append("│ " + " │ ".join(row) + " │")
            lines.append(mid if r < 2 else bot)
    else:
        lines = []
        for r, row in enumerate(rows):
            lines.append(" " + " | ".join(row))
            if r < 2:
                lines.append("---+---+---")
    return "\n".join("  " + line for line in lines)


def _legend(board, zero_based=False):
    b = _base(zero_based)
    grid = " / ".join(" ".join(str(b + r * 3 + c) for c in range(3)) for r in range(3))
    kind = "0-8" if b == 0 else "1-9 laid out like a phone keypad"
    return (f"Cells are numbered {kind}: {grid}.\n"
            "Type a cell number and Enter; ? shows the legal moves, q quits.")


def _hint(board, zero_based=False):
    b = _base(zero_based)
    return f"{b}-{b + 8}"


def _q(seed=None, model=None, episodes=None, progress=False):
    """A saved Q-learning model (``model=path``), else a freshly trained one.
    ``episodes`` only applies to training (refused with ``model``); ``seed`` is
    checked either way and only used by the training (a loaded model plays
    greedily, without chance)."""
    from ttt_engine import _util
    from ttt_engine.ttt import qagent
    if seed is not None:
        _util.resolve_seed(seed)
    if model is not None:
        if episodes is not None:
            raise ValueError("episodes applies when the q engine trains its model; "
                             "model= loads one already trained (leave one of them out)")
        return qagent.QAgent.load(model)
    kw = {} if episodes is None else {"episodes": episodes}
    return qagent.train(seed=seed, progress=progress, **kw)


#: The registry entry (:mod:`ttt_engine.games`): what generic code asks of Tic-Tac-Toe.

def _evaluate_network(network, player):
    from ttt_engine.ttt.oracle import evaluate_network
    return evaluate_network(network, player)


def _optimal_actions(observations, current_player):
    from ttt_engine.ttt.oracle import optimal_actions
    return optimal_actions(observations, current_player)


GAME = Game(
    "ttt", "Tic-Tac-Toe", ("X", "O"), {}, __name__,
    engines.standard(
        "ttt",
        Engine("perfect", "exact alpha-beta: never loses (fastest win, slowest loss; "
               "a random choice among equal moves, fixed by the seed)", engines.perfect,
               extra=("randomize",)),
        Engine("q", "tabular Q-learning (a saved model, or trained first)", _q,
               extra=("model", "episodes", "progress")),
        Engine("alphabeta", "alpha-beta with a table (depth, default to the end; time "
               "for iterative deepening)", engines.alphabeta(None), engines.DEPTH),
        best=Engine("best", "the strongest engine here: perfect play (exact alpha-beta; "
                    "a budget is accepted and not needed)", engines.perfect_best,
                    engines.SEARCH, ("threads",)),
        # one ply: the network's values of the children decide (docs/valuenet.md)
        value_search=dict(search="alphabeta", depth=1)),
    default_engine="perfect", notation=("zero_based",),
    text=(_parse, _format, _draw, _legend, _hint),
    yardstick_source="ttt_engine.ttt.yardstick",
    move_geometry=lambda board, move: (divmod(int(move), 3), None, None),
    marks_move_cell=True,
    opening_plies=2,
    temperature_moves=3,
    # reaches >= 99% optimal moves with PUCT at 100 simulations, and never
    # loses, within its 3 minutes (about one minute is enough; docs/alphazero.md)
    training=dict(hidden=(64, 64), games=128, simulations=64, temperature_moves=4,
                  dirichlet_alpha=1.0, buffer_size=40_000, batch_size=256, sample_reuse=2.0,
                  learning_rate=3e-3, weight_decay=1e-4, eval_every=30.0,
                  checkpoint_every=30.0, time=180.0),
    ships_network=True,
    network_settings={"playout_weight": 0.0},
    analysis_scale=1.0,
    oracle=Oracle(_evaluate_network, _optimal_actions),
    exports={"Board": "ttt_engine.ttt",
             **{n: "ttt_engine.ttt.qagent" for n in ("QAgent", "EvalResult", "train", "evaluate")},
             **{n: "ttt_engine.ttt.exact"
                for n in ("optimality", "exact_vs_random", "worst_case", "oracle")}},
    moved={"qagent": "ttt_engine.ttt.qagent", "exact": "ttt_engine.ttt.exact",
           "_training": "ttt_engine.ttt._training", "cli.train": "ttt_engine.ttt.commands"},
    commands="ttt_engine.ttt.commands",
    symmetries=_symmetry.cells,
    model_kinds={"ttt_engine.QAgent": ModelKind("Tic-Tac-Toe QAgent",
                                                "ttt_engine.ttt.qagent:QAgent.load",
                                                legacy_field="q")},
    openspiel="ttt_engine.ttt.openspiel",
    value_features=VALUE_FEATURES,
)
