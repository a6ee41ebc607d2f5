"""Tic-Tac-Toe's row of the generic tests; the board's own tests are in
tests/test_ttt_board.py.

The generic tests (tests/test_games.py, test_registry.py, test_properties.py)
run for every game of the registry and read what differs between games from
``REGISTRY_CASES`` in the game's test file ``tests/test_<key>.py``
(``conftest.registry_cases``; the fields: ``conftest.REGISTRY_FIELDS``, the
ones a row leaves out: ``conftest.REGISTRY_DEFAULTS``)."""
from conftest import registry_row
from test_ttt_board import ref_winner

from ttt_engine import ttt


def _reference_legal(board):
    cells = list(board.cells)
    if ref_winner(cells) is not None:
        return []
    return [i for i in range(9) if cells[i] == 0]


#: Tic-Tac-Toe's row of the generic tests (conftest.REGISTRY_FIELDS)
REGISTRY_CASES = registry_row(
    engines=["perfect", "q", "alphabeta", "mcts", "az", "valuenet", "best", "random"],
    trained_engines=["q"],
    ships_network=True,
    sample_move="5",
    syntax="cell number 1-9",
    perft=(9, 72),
    num_actions=9,
    solve_small=(lambda: ttt.GAME.new_board(), "draw", {}),
    solve_one_node="any",          # the whole game is solved within a few thousand nodes
    reference_legal=_reference_legal,
    moves_commute=True,            # placing marks
)
