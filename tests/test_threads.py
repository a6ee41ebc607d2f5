"""Threads: one search object shared by two threads never crashes or hangs (a
clear RuntimeError or a correct result), separate objects run side by side
without the GIL, and root-parallel search (``threads=k``) is reproducible."""
import threading
import time

import numpy as np
import pytest
from ttt_engine import (
    MCTS,
    Board,
    MCTSAgent,
    clobber,
    evaluate,
    quixo,
    search,
    train,
    uttt,
)
from ttt_engine._core.learning.ttt import qlearning
from ttt_engine._core.algorithms.playout import random_games
from ttt_engine._core.algorithms.playout import random_playouts
from ttt_engine._parallel import split_seeds
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent

BUSY = "is already searching in another thread"


def _race(calls, reps):
    """Run the callables at the same moment in their own threads, ``reps``
    times; returns the list of (result or exception) per call per repetition."""
    out = []
    for _ in range(reps):
        barrier = threading.Barrier(len(calls))
        got = [None] * len(calls)

        def run(i, barrier=barrier, got=got):
            barrier.wait()
            try:
                got[i] = calls[i]()
            except Exception as exc:      # noqa: BLE001 - the test inspects it
                got[i] = exc

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out.append(got)
    return out


def _check_outcomes(outcomes, legal, what):
    refused = 0
    for got in outcomes:
        for r, ok in zip(got, legal):
            if isinstance(r, RuntimeError):
                assert str(r) == f"this {what} {BUSY}"
                refused += 1
            else:
                assert not isinstance(r, BaseException), r
                assert r in ok
    return refused


def test_one_mcts_two_threads_uttt_and_ttt_boards():
    m = MCTS(seed=1)
    u, t = uttt.Board(), Board()
    outcomes = _race([lambda: m.search(u, simulations=300), lambda: m.search(t, simulations=300)],
                     1000)
    _check_outcomes(outcomes, [set(u.legal_moves), set(t.legal_moves)], "MCTS")
    # still a working searcher afterwards
    assert m.search(Board(), simulations=20_000) == 4


def test_one_mcts_two_threads_same_board_results_are_correct():
    m = MCTS(seed=2, reuse=False)
    b = Board()
    outcomes = _race([lambda: m.search(b, simulations=20_000)] * 2, 100)
    _check_outcomes(outcomes, [{4}, {4}], "MCTS")


def test_one_root_parallel_mcts_two_threads():
    m = MCTS(seed=3, threads=2)
    u = uttt.Board()
    outcomes = _race([lambda: m.search(u, simulations=400)] * 2, 200)
    _check_outcomes(outcomes, [set(u.legal_moves)] * 2, "MCTS")


def test_one_mcts_agent_two_threads():
    agent = MCTSAgent(simulations=300, seed=4)
    u, t = uttt.Board(), Board()
    outcomes = _race([lambda: agent.select_move(u), lambda: agent.select_move(t)], 300)
    _check_outcomes(outcomes, [set(u.legal_moves), set(t.legal_moves)], "MCTS")


@pytest.mark.parametrize("cls", [TreeQAgent, SarsaAgent])
def test_one_tree_learner_two_threads(cls):
    agent = cls(simulations=300, seed=5)
    u, t = uttt.Board(), Board()
    outcomes = _race([lambda: agent.select_move(u), lambda: agent.select_move(t)], 300)
    _check_outcomes(outcomes, [set(u.legal_moves), set(t.legal_moves)], cls.__name__)


def test_one_absearcher_two_threads():
    s = search.ABSearcher()
    x = Board()
    x.push(4)

    def value():
        return search.alphabeta(x, searcher=s).value

    outcomes = _race([value, value], 200)
    _check_outcomes(outcomes, [{0.0}, {0.0}], "ABSearcher")


def test_module_level_searches_in_two_threads_are_independent():
    boards = [Board(), Board()]
    boards[1].push(0)
    boards[1].push(1)        # X to move with a forced win
    want = [search.alphabeta(b).value for b in boards]
    outcomes = _race([lambda: search.alphabeta(boards[0]).value,
                      lambda: search.alphabeta(boards[1]).value], 200)
    assert all(got == want for got in outcomes)


