"""PolicyAgent: the network's own move, no search (the yardstick's "policy alone")."""
import pickle
import random

import numpy as np
import pytest

from ttt_engine import games
from ttt_engine.agents import PolicyAgent
from ttt_engine.network import Network

KEYS = list(games.GAMES)


@pytest.mark.parametrize("key", KEYS)
def test_plays_the_legal_move_of_largest_logit(key):
    net = Network.init(key, seed=4, hidden=(16,))
    agent = PolicyAgent(net)
    rng = random.Random(2)
    b = games.get(key).new_board()
    for _ in range(12):
        if b.is_terminal():
            break
        logits, _ = net.forward(np.asarray(b.observation())[None])
        legal = [b.move_to_action(m) for m in b.legal_moves]
        want = max(legal, key=lambda a: (logits[0][a], -a))
        move = agent.select_move(b.copy())
        assert move in b.legal_moves and b.move_to_action(move) == want
        b.push(rng.choice(list(b.legal_moves)))


def test_shipped_network_is_the_default_and_it_pickles():
    agent = PolicyAgent()
    b = games.get("ttt").new_board()
    assert agent.select_move(b) in b.legal_moves
    again = pickle.loads(pickle.dumps(agent))
    assert again.select_move(b) == agent.select_move(b)


def test_bad_input():
    with pytest.raises(TypeError, match="PolicyAgent needs a Network"):
        PolicyAgent(lambda obs, mask: None)
    agent = PolicyAgent(Network.init("connect4", seed=1, hidden=(8,)))
    with pytest.raises(ValueError):
        agent.select_move(games.get("ttt").new_board())      # another game's board
    b = games.get("connect4").new_board()
    for m in (0, 1, 0, 1, 0, 1, 0):
        b.push(m)
    with pytest.raises(ValueError, match="game is over"):
        agent.select_move(b)
