# cython: language_level=3
"""The game interface every algorithm is written against, once.

A game is a plain C struct (its *state*) plus ``inline nogil`` functions in
the game's own ``.pxd``.  ``GameState`` below is a fused type over those
structs, and the ``game_*`` functions dispatch on it at compile time, so an
algorithm written as a fused function (e.g. ``cdef int search(GameState* s)``)
gets each game's code inlined into its own specialization: no virtual calls,
no Python objects, no allocation per node.  (A function-pointer table or a
cdef-class vtable costs an indirect call per operation and blocks inlining;
the fused form is what lets the speed bars hold through this interface.)

Contract for a game ``G`` with state struct ``GState`` (see ttt.pxd):

- ``game_to_move(s)``: 0 for the first player (X / B), 1 for the second.
- ``game_legal_moves(s, moves)``: write the legal moves (small ints in
  ``[0, MAX_MOVES)``) into the caller's buffer of ``MAX_MOVES`` ints and
  return how many; 0 when the game is over.  Order must be deterministic.
- ``game_make(s, move) -> undo_t`` / ``game_unmake(s, move, undo)``: apply a
  legal move and exactly restore the previous state given the token.
- ``game_status(s)``: ``GAME_ONGOING``, ``GAME_WIN_FIRST``,
  ``GAME_WIN_SECOND`` or ``GAME_DRAW``.
- ``game_hash(s)``: a 64-bit key, equal for equal positions (including the
  side to move); unique where cheap (TTT uses its base-3 index).
- ``game_evaluate(s, heuristic)``: static value from the side to move's point
  of view, finite, ``|v| < 1e6``; ``heuristic`` is a game-specific id (0 is the
  game's default).  Search scores terminal positions itself.
- ``game_playout(s, rng)``: play uniformly random legal moves in place until
  the game ends; return the final status.
- ``game_random_move(s, rng)``: one uniformly random legal move (game on).

Status codes, ``MAX_MOVES`` and ``undo_t`` come from the leaf header
``common.pxd``, which the games' own ``.pxd`` files use too.

Adding a game: add its struct to ``GameState``, its Board class to
``GameBoard``, one branch to each function below, and its table set-up (if it
has tables) to ``game_init_tables``.

Python entry points follow one pattern (see perft.pyx)::

    def perft(GameBoard board, int depth):
        with nogil:
            n = perft_state(&board.state, depth)   # picks the GameState specialization

Algorithms that must not disturb the caller's board copy the struct first
(``cdef GameState work = root[0]`` inside a fused function).
"""
from libc.stdint cimport uint64_t
from ttt_engine._core.rng cimport rng_t
from ttt_engine._core cimport ttt
from ttt_engine._core.ttt cimport (
    TTTState, ttt_make, ttt_unmake, ttt_legal_moves, ttt_random_move,
    ttt_playout, ttt_evaluate,
)
from ttt_engine._core cimport uttt
from ttt_engine._core.uttt cimport (
    UTTTState, uttt_make, uttt_unmake, uttt_legal_moves, uttt_random_move,
    uttt_playout, uttt_evaluate, uttt_hash,
)
from ttt_engine._core cimport quixo
from ttt_engine._core.quixo cimport (
    QuixoState, quixo_make, quixo_unmake, quixo_legal_moves, quixo_random_move,
    quixo_playout, quixo_evaluate, quixo_hash,
)
from ttt_engine._core cimport clobber
from ttt_engine._core.clobber cimport (
    ClobberState, clobber_make, clobber_unmake, clobber_legal_moves, clobber_hash,
    clobber_evaluate, clobber_playout, clobber_random_move,
)

# status codes, MAX_MOVES and undo_t are the leaf header common.pxd's
from ttt_engine._core.common cimport (
    undo_t, MAX_MOVES, GAME_ONGOING, GAME_WIN_FIRST, GAME_WIN_SECOND, GAME_DRAW,
)

cdef inline void game_init_tables() noexcept nogil:
    """Fill every game's lookup tables (static arrays in each module that
    cimports this file): every algorithm module calls it once at import."""
    ttt.ttt_init_tables()          # also UTTT's (uttt_init_tables is ttt_init_tables)
    quixo.quixo_init_tables()


