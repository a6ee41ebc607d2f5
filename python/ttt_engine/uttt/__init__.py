"""Ultimate Tic-Tac-Toe: the board, perft, random playouts and a bounded solver.

The board is compiled (``ttt_engine._core.games.uttt.board``); this module is its public face.
Every game module has the same verbs: see ``docs/api.md``.
"""
import operator
import warnings

from ttt_engine import _game_text as _text
from ttt_engine import _progress, _symmetry, _verbs, engines
from ttt_engine._core.games.uttt.board import (EXHAUSTIVE_CELLS, N_CELLS, Board, local_boards_text,
                                               parse_move)
from ttt_engine._util import check_int
from ttt_engine._verbs import SolveResult
from ttt_engine.games import Engine, Game
from ttt_engine.uttt.features import VALUE_FEATURES

__all__ = ["N_CELLS", "EXHAUSTIVE_CELLS", "Board", "SolveResult", "parse_move", "perft", "random_playouts", "solve",
           "endgame_empty_cells", "GAME"]


def _is_count(x):
    if isinstance(x, (bool, Board)):
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def perft(*args, **kwargs):
    """``perft(board, depth)``: leaf count of ``board``'s move tree to ``depth``
    plies (81, 720, 6336, ... from the start).  The older ``perft(depth,
    board=None)`` still works but is deprecated."""
    if args and _is_count(args[0]):            # perft(depth, board=None)
        warnings.warn("uttt.perft(depth, board) is deprecated: use perft(board, depth)",
                      DeprecationWarning, stacklevel=2)
        return _old_perft(*args, **kwargs)
    return _perft(*args, **kwargs)


def _perft(board, depth):
    return _verbs.perft(board, depth, Board, "uttt.perft")


def _old_perft(depth, board=None):
    return _perft(Board() if board is None else board, depth)


def random_playouts(*args, **kwargs):
    """``random_playouts(board, n, seed=None)``: play ``n`` uniformly random games
    from ``board`` (unchanged) in C; returns ``{"games", "first_wins",
    "second_wins", "draws", "seed"}``.  Same seed, same counts.

    The older ``random_playouts(n_games, seed=None, board=None)``, returning
    ``(x_wins, o_wins, draws, total_plies)``, still works but is deprecated."""
    if args and _is_count(args[0]):            # random_playouts(n_games, seed=None, board=None)
        warnings.warn("uttt.random_playouts(n_games, seed, board) is deprecated: use "
                      "random_playouts(board, n, seed)", DeprecationWarning, stacklevel=2)
        return _old_random_playouts(*args, **kwargs)
    return _random_playouts(*args, **kwargs)


def _random_playouts(board, n, seed=None, threads=1):
    return _verbs.random_playouts(board, n, seed, Board, "uttt.random_playouts",
                                  threads=threads)


def _old_random_playouts(n_games, seed=None, board=None, threads=1):
    # the generic move-by-move games: the same games as the playout loop, and their plies
    from ttt_engine._core.algorithms.playout import random_games
    n = check_int("n_games", n_games, min=0, max=(1 << 63) - 1)
    board = Board() if board is None else _verbs.check_board(board, Board, "uttt.random_playouts")
    r = random_games(board, n, seed, threads=threads)
    return r["first_wins"], r["second_wins"], r["draws"], r["plies"]


