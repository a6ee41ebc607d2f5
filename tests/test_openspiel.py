"""ttt_engine.openspiel: positions converted both ways, our engines as OpenSpiel bots,
OpenSpiel's bots as our agents.

The round trip plays 1,000 uniformly random games of each game OpenSpiel has, on our
board and on OpenSpiel's state side by side (each move as its OpenSpiel actions): at
every position OpenSpiel's state read back is our board, our board converted is a
state with the same text, the legal actions are equal, and at the end the returns.
"""
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from ttt_engine import connect4, games, openspiel, uttt  # noqa: E402

GAMES = 1000
SHARED = [("ttt", {}), ("uttt", {}), ("connect4", {}), ("clobber", {}),
          ("clobber", {"rows": 5, "cols": 6})]


def _returns(g, board):
    w = board.winner
    if w == "draw":
        return [0.0, 0.0]
    return [1.0, -1.0] if w == g.sides[0] else [-1.0, 1.0]


def _position_only(g, board):
    """The board as a position without history (what ``from_string`` reads)."""
    kw = {"to_move": board.to_move} if "to_move" in g.Board.from_string.__doc__ else {}
    return g.Board.from_string(board.to_string(), **kw)


@pytest.mark.parametrize("key,options", SHARED)
def test_round_trip_random_games(key, options):
    g = games.get(key)
    conv = openspiel.conversion(g)
    game = openspiel.openspiel_game(key, **options)
    rng = random.Random(2026)
    for n in range(GAMES):
        board, state = g.new_board(**options), game.new_initial_state()
        full = n < 100          # the history path's whole conversion: O(plies) a position
        while True:
            assert str(openspiel.to_openspiel(board)) == str(state) if full else True
            back = openspiel.from_openspiel(state) if full else None
            if back is not None:
                assert back.to_string() == board.to_string() and back.moves == board.moves
            if conv.board_of is not None:       # a position without history, both ways
                alone = _position_only(g, board)
                s2 = conv.state_of(game, alone)
                assert str(s2) == str(state)
                assert conv.board_of(s2, options).to_string() == board.to_string()
                assert s2.is_terminal() == state.is_terminal()
            assert state.is_terminal() == board.is_terminal()
            if board.is_terminal():
                assert state.returns() == _returns(g, board)
                break
            assert state.current_player() == g.sides.index(board.to_move)
            assert openspiel.legal_actions(board) == sorted(state.legal_actions())
            move = rng.choice(board.legal_moves)
            for a in openspiel.move_to_actions(board, move):
                assert a in state.legal_actions()
                state.apply_action(a)
            board.push(move)
        if not full:
            back = openspiel.from_openspiel(state)
            assert back.to_string() == board.to_string() and back.moves == board.moves


def test_action_numbering():
    # Connect Four's columns, Tic-Tac-Toe's cells are the actions
    assert openspiel.to_openspiel(connect4.from_moves("4453")).history() == [3, 3, 4, 2]
    # UTTT: a free move is (local board, cell), a forced one the cell
    b = uttt.Board()
    assert openspiel.move_to_actions(b, 9 * 4 + 5) == [4, 5]        # row 4, col 5
    b.push(9 * 4 + 5)                                               # sends O to board 5
    assert b.forced_board == 5
    assert openspiel.move_to_actions(b, 9 * 3 + 6) == [0]           # board 5's first cell
    # Clobber: OpenSpiel counts rows from the top, directions up, right, down, left
    c = games.get("clobber").new_board(rows=5, cols=6)
    state = openspiel.to_openspiel(c)
    for m in c.legal_moves:
        (a,) = openspiel.move_to_actions(c, m)
        theirs = state.action_to_string(state.current_player(), a)
        assert theirs == c.move_to_str(m).replace("-", "")
        assert openspiel.actions_to_move(c, [a]) == m


def test_uttt_half_move_and_position_only():
    game = openspiel.openspiel_game("uttt")
    state = game.new_initial_state()
    state.apply_action(4)                       # the local board chosen, the cell not yet
    board, pending = openspiel.read_state(state)
    assert pending == [4] and board.ply == 0
    with pytest.raises(ValueError, match="middle of a move"):
        openspiel.from_openspiel(state)
    # our bot given the state in the middle of a move finishes it in the chosen board
    bot = openspiel.make_bot("uttt", "mcts", simulations=50, seed=1)
    bot.restart_at(state)
    cell = bot.step(state)
    assert cell in state.legal_actions()
    state.apply_action(cell)
    first = openspiel.from_openspiel(state).moves[0]
    assert first // 27 == 1 and first % 9 // 3 == 1             # in local board 4
    # a position without history: a move order is found backwards
    b = uttt.Board()
    for m in (40, 30, 0, 10):
        b.push(m)
    alone = uttt.Board.from_string(b.to_string())
    s = openspiel.to_openspiel(alone)
    assert openspiel.from_openspiel(s).to_string() == b.to_string()


