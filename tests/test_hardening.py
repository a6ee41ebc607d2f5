"""One rule per input across the games: exact engines refuse what they cannot
finish, envs refuse step() before reset(), messages name games, game-over
messages and from_string rules agree, solver tables are sized to the board."""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import play_randomly

import ttt_engine
from ttt_engine import clobber, quixo, uttt
from ttt_engine.agents import PerfectAgent

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------ exact engines
BEYOND = {
    "uttt": (uttt.Board, "ttt_engine.uttt.solve"),
    "quixo 5x5": (lambda: quixo.Board(5), "ttt_engine.quixo.solve"),
    "clobber 6x5": (lambda: clobber.Board(6, 5), "ttt_engine.clobber.solve"),
    "clobber 4x5": (lambda: clobber.Board(4, 5), "ttt_engine.clobber.solve"),
}


@pytest.mark.parametrize("name", list(BEYOND))
@pytest.mark.parametrize("engine", ["PerfectAgent", "solve", "optimal_moves"])
def test_exact_engines_refuse_boards_they_cannot_finish(name, engine):
    make, pointer = BEYOND[name]
    call = {"PerfectAgent": lambda b: PerfectAgent().select_move(b),
            "solve": ttt_engine.solve, "optimal_moves": ttt_engine.optimal_moves}[engine]
    with pytest.raises(ValueError, match=pointer.replace(".", r"\.") + r"\(board, max_nodes"):
        call(make())          # at once: nothing is searched before the refusal


def test_exact_engines_finish_what_they_take():
    b = clobber.Board(4, 4)                        # 16 stones: the largest taken
    assert ttt_engine.solve(b) == 1
    assert PerfectAgent().select_move(b) in ttt_engine.optimal_moves(b)
    # a 6x5 game down to few stones is taken
    e = clobber.Board.from_string("B W _ _ _\n_ _ _ _ _\n_ _ _ _ _\n_ _ _ _ _\n_ _ _ B W\n_ _ _ _ _")
    assert ttt_engine.solve(e) in (1, -1)
    # 3x3 Quixo from the retrograde solution: a win in 7 plies, as quixo.solve says
    q = quixo.Board(3)
    assert ttt_engine.solve(q) == 1 == quixo.solve(q).outcome
    move = PerfectAgent().select_move(q)
    assert move in ttt_engine.optimal_moves(q)
    child = q.copy()
    child.push(move)
    assert quixo.solve(child).value == "loss" and quixo.solve(child).plies == 6


def test_finished_games_are_answered_in_every_game():
    import random
    rng = random.Random(2)
    for make in (uttt.Board, lambda: quixo.Board(5), lambda: clobber.Board(6, 5)):
        b = make()
        while not b.is_terminal():
            b.push(rng.choice(b.legal_moves))
        assert ttt_engine.optimal_moves(b) == []
        assert ttt_engine.solve(b) in (1, 0, -1)


# ------------------------------------------------------------------ environments
GAMES = ["ttt", "uttt", "clobber", "quixo"]


@pytest.mark.parametrize("game", GAMES)
def test_step_before_reset_is_a_value_error_in_every_env(game):
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    from ttt_engine.envs.gymnasium import GameEnv, VectorGameEnv
    from ttt_engine.envs.pettingzoo import env, raw_env
    for e, action in ((GameEnv(game), 0), (VectorGameEnv(game, num_envs=2), np.zeros(2, int)),
                      (env(game=game), 0), (raw_env(game=game), 0)):
        with pytest.raises(ValueError, match=r"call reset\(\) before step\(\)"):
            e.step(action)
    g = GameEnv(game)
    g.reset(seed=0)
    mask = g.action_masks()
    g.step(int(np.flatnonzero(mask)[0]))        # after reset() it steps


# ------------------------------------------------------------------ messages
def test_wrong_board_messages_name_the_games():
    from ttt_engine.ttt.qagent import QAgent
    q = QAgent(np.zeros((19683, 9)))
    with pytest.raises(ValueError, match="QAgent plays Tic-Tac-Toe, got an Ultimate "
                                         "Tic-Tac-Toe board"):
        q.select_move(uttt.Board())
    with pytest.raises(ValueError, match="plays Clobber, got a Quixo board"):
        clobber.solve(quixo.Board())
    with pytest.raises(ValueError, match="plays Quixo, got int 5"):
        quixo.perft(5, 1)
    with pytest.raises(ValueError, match="plays Quixo, got a Tic-Tac-Toe board"):
        quixo.RandomAgent(seed=1).select_move(ttt_engine.Board())


@pytest.mark.parametrize("game", GAMES)
def test_game_over_messages_are_the_same_in_every_game(game):
    import random
    g = ttt_engine.games.get(game)
    rng = random.Random(1)
    b = g.new_board(**({"rows": 2, "cols": 3} if game == "clobber" else
                       {"size": 3} if game == "quixo" else {}))
    first = b.legal_moves[0]
    while not b.is_terminal():
        b.push(rng.choice(b.legal_moves))
    w = b.winner
    shown = "draw" if w == "draw" else f"{w} won"
    with pytest.raises(ValueError, match=rf"the game is over \({shown}\)"):
        b.push(first)
    for agent in (ttt_engine.agents.RandomAgent(seed=1),):
        with pytest.raises(ValueError, match=rf"the game is over \({shown}\): there is no move"):
            agent.select_move(b)


