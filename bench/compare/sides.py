"""The work of every comparison row on each engine: ``OpenSpiel`` and
``Engine`` (ttt_engine), with the same method per kind of work.  Each method
times itself (wall clock and the thread's CPU time), excluding set-up such as
building a board or a bot, and returns ``units``, ``seconds``, ``cpu`` and
extra fields.

OpenSpiel's Ultimate Tic-Tac-Toe spends two actions on a free move (choose
the board, then the cell); every figure here counts marks / games /
simulations, never actions.
"""
from __future__ import annotations

import importlib
import math
import random
import time

__all__ = ["OpenSpiel", "Engine", "CLOBBER_HEURISTIC", "clobber_value_function"]

# The ttt_engine Clobber heuristic matching clobber_value_function: B's own
# move count (= the opponent's: captures are symmetric), from B's (the root
# mover's) point of view.
CLOBBER_HEURISTIC = "own_moves"

#: Board options of the compared positions (OpenSpiel's Clobber is 6x5 here too).
BOARD_OPTIONS = {"clobber": {"rows": 6, "cols": 5}}


def _now():
    """(wall clock, CPU time of this thread).  Both engines run single-threaded
    in the calling thread (OpenSpiel's C++ and ttt_engine's nogil loops alike),
    so the thread's CPU time is the work done, whatever else the machine runs."""
    return time.perf_counter(), time.thread_time()


def _import_into(obj, modules):
    """Import each module of ``{attribute: module name}`` and set it on ``obj``:
    a side's imports happen once, when it is made, not when this file is read."""
    for attribute, module in modules.items():
        setattr(obj, attribute, importlib.import_module(module))


def _since(t0):
    """(wall seconds, CPU seconds) since ``t0 = _now()``."""
    wall, cpu = _now()
    return wall - t0[0], cpu - t0[1]


