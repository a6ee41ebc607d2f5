"""Connect Four: the bitboard rules against perft counts verified with OpenSpiel's
``connect_four`` (live when OpenSpiel is installed) and against a tiny pure-Python
rules model below; then everything the registry gives a new game without further
code: move text, drawing, engines, environments, tournaments, the console,
pickling."""
import os
import pickle
import random
import runpy
import subprocess
import sys

import numpy as np
import pytest

from conftest import registry_row

import ttt_engine
from ttt_engine import connect4, games
from ttt_engine.connect4 import Board

GAME = games.get("connect4")

# ---------------------------------------------------------------- perft
#: the OpenSpiel comparison script: its positions (move sequences, columns 0..6)
#: and its walk of OpenSpiel's tree
PERFT_SCRIPT = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "bench", "connect4_perft_openspiel.py"))
POSITIONS = dict(PERFT_SCRIPT["POSITIONS"])
#: perft 1..8 verified with bench/connect4_perft_openspiel.py (the engine and
#: OpenSpiel's connect_four agree on every number; a game that ends counts as a leaf)
PERFT = {
    "start": [7, 49, 343, 2401, 16807, 117649, 823536, 5686266],
    "mid8": [7, 49, 343, 2400, 16666, 114839, 777912, 5256474],
    "mid16": [6, 31, 181, 926, 5263, 26497, 141659, 692704],
}


board_of = PERFT_SCRIPT["engine_board"]   # a Board after a move sequence


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_perft_matches_verified_counts(name):
    b = board_of(POSITIONS[name])
    before = b.to_string()
    got = [connect4.perft(b, d) for d in range(1, 9)]
    assert got == PERFT[name]
    assert b.to_string() == before and b.moves == POSITIONS[name]


def test_openspiel_agrees_live():
    """Perft to depth 5 from each position, and 100 random games move by move
    (legal moves, board text, winner), against OpenSpiel's connect_four."""
    pyspiel = pytest.importorskip(
        "pyspiel", reason="OpenSpiel not installed (pip install open_spiel, or '.[compare]'); "
        "the verified perft constants above are checked without it")
    game = pyspiel.load_game("connect_four")
    walk = PERFT_SCRIPT["openspiel_perft"]
    for name, moves in POSITIONS.items():
        s = game.new_initial_state()
        for m in moves:                 # OpenSpiel's actions are the columns 0..6
            s.apply_action(m)
        assert [walk(s, d) for d in range(1, 6)] == PERFT[name][:5], name
    rng = random.Random(4)
    for _ in range(100):
        b, s = Board(), game.new_initial_state()
        while not s.is_terminal():
            assert b.legal_moves == s.legal_actions()
            # OpenSpiel prints the top row first, x for the first player
            assert b.to_string().lower().split("/") == str(s).split()
            m = rng.choice(b.legal_moves)
            b.push(m)
            s.apply_action(m)
        assert b.is_terminal()
        r = s.returns()
        assert b.winner == ("X" if r[0] > 0 else "O" if r[1] > 0 else "draw")


# ---------------------------------------------------------------- reference rules
class Ref:
    """Connect Four in plain Python: grid[row][col], row 0 the bottom."""

    def __init__(self):
        self.grid = [[0] * 7 for _ in range(6)]
        self.player = 1
        self.winner = None          # 1, 2 or "draw"
        self.n = 0

    def legal(self):
        return [] if self.winner else [c for c in range(7) if self.grid[5][c] == 0]

    def play(self, c):
        r = next(r for r in range(6) if self.grid[r][c] == 0)
        self.grid[r][c] = self.player
        self.n += 1
        if self.four(self.player):
            self.winner = self.player
        elif self.n == 42:
            self.winner = "draw"
        self.player = 3 - self.player

    def four(self, p):
        for r in range(6):
            for c in range(7):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    if all(0 <= r + k * dr < 6 and 0 <= c + k * dc < 7
                           and self.grid[r + k * dr][c + k * dc] == p for k in range(4)):
                        return True
        return False

    def text(self):
        return "/".join("".join(".XO"[v] for v in self.grid[r]) for r in range(5, -1, -1))