@pytest.mark.parametrize("text,to_move", [("X" * 25, "X"), ("X" * 25, "O"), ("O" * 9, "O"),
                                          (" " * 9, "O"), ("XX" + " " * 7, "O"),
                                          ("    X    ", "O"), ("O   X    ", "O")])
def test_quixo_from_string_refuses_unreachable_positions(text, to_move):
    with pytest.raises(ValueError, match="is not reachable by legal play"):
        quixo.Board.from_string(text, to_move=to_move)


def test_quixo_from_string_takes_every_position_a_game_reaches():
    import random
    rng = random.Random(3)
    for size in (3, 4, 5):
        for _ in range(200):
            b = play_randomly(quixo.Board(size), rng, rng.randrange(0, 30))
            again = quixo.Board.from_string(b.to_string(), to_move=b.to_move)
            assert again.to_string() == b.to_string()


# ------------------------------------------------------------------ solver tables
def test_clobber_solve_sizes_its_table_to_the_board():
    assert clobber.table_bits(clobber.Board(4, 4)) == 14
    assert clobber.table_bits(clobber.Board(2, 3)) == clobber.TABLE_BITS[0]
    assert clobber.table_bits(clobber.Board(6, 5)) == clobber.TABLE_BITS[1]
    r = clobber.solve(clobber.Board(4, 4))
    assert (r.value, r.best_move) == ("win", 36)
    assert clobber.solve(clobber.Board(4, 4), tt_bits=22).value == "win"


# ------------------------------------------------------------------ console
def test_eval_with_a_junk_model_file_exits_2(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model at all")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ttt_engine.__file__)))
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "eval", "--model", str(junk),
                        "--games", "1"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "junk.npz" in r.stderr


# ------------------------------------------------------------------ yes/no options
def _bool_calls(tmp_path):
    from ttt_engine import Board, connect4, search
    from ttt_engine.agents import AZAgent, MCTSAgent
    from ttt_engine.envs.gymnasium import VectorGameEnv
    return {
        "randomize": lambda v: PerfectAgent(randomize=v),
        "alphabeta": lambda v: search.minimax(Board(), 2, alphabeta=v),
        "weak": lambda v: connect4.solve(connect4.from_moves("4444445555"), weak=v,
                                         time_limit=5),
        "solver": lambda v: search.MCTS(seed=1, solver=v),
        "reuse": lambda v: MCTSAgent(reuse=v),
        "copy": lambda v: VectorGameEnv(copy=v),
        "solver ": lambda v: AZAgent(None, solver=v),
        "ordering": lambda v: search.alphabeta(Board(), 2, ordering=v),
        "ply_in_key": lambda v: search.ABSearcher(1 << 10, ply_in_key=v),
        "symmetric": lambda v: quixo.load_values(_values_file(tmp_path), symmetric=v),
    }


def _values_file(folder):
    path = folder / "v.npz"
    quixo.save_values(quixo.collect_values(5, seed=1)[0], path)
    return path


@pytest.mark.parametrize("name", list(_bool_calls(None)))
@pytest.mark.parametrize("value", ["no", 2, 1.0])
def test_yes_no_options_take_only_true_or_false(name, value, tmp_path):
    call = _bool_calls(tmp_path)[name]
    with pytest.raises(ValueError, match=f"^{name.strip()} must be True or False, got"):
        call(value)
    call(np.bool_(False))                  # numpy's bools are bools


# ------------------------------------------------------------------ heuristics
def test_depth_first_searches_take_only_the_games_heuristics():
    from ttt_engine import Board, games, search
    from ttt_engine.agents import AlphaBetaAgent, MinimaxAgent
    b = clobber.Board(4, 4)
    search.alphabeta(b, 2, heuristic=3)                # one of its own
    with pytest.raises(ValueError, match="heuristic must be a Clobber heuristic id.*got 1000"):
        search.alphabeta(b, 2, heuristic=1000)
    for cls in (AlphaBetaAgent, MinimaxAgent):      # no game has it: refused when made
        with pytest.raises(ValueError, match=r"heuristic must be 0 \(every game's default\) "
                           r"or a Clobber heuristic id .*got 1000"):
            cls(heuristic=1000)
    with pytest.raises(ValueError, match=r"heuristic must be 0 \(Tic-Tac-Toe has one"):
        search.minimax(Board(), 2, heuristic=1)
    with pytest.raises(ValueError, match=r"heuristic must be 0 \(Connect Four has one"):
        AlphaBetaAgent(depth=2, heuristic=5).select_move(games.get("connect4").new_board())
    with pytest.raises(ValueError, match=r"heuristic must be 0 \(Tic-Tac-Toe has one"):
        MinimaxAgent(depth=1, heuristic=3).select_move(Board())     # Clobber's, not its
    with pytest.raises(ValueError, match=r"heuristic must be 0"):
        search.move_values(Board(), 2, heuristic=2)