def test_refusals():
    with pytest.raises(ValueError, match="^OpenSpiel has no Quixo$"):
        openspiel.conversion("quixo")
    with pytest.raises(ValueError, match="tiebreak"):
        openspiel.to_openspiel(uttt.Board(tiebreak=True))
    with pytest.raises(ValueError, match="connect_four.*rows=5.*not a Connect Four board"):
        openspiel.from_openspiel(pyspiel.load_game("connect_four", {"rows": 5})
                                 .new_initial_state())
    with pytest.raises(ValueError, match="othello.*none of the games here"):
        openspiel.from_openspiel(pyspiel.load_game("othello").new_initial_state())
    with pytest.raises(ValueError, match="clobber\\(columns=3,rows=9\\)"):
        openspiel.from_openspiel(pyspiel.load_game("clobber", {"rows": 9, "columns": 3})
                                 .new_initial_state())
    diffs = openspiel.differences()
    assert diffs["quixo"] == "OpenSpiel has no Quixo"
    assert "tiebreak" in diffs["uttt"] and "6x5" in diffs["clobber"]


def test_perfect_bot_beats_openspiel_mcts():
    """Our perfect Connect Four bot, first player, in OpenSpiel's own evaluate_bots
    against its C++ MCTSBot (1,000 simulations, MCTS-Solver): 20 of 20 won."""
    game = openspiel.openspiel_game("connect4")
    wins = 0
    for i in range(20):
        ours = openspiel.make_bot("connect4", "perfect", seed=i)
        mcts = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, i), 2.0, 1000, 100,
                               True, i, False)
        returns = pyspiel.evaluate_bots(game.new_initial_state(), [ours, mcts], i)
        wins += returns[0] == 1.0
    assert wins == 20


def test_uttt_best_bot_full_games():
    """UTTT's best engine plays whole games in evaluate_bots (OpenSpiel applies each of
    its actions with a legality check): against OpenSpiel's MCTS, both colours."""
    game = openspiel.openspiel_game("uttt")
    for i in range(2):
        ours = openspiel.make_bot("uttt", "best", simulations=100, seed=i)
        mcts = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, i), 2.0, 200, 100,
                               True, i, False)
        bots = [ours, mcts] if i == 0 else [mcts, ours]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, i)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
        assert ours.moves >= 8           # a whole game: no game ends in fewer of its moves


def test_openspiel_agent_in_our_match():
    from ttt_engine.tournament import round_robin
    agent = openspiel.OpenSpielAgent("mcts", simulations=50, seed=1)
    assert agent.name == "openspiel-mcts(50 sims)"
    res = round_robin("connect4", {"os": agent, "rnd": "random"}, 2, seed=3, progress=False)
    assert res is not None
    # a seeded OpenSpiel agent repeats its moves; a move of two actions is two steps
    b = uttt.Board()
    m1 = openspiel.OpenSpielAgent("mcts", simulations=30, seed=5).select_move(b)
    m2 = openspiel.OpenSpielAgent("mcts", simulations=30, seed=5).select_move(b)
    assert m1 == m2 and m1 in b.legal_moves
    with pytest.raises(ValueError, match="unknown OpenSpiel bot 'alphazero'; valid: mcts, "
                                         "random"):
        openspiel.OpenSpielAgent("alphazero")


def test_python_evaluate_bots_plays_our_bot():
    """OpenSpiel's Python evaluate_bots (restart_at, step, inform_action) in both seats,
    on every shared game, against its uniform random bot."""
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots
    for key in ("ttt", "uttt", "clobber", "connect4"):
        game = openspiel.openspiel_game(key)
        for seat in (0, 1):
            ours = openspiel.make_bot(key, "mcts", simulations=50, seed=seat)
            other = pyspiel.make_uniform_random_bot(1 - seat, 7)
            bots = [ours, other] if seat == 0 else [other, ours]
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots,
                                                  np.random.RandomState(0))
            assert sum(returns) == 0 and returns[seat] in (-1.0, 0.0, 1.0)
            assert ours.moves >= 1