class OpenSpiel:
    """The OpenSpiel work of every row (imports done once, here)."""

    MODULES = {"np": "numpy", "pyspiel": "pyspiel",
               "rl_environment": "open_spiel.python.rl_environment",
               "rl_tools": "open_spiel.python.rl_tools",
               "minimax": "open_spiel.python.algorithms.minimax",
               "random_agent": "open_spiel.python.algorithms.random_agent",
               "tabular_qlearner": "open_spiel.python.algorithms.tabular_qlearner"}

    def __init__(self):
        _import_into(self, self.MODULES)
        from ttt_engine import openspiel
        self.openspiel = openspiel
        # the same boards as ours: OpenSpiel's game of each, by the conversion's parameters
        self.games = {key: openspiel.openspiel_game(key, **BOARD_OPTIONS.get(key, {}))
                      for key in ("ttt", "uttt", "clobber")}

    # -- Q-learning
    def qlearning(self, episodes, self_play, seed):
        """Episodes of tabular Q-learning on Tic-Tac-Toe (QLearner plays O vs a
        random X, or one QLearner per side in self-play)."""
        self.np.random.seed(seed)  # QLearner and RandomAgent draw from numpy's global RNG
        env = self.rl_environment.Environment("tic_tac_toe")
        na = env.action_spec()["num_actions"]

        def learner(pid):
            return self.tabular_qlearner.QLearner(
                player_id=pid, num_actions=na, step_size=0.1,
                epsilon_schedule=self.rl_tools.ConstantSchedule(0.7), discount_factor=0.9)

        agents = ([learner(0), learner(1)] if self_play
                  else [self.random_agent.RandomAgent(player_id=0, num_actions=na), learner(1)])
        t0 = _now()
        for _ in range(episodes):
            ts = env.reset()
            while not ts.last():
                pid = ts.observations["current_player"]
                ts = env.step([agents[pid].step(ts).action])
            for a in agents:
                a.step(ts)
        dt, cpu = _since(t0)
        return {"units": episodes, "seconds": dt, "cpu": cpu}

    # -- MCTS
    def mcts(self, game, simulations, seed):
        g = self.games[game]
        bot = self.pyspiel.MCTSBot(g, self.pyspiel.RandomRolloutEvaluator(1, seed), math.sqrt(2),
                                   simulations, 4000, False, seed, False)
        state = g.new_initial_state()
        t0 = _now()
        root = bot.mcts_search(state)
        dt, cpu = _since(t0)
        if root.explore_count != simulations:
            raise RuntimeError(f"OpenSpiel MCTS stopped after {root.explore_count} of "
                               f"{simulations} simulations (memory limit?)")
        return {"units": simulations, "seconds": dt, "cpu": cpu}

    # -- random playouts
    def playouts(self, game, games, seed):
        """``games`` C++ random rollouts from the initial state: one MCTS
        simulation whose evaluator performs ``games`` rollouts of the root."""
        g = self.games[game]
        bot = self.pyspiel.MCTSBot(g, self.pyspiel.RandomRolloutEvaluator(games, seed),
                                   math.sqrt(2), 1, 100, False, seed, False)
        state = g.new_initial_state()
        t0 = _now()
        root = bot.mcts_search(state)
        dt, cpu = _since(t0)
        assert root.explore_count == 1
        return {"units": games, "seconds": dt, "cpu": cpu}

    def playout_sample(self, game, games, marks_games, seed):
        """Untimed rules check: the first player's mean result (+1 win, 0 draw,
        -1 loss) over ``games`` C++ rollouts (the MCTS root's value after one
        simulation of ``games`` rollouts), and marks per game over
        ``marks_games`` random games played from Python."""
        g = self.games[game]
        bot = self.pyspiel.MCTSBot(g, self.pyspiel.RandomRolloutEvaluator(games, seed),
                                   math.sqrt(2), 1, 100, False, seed, False)
        root = bot.mcts_search(g.new_initial_state())
        mean = root.total_reward / root.explore_count
        rng = random.Random(seed)
        marks = 0
        for _ in range(marks_games):
            s = g.new_initial_state()
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
            # our moves, not OpenSpiel's actions (a free UTTT move is two actions)
            marks += self.openspiel.from_openspiel(s).ply
        return {"games": games, "mean_first": mean, "marks_games": marks_games,
                "marks_per_game": marks / marks_games}

    # -- alpha-beta
    def alphabeta(self, game, depth, count_nodes=False):
        g = self.games[game]
        vf = None
        if game == "clobber":
            vf = clobber_value_function
        mm = self.minimax
        original = mm._alpha_beta
        counter = [0]
        if count_nodes:
            def counting(*args, **kwargs):  # every position the search enters
                counter[0] += 1
                return original(*args, **kwargs)
            mm._alpha_beta = counting
        try:
            t0 = _now()
            value, move = mm.alpha_beta_search(g, value_function=vf, maximum_depth=depth)
            dt, cpu = _since(t0)
        finally:
            mm._alpha_beta = original
        return {"units": 1, "seconds": dt, "cpu": cpu, "value": value, "move": move,
                "nodes": counter[0] if count_nodes else None}


def clobber_value_function(state):
    """OpenSpiel side of the Clobber horizon evaluation (see CLOBBER_HEURISTIC):
    the number of legal moves (equal for both players in Clobber, since a
    capture is possible exactly between orthogonally adjacent opposite
    stones), scaled below the terminal +-1, from the maximizing player's
    (the root mover's) point of view."""
    return len(state.legal_actions()) / 1000.0


