"""Big, negative, non-finite and wrongly typed numbers at the library's entry
points: a clear ValueError naming the parameter, never a raw C-conversion error."""
import inspect
import math

import numpy as np
import pytest
import ttt_engine
from ttt_engine import games
from ttt_engine import (
    MCTS,
    Board,
    QAgent,
    evaluate,
    exact_vs_random,
    optimality,
    search,
    train,
    uttt,
    worst_case,
)
from ttt_engine._core.algorithms import mcts as _mcts
from ttt_engine._core.learning.ttt import qlearning
from ttt_engine._core.algorithms import treelearn
from ttt_engine._core.algorithms.perft import perft
from ttt_engine._core.algorithms.playout import random_games, random_playouts
from ttt_engine.tree_agents import TreeQAgent

HUGE = 2**70

CASES = {
    "evaluate games": (lambda: evaluate(QAgent(), games=HUGE), "games"),
    "mcts simulations": (lambda: MCTS().search(Board(), simulations=HUGE), "simulations"),
    "mcts max_nodes": (lambda: MCTS(max_nodes=HUGE), "max_nodes"),
    "mcts seed": (lambda: MCTS(seed=-1), "seed"),
    "mcts seed huge": (lambda: MCTS(seed=HUGE), "seed"),
    "mcts c nan": (lambda: MCTS(c=math.nan), "c"),
    "train episodes": (lambda: train(episodes=HUGE, progress=False), "episodes"),
    "train chunk": (lambda: train(episodes=10, chunk=HUGE, progress=False), "chunk"),
    "tree simulations": (lambda: TreeQAgent(seed=1).search(uttt.Board(), simulations=HUGE),
                         "simulations"),
    "playouts games": (lambda: random_playouts(Board(), HUGE), "games"),
    "random_games games": (lambda: random_games(Board(), HUGE), "games"),
    "uttt playouts": (lambda: uttt.random_playouts(HUGE), "n_games"),
    "perft depth": (lambda: perft(Board(), HUGE), "depth"),
    "perft depth neg": (lambda: perft(Board(), -1), "depth"),
    "absearcher tt_size": (lambda: search.ABSearcher(HUGE), "tt_size"),
    "absearcher tt_size text": (lambda: search.ABSearcher("big"), "tt_size"),
    "alphabeta depth": (lambda: search.alphabeta(Board(), HUGE), "depth"),
    "alphabeta time nan": (lambda: search.alphabeta(Board(), time_limit=math.nan), "time_limit"),
    "core mcts_search": (lambda: _mcts.mcts_search(_mcts.MCTSTree(10_000, 1.0, 1), Board(), HUGE, 0),
                         "simulations"),
    "core tl_search": (lambda: treelearn.tl_search(treelearn.TreeLearner(10_000, 0, 1), Board(),
                                                   HUGE, 0.0), "iterations"),
    "core qtrainer run": (lambda: qlearning.QTrainer(np.zeros((19683, 9)), 0.1, 0.9, 0.5, 1.0,
                                                     0.0, 1, False, 1).run(HUGE), "episodes"),
    "core evaluate_random": (lambda: qlearning.evaluate_random(np.zeros((19683, 9)), HUGE, 1, 1),
                             "games"),
    "core evaluate_random seed": (lambda: qlearning.evaluate_random(np.zeros((19683, 9)), 10, 1,
                                                                    -1), "seed"),
    # every game's solve verbs: the compiled node counters are 64-bit
    **{f"{key} {verb} max_nodes": (
        lambda key=key, verb=verb: getattr(getattr(ttt_engine, key), verb)(
            games.get(key).new_board(), max_nodes=10**30), "max_nodes")
       for key in games.GAMES for verb in ("solve", "analyse", "optimal_moves")
       if hasattr(getattr(ttt_engine, key), verb)
       and "max_nodes" in inspect.signature(getattr(getattr(ttt_engine, key), verb)).parameters},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_number_named(case):
    call, name = CASES[case]
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("fn", [optimality, exact_vs_random, worst_case])
def test_exact_measures_refuse_non_finite_tables(fn, bad):
    q = np.zeros((19683, 9))
    q[5, 3] = bad
    with pytest.raises(ValueError, match="non-finite"):
        fn(q)