ctypedef fused GameState:
    TTTState
    UTTTState
    QuixoState
    ClobberState

# The Python board classes, one per game; each holds its struct in ``.state``.
# A ``def f(GameBoard board)`` dispatches on the board's type at run time and
# hands ``&board.state`` to a ``GameState*`` implementation.
# List each class through a ctypedef with a UNIQUE name (TTTBoard, ClobberBoard,
# ...): Cython keys fused specializations by the type's name, so two classes
# both called ``Board`` would collide and only one game would dispatch.
ctypedef ttt.Board TTTBoard
ctypedef uttt.Board UTTTBoard
ctypedef quixo.Board QuixoBoard
ctypedef clobber.Board ClobberBoard

ctypedef fused GameBoard:
    TTTBoard
    UTTTBoard
    QuixoBoard
    ClobberBoard


cdef inline int game_to_move(const GameState* s) noexcept nogil:
    if GameState is TTTState:
        return s.to_move
    elif GameState is UTTTState:
        return s.to_move
    elif GameState is QuixoState:
        return s.to_move
    elif GameState is ClobberState:
        return s.to_move


cdef inline int game_legal_moves(const GameState* s, int* moves) noexcept nogil:
    if GameState is TTTState:
        return ttt_legal_moves(s, moves)
    elif GameState is UTTTState:
        return uttt_legal_moves(s, moves)
    elif GameState is QuixoState:
        return quixo_legal_moves(s, moves)
    elif GameState is ClobberState:
        return clobber_legal_moves(s, moves)


cdef inline undo_t game_make(GameState* s, int move) noexcept nogil:
    if GameState is TTTState:
        ttt_make(s, move)
        return 0
    elif GameState is UTTTState:
        return uttt_make(s, move)
    elif GameState is QuixoState:
        return quixo_make(s, move)
    elif GameState is ClobberState:
        clobber_make(s, move)
        return 0


cdef inline void game_unmake(GameState* s, int move, undo_t undo) noexcept nogil:
    if GameState is TTTState:
        ttt_unmake(s, move)
    elif GameState is UTTTState:
        uttt_unmake(s, move, undo)
    elif GameState is QuixoState:
        quixo_unmake(s, move, undo)
    elif GameState is ClobberState:
        clobber_unmake(s, move)


cdef inline int game_status(const GameState* s) noexcept nogil:
    if GameState is TTTState:
        return s.status
    elif GameState is UTTTState:
        return s.status
    elif GameState is QuixoState:
        return s.status
    elif GameState is ClobberState:
        return s.status


cdef inline uint64_t game_hash(const GameState* s) noexcept nogil:
    if GameState is TTTState:
        return <uint64_t>s.index
    elif GameState is UTTTState:
        return uttt_hash(s)
    elif GameState is QuixoState:
        return quixo_hash(s)
    elif GameState is ClobberState:
        return clobber_hash(s)


cdef inline double game_evaluate(const GameState* s, int heuristic) noexcept nogil:
    if GameState is TTTState:
        return ttt_evaluate(s)
    elif GameState is UTTTState:
        return uttt_evaluate(s)
    elif GameState is QuixoState:
        return quixo_evaluate(s)
    elif GameState is ClobberState:
        return clobber_evaluate(s, heuristic)


cdef inline int game_playout(GameState* s, rng_t* rng) noexcept nogil:
    if GameState is TTTState:
        return ttt_playout(s, rng)
    elif GameState is UTTTState:
        return uttt_playout(s, rng)
    elif GameState is QuixoState:
        return quixo_playout(s, rng)
    elif GameState is ClobberState:
        return clobber_playout(s, rng)


cdef inline int game_random_move(const GameState* s, rng_t* rng) noexcept nogil:
    if GameState is TTTState:
        return ttt_random_move(s, rng)
    elif GameState is UTTTState:
        return uttt_random_move(s, rng)
    elif GameState is QuixoState:
        return quixo_random_move(s, rng)
    elif GameState is ClobberState:
        return clobber_random_move(s, rng)
