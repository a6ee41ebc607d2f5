"""One agent protocol for every agent: select_move / name / reset, the budget
keywords, last_stats, deprecated aliases, and pickling (in-process and across
a process boundary)."""
import math
import pickle
import warnings

import pytest

from conftest import self_play_moves

import ttt_engine
from ttt_engine import agents as A
from ttt_engine._parallel import process_pool
from ttt_engine import clobber, quixo, uttt
from ttt_engine.clobber.play import ClobberAgent
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent


_TABLE = None


def _quixo_table():
    global _TABLE
    if _TABLE is None:
        _TABLE, _ = quixo.collect_values(300, seed=4)
    return _TABLE


_QAGENT = None


def _qagent():
    global _QAGENT
    if _QAGENT is None:
        _QAGENT = ttt_engine.train(30_000, seed=1, progress=False, metrics_every=0)
    return _QAGENT


# (id, factory(seed) -> agent, board factory, plies to play)
AGENTS = [
    ("random", lambda s: A.RandomAgent(seed=s), ttt_engine.Board, 9),
    ("perfect", lambda s: A.PerfectAgent(randomize=True, seed=s), ttt_engine.Board, 9),
    ("alphabeta", lambda s: A.AlphaBetaAgent(depth=2, seed=s), lambda: clobber.Board(4, 4), 6),
    ("minimax", lambda s: A.MinimaxAgent(depth=2, seed=s), ttt_engine.Board, 9),
    ("mcts", lambda s: A.MCTSAgent(simulations=300, seed=s), uttt.Board, 6),
    ("treeq", lambda s: TreeQAgent(simulations=300, seed=s, max_nodes=200_000), uttt.Board, 6),
    ("sarsa", lambda s: SarsaAgent(simulations=300, seed=s, max_nodes=200_000), uttt.Board, 6),
    ("qagent", lambda s: _qagent(), ttt_engine.Board, 9),
    ("quixo-random", lambda s: quixo.RandomAgent(seed=s), quixo.Board, 20),
    ("quixo-heuristic", lambda s: quixo.HeuristicAgent(seed=s), quixo.Board, 20),
    ("quixo-greedy", lambda s: quixo.GreedyValueAgent(_quixo_table(), epsilon=0.3, seed=s),
     quixo.Board, 20),
    ("clobber", lambda s: ClobberAgent("alphabeta-tt", "adaptive", 2, seed=s),
     lambda: clobber.Board(4, 4), 6),
]
IDS = [a[0] for a in AGENTS]
SEARCHERS = {"alphabeta", "minimax", "mcts", "treeq", "sarsa", "clobber"}


def _play_in_worker(payload):
    agent, board_factory_index, plies = payload
    return self_play_moves(agent, AGENTS[board_factory_index][2], plies)


@pytest.mark.parametrize("key, factory, board_factory, plies", AGENTS, ids=IDS)
def test_protocol_surface(key, factory, board_factory, plies):
    agent = factory(5)
    assert isinstance(agent.name, str) and agent.name
    assert callable(agent.select_move) and callable(agent.reset)
    board = board_factory()
    move = agent.select_move(board)
    assert move in board.legal_moves
    if key in SEARCHERS:
        stats = agent.last_stats
        assert isinstance(stats, dict) and stats
        assert stats["best_move"] == move and stats["time"] >= 0
    agent.reset()
    agent.reset(seed=11)
    assert agent.select_move(board_factory()) in board_factory().legal_moves


@pytest.mark.parametrize("key, factory, board_factory, plies", AGENTS, ids=IDS)
def test_pickled_agent_plays_the_sameself_play_moves(key, factory, board_factory, plies):
    agent = factory(7)
    clone = pickle.loads(pickle.dumps(agent))
    assert type(clone) is type(agent) and clone.name == agent.name
    assert getattr(clone, "seed", None) == getattr(agent, "seed", None)
    assert self_play_moves(clone, board_factory, plies) == self_play_moves(agent, board_factory, plies)
    # an agent that has played pickles to the agent as constructed; after
    # reset(seed) on both sides they play alike again
    clone = pickle.loads(pickle.dumps(agent))
    agent.reset(seed=21)
    clone.reset(seed=21)
    assert self_play_moves(clone, board_factory, plies) == self_play_moves(agent, board_factory, plies)


def test_pickled_random_agents_keep_their_seed():
    # the test above cannot pass by accident for random players: other seeds differ
    for make in (lambda s: A.RandomAgent(seed=s), lambda s: quixo.RandomAgent(seed=s)):
        board = quixo.Board() if make(0).__class__.__module__.endswith("quixo.agents") \
            else ttt_engine.Board()
        seqs = {tuple(self_play_moves(pickle.loads(pickle.dumps(make(s))), type(board), 9))
                for s in range(6)}
        assert len(seqs) > 1


def test_agents_cross_a_process_boundary():
    """Every agent, pickled into a worker process that did not import it (the package's
    pool: forkserver or spawn), plays what it plays here."""
    payloads = [(factory(9), i, plies) for i, (_, factory, _, plies) in enumerate(AGENTS)]
    expected = [self_play_moves(pickle.loads(pickle.dumps(a)), AGENTS[i][2], p) for a, i, p in payloads]
    with process_pool(2) as pool:
        got = list(pool.map(_play_in_worker, payloads))
    assert got == expected