def test_reference_agrees_over_random_games():
    """2,000 seeded random games: the same legal moves, board, side to move and
    winner at every ply; the hash is one key per position (side to move included)."""
    rng = random.Random(2024)
    keys = {}
    wins = {"X": 0, "O": 0, "draw": 0}
    for g in range(2000):
        b, ref = Board(), Ref()
        while True:
            assert b.legal_moves == ref.legal()
            assert b.to_string() == ref.text()
            assert b.to_move == "XO"[ref.player - 1]
            text = (b.to_string(), b.to_move)
            assert keys.setdefault(b.hash(), text) == text
            if ref.winner:
                break
            m = rng.choice(ref.legal())
            b.push(m)
            ref.play(m)
        assert b.winner == {1: "X", 2: "O", "draw": "draw"}[ref.winner]
        wins[b.winner] += 1
        # pop restores every earlier position exactly
        while b.moves:
            b.pop()
        assert b == Board() and b.hash() == Board().hash() and b.ply == 0
    assert min(wins.values()) > 0, wins      # all three endings were seen


def test_win_in_every_direction_and_draw():
    # horizontal, vertical, both diagonals: X completes four with its last disc
    for moves, winner in [
        ([0, 0, 1, 1, 2, 2, 3], "X"),                        # bottom row a-d
        ([6, 0, 6, 0, 6, 0, 5, 0], "O"),                     # column a
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], "X"),            # rising a1-d4
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], "X"),            # falling d4-g1
    ]:
        b = board_of(moves)
        assert b.winner == winner, moves
        assert b.legal_moves == [] and b.is_terminal()
    # no wrap-around: discs at the top of one column and the bottom of the next
    b = board_of([0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 2])
    assert b.winner is None
    # a full board with no four (the end of a random game): over, and drawn
    full = Board.from_string("OOXOXXO/OXOXOXO/XXOXOOO/OOXOXXX/XXXOOOX/OXXXOXO")
    assert full.winner == "draw" and full.ply == 42


def test_column_full_and_move_text():
    b = board_of([3] * 6)
    assert 3 not in b.legal_moves and b.heights == (0, 0, 0, 6, 0, 0, 0)
    with pytest.raises(ValueError, match="cannot play column 4: it is full"):
        b.push("4")
    with pytest.raises(ValueError, match="cannot play column 4: it is full"):
        b.push("d")             # the letters are read too
    assert [b.parse_move(t) for t in ("1", "7", " 4 ", "a", "G", " d ", 0, 6, np.int64(2))] == \
        [0, 6, 3, 0, 6, 3, 0, 6, 2]
    assert [b.move_to_str(m) for m in range(7)] == list("1234567")
    for bad in ("h", "8", "0", "", "dd", "44", 7, -1, 2.5, None):
        with pytest.raises(ValueError, match="column|Connect Four move"):
            b.parse_move(bad)


def test_from_string_round_trips_and_refuses_unreachable():
    b = board_of(POSITIONS["mid16"])
    assert Board.from_string(b.to_string()) == b
    assert Board.from_string(str(b)) == b
    assert eval(repr(b), {"Board": Board}) == b
    assert GAME.from_string(b.to_string()) == b
    assert Board.from_string(b.to_string()).hash() == b.hash()
    for text, why in [
        ("......./......./......./......./...X.../.......", "floats"),
        ("......./......./......./......./......./XX.....", "disc counts"),
        ("......./......./XO...../XO...../XO...../XO.....", "both sides"),
        ("......./......./X....../X....../XO...../XOOO...", "last disc"),  # X won, X to move
        ("......./......./......./......./......./X", "42 cells"),
        ("......./......./......./......./......./Z......", "unexpected character"),
    ]:
        with pytest.raises(ValueError, match=why):
            Board.from_string(text)
    won = Board.from_string("......./......./X....../X....../XO...../XOO....")
    assert won.winner == "X" and won.to_move == "O" and won.legal_moves == []


