"""Connect Four in the learning loop: the board's symmetries as training data
(only the mirror: discs fall), and self-play records every position of a game."""
import numpy as np

from ttt_engine import connect4
from ttt_engine.network import Network
from ttt_engine.selfplay import augmented, selfplay, symmetries


def test_symmetries_are_identity_and_mirror():
    syms = symmetries("connect4", (2, 6, 7), 7)
    assert len(syms) == 2
    assert [list(a) for _, a in syms] == [list(range(7)), list(range(6, -1, -1))]


def test_mirrored_planes_are_the_mirrored_position():
    b, m = connect4.Board(), connect4.Board()
    for col in (0, 3, 1, 1, 6):
        b.push(col)
        m.push(6 - col)
    obs = np.asarray(b.observation())[None]
    (_, a), (mirror_obs, mirror_a) = symmetries("connect4", obs.shape[1:], 7)
    flat = obs.reshape(1, -1)
    assert np.array_equal(flat[:, mirror_obs].reshape(obs.shape)[0], np.asarray(m.observation()))
    mask = np.asarray(b.action_mask(), bool)[None]
    assert np.array_equal(mask[:, mirror_a][0], np.asarray(m.action_mask(), bool))


def test_augmented_doubles_the_positions():
    data = selfplay("connect4", Network.init("connect4", seed=3), games=4, simulations=16,
                    seed=5)
    obs, masks, pol, k = augmented("connect4", data.observations, data.masks, data.policies)
    assert k == 2 and len(obs) == 2 * len(data)
    assert np.allclose(pol[len(data):], data.policies[:, ::-1])


def test_selfplay_records_every_ply():
    assert connect4.Board().max_plies == 42
    data = selfplay("connect4", Network.init("connect4", seed=1), games=8, simulations=32,
                    seed=2, playout_weight=0.5)
    lengths = np.bincount(data.game_ids, minlength=8)
    for g in range(8):
        plies = data.plies[data.game_ids == g]
        assert list(plies) == list(range(lengths[g]))
        # replaying the recorded policy's argmax is not the game; but the game's
        # end is: a won game has at least 7 discs, a draw fills the board
        if data.outcomes[g] == 2:
            assert lengths[g] == 42
        else:
            assert lengths[g] >= 7
    assert lengths.max() > 7
