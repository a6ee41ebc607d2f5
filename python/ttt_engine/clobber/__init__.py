"""Clobber: the board, perft, random playouts, heuristics and the exact solver.

The game is compiled (``ttt_engine._core.games.clobber.board``); this module is its public face.
Every game module has the same verbs: see ``docs/api.md``.
"""
from ttt_engine import _game_text as _text
from ttt_engine import _progress, _symmetry, _verbs, engines
from ttt_engine._util import check_int, check_output_path
from ttt_engine._core.games.clobber.board import (
    DIRECTIONS, EXHAUSTIVE_STONES, HEURISTICS, MAX_SIDE, PLAYERS, SEED_HEURISTICS, Board,
    format_move, heuristic_id, move_from_squares, move_squares, parse_move, square_name,
)
from ttt_engine._core.solvers.clobber.solve import TECHNIQUES, Solver
from ttt_engine._verbs import SolveResult
from ttt_engine.games import MIDDLE_TRAINING, Engine, Game
from ttt_engine.clobber.features import VALUE_FEATURES

__all__ = [
    "DIRECTIONS", "HEURISTICS", "MAX_SIDE", "PLAYERS", "SEED_HEURISTICS", "Board",
    "SolveResult", "Solver", "TECHNIQUES", "format_move", "heuristic_id", "move_from_squares",
    "move_squares", "parse_move", "perft", "random_playouts", "solve", "square_name",
    "table_bits", "TABLE_BITS", "EXHAUSTIVE_STONES", "SOLVE_STONES", "GAME",
]


perft, random_playouts = _verbs.module_verbs(Board, "clobber", outcomes="first = B")


#: Most stones :func:`solve` takes without a limit: the largest start settled
#: here, 6x5 (30 stones), took 20 CPU minutes (docs/clobber.md); beyond it a
#: solve without ``max_nodes`` / ``time_limit`` would not end in a session.
SOLVE_STONES = 30

#: Bounds of the table size :func:`solve` picks by itself (``tt_bits=None``).
TABLE_BITS = (12, 22)


def table_bits(board):
    """The solver table size (as ``tt_bits``) :func:`solve` uses for ``board``
    by default: 2**(stones - 2) entries within :data:`TABLE_BITS` (a 4x4
    start 2**14, 4x5 2**18, 5x5 and larger 2**22), so a small board does not
    pay for clearing a table sized for the largest."""
    _verbs.check_board(board, Board, "clobber.table_bits")
    stones = board.stones("B") + board.stones("W")
    return max(TABLE_BITS[0], min(TABLE_BITS[1], stones - 2))


