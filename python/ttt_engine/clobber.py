"""Clobber: the board, perft, random playouts, heuristics and the exact solver.

The game is compiled (``ttt_engine._core.games.clobber.board``); this module is its public face.
Every game module has the same verbs: see ``docs/api.md``.
"""
from ttt_engine import _verbs
from ttt_engine._util import check_int, check_output_path
from ttt_engine._core.games.clobber.board import (
    DIRECTIONS, EXHAUSTIVE_STONES, HEURISTICS, MAX_SIDE, PLAYERS, SEED_HEURISTICS, Board,
    format_move, heuristic_id, move_from_squares, move_squares, parse_move, square_name,
)
from ttt_engine._core.solvers.clobber.solve import TECHNIQUES, Solver
from ttt_engine._verbs import SolveResult

__all__ = [
    "DIRECTIONS", "HEURISTICS", "MAX_SIDE", "PLAYERS", "SEED_HEURISTICS", "Board",
    "SolveResult", "Solver", "TECHNIQUES", "format_move", "heuristic_id", "move_from_squares",
    "move_squares", "parse_move", "perft", "random_playouts", "solve", "square_name",
    "table_bits", "TABLE_BITS", "EXHAUSTIVE_STONES",
]


perft, random_playouts = _verbs.module_verbs(Board, "clobber", outcomes="first = B")


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
          **techniques):
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
    (``ttt_engine.clobber_check_reference``; a failure raises its ``CertificateError``).
    Writing it is not bounded by the limits; nothing is written for
    ``"unknown"``.
    Known: 2x3 is a loss for the mover, 3x3 and 4x4 are wins.
    """
    _verbs.check_board(board, Board, "clobber.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    if certificate is not None:
        check_output_path(certificate, "certificate")
    tt_bits = table_bits(board) if tt_bits is None else check_int("tt_bits", tt_bits, min=4,
                                                                    max=31)
    solver = Solver(tt_bits, db_bits=min(20, tt_bits))
    r = solver.solve(board, max_nodes=max_nodes, time_limit=time_limit, **techniques)
    value = "unknown" if r.win is None else ("win" if r.win else "loss")
    if certificate is not None and r.win is not None:
        from ttt_engine.clobber_cert import write_certificate
        from ttt_engine.clobber_check_reference import check_certificate
        write_certificate(certificate, board, solver)
        check_certificate(certificate)
    return SolveResult(value, r.winner, r.best_move, None, r.nodes, r.seconds, r.tt_hits)