def test_observation_mask_and_geometry():
    b = board_of([3, 3, 0])                   # X d1, O d2, X a1; O to move
    obs = b.observation()
    assert obs.shape == b.observation_shape == (2, 6, 7) and obs.dtype == np.int8
    assert obs[0].sum() == 1 and obs[0][4, 3] == 1           # O (to move): d2, row 4 from top
    assert obs[1].sum() == 2 and obs[1][5, 3] == obs[1][5, 0] == 1
    assert b.grid()[5][:4] == ["X", "", "", "X"] and b.grid()[4][3] == "O"
    assert b.num_actions == 7 and b.action_mask().tolist() == [True] * 7
    full = board_of([6] * 6)
    assert full.action_mask().tolist() == [True] * 6 + [False]
    assert b.move_geometry(3) == ((3, 3), None, None) and b.move_geometry(1) == ((5, 1), None, None)
    assert full.move_geometry(6) == ((0, 6), None, None)
    assert [b.action_to_move(a) for a in range(7)] == list(range(7))
    assert b.move_to_action("e") == 4
    assert b.draw_truncates is False


def test_evaluate_is_bounded_and_side_relative():
    rng = random.Random(1)
    for _ in range(200):
        b = Board()
        for _ in range(rng.randrange(1, 30)):
            if b.is_terminal():
                break
            b.push(rng.choice(b.legal_moves))
        assert abs(b.evaluate()) < 1e4
    # a centre disc is good for its owner: bad for the side to move after it
    assert board_of([3]).evaluate() < 0 < board_of([3, 0]).evaluate()
    # colours swapped and mirrored left-right: the same value for the side to move
    b = board_of([3, 2, 4, 4, 1])
    mirror = board_of([6 - m for m in [3, 2, 4, 4, 1]])
    assert b.evaluate() == mirror.evaluate()


def test_random_playouts_and_solve():
    r = connect4.random_playouts(Board(), 2000, seed=5)
    assert r["games"] == 2000 == r["first_wins"] + r["second_wins"] + r["draws"]
    assert r["first_wins"] > r["second_wins"]     # the first player's edge under random play
    assert connect4.random_playouts(Board(), 2000, seed=5) == r
    # X to move wins at once in column a (a1-a3 are X's)
    b = board_of([0, 1, 0, 1, 0, 2])
    s = connect4.solve(b, max_nodes=10**5)
    assert s.value == "win" and s.best_move == 0 and s.plies == 1
    # the exact solver needs no limit: the win with X's 4th disc scores 22 - 4
    exact = connect4.solve(b, table_mb=16)
    assert (exact.value, exact.best_move, exact.score) == ("win", 0, 18)
    assert connect4.solve(Board(), max_nodes=1000).value == "win"       # from the book
    assert connect4.solve(Board(), max_nodes=1000, book=False).value == "unknown"
    with pytest.raises(ValueError):
        connect4.perft(ttt_engine.ttt.Board(), 1)


# ---------------------------------------------------------------- the registry
#: X to move wins at once in column a (a1-a3 X); O threatens nothing
WIN_NOW = [0, 1, 0, 1, 0, 2]
#: O to move must block X's a1-a3 in column a
BLOCK = [0, 1, 0, 1, 0]


def test_decisive_policy_wins_blocks_else_random():
    from ttt_engine._core.algorithms import policy_playout as _policy
    assert GAME.playouts == ("random", "decisive")
    win, block = board_of(WIN_NOW), board_of(BLOCK)
    # X wins in column a; O (to move in BLOCK) must block column a
    assert {_policy.policy_move(win, seed, "decisive") for seed in range(30)} == {0}
    assert {_policy.policy_move(block, seed, "decisive") for seed in range(30)} == {0}
    # a win beats a block: X threatens a4 (a1-a3), O threatens g4 (g1-g3); X to move
    both = board_of([0, 6, 0, 6, 0, 6])
    assert {_policy.policy_move(both, seed, "decisive") for seed in range(30)} == {0}
    # nothing to win or block: uniformly random
    quiet = board_of([3, 3])
    assert len({_policy.policy_move(quiet, seed, "decisive") for seed in range(60)}) == 7
    # from a won position every decisive playout wins; random ones often do not
    assert _policy.policy_playouts(win, 200, 3, "decisive") == (0, 200, 0, 0)
    assert _policy.policy_playouts(win, 200, 3, "random")[1] < 200


