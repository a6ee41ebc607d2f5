"""Self-play with a Network evaluates in C (forest_selfplay_network): the same
data as calling the network from Python, and the trainer's counting wrapper
is evaluated in C and still counts."""
import numpy as np
import pytest

from ttt_engine.alphazero.loop import _CountingEvaluator
from ttt_engine.network import Network
from ttt_engine.selfplay import selfplay


class PythonCalls:
    """The network called from Python: no ``compiled`` weights."""

    def __init__(self, net):
        self.net = net
        self.calls = 0

    def __call__(self, observations, legal_mask):
        self.calls += 1
        return self.net(observations, legal_mask)


@pytest.mark.parametrize("game,sims,gumbel", [("ttt", 40, False), ("connect4", 40, False),
                                              ("ttt", 12, True), ("connect4", 12, True)])
def test_compiled_selfplay_matches_numpy(game, sims, gumbel):
    net = Network.init(game, seed=3)
    kw = dict(games=12, simulations=sims, seed=5, gumbel=gumbel, gumbel_k=4)
    slow = PythonCalls(net)
    a = selfplay(game, slow, **kw)
    b = selfplay(game, net, **kw)
    assert slow.calls > 0
    # the forward passes differ in the last float bits (C sums in another
    # order), which flips no choice here: the same games, policies equal to
    # float precision (Gumbel's completed-Q target scales the values by about
    # the visit count before its softmax: 1.3e-5 seen with numpy 2.4)
    np.testing.assert_array_equal(a.observations, b.observations)
    np.testing.assert_array_equal(a.outcomes, b.outcomes)
    np.testing.assert_allclose(a.policies, b.policies, atol=1e-4 if gumbel else 1e-5)
    assert a.stats["evaluations"] == b.stats["evaluations"]
    assert a.stats["evaluator_calls"] == b.stats["evaluator_calls"]
    again = selfplay(game, net, **kw)
    np.testing.assert_array_equal(again.policies, b.policies)


def test_forward_passes_agree_to_float_precision():
    net = Network.init("connect4", seed=3)
    data = selfplay("connect4", net, games=4, simulations=20, seed=1)
    logits, values = net(data.observations, data.masks)
    c_logits, c_values = net.compiled.forward(data.observations.reshape(len(data), -1))
    np.testing.assert_allclose(c_logits[data.masks], logits[data.masks], atol=1e-6)
    np.testing.assert_allclose(c_values, values, atol=1e-6)


def test_counting_wrapper_runs_in_c_and_counts():
    net = Network.init("ttt", seed=2)
    counting = _CountingEvaluator(net)
    assert counting.compiled is net.compiled
    data = selfplay("ttt", counting, games=6, simulations=20, seed=4)
    assert counting.calls == data.stats["evaluator_calls"] > 0
    assert counting.evaluations == data.stats["evaluations"] > 0
    reference = selfplay("ttt", PythonCalls(net), games=6, simulations=20, seed=4)
    assert counting.evaluations == reference.stats["evaluations"]
    np.testing.assert_array_equal(data.observations, reference.observations)


def test_network_of_another_game_is_one_line():
    with pytest.raises(ValueError, match="this network is for"):
        selfplay("ttt", Network.init("connect4", seed=1), games=2, simulations=4, seed=1)