# ------------------------------------------------------------------ budget keywords
BUDGETS = [
    # class, kwargs that build it, the budget keywords it does not use
    (A.RandomAgent, {}, ("simulations", "time", "depth")),
    (A.PerfectAgent, {}, ("simulations", "time", "depth")),
    (A.AlphaBetaAgent, {"depth": 2}, ("simulations",)),
    (A.MinimaxAgent, {"depth": 2}, ("simulations",)),
    (A.MCTSAgent, {"simulations": 10}, ("depth",)),
    (TreeQAgent, {"simulations": 10, "max_nodes": 10_000}, ("depth",)),
    (SarsaAgent, {"simulations": 10, "max_nodes": 10_000}, ("depth",)),
    (quixo.RandomAgent, {}, ("simulations", "time", "depth")),
    (quixo.HeuristicAgent, {}, ("simulations", "time", "depth")),
    (ClobberAgent, {"depth": 2}, ("simulations",)),
]


@pytest.mark.parametrize("cls, kwargs, unused", BUDGETS, ids=[b[0].__name__ for b in BUDGETS])
def test_budget_keywords_accepted_uniformly(cls, kwargs, unused):
    # all four keywords may be passed; the unused ones as None
    full = dict(kwargs, seed=3)
    for k in ("simulations", "time", "depth"):
        full.setdefault(k, None)
    agent = cls(**full)
    assert agent.seed == 3
    for k in unused:
        with pytest.raises(ValueError, match=f"{k} does not apply"):
            cls(**dict(kwargs, **{k: 5}))


def test_greedy_agent_budget_keywords_and_bad_values():
    t = _quixo_table()
    assert quixo.GreedyValueAgent(t, seed=1, simulations=None, time=None, depth=None).seed == 1
    with pytest.raises(ValueError, match="depth does not apply"):
        quixo.GreedyValueAgent(t, depth=3)
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match=r"unknown must be in \[0, 1\], got"):
            quixo.GreedyValueAgent(t, unknown=bad)
    with pytest.raises(ValueError, match=r"unknown must be in \[0, 1\]"):
        quixo.GreedyValueAgent(t, unknown=2.0)
    with pytest.raises(ValueError, match="unknown must be a number"):
        quixo.GreedyValueAgent(t, unknown=None)
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, 1\], got nan"):
        quixo.GreedyValueAgent(t, epsilon=math.nan)
    with pytest.raises(ValueError, match="values must be a quixo.ValueTable.*NoneType"):
        quixo.GreedyValueAgent(None)
    for cls in (quixo.RandomAgent, quixo.HeuristicAgent):
        for seed in (-1, 2**70, 1.5, "x", True):
            with pytest.raises(ValueError, match="seed"):
                cls(seed=seed)
    with pytest.raises(ValueError, match="plays Quixo, got a Tic-Tac-Toe board"):
        quixo.RandomAgent(seed=1).select_move(ttt_engine.Board())


def test_seed_none_is_fresh_for_quixo_agents():
    seeds = {quixo.RandomAgent().seed for _ in range(5)}
    assert len(seeds) == 5


def test_deprecated_aliases_still_work():
    with pytest.warns(DeprecationWarning, match="time_limit"):
        a = A.AlphaBetaAgent(depth=3, time_limit=0.5)
    assert a.time == a.time_limit == 0.5
    with pytest.warns(DeprecationWarning, match="time_limit"):
        m = A.MinimaxAgent(depth=2, time_limit=1.0)
    assert m.time == 1.0
    with pytest.warns(DeprecationWarning, match="iterations"):
        t = TreeQAgent(iterations=50)
    assert t.simulations == t.iterations == 50
    with pytest.warns(DeprecationWarning, match="iterations"):
        assert t.search(uttt.Board(), iterations=20) in range(81)
    assert t.last_stats["simulations"] == 20
    with pytest.warns(DeprecationWarning, match="time_limit"):
        c = ClobberAgent("alphabeta", "safe", 3, time_limit=0.2)
    assert c.time == c.time_limit == 0.2
    with pytest.raises(ValueError, match="not both"):
        A.AlphaBetaAgent(time=1, time_limit=1)
    with pytest.raises(ValueError, match="not both"):
        SarsaAgent(simulations=5, iterations=5)
    # positional use keeps its meaning without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert A.AlphaBetaAgent(3, 0, 0.5).time == 0.5
        assert ClobberAgent("minimax", "adaptive", 2, 0.5).time == 0.5
        assert TreeQAgent(40).simulations == 40


def test_old_statistics_names_are_aliases():
    m = A.MCTSAgent(simulations=50, seed=1)
    m.select_move(ttt_engine.Board())
    assert m.stats == m.last_stats and m.last_stats["simulations"] == 50
    a = A.AlphaBetaAgent(depth=2)
    a.select_move(ttt_engine.Board())
    assert a.last_result.nodes == a.last_stats["nodes"] > 0
    c = ClobberAgent("minimax", "adaptive", 2)
    assert c.last is None
    c.select_move(clobber.Board(4, 4))
    assert c.last == c.last_stats and c.last["seconds"] == c.last_stats["time"]


def test_qagent_pickle_keeps_learned_table():
    q = _qagent()
    back = pickle.loads(pickle.dumps(q))
    assert back.q.tobytes() == q.q.tobytes() and back.history == q.history
    assert (back.seed, back.episodes, back.mode) == (q.seed, q.episodes, q.mode)


def test_value_table_pickles():
    t = _quixo_table()
    back = pickle.loads(pickle.dumps(t))
    for a, b in zip(t.to_arrays(), back.to_arrays()):
        assert a.tobytes() == b.tobytes()
    assert back.size == t.size and back.symmetric == t.symmetric
    sym, _ = quixo.collect_values(100, seed=2, symmetric=True, size=4)
    back = pickle.loads(pickle.dumps(sym))
    assert back.symmetric and back.size == 4 and len(back) == len(sym)