def solve(board, *, max_nodes=None, time_limit=None, progress=False):
    """Value of ``board`` for the side to move by alpha-beta, deepened one ply at
    a time, within ``max_nodes`` positions (checked between iterations) and/or
    ``time_limit`` seconds: one of them is required, since the whole game is far
    beyond reach.  Returns a :class:`ttt_engine.ttt.SolveResult` whose ``value`` is
    ``"unknown"`` when the limit is hit first; endgames solve exactly.
    ``progress``: True shows each deepening on stderr, a callable receives a
    ``SolveProgress`` (``ttt_engine._progress``) after each (docs/api.md)."""
    _verbs.check_board(board, Board, "uttt.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    _progress.reporter(progress, "uttt.solve")     # checked before the limit
    if max_nodes is None and time_limit is None:
        raise ValueError("uttt.solve needs a limit: Ultimate Tic-Tac-Toe cannot be solved "
                         "from arbitrary positions here; pass max_nodes= and/or time_limit= "
                         "(the value is 'unknown' if the limit is hit)")
    return _verbs.bounded_solve(board, max_nodes, time_limit, progress=progress,
                                where="uttt.solve")


def endgame_empty_cells(board):
    """Empty cells in the open local boards: what the exact endgame solve
    (``endgame=`` of MCTS and PUCT) counts, since a cell of a decided local
    board can no longer be played."""
    cells, open_boards = board.cells, board.local_winners
    return sum(1 for m in range(81) if cells[m] == 0
               and open_boards[(m // 27) * 3 + (m % 9) // 3] is None)


# ---------------------------------------------------------------------------- text face
# Moves are typed 'R, C': the row and column 0-8 of the 9x9 grid.
def _parse(board, text):
    t = _text.move_text(text, "4, 5")
    if not t:
        raise ValueError("empty input: type the row and column as 'R, C', each 0-8 (e.g. 4, 5)")
    m = board.parse_move(t)
    board.copy().push(m)          # the board's own reason when the move is illegal
    return m


def _format(board, move):
    return f"{move // 9}, {move % 9}"


def _draw(board, style, last):
    cells = board.cells
    forced = board.forced_board
    lw = board.local_winners
    free = forced is None and not board.is_terminal()
    if _text.boxes(style):
        v, top, mid, bot = ("│", "  ┌───────┬───────┬───────┐", "  ├───────┼───────┼───────┤",
                            "  └───────┴───────┴───────┘")
    else:
        v, top, mid, bot = "|", *(["  +-------+-------+-------+"] * 3)
    lines = [style("    0 1 2   3 4 5   6 7 8", "dim"), top]
    for r in range(9):
        row = [style(str(r), "dim") + " " + v]
        for c in range(9):
            b = (r // 3) * 3 + c // 3
            x = cells[9 * r + c]
            if x:
                ch = _text.mark(style, "XO"[x - 1], highlight=(9 * r + c == last))
            elif lw[b] is not None:
                ch = style(" ", "dim")             # closed local board
            elif forced is not None and b == forced:
                ch = style("*", "bold", "green")  # where the side to move must play
            else:
                ch = style(".", "dim") if not free else style(".", "green")
            row.append(" " + ch)
            if c % 3 == 2:
                row.append(" " + v)
        lines.append("".join(row))
        if r % 3 == 2:
            lines.append(mid if r < 8 else bot)
    closed = local_boards_text(lw)
    if closed:
        lines.append(closed)
    if not board.is_terminal():
        if forced is not None:
            r0, c0 = (forced // 3) * 3, (forced % 3) * 3
            lines.append(f"{board.to_move} must play in board {forced} (rows {r0}-{r0 + 2}, "
                         f"columns {c0}-{c0 + 2}, cells marked *)")
        else:
            lines.append(f"{board.to_move} may play in any open board")
    return "\n".join(lines)


_legend = _text.fixed(
    "Type moves as 'R, C': the row and column 0-8 of the 9x9 grid (e.g. 4, 5). A move in cell "
    "(r, c)\nof a local board sends your opponent to local board (r, c); * marks where you "
    "must play.\n? lists the legal moves, q quits.")
_hint = _text.fixed("R, C")


# ---------------------------------------------------------------------------- picture
_LOCAL_COLOURS = {"X": "#ffcdd2", "O": "#bbdefb", "draw": "#e0e0e0"}


def _svg_decor(board):
    """Thick lines around the local boards; decided local boards shaded by
    their winner, the one the side to move must play in pale green."""
    forced = board.forced_board
    shade = {}
    for b, w in enumerate(board.local_winners):
        colour = _LOCAL_COLOURS.get(w) if w else ("#dcedc8" if forced == b else None)
        if colour:
            for k in range(9):
                shade[(b // 3) * 3 + k // 3, (b % 3) * 3 + k % 3] = colour
    return 3, shade


# ---------------------------------------------------------------------------- engines
def _tree(cls_name):
    def build(seed=None, simulations=None, time=None):
        from ttt_engine import tree_agents
        return getattr(tree_agents, cls_name)(simulations=simulations, time=time, seed=seed)
    return build


#: The registry entry (:mod:`ttt_engine.games`): what generic code asks of Ultimate
#: Tic-Tac-Toe.
GAME = Game(
    "uttt", "Ultimate Tic-Tac-Toe", ("X", "O"), {"tiebreak": False}, __name__,
    engines.standard(
        "uttt",
        Engine("treeq", "tree Q-learning (simulations or time per move)", _tree("TreeQAgent"),
               engines.SEARCH),
        Engine("sarsa", "Sarsa on the tree (simulations or time per move)",
               _tree("SarsaAgent"), engines.SEARCH),
        network_best=True, value_search=dict(search="mcts")),
    default_engine="best",
    text=(_parse, _format, _draw, _legend, _hint),
    yardstick_source="ttt_engine.uttt.yardstick",
    text_strip=None,
    move_geometry=lambda board, move: (divmod(int(move), 9), None, None),
    svg_decor=_svg_decor,
    marks_move_cell=True,
    mover_planes=(2,),
    opening_plies=4,
    temperature_moves=16,
    training=dict(hidden=(256, 256), games=128, simulations=200, temperature_moves=12,
                  dirichlet_alpha=0.3, buffer_size=400_000, batch_size=256, sample_reuse=4.0,
                  max_steps=2000, learning_rate=1e-3, weight_decay=1e-4, eval_every=900.0,
                  eval_simulations=200, eval_games=10, eval_mcts_simulations=800,
                  checkpoint_every=300.0, time=7200.0),
    # The leaf value is the mean of 8 random playouts (the network's value head
    # scored less in every mix tried) and the policy guides the search; on a
    # time budget 64 leaves per network call (throughput: the forward pass is
    # cheap per position only in large batches), on a simulation budget 8
    # (fewer pending leaves per tree: 0.97 against 0.87 at 800 simulations);
    # on a time budget a leaf's first visit is valued by the playouts alone, its
    # network call waiting for a second visit (1.6x the simulations).
    ships_network=True,
    network_settings={"playout_weight": 1.0, "mixed_playouts": 8,
                      "batch_size": {"simulations": 8, "time": 64},
                      "expand_after": {"simulations": 0, "time": 1}},
    analysis_scale=20.0,
    endgame_cells=endgame_empty_cells,
    # The network-guided search with MCTS-Solver proofs; from 25 empty cells the
    # exact endgame solve plays proven wins and keeps proven draws, on a time
    # budget only (it has a time limit: on a simulation budget it would make
    # the moves depend on the clock).  With two threads on a time budget the
    # solve runs beside the tree, from 30 cells with 80% of the move
    # (docs/strength.md, "The endgame solve beside the tree").
    best_az={"solver": True, "parallel": "tree", "endgame": {"simulations": 0, "time": 25}},
    best_az_beside={"endgame": 30, "endgame_share": 0.8},
    moved={"uttt_play": "ttt_engine.uttt.play"},
    symmetries=_symmetry.cells,
    openspiel="ttt_engine.uttt.openspiel",
    value_features=VALUE_FEATURES,
)