def test_registry_entry():
    assert GAME.title == "Connect Four" and GAME.sides == ("X", "O")
    assert ttt_engine.games.of_board(Board()) is GAME
    b = GAME.new_board()
    assert isinstance(b, Board) and b.TITLE == "Connect Four"
    assert GAME.parse_move(b, "4") == 3 and GAME.move_to_str(b, 3) == "4"
    assert GAME.parse_move(b, "d") == 3          # the letters are read too
    with pytest.raises(ValueError, match="column number 1-7"):
        GAME.parse_move(b, "x")
    full = board_of([2] * 6)
    with pytest.raises(ValueError, match="column 3: it is full"):
        GAME.parse_move(full, "3")
    text = GAME.draw(board_of([3, 3]))
    assert "1 2 3 4 5 6 7" in text and text.count("X") == 1 and text.count("O") == 1
    assert "1-7" in GAME.legend(b) and "a-g" in GAME.legend(b) and GAME.prompt_hint(b) == "column 1-7"
    assert set(GAME.engines) == {"perfect", "random", "mcts", "alphabeta", "best", "az",
                                 "valuenet"}
    assert GAME.default_engine == "best"
    assert "ttt_engine/ConnectFour-v0" in ttt_engine.envs.gymnasium.ENV_IDS


@pytest.mark.parametrize("engine,kw", [
    ("alphabeta", {}), ("alphabeta", {"depth": 4}), ("alphabeta", {"time": 0.2}),
    ("mcts", {"simulations": 3000}), ("best", {"simulations": 3000, "threads": 1}),
])
def test_engines_win_now_and_block(engine, kw):
    agent = GAME.make_agent(engine, seed=3, **kw)
    assert agent.select_move(board_of(WIN_NOW)) == 0
    assert agent.select_move(board_of(BLOCK)) == 0


def test_mcts_is_reproducible_with_a_seed():
    b = board_of([3, 3, 2])
    moves = [GAME.make_agent("mcts", seed=11, simulations=2000).select_move(b)
             for _ in range(2)]
    assert moves[0] == moves[1] and moves[0] in b.legal_moves
    stats = [GAME.make_agent("mcts", seed=11, simulations=2000) for _ in range(2)]
    for a in stats:
        a.select_move(b)
    timing = {"time", "simulations_per_s"}
    s0, s1 = ({k: v for k, v in a.last_stats.items() if k not in timing} for a in stats)
    assert s0 == s1 and s0["simulations"] == 2000


def test_best_default_and_random_play_legal_moves():
    b = board_of([3, 3, 2, 4])
    assert GAME.make_agent("best", seed=1, simulations=500).select_move(b) in b.legal_moves
    assert GAME.make_agent(GAME.default_engine, seed=1, time=0.05).select_move(b) in b.legal_moves
    assert GAME.make_agent("random", seed=1).select_move(b) in b.legal_moves


def test_az_plays_the_shipped_network():
    agent = GAME.make_agent("az", seed=1, simulations=200)
    b = board_of([3, 3, 2, 4])
    assert agent.select_move(b) in b.legal_moves
    assert agent.playout_weight == 0.5        # as the shipped network was measured
    win = board_of([3, 3, 2, 2, 4, 4])        # X: c1 d1 e1, to move: b1 or f1 wins
    assert GAME.make_agent("az", seed=2, simulations=200).select_move(win) in (1, 5)


def test_batch_env_steps_random_games_to_the_end():
    from ttt_engine.envs import BatchEnv
    env = BatchEnv("connect4", 16, seed=2)
    assert env.observation.shape == (16, 2, 6, 7)
    env.reset(seed=2)
    done = np.zeros(16, dtype=bool)
    for _ in range(42):
        where = ~done
        env.step(env.random_actions(), where=where)
        done |= env.terminated
        if done.all():
            break
    assert done.all()
    assert (env.rewards.sum(axis=1) == 0).all()


def test_gymnasium_env_episode():
    import gymnasium as gym
    from ttt_engine.envs.gymnasium import GameEnv
    env = GameEnv("connect4", opponent="random")
    obs, info = env.reset(seed=4)
    assert obs.shape == (2, 6, 7) and info["action_mask"].shape == (7,)
    rng = np.random.default_rng(4)
    for _ in range(30):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert terminated and reward in (-1.0, 0.0, 1.0)
    env2 = gym.make("ttt_engine/ConnectFour-v0")
    obs, info = env2.reset(seed=1)
    assert obs.shape == (2, 6, 7)
    env2.close()


