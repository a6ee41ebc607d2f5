"""The compiled forward pass of ``Network`` (src/engine/algorithms/network.pxd) and PUCT
evaluating its leaves with it in C: equal to the numpy forward pass on every game of the
registry, the same search as the same numbers given from Python, both threads of a
tree-parallel search evaluating without Python, and clear errors."""
import os
import warnings

import numpy as np
import pytest

from ttt_engine import games, ttt, uttt
from ttt_engine._core.algorithms import network as compiled_network
from ttt_engine.network import Network
from ttt_engine.search import PUCT, _puct_part
from conftest import random_positions


def _legal_softmax(logits, masks):
    z = np.where(masks, logits.astype(np.float64), -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("game", sorted(games.GAMES))
@pytest.mark.parametrize("hidden", [(48, 40), (256, 256), (7,)])
def test_compiled_forward_equals_numpy_on_every_game(game, hidden):
    """Random networks (widths that are and are not multiples of the kernel's
    block) on random legal positions: every logit, legal or not, the legal
    moves' softmax and the value equal numpy's within float32 rounding."""
    net = Network.init(game, hidden=hidden, seed=len(hidden) * 7 + hidden[0])
    # a trained network's biases are not zero: give them some
    rng = np.random.default_rng(5)
    net.set_params({k: v + rng.normal(0, 0.1, v.shape) if k.startswith("b") else v
                    for k, v in net.params.items()})
    obs, masks = random_positions(game, 61, seed=hidden[0])
    want_l, want_v = net(obs, masks)
    got_l, got_v = net.compiled.forward(obs)
    assert got_l.shape == want_l.shape and got_v.shape == want_v.shape
    np.testing.assert_allclose(got_l, want_l, rtol=1e-5, atol=2e-5)
    np.testing.assert_allclose(got_v, want_v, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(_legal_softmax(got_l, masks), _legal_softmax(want_l, masks),
                               atol=2e-6)
    assert np.abs(want_l).max() > 0.01 and np.abs(want_v).max() > 0.001   # not trivially 0
    # one row's result does not depend on the rest of its batch
    for i in (0, 30, 60):
        l1, v1 = net.compiled.forward(obs[i:i + 1])
        assert np.array_equal(l1[0], got_l[i]) and v1[0] == got_v[i]


def test_kernels_give_the_same_bits():
    """The baseline (SSE2) and the AVX2 kernel sum in the same order without
    fused multiply-adds: the same bits (where the processor has AVX2)."""
    net = Network.init("uttt", hidden=(256, 96), seed=2)
    obs, _ = random_positions("uttt", 40, seed=3)
    best = compiled_network.kernel()
    try:
        compiled_network.use_kernel("sse2")
        base = net.compiled.forward(obs)
        if best != "avx2":
            pytest.skip("this processor has no AVX2")
        compiled_network.use_kernel("avx2")
        wide = net.compiled.forward(obs)
    finally:
        compiled_network.use_kernel(best)
    assert np.array_equal(base[0], wide[0]) and np.array_equal(base[1], wide[1])
    with pytest.raises(ValueError, match="kernel must be"):
        compiled_network.use_kernel("avx9")


def test_compiled_weights_follow_set_params_and_subclasses_are_called():
    net = Network.init("ttt", hidden=(8,), seed=1)
    first = net.compiled
    assert net.compiled is first                      # made once
    obs, masks = random_positions("ttt", 5)
    net.set_params({k: v * 2 for k, v in net.params.items()})
    assert net.compiled is not first
    np.testing.assert_allclose(net.compiled.forward(obs)[0], net(obs, masks)[0], atol=1e-5)

    class Counting(Network):
        calls = 0

        def __call__(self, observations, legal_mask=None):
            Counting.calls += 1
            return super().__call__(observations, legal_mask)

    c = Counting("ttt", net.params)
    assert c.compiled is None                          # its own forward pass: called
    PUCT(c, seed=1, batch_size=4).search(ttt.Board(), simulations=40)
    assert Counting.calls > 0


class _FromPython:
    """The compiled forward pass called from Python: the evaluator protocol
    around the very numbers the search computes in C."""

    def __init__(self, net):
        self.net = net

    def __call__(self, observations, legal_mask):
        return self.net.compiled.forward(observations)


@pytest.mark.parametrize("game,batch_size", [("ttt", 1), ("uttt", 8), ("connect4", 4)])
def test_search_in_c_equals_the_search_calling_python(game, batch_size):
    """The same evaluations given through the Python path give the same tree:
    every root child's visits, prior and mean, and the move."""
    net = Network.init(game, hidden=(32, 32), seed=9)
    board = games.get(game).new_board()
    runs = []
    for evaluator in (net, _FromPython(net)):
        p = PUCT(evaluator, seed=4, batch_size=batch_size, reuse=False)
        move = p.search(board.copy(), simulations=1500)
        runs.append((move, p.stats))
    (m1, s1), (m2, s2) = runs
    assert m1 == m2 and s1["children"] == s2["children"]
    assert s1["simulations"] == s2["simulations"] == 1500
    assert s1["evaluations"] == s2["evaluations"] and s1["evaluator_calls"] == s2["evaluator_calls"]
    # the root's priors are the legal softmax of the numpy network's logits
    obs = board.observation()[None]
    mask = board.action_mask()[None]
    want = _legal_softmax(net(obs, mask)[0], mask)[0]
    for c in s1["children"]:
        assert c["prior"] == pytest.approx(want[c["action"]], abs=1e-5)


def test_network_is_never_called_from_python(monkeypatch):
    """Both lanes of a tree-parallel search evaluate in C: the numpy forward
    pass, made to fail, is never reached."""
    net = Network.init("uttt", hidden=(64,), seed=3)

    def no_python(obs):
        raise AssertionError("the network was called from Python")

    monkeypatch.setattr(net, "_forward", no_python)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # more threads than cores
        p = PUCT(net, seed=1, batch_size=8, threads=2)
    p.search(uttt.Board(), simulations=3000)
    st = p.stats
    assert st["simulations"] == 3000 and st["evaluations"] > 2000
    assert sum(c["visits"] for c in st["children"]) == st["root_visits"] - 1
    assert st["evaluator_calls"] * 8 >= st["evaluations"] > st["evaluator_calls"]
    with pytest.raises(AssertionError, match="from Python"):
        net(uttt.Board().observation()[None])


def test_time_budget_and_stop_flag():
    net = Network.init("uttt", hidden=(32,), seed=3)
    p = PUCT(net, seed=1, batch_size=8)
    p.search(uttt.Board(), time=0.05)
    assert 0.04 < p.stats["time"] < 1.0 and p.stats["simulations"] > 8
    stop = np.ones(1, np.int32)                       # already set: one batch at most
    q = PUCT(net, seed=1, batch_size=8)
    _puct_part(q, uttt.Board(), 100_000, None, stop)
    assert q.stats["simulations"] <= 8


def test_non_finite_output_is_a_clear_error():
    net = Network.init("ttt", hidden=(8,), seed=1)
    params = dict(net.params, w0=np.full_like(net.params["w0"], 3e38))   # overflows
    huge = Network("ttt", params)
    p = PUCT(huge, seed=1, batch_size=4)
    with pytest.raises(ValueError, match=r"^evaluator Network\(ttt, 18-8-9\) returned NaN or "
                       r"infinite logits or values$"):
        p.search(ttt.Board(), simulations=50)
    with pytest.raises(ValueError, match="not finite"):
        huge.compiled.forward(random_positions("ttt", 3)[0])
    PUCT(net, seed=1).search(ttt.Board(), simulations=50)      # a good one still searches


def test_network_of_another_game_is_one_line_naming_both(tmp_path):
    from ttt_engine.agents import AZAgent
    net = Network.init("ttt", hidden=(8,), seed=1)
    with pytest.raises(ValueError, match=r"^this network is for Tic-Tac-Toe: observations "
                       r"2x3x3, 9 actions, not for Ultimate Tic-Tac-Toe: observations "
                       r"3x9x9, 81 actions$") as e:
        PUCT(net, seed=1).search(uttt.Board(), simulations=20)
    assert "\n" not in str(e.value)
    path = tmp_path / "ttt.npz"
    net.save(path)
    with pytest.raises(ValueError, match=r"^this network is for Tic-Tac-Toe: .*, not for "
                       r"Ultimate Tic-Tac-Toe: observations 3x9x9, 81 actions$") as e:
        AZAgent(str(path), simulations=20).select_move(uttt.Board())
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_the_search_in_c(threads):
    """A simulated Ctrl-C 0.2 s into an endless search raises KeyboardInterrupt
    from the C loop (every thread stops), and the object searches again."""
    import _thread
    import threading
    import time
    net = Network.init("uttt", hidden=(64,), seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = PUCT(net, seed=1, batch_size=8, threads=threads, max_nodes=50_000)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            p.search(uttt.Board(), simulations=10**12)
    finally:
        timer.cancel()
        timer.join()
    assert time.perf_counter() - start < 10
    assert p.search(uttt.Board(), simulations=200) in uttt.Board().legal_moves
    assert p.stats["simulations"] == 200


_ONE_CORE_CTRL_C = r'''
import _thread, os, sys, threading, time, warnings
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
from ttt_engine import uttt
from ttt_engine.network import Network
from ttt_engine.search import PUCT
net = Network.init("uttt", hidden=(64,), seed=3)
worst = 0.0
for i in range(8):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = PUCT(net, seed=i, batch_size=8, threads=2, max_nodes=50_000)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        p.search(uttt.Board(), simulations=10**12)
    except KeyboardInterrupt:
        pass
    timer.cancel()
    timer.join()
    worst = max(worst, time.perf_counter() - start - 0.2)
print(worst)
'''


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_ctrl_c_stops_two_threads_sharing_one_core():
    """Two lanes on one core (a busy machine) with a full arena, whose
    gatherings back every visit up under the tree's lock: the lane that
    handles Ctrl-C still gets the lock and stops the search (it waited
    10-60 s when the other lane took the lock again at once)."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _ONE_CORE_CTRL_C], capture_output=True,
                         text=True, timeout=300, check=True)
    assert float(out.stdout.split()[-1]) < 5.0
