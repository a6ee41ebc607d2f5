# cython: language_level=3
"""What every game on the interface shares (a leaf header: it cimports nothing
of the engine, so every game's ``.pxd`` and ``game.pxd`` can use it).

- Status codes: ``GAME_ONGOING``, ``GAME_WIN_FIRST`` (the player who moves
  first, X or B, has won), ``GAME_WIN_SECOND``, ``GAME_DRAW``.  A game's
  ``status`` field holds one of them; ``GAME_WIN_FIRST + p`` is player ``p``'s win.
- ``MAX_MOVES``: the size of a move buffer, enough for every game (the
  largest, Clobber on 8x8, has moves ``< 256``).
- ``undo_t``: the token a game's ``make`` returns and its ``unmake`` takes.
"""
from libc.stdint cimport uint64_t

ctypedef uint64_t undo_t

cdef enum:
    MAX_MOVES = 512          # move buffer size: enough for 8x8 boards and more
    GAME_ONGOING = 0
    GAME_WIN_FIRST = 1       # player 0 (X, or the first player) has won
    GAME_WIN_SECOND = 2      # player 1 has won
    GAME_DRAW = 3