def test_pettingzoo_env_episode():
    from ttt_engine.envs import pettingzoo as pz
    env = pz.env("connect4")
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    steps, final = 0, {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        assert obs["observation"].shape == (2, 6, 7)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert 7 <= steps <= 42
    assert sorted(final.values()) in ([-1, 1], [0, 0])


def test_tournament_between_two_engines():
    from ttt_engine.tournament import SerialExecutor, round_robin
    r = round_robin("connect4", ["alphabeta", "random"], 4, seed=1, executor=SerialExecutor(),
                    progress=False)
    assert r.games == 4 and not r.errors
    assert r.names == ("alphabeta", "random")
    # from an opening suite (its default length comes from the tournament module)
    r = round_robin("connect4", ["mcts", "random"], 4, simulations=200, seed=2, openings=2,
                    executor=SerialExecutor(), progress=False)
    assert r.games == 4 and not r.errors


def test_pickling_board_and_agent():
    b = board_of(POSITIONS["mid8"])
    c = pickle.loads(pickle.dumps(b))
    assert c == b and c.moves == b.moves and c.hash() == b.hash()
    assert c.pop() == b.pop() and c == b
    agent = GAME.make_agent("mcts", seed=5, simulations=500)
    clone = pickle.loads(pickle.dumps(agent))
    pos = board_of(POSITIONS["mid8"])
    assert clone.select_move(pos) == agent.select_move(pos)
    ab = pickle.loads(pickle.dumps(GAME.make_agent("alphabeta")))
    assert ab.select_move(board_of(WIN_NOW)) == 0


def test_console_plays_a_scripted_game(cli_env):
    """You (X) play 4, then bad input, then more discs against the random engine (a
    letter among them); ``q`` quits.  The console reads the column numbers (and letters)
    and says why a move is refused."""
    stdin = "4\nz\n\nd\n4\nq\n"
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "play", "--game", "connect4",
                        "--opponent", "random", "--seed", "3"], input=stdin,
                       capture_output=True, text=True, env=cli_env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "Connect Four" in r.stdout
    assert "a move is a column number 1-7" in r.stdout            # the refused 'z'
    assert "random (O) plays" in r.stdout
    assert r.stdout.count("Your move") >= 4


def test_console_watch_game_to_the_end(cli_env):
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "play", "--game", "connect4",
                        "--watch", "random", "--opponent", "alphabeta", "--depth", "2",
                        "--seed", "1", "--games", "1"],
                       capture_output=True, text=True, env=cli_env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "wins" in r.stdout or "Draw" in r.stdout


def test_exact_engines_refuse_early_positions_and_solve_late_ones():
    from ttt_engine.connect4 import EXHAUSTIVE_PLIES
    with pytest.raises(ValueError, match="connect4.solve"):
        ttt_engine.solve(Board())
    b = Board()
    rng = random.Random(3)
    while b.ply < EXHAUSTIVE_PLIES or b.is_terminal():
        if b.is_terminal():
            b = Board()
        b.push(rng.choice(b.legal_moves))
    value = ttt_engine.solve(b)
    # the exact value agrees with the game's own bounded solver
    assert value == {"win": 1, "draw": 0, "loss": -1}[connect4.solve(b, max_nodes=10**8).value]


# ---------------------------------------------------------------- row of the generic tests
def _reference_legal(board):
    ref = Ref()
    for m in board.moves:
        ref.play(m)
    return ref.legal()


#: Connect Four's row of the generic tests (tests/test_games.py, test_registry.py,
#: test_properties.py; the fields: conftest.REGISTRY_FIELDS)
REGISTRY_CASES = registry_row(
    engines=["perfect", "alphabeta", "mcts", "az", "valuenet", "best", "random"],
    # perfect answers the opening from its book, which ships once generated
    # (docs/connect4.md); without it the start is solved for hours
    # (tests/test_connect4_book.py tests it)
    trained_engines=["perfect"],
    ships_network=True,
    sample_move="4",
    syntax="column number 1-7",
    perft=(7, 49),
    num_actions=7,
    # X to move wins at once in column a (a1-a3); the solve needs a limit
    solve_small=(lambda: GAME.from_string("......./......./......./X....../XO...../XOO...."),
                 "win", {"max_nodes": 10**6}),
    reference_legal=_reference_legal,
    solve_one_node="any",          # the opening book answers the start position at once
)