def solve(board, *, max_nodes=None, time_limit=None, tt_bits=None, certificate=None,
          progress=False, **techniques):
    """Exact value of ``board`` for the side to move (Clobber has no draws): a
    :class:`SolveResult` with ``value`` ``"win"``/``"loss"``, ``winner``, a
    winning ``best_move``, ``nodes``, ``tt_hits`` and ``seconds``; ``"unknown"``
    when ``max_nodes`` / ``time_limit`` (seconds) stopped it first.

    Negamax over win/loss with a transposition table of ``2**tt_bits`` entries
    (default: :func:`table_bits`, sized to the board; the small-component
    database as large, at most 2**20) keyed by the position reduced for
    colour, dead groups, translation and the 8 symmetries of the square (``Solver`` keeps its table between calls).
    ``techniques``: switch the solver's techniques on or off for this call
    (names in :data:`TECHNIQUES`; see docs/clobber.md).
    ``certificate``: a file path; when the value is settled, a proof of it is
    written there (atomically) and confirmed by the independent checker
    (``ttt_engine.clobber.check_reference``; a failure raises its ``CertificateError``).
    Writing it is not bounded by the limits; nothing is written for
    ``"unknown"``.
    Known: 2x3 is a loss for the mover, 3x3 and 4x4 are wins.  Without a
    limit, a board of more than :data:`SOLVE_STONES` stones is refused at once.
    ``progress``: True shows the search on stderr (nodes, nodes a second, the
    time so far, the depth of the search now and the deepest reached), a
    callable receives a ``SolveProgress`` (``ttt_engine._progress``) about
    twice a second and at the end (docs/clobber.md).
    """
    _verbs.check_board(board, Board, "clobber.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    _progress.reporter(progress, "clobber.solve")       # checked before any work
    stones = board.stones("B") + board.stones("W")
    if max_nodes is None and time_limit is None and stones > SOLVE_STONES \
            and not board.is_terminal():
        from ttt_engine.search import limit_needed
        raise ValueError(limit_needed(
            "clobber.solve", f"Clobber with {stones} stones is beyond the solver without a "
            f"limit (at most {SOLVE_STONES})", "max_nodes= and/or time_limit= (the value is "
            "'unknown' if the limit is hit)"))
    if certificate is not None:
        check_output_path(certificate, "certificate")
    tt_bits = table_bits(board) if tt_bits is None else check_int("tt_bits", tt_bits, min=4,
                                                                    max=31)
    solver = Solver(tt_bits, db_bits=min(20, tt_bits))
    raised = []

    def report(nodes, depth, max_depth):
        try:
            rep.report(nodes, f"depth {depth} (deepest {max_depth})")
        except BaseException as e:    # the solver stops as on Ctrl-C: raised below
            raised.append(e)
            raise

    with _progress.reporter(progress, "clobber.solve") as rep:
        try:
            r = solver.solve(board, max_nodes=max_nodes, time_limit=time_limit,
                             progress=report if rep.compiled is not None else None,
                             report_every=_progress.EVERY, **techniques)
        except KeyboardInterrupt:
            if raised:
                raise raised[0] from None
            raise
        value = "unknown" if r.win is None else ("win" if r.win else "loss")
        rep.finish(r.nodes, "stopped by the limit" if r.win is None else f"solved: {value}")
    if certificate is not None and r.win is not None:
        from ttt_engine.clobber.cert import write_certificate
        from ttt_engine.clobber.check_reference import check_certificate
        write_certificate(certificate, board, solver)
        check_certificate(certificate)
    return SolveResult(value, r.winner, r.best_move, None, r.nodes, r.seconds, r.tt_hits)


# ---------------------------------------------------------------------------- text face
# Moves are typed as the stone's square and the captured square, e.g. b3-b4.
def _span(board):
    R, C = board.rows, board.cols
    return f"columns a-{_text.FILES[C - 1]}, rows 1-{R}"


def _parse(board, text):
    t = _text.move_text(text, "b3-b4")
    if not t:
        raise ValueError("empty input: type a move like b3-b4 (your stone, then the "
                         "neighbouring enemy stone it captures)")
    try:
        m = parse_move(t)
    except ValueError as e:
        raise ValueError(f"{e} (Clobber moves: {_span(board)}, e.g. b3-b4)") from None
    (r1, c1), (r2, c2) = move_squares(m)
    R, C = board.rows, board.cols
    for r, c in ((r1, c1), (r2, c2)):
        if r >= R or c >= C:
            raise ValueError(f"{square_name(r, c)} is off the {R}x{C} board "
                             f"({_span(board)})")
    me = board.to_move
    opp = "W" if me == "B" else "B"
    a, b = square_name(r1, c1), square_name(r2, c2)
    src, dst = board.cell(r1, c1), board.cell(r2, c2)
    if src == "_":
        raise ValueError(f"there is no stone on {a}")
    if src != me:
        raise ValueError(f"the stone on {a} is {src}'s; you play {me}")
    if dst != opp:
        what = "is empty" if dst == "_" else "holds your own stone"
        raise ValueError(f"{b} {what}: a move must capture a {opp} stone next to yours")
    if not board.is_legal(m):
        raise ValueError(f"{a}-{b} is not legal here")
    return m


def _format(board, move):
    return format_move(move)


def _draw(board, style, last):
    cells = [[board.cell(r, c) for c in range(board.cols)] for r in range(board.rows)]
    hl = None
    if last is not None:
        hl = move_squares(last)[1]
    return _text.grid(style, cells, board.rows, board.cols, hl, colours={"B", "W"})


def _legend(board):
    span = _span(board) if board is not None else "columns a-h, rows 1-8"
    return (f"Squares: {span} (row 1 at the top). A move takes one of your "
            "stones onto an\northogonally adjacent enemy stone, e.g. b3-b4; B moves first; "
            "whoever cannot move loses.\n? lists the legal moves, q quits.")


def _hint(board):
    return "e.g. b3-b4"


def _move_geometry(board, move):
    a, b = move_squares(int(move))
    return tuple(a), tuple(b), None


#: The exact endgame solve of the tree searches (``endgame=``, counted in
#: stones): its table, fresh for every solve so that a seeded search repeats
#: (2^18 entries: a 24-stone 6x5 position takes 5-150 ms), and its bound on a
#: simulation budget (positions, not seconds).
ENDGAME_TABLE_BITS = 18
ENDGAME_NODES = 2_000_000


def _endgame_stones(board):
    """The stones left: the solve's work grows with them (empty squares only grow)."""
    return board.stones("B") + board.stones("W")


def _endgame_solve(board, time_limit):
    """``(value, move)`` from the exact solver (+1 with a winning move, -1 a
    loss: Clobber has no draws), or None when ``time_limit`` seconds (None:
    ``ENDGAME_NODES`` positions) run out first."""
    solver = Solver(ENDGAME_TABLE_BITS, db_bits=ENDGAME_TABLE_BITS - 2)
    r = solver.solve(board, max_nodes=ENDGAME_NODES if time_limit is None else None,
                     time_limit=time_limit)
    if r.win is None:
        return None
    # a lost position has no preferred move: the search's own choice stands
    return (1 if r.win else -1), (r.best_move if r.best_move is not None
                                  else board.legal_moves[0])


def _search(algorithm):
    def build(seed=None, depth=None, time=None, heuristic="adaptive"):
        from ttt_engine.clobber.play import ClobberAgent
        if depth is None:
            depth = 64 if time is not None else 3
        return ClobberAgent(algorithm, heuristic, depth, time, seed=seed)
    return build


#: The registry entry (:mod:`ttt_engine.games`): what generic code asks of Clobber.
def _heuristic_ok(heuristic):
    try:
        heuristic_id(heuristic)
    except ValueError:
        return False
    return True


GAME = Game(
    "clobber", "Clobber", ("B", "W"), {"rows": 6, "cols": 5}, __name__,
    engines.standard(
        "clobber",
        Engine("alphabeta", "alpha-beta with a table and the game's heuristics (depth, "
               "default 3; time for iterative deepening)", _search("alphabeta-tt"),
               engines.DEPTH, ("heuristic",)),
        Engine("minimax", "plain minimax, no pruning (depth, default 3)",
               _search("minimax"), engines.DEPTH, ("heuristic",)),
        network_best=True, value_search=dict(search="alphabeta", depth=6, exact_share=0.8)),
    default_engine="best",
    text=(_parse, _format, _draw, _legend, _hint),
    yardstick_source="ttt_engine.clobber.yardstick",
    move_geometry=_move_geometry,
    temperature_moves=8,
    training=dict(MIDDLE_TRAINING, temperature_moves=6),
    analysis_scale=8.0,
    heuristic_ok=_heuristic_ok,
    heuristic_rule=("must be a Clobber heuristic id (from 0 to 63, its low 4 bits from 0 "
                    "to 6: see clobber.heuristic_id)"),
    # the exact solve once 24 stones are left: 182-0-118 (0.607) against the same
    # search without it over 300 games at 0.1 s a move, two threads each
    # (results/clobber_endgame/; docs/clobber.md)
    best_mcts={"solver": True, "c": 0.8, "endgame": 24},
    endgame_cells=_endgame_stones,
    endgame_solve=_endgame_solve,
    # the network of a 2-hour run on the 6x5 board (docs/alphazero.md), searched
    # as it was trained: half the leaf value from one random playout
    ships_network=True,
    network_settings={"playout_weight": 0.5},
    # the network-guided search with proofs and the same endgame solve: 188-0-112
    # (0.627) against the classical preset without the solve and 151-0-149 against
    # best_mcts, 300 games each at 0.1 s a move, two threads each (docs/alphazero.md)
    best_az={"solver": True, "parallel": "tree", "endgame": 24},
    commands="ttt_engine.clobber.commands",
    moved={"clobber_play": "ttt_engine.clobber.play", "clobber_solve": "ttt_engine.clobber.settle",
           "clobber_cert": "ttt_engine.clobber.cert",
           "clobber_check_reference": "ttt_engine.clobber.check_reference",
           "cli.clobber": "ttt_engine.clobber.commands"},
    symmetries=_symmetry.cells_and_directions,
    openspiel="ttt_engine.clobber.openspiel",
    value_features=VALUE_FEATURES,
)