class Engine:
    """The ttt_engine work of every row (boards from the registry, ``ttt_engine.games``)."""

    MODULES = {"tte": "ttt_engine", "games": "ttt_engine.games", "search": "ttt_engine.search",
               "playout": "ttt_engine._core.algorithms.playout"}

    def __init__(self):
        _import_into(self, self.MODULES)
        self.random_playouts = self.playout.random_playouts

    def board(self, game):
        return self.games.get(game).new_board(**BOARD_OPTIONS.get(game, {}))

    # -- Q-learning
    def qlearning(self, episodes, self_play, seed):
        """OpenSpiel's QLearner settings: constant step size 0.1, discount 0.9,
        constant epsilon 0.7; no evaluation during training (OpenSpiel does none)."""
        kwargs = dict(episodes=episodes, alpha=0.1, gamma=0.9, epsilon=0.7, epsilon_decay=1.0,
                      epsilon_min=0.01, alpha_decay=1.0, metrics_every=0, seed=seed,
                      progress=False)
        if self_play:
            kwargs["mode"] = "self-play"
        else:
            kwargs.update(mode="random", side="O")
        t0 = _now()
        self.tte.train(**kwargs)
        dt, cpu = _since(t0)
        return {"units": episodes, "seconds": dt, "cpu": cpu}

    # -- MCTS
    def mcts(self, game, simulations, seed):
        """``simulations`` UCT simulations (c = sqrt(2), one random playout
        each) from the initial position into a fresh tree (no reuse); the tree
        arena is allocated before the clock starts, as OpenSpiel's bot is."""
        board = self.board(game)
        # An arena large enough never to fill (a full arena stops expansion,
        # which would make simulations cheaper than OpenSpiel's): every
        # simulation expands at most one node, i.e. adds at most 9 (TTT) or 81
        # (UTTT) children.
        max_nodes = min((10 if game == "ttt" else 82) * simulations + 1024, (1 << 31) - 1)
        # OpenSpiel's MCTSBot expands a node when it is reached with one visit
        # already (the first visit only rolls out from it): expand_after=1 is that rule
        mcts = self.search.MCTS(c=math.sqrt(2), max_nodes=max_nodes, seed=seed, reuse=False,
                                expand_after=1)
        t0 = _now()
        mcts.search(board, simulations=simulations)
        dt, cpu = _since(t0)
        done = mcts.stats["simulations"]
        if done != simulations:
            raise RuntimeError(f"ttt_engine MCTS ran {done} of {simulations} simulations")
        if mcts.stats["nodes_used"] + 512 > max_nodes:
            raise RuntimeError(f"ttt_engine MCTS arena filled up ({mcts.stats['nodes_used']:,} "
                               f"of {max_nodes:,} nodes)")
        return {"units": simulations, "seconds": dt, "cpu": cpu,
                "nodes_used": mcts.stats["nodes_used"]}

    # -- random playouts
    def playouts(self, game, games, seed):
        board = self.board(game)
        t0 = _now()
        r = self.random_playouts(board, games, seed=seed)
        dt, cpu = _since(t0)
        return {"units": games, "seconds": dt, "cpu": cpu, "result": r}

    def playout_sample(self, game, games, marks_games, seed):
        """Untimed rules check: the first player's mean result over ``games``
        Cython playouts, and marks per game over ``marks_games`` random games
        played on the Python Board."""
        r = self.playouts(game, games, seed)["result"]
        rng = random.Random(seed)
        marks = 0
        for _ in range(marks_games):
            b = self.board(game)
            n = 0
            while not b.is_terminal():
                b.push(rng.choice(list(b.legal_moves)))
                n += 1
            marks += n
        return {"games": games, "mean_first": (r["first_wins"] - r["second_wins"]) / games,
                "marks_games": marks_games, "marks_per_game": marks / marks_games}

    # -- alpha-beta
    def alphabeta(self, game, depth, variant, count_nodes=False):
        """variant "plain": min/max alpha-beta without table or move ordering,
        the algorithm OpenSpiel's ``alpha_beta_search`` runs; "full": negamax
        alpha-beta with transposition table and move ordering (the engine's
        default).  ``depth`` None = to the end of the game."""
        board = self.board(game)
        heuristic = 0
        if game == "clobber":
            from ttt_engine.clobber import heuristic_id
            heuristic = heuristic_id(CLOBBER_HEURISTIC, perspective="B")
        t0 = _now()
        if variant == "plain":
            r = self.search.minimax(board, depth, heuristic=heuristic, alphabeta=True)
        else:
            r = self.search.alphabeta(board, depth, heuristic=heuristic)
        dt, cpu = _since(t0)
        return {"units": 1, "seconds": dt, "cpu": cpu, "value": r.value, "move": r.best_move,
                "nodes": r.nodes, "engine_seconds": r.time}
