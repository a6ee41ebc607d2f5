"""Deterministic outputs of the engine, for checking that a change of the code
changes no result: perft and alpha-beta node counts, MCTS / PUCT / tree-learning
statistics with fixed seeds, a Q-table after seeded training, random playouts,
batched-environment trajectories and a Quixo solution.

Run it on two builds and compare the files (identical = no result changed)::

    PYTHONPATH=<old checkout>/python python bench/fingerprint.py > old.json
    PYTHONPATH=python python bench/fingerprint.py > new.json
    diff old.json new.json
"""
import hashlib
import json
import sys

import numpy as np

import ttt_engine
from ttt_engine import games, quixo, search
from ttt_engine.envs import BatchEnv
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent

out = {}
def put(k, v):
    out[k] = v


def _exact(stats):
    """The statistics that do not depend on timing (no floats: times, rates)."""
    return {str(a): b for a, b in sorted(stats.items()) if not isinstance(b, float)}


def boards():
    res = {}
    for key, opts, plies in [("ttt", {}, 2), ("uttt", {}, 6), ("clobber", {"rows": 5, "cols": 5}, 4),
                             ("quixo", {"size": 5}, 6)]:
        g = games.get(key)
        b = g.new_board(**opts)
        res[key + "0"] = b.copy()
        rng = np.random.default_rng(7)
        for _ in range(plies):
            b.push(b.legal_moves[rng.integers(len(b.legal_moves))])
        res[key + "1"] = b
    return res

B = boards()
for k, depth in [("ttt0", 9), ("uttt0", 4), ("uttt1", 4), ("clobber0", 4), ("clobber1", 4), ("quixo0", 3), ("quixo1", 3)]:
    put(f"perft/{k}/{depth}", games.of_board(B[k]).module.perft(B[k], depth))
for k, depth in [("ttt0", None), ("ttt1", None), ("uttt0", 5), ("uttt1", 6), ("clobber0", 5), ("clobber1", 6), ("quixo0", 3), ("quixo1", 3)]:
    r = search.alphabeta(B[k], depth)
    put(f"ab/{k}/{depth}", [r.value, r.best_move, r.nodes])
    r = search.minimax(B[k], min(depth or 9, 4 if k.startswith("ttt") is False else 9), alphabeta=True)
    put(f"negamax-ab/{k}", [r.value, r.best_move, r.nodes])
for k in ["ttt0", "uttt0", "uttt1", "clobber0", "clobber1", "quixo0", "quixo1"]:
    for kw in [{}, {"solver": True}, {"playout": "decisive"} if k[:-1] in ("uttt", "quixo") else {"expand_after": 1}]:
        m = search.MCTS(seed=11, **kw)
        mv = m.search(B[k], simulations=5000)
        st = m.stats
        put(f"mcts/{k}/{sorted(kw.items())}", [mv, _exact(st)])
for k in ["ttt0", "uttt1", "clobber1", "quixo1"]:
    for bs in (1, 8):
        p = search.PUCT(UniformEvaluator(playouts=1), seed=5, batch_size=bs)
        mv = p.search(B[k], simulations=800)
        st = p.stats
        put(f"puct/{k}/{bs}", [mv, _exact(st)])
for cls in (TreeQAgent, SarsaAgent):
    a = cls(simulations=3000, seed=3)
    put(f"tree/{cls.__name__}", [a.select_move(B["uttt1"]), str(a.root_children()), a.root_visits])
# Q-learning
q = ttt_engine.train(episodes=20000, seed=4, progress=False)
table = getattr(q, "q", None)
if table is None:
    table = getattr(q, "table")
put("qlearning/sha", hashlib.sha256(np.ascontiguousarray(table).tobytes()).hexdigest())
# random playouts
for k in ["ttt0", "uttt0", "clobber0", "quixo0"]:
    put(f"playouts/{k}", str(games.of_board(B[k]).module.random_playouts(B[k], 2000, seed=9)))
for key in ("ttt", "uttt", "clobber", "quixo"):
    e = BatchEnv(key, 32, seed=2, autoreset=True)
    h = hashlib.sha256()
    for _ in range(200):
        a = e.random_actions().copy()
        obs, r, te, tr = e.step(a)
        for arr in (obs, r, te, tr):
            h.update(arr.tobytes())
        h.update(e.legal_action_mask.tobytes())
    put(f"batch/{key}", h.hexdigest())
put("quixo/solution3", quixo.solution(3).value(quixo.Board(3)))
json.dump(out, sys.stdout, indent=1, sort_keys=True, default=str)
