# cython: language_level=3
"""The face every game's Python ``Board`` shares (board.pyx), and the table
through which it reaches the game's rules.

A game's ``Board`` (``games/<game>/board.pyx``) derives from :class:`Board`,
holds its state struct in a field ``state``, and in ``__cinit__`` points
``_state`` at it and ``_ops`` at its :c:type:`BoardOps` (``bind_board``,
generated into the game's ``board_ops.pxi``) -- the game's own
contract functions (``rules.pxd``/``actions.pxd``), taken by address once per
module.  The base then does the bookkeeping every game shares: push/pop
history, legal moves, side to move, winner, action masks and observations,
equality, hashing, copying and pickling.  Per-move work in the searches never
goes through this table: they use the fused interface (algorithms/game.pxd).
"""
from libc.stdint cimport int8_t, uint8_t, uint64_t
from ttt_engine._core.core.common cimport undo_t

ctypedef int (*legal_moves_fn)(const void* s, int* moves) noexcept nogil
ctypedef undo_t (*make_fn)(void* s, int move) noexcept nogil
ctypedef void (*unmake_fn)(void* s, int move, undo_t undo) noexcept nogil
ctypedef int (*query_fn)(const void* s) noexcept nogil
ctypedef uint64_t (*hash_fn)(const void* s) noexcept nogil
ctypedef double (*evaluate_fn)(const void* s, int heuristic) noexcept nogil
ctypedef int (*convert_fn)(const void* s, int x) noexcept nogil
ctypedef void (*observation_fn)(const void* s, int8_t* out) noexcept nogil
ctypedef void (*mask_fn)(const void* s, uint8_t* out) noexcept nogil


cdef struct BoardOps:
    size_t state_size
    legal_moves_fn legal_moves
    make_fn make
    unmake_fn unmake
    query_fn to_move
    query_fn status
    hash_fn hash
    evaluate_fn evaluate
    convert_fn action_to_move
    convert_fn move_to_action
    observation_fn write_observation
    mask_fn write_action_mask
    bint draw_truncates         # a draw is a cut-off (truncated), not an end


cdef class Board:
    cdef void* _state               # the subclass's ``state`` field
    cdef const BoardOps* _ops       # the subclass's game
    cdef int* _hist_moves           # pushed moves, oldest first
    cdef undo_t* _hist_undos        # their undo tokens
    cdef Py_ssize_t _nhist
    cdef Py_ssize_t _hist_cap
    cdef int _record(self, int move, undo_t undo) except -1
    cdef int _push_move(self, int move) except -1
    cdef bint _is_legal(self, int move) noexcept
    cdef void _clear_history(self) noexcept