def test_one_qtrainer_two_threads():
    q = np.zeros((19683, 9))
    tr = qlearning.QTrainer(q, 0.1, 0.9, 0.5, 1.0, 0.01, 1, False, 7)
    outcomes = _race([lambda: tr.run(20_000), lambda: tr.run(20_000)], 100)
    runs = 0
    for got in outcomes:
        for r in got:
            if isinstance(r, RuntimeError):
                assert str(r) == "this QTrainer is already training in another thread"
            else:
                assert sum(r) == 20_000
                runs += 1
    assert tr.episodes == 20_000 * runs


def test_searches_release_the_gil():
    """While a search runs in another thread, this thread keeps running Python."""
    done = threading.Event()
    t = threading.Thread(target=lambda: (MCTS(seed=1).search(uttt.Board(), time=0.5),
                                         done.set()))
    t.start()
    spins = 0
    while not done.is_set():
        spins += 1
    t.join()
    assert spins > 10_000


# ---------------------------------------------------------------- root parallelism
GAMES = {
    "ttt": Board,
    "uttt": uttt.Board,
    "clobber": clobber.Board,
    "quixo": quixo.Board,
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_root_parallel_mcts_every_game_reproducible(game):
    board = GAMES[game]()
    runs = []
    for _ in range(2):
        m = MCTS(seed=11, threads=2, max_nodes=200_000)
        move = m.search(board, simulations=3000)
        runs.append((move, m.stats["children"]))
        assert move in board.legal_moves
        assert m.stats["simulations"] == 3000
        assert m.stats["threads"] == 2
        assert 0 < sum(c["visits"] for c in m.stats["children"]) <= m.stats["root_visits"]
    assert runs[0] == runs[1]


def test_root_parallel_sums_the_trees():
    """threads=2 == the two single-tree searches with the split seeds, summed."""
    b = uttt.Board()
    m = MCTS(seed=21, threads=2, reuse=False)
    m.search(b, simulations=4000)
    visits = {}
    for s in split_seeds(m.seed, 2):
        one = MCTS(seed=s, reuse=False)
        one.search(b, simulations=2000)
        for c in one.stats["children"]:
            visits[c["move"]] = visits.get(c["move"], 0) + c["visits"]
    assert {c["move"]: c["visits"] for c in m.stats["children"]} == visits
    assert visits[m.stats["best_move"]] == max(visits.values())


def test_root_parallel_plays_well_and_reuses():
    b = Board()
    m = MCTS(seed=5, threads=2)
    assert m.search(b, simulations=40_000) == 4
    b.push(4)
    b.push(0)
    move = m.search(b, simulations=20_000)
    assert m.stats["reused"]
    assert move in b.legal_moves


def test_root_parallel_solver_finds_the_win():
    b = Board()
    for mv in (0, 3, 1, 4):     # X to move: 2 wins at once
        b.push(mv)
    m = MCTS(seed=1, threads=2, solver=True)
    assert m.search(b, simulations=10_000) == 2
    assert m.stats["root_proven"] == 1


def test_mcts_agent_threads():
    a = MCTSAgent(simulations=2000, seed=3, threads=2)
    assert a.threads == 2
    assert a.select_move(uttt.Board()) == MCTSAgent(simulations=2000, seed=3,
                                                    threads=2).select_move(uttt.Board())


def test_threads_one_is_the_single_tree_search():
    a, b = MCTS(seed=8), MCTS(seed=8, threads=1)
    assert a.search(uttt.Board(), simulations=3000) == b.search(uttt.Board(), simulations=3000)
    assert a.stats["children"] == b.stats["children"]


def test_evaluate_threads_reproducible_and_complete():
    agent = train(episodes=20_000, seed=1, progress=False, metrics_every=0)
    one = evaluate(agent, games=10_001, seed=4)
    assert one == evaluate(agent, games=10_001, seed=4, threads=1)
    two = evaluate(agent, games=10_001, seed=4, threads=2)
    assert two == evaluate(agent, games=10_001, seed=4, threads=2)
    assert two.games == 10_001
    assert abs(two.win_rate - one.win_rate) < 0.05


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_random_playouts_threads(threads):
    r = random_games(uttt.Board(), 3001, seed=5, threads=threads)
    again = random_games(uttt.Board(), 3001, seed=5, threads=threads)
    assert r["plies"] == again["plies"] and list(r["lengths"]) == list(again["lengths"])
    assert r["first_wins"] + r["second_wins"] + r["draws"] == 3001
    g = random_playouts(uttt.Board(), 3001, seed=5, threads=threads)
    assert g == random_playouts(uttt.Board(), 3001, seed=5, threads=threads)
    assert g["first_wins"] + g["second_wins"] + g["draws"] == 3001


def test_random_playouts_one_thread_unchanged():
    # the single-threaded stream is the seed's own: same counts as a direct run
    from ttt_engine._core.algorithms.playout import _playouts_part
    counts = _playouts_part(uttt.Board(), 2000, 5)
    r = random_playouts(uttt.Board(), 2000, seed=5)
    assert (r["first_wins"], r["second_wins"], r["draws"]) == (counts[1], counts[2], counts[3])


@pytest.mark.parametrize("bad", [0, -1, 257, 1.5, "2", True])
def test_threads_validated(bad):
    for call in (lambda: MCTS(threads=bad),
                 lambda: random_games(uttt.Board(), 10, threads=bad),
                 lambda: evaluate(np.zeros((19683, 9)), games=10, threads=bad)):
        with pytest.raises(ValueError, match="threads"):
            call()


def test_one_puct_two_threads():
    from ttt_engine.evaluators import UniformEvaluator
    p = search.PUCT(UniformEvaluator(), seed=1)
    u, t = uttt.Board(), Board()
    outcomes = _race([lambda: p.search(u, simulations=300), lambda: p.search(t, simulations=300)],
                     300)
    _check_outcomes(outcomes, [set(u.legal_moves), set(t.legal_moves)], "PUCT")
    assert p.search(Board.from_string("XX.OO...."), simulations=400) == 2


def test_one_batch_env_two_threads_is_refused_not_raced():
    from ttt_engine.envs import BatchEnv
    env = BatchEnv("clobber", 20000, seed=0, autoreset=True)

    def steps():
        for _ in range(40):
            acts = env.random_actions().copy()
            # every action drawn is in range: the arrays were not stepped meanwhile
            assert acts.min() >= 0 and acts.max() < env.num_actions
            env.step(acts)
        return "done"

    refused = 0
    for got in _race([steps, steps], 5):
        for r in got:
            if isinstance(r, RuntimeError):
                assert "this BatchEnv is already stepping in another thread" in str(r)
                refused += 1
            else:
                assert r == "done", r
    assert refused > 0          # 20,000 games a step: the two threads meet
    env.step(env.random_actions().copy())       # usable again afterwards
    env.reset(seed=3)


def _while_busy(start, calls):
    """Start ``start(progress)`` in a thread and, once its search has called
    ``progress`` (so it holds the object), run each of ``calls`` here; the
    search is let go on afterwards.  Returns each call's result or exception."""
    inside, release = threading.Event(), threading.Event()

    def progress(*_):
        inside.set()
        release.wait(30)

    t = threading.Thread(target=start, args=(progress,))
    t.start()
    try:
        assert inside.wait(30)
        got = []
        for call in calls:
            try:
                got.append(call())
            except Exception as exc:      # noqa: BLE001 - the test inspects it
                got.append(exc)
    finally:
        release.set()
        t.join()
    return got


def test_one_clobber_solver_two_threads_is_refused():
    s = clobber.Solver(16, 12)
    b = clobber.Board(5, 4)
    want = clobber.Solver(16, 12).solve(b)[:3]
    got = _while_busy(lambda p: s.solve(b, progress=p, report_every=1e-6),
                      [lambda: s.solve(b), s.clear, lambda: s.configure(dfpn=True),
                       lambda: s.outcome_of(1, 2), lambda: s.probe(1, 2),
                       lambda: s.import_entries(np.zeros((1, 3), np.uint64)),
                       s.export_entries, s.reset_counters])
    for r in got:
        assert isinstance(r, RuntimeError), r
        assert str(r) == ("this Solver is already solving in another thread: "
                          "use one Solver per thread")
    assert s.settings["dfpn"] is False
    assert s.solve(b)[:3] == want         # usable, and its table unharmed


@pytest.mark.parametrize("game", sorted(GAMES))
def test_perft_leaves_a_shared_board_alone(game):
    """perft counts on a copy: another thread sees the board unmoved meanwhile,
    and two perfts of one board at once both count right."""
    import importlib
    module = importlib.import_module(f"ttt_engine.{game}")
    board = GAMES[game]()
    want, deep = module.perft(board, 2), module.perft(board, 3)
    snapshot = board.copy()
    stop = threading.Event()
    t = threading.Thread(target=lambda: [module.perft(board, 4) for _ in iter(stop.is_set, True)])
    t.start()
    try:
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            assert board == snapshot and board.legal_moves == snapshot.legal_moves
    finally:
        stop.set()
        t.join()
    outcomes = _race([lambda: module.perft(board, 3), lambda: module.perft(board, 2)], 50)
    assert all(got == [deep, want] for got in outcomes)
    assert board == snapshot


def test_one_game_env_two_threads_is_refused_not_raced():
    from ttt_engine.envs.gymnasium import GameEnv
    inside, release = threading.Event(), threading.Event()

    class Slow:
        """Replies with its first legal move; its first reply waits to be let go."""
        calls = 0

        def select_move(self, board):
            Slow.calls += 1
            if Slow.calls == 1:
                inside.set()
                release.wait(30)
            return board.legal_moves[0]

    env = GameEnv("ttt", opponent=Slow())
    env.reset()
    t = threading.Thread(target=env.step, args=(4,))
    t.start()
    try:
        assert inside.wait(30)
        for call in (lambda: env.step(0), env.reset):
            with pytest.raises(RuntimeError, match="^this GameEnv is already stepping in "
                                                   "another thread: use one GameEnv per thread$"):
                call()
    finally:
        release.set()
        t.join()
    assert env.board.moves == [4, 0]         # the one step and its reply, nothing else
    env.step(8)                               # usable again afterwards


def _uttt_alphabeta(board):
    r = search.alphabeta(board, depth=10, iterative=True)
    return r.value, r.best_move, r.nodes


@pytest.mark.parametrize("run", [
    lambda b: (lambda m: (m.search(b, simulations=150_000), m.stats["children"]))(MCTS(seed=1)),
    lambda b: uttt.random_playouts(b, 300_000, seed=1),
    lambda b: (lambda a: (a.search(b, simulations=80_000), a.root_children()))(
        TreeQAgent(seed=1)),
    _uttt_alphabeta,
], ids=["mcts", "random_playouts", "treeq", "alphabeta"])
def test_a_search_reads_the_board_it_was_given_not_later_moves(run):
    """The compiled searches read the root without the GIL: each works on the
    position at its call, whatever another thread plays on the caller's
    board meanwhile (the result equals the undisturbed one's, same seed)."""
    board = uttt.Board()
    want = run(board.copy())
    moved = threading.Event()

    def play_on():
        time.sleep(0.03)            # the search is under way (it takes > 0.1 s)
        board.push(board.legal_moves[40])
        moved.set()

    t = threading.Thread(target=play_on)
    t.start()
    got = run(board)
    t.join()
    assert moved.is_set() and board.ply == 1
    assert got == want


@pytest.mark.parametrize("make", ["raw_env", "env"])
def test_one_aec_env_two_threads_is_refused_not_interleaved(make):
    """A second thread's step or reset while one step runs is a RuntimeError
    naming the rule (steps interleaved at random failed as illegal moves)."""
    from ttt_engine.envs import pettingzoo as pz
    inside, release = threading.Event(), threading.Event()

    class Slow:
        """The env's board, whose first push waits to be let go."""
        def __init__(self, board):
            self.board, self.pushes = board, 0

        def push(self, move):
            self.pushes += 1
            if self.pushes == 1:
                inside.set()
                release.wait(30)
            self.board.push(move)

        def __getattr__(self, name):
            return getattr(self.board, name)

    env = getattr(pz, make)(game="ttt")
    env.reset()
    bare = env.unwrapped
    bare.board = Slow(bare.board)
    t = threading.Thread(target=env.step, args=(4,))
    t.start()
    try:
        assert inside.wait(30)
        name = type(bare).__name__
        for call in (lambda: env.step(0), env.reset):
            with pytest.raises(RuntimeError, match=f"^this {name} is already stepping in "
                                                   f"another thread: use one {name} per thread$"):
                call()
    finally:
        release.set()
        t.join()
    assert bare.board.moves == [4]              # the one step, nothing else
    env.step(0)                                 # usable again afterwards
    assert bare.board.moves == [4, 0]
