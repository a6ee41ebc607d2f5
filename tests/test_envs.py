"""Board action surface and the batched core (``ttt_engine.envs.BatchEnv``)."""
import random

import numpy as np
import pytest
from ttt_engine._core.games.clobber import board as clobber
from ttt_engine._core.games.quixo import board as quixo
from ttt_engine._core.games.ttt import board as ttt
from ttt_engine._core.games.uttt import board as uttt
from ttt_engine.envs import BatchEnv
from ttt_engine.envs._games import new_board

GAMES = [("ttt", {}), ("uttt", {}), ("uttt", {"tiebreak": True}), ("clobber", {}), ("clobber", {"rows": 3, "cols": 7}),
         ("clobber", {"rows": 1, "cols": 2}), ("clobber", {"rows": 3, "cols": 3}),
         ("clobber", {"rows": 2, "cols": 1}),
         ("clobber", {"rows": 8, "cols": 8}), ("quixo", {}), ("quixo", {"size": 3, "max_plies": 12}),
         ("quixo", {"size": 4})]
IDS = [g + "".join(f"-{k}{v}" for k, v in o.items()) for g, o in GAMES]


def _random_positions(game, options, n_games, seed):
    """Boards met along random games (every position of each game)."""
    rng = random.Random(seed)
    for _ in range(n_games):
        b = new_board(game, options)
        yield b.copy()
        while not b.is_terminal():
            b.push(rng.choice(b.legal_moves))
            yield b.copy()


def _expected_planes(b):
    """Observation planes computed from the board's public cells (independent of the C writers)."""
    if isinstance(b, ttt.Board):
        me = 1 if b.to_move == "X" else 2
        cells = np.array(b.cells).reshape(3, 3)
        return np.stack([cells == me, cells == 3 - me]).astype(np.int8)
    if isinstance(b, uttt.Board):
        me = 1 if b.to_move == "X" else 2
        cells = np.array(b.cells).reshape(9, 9)
        legal = np.zeros(81, np.int8)
        legal[b.legal_moves] = 1
        return np.stack([cells == me, cells == 3 - me, legal.reshape(9, 9)]).astype(np.int8)
    if isinstance(b, clobber.Board):
        grid = np.array([[b.cell(r, c) for c in range(b.cols)] for r in range(b.rows)])
        me = b.to_move if b.to_move in "BW" else "B"
        other = "W" if me == "B" else "B"
        return np.stack([grid == me, grid == other]).astype(np.int8)
    n = b.size
    me = 1 if b.to_move == "X" else 2
    cells = np.array(b.cells).reshape(n, n)
    return np.stack([cells == me, cells == 3 - me]).astype(np.int8)


@pytest.mark.parametrize("game,options", GAMES, ids=IDS)
def test_board_action_surface(game, options):
    for b in _random_positions(game, options, 20, seed=1):
        mask = b.action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (b.num_actions,)
        legal = sorted(b.move_to_action(m) for m in b.legal_moves)
        assert np.flatnonzero(mask).tolist() == legal
        for m in b.legal_moves:
            assert b.action_to_move(b.move_to_action(m)) == m
        obs = b.observation()
        assert obs.dtype == np.int8
        np.testing.assert_array_equal(obs, _expected_planes(b))


def test_num_actions_per_game():
    assert ttt.Board().num_actions == 9
    assert uttt.Board().num_actions == 81
    assert clobber.Board(6, 5).num_actions == 120
    assert clobber.Board(3, 7).num_actions == 84
    assert quixo.Board(5).num_actions == 100
    assert quixo.Board(3).num_actions == 36
    assert ttt.Board().observation().shape == (2, 3, 3)
    assert uttt.Board().observation().shape == (3, 9, 9)
    assert clobber.Board(3, 7).observation().shape == (2, 3, 7)
    assert quixo.Board(4).observation().shape == (2, 4, 4)


@pytest.mark.parametrize("game,options", [("ttt", {}), ("uttt", {}), ("clobber", {}),
                                          ("clobber", {"rows": 1, "cols": 3}), ("quixo", {}),
                                          ("quixo", {"size": 3})])
def test_board_action_errors(game, options):
    b = new_board(game, options)
    for bad in (-1, b.num_actions, 10 ** 9):
        with pytest.raises(ValueError, match=f"0..{b.num_actions - 1}"):
            b.action_to_move(bad)
    with pytest.raises(ValueError):
        b.action_to_move("3")
    with pytest.raises(ValueError, match="action must be an integer"):
        b.action_to_move(True)                 # a bool is no action


def test_a_bool_is_no_action_of_the_single_game_envs():
    from ttt_engine.envs.gymnasium import GameEnv
    from ttt_engine.envs.pettingzoo import GameAECEnv
    env = GameEnv("ttt")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an integer in 0..8, got True"):
        env.step(True)
    aec = GameAECEnv("ttt")
    aec.reset()
    with pytest.raises(ValueError, match="action True is out of range"):
        aec.step(True)
    assert aec.board.moves == []


def _reference_step(boards, done, actions, autoreset, game, options, cap_truncates):
    """The batched rules played one game at a time on Boards."""
    n = len(boards)
    rew = np.zeros((n, 2), np.float32)
    term = np.zeros(n, bool)
    trunc = np.zeros(n, bool)
    for i in range(n):
        b = boards[i]
        if done[i]:
            if autoreset:
                boards[i] = new_board(game, options)
                done[i] = None
            else:
                term[i], trunc[i] = done[i] == "term", done[i] == "trunc"
            continue
        a = int(actions[i])
        mover = 0 if b.to_move in ("X", "B") else 1
        if not b.action_mask()[a]:
            rew[i, mover], rew[i, 1 - mover] = -1, 1
            term[i] = True
            done[i] = "illegal"
            continue
        b.push(b.action_to_move(a))
        if b.is_terminal():
            w = b.winner
            if w == "draw":
                if cap_truncates:
                    trunc[i] = True
                    done[i] = "trunc"
                else:
                    term[i] = True
                    done[i] = "term"
            else:
                first_won = w in ("X", "B")
                rew[i] = (1, -1) if first_won else (-1, 1)
                term[i] = True
                done[i] = "term"
    for i in range(n):
        if done[i] == "illegal":
            done[i] = "term"
    return rew, term, trunc


@pytest.mark.parametrize("autoreset", [False, True])
@pytest.mark.parametrize("game,options", GAMES, ids=IDS)
def test_batch_equals_boards_one_by_one(game, options, autoreset):
    n = 32
    env = BatchEnv(game, n, seed=7, autoreset=autoreset, **options)
    boards = [new_board(game, options) for _ in range(n)]
    done = [None] * n
    rng = np.random.default_rng(3)
    cap = game == "quixo"
    steps = 0
    for t in range(400):
        acts = env.random_actions().copy()
        # one action in 40 is any in-range action (mostly illegal)
        wild = rng.random(n) < 0.025
        acts[wild] = rng.integers(0, env.num_actions, wild.sum())
        if not autoreset and t % 60 == 59:
            which = rng.random(n) < 0.5
            env.reset(which)
            for i in np.flatnonzero(which):
                boards[i] = new_board(game, options)
                done[i] = None
        exp_rew, exp_term, exp_trunc = _reference_step(boards, done, acts, autoreset, game, options, cap)
        obs, rew, term, trunc = env.step(acts)
        steps += n
        np.testing.assert_array_equal(rew, exp_rew)
        np.testing.assert_array_equal(term, exp_term)
        np.testing.assert_array_equal(trunc, exp_trunc)
        for i in range(n):
            b = boards[i]
            np.testing.assert_array_equal(env.observation[i], b.observation())
            if not (term[i] or trunc[i]):
                np.testing.assert_array_equal(env.legal_action_mask[i], b.action_mask())
            else:
                assert not env.legal_action_mask[i].any()
            assert env.current_player[i] == (0 if b.to_move in ("X", "B") else 1)
            assert env.boards(i) == b
    assert steps >= 12_000


@pytest.mark.parametrize("game,options", GAMES, ids=IDS)
def test_finished_games_stay_put_until_reset(game, options):
    env = BatchEnv(game, 8, seed=5, **options)
    for _ in range(400):
        env.step(env.random_actions())
    assert (env.terminated | env.truncated).all()
    obs = env.observation.copy()
    env.step(np.zeros(8, np.int32))
    np.testing.assert_array_equal(env.observation, obs)
    assert not env.rewards.any()
    assert (env.terminated | env.truncated).all()
    env.reset(np.array([True] + [False] * 7))
    assert not env.terminated[0] and not env.truncated[0]
    assert env.legal_action_mask[0].any()
    np.testing.assert_array_equal(env.observation[0], new_board(game, options).observation())


def test_same_seed_same_games():
    a = BatchEnv("uttt", 64, seed=11, autoreset=True)
    b = BatchEnv("uttt", 64, seed=11, autoreset=True)
    for _ in range(100):
        a.step(a.random_actions())
        b.step(b.random_actions())
    np.testing.assert_array_equal(a.observation, b.observation)
    c = BatchEnv("uttt", 64, seed=12, autoreset=True)
    for _ in range(100):
        c.step(c.random_actions())
    assert not np.array_equal(a.observation, c.observation)
    a.reset(seed=3)
    b.reset(seed=3)
    np.testing.assert_array_equal(a.random_actions(), b.random_actions())


def _random_vs_random_mean(game, games, seed, **options):
    """Mean final reward of the first player over ``games`` random games."""
    env = BatchEnv(game, 4096, seed=seed, autoreset=True, **options)
    total = 0.0
    count = 0
    while count < games:
        env.step(env.random_actions())
        ended = env.terminated | env.truncated
        total += float(env.rewards[ended, 0].sum())
        count += int(ended.sum())
    return total / count, count


@pytest.mark.parametrize("game,expected,games", [
    ("ttt", 0.2968, 200_000),      # exact: (737 - 363) / 1260 = 0.29683; docs/performance.md +0.299
    ("uttt", 0.045, 60_000),       # docs/performance.md +0.045
    ("clobber", 0.002, 60_000),    # docs/performance.md about 0 (+0.002)
])
def test_random_vs_random_returns_match_readme(game, expected, games):
    mean, count = _random_vs_random_mean(game, games, seed=2024)
    se = 1.0 / np.sqrt(count)      # |reward| <= 1
    assert abs(mean - expected) < 4 * se, (mean, expected, se)


def test_illegal_action_loses_for_the_mover():
    env = BatchEnv("ttt", 2, seed=0)
    env.step(np.array([4, 0], np.int32))
    obs, rew, term, trunc = env.step(np.array([4, 1], np.int32))   # game 0: O plays on X's cell
    assert term.tolist() == [True, False]
    assert rew[0].tolist() == [1.0, -1.0]            # O (player 1) was the mover
    assert not env.legal_action_mask[0].any()
    assert env.boards(0).to_string() == "....X...."


@pytest.mark.parametrize("bad,match", [
    (np.array([1.0, 2.0]), "integers in 0..8"),
    (np.array([1, 2, 3], np.int32), r"shape \(2,\)"),
    (np.array([[1, 2]], np.int32), r"shape \(2,\)"),
    (np.array([1, 9], np.int32), "0..8"),
    (np.array([-1, 0], np.int64), "0..8"),
    (np.array([True, False]), "integers in 0..8"),
    ([0, 2 ** 40], "0..8"),
    ("ab", "0..8"),
    (None, "0..8"),
])
def test_bad_actions_are_clear_errors(bad, match):
    env = BatchEnv("ttt", 2, seed=0)
    before = env.observation.copy()
    with pytest.raises(ValueError, match=match):
        env.step(bad)
    np.testing.assert_array_equal(env.observation, before)
    env.step([0, 1])                      # a list of ints is fine
    assert env.observation[0, 1, 0, 0] == 1


def test_bad_construction_is_clear_errors():
    with pytest.raises(ValueError, match="n must be an integer from 1 to 67,108,864, got 0"):
        BatchEnv("ttt", 0)
    with pytest.raises(ValueError, match="n must be"):
        BatchEnv("ttt", -3)
    with pytest.raises(ValueError, match="valid games: ttt, uttt, clobber, quixo"):
        BatchEnv("chess", 4)
    with pytest.raises(ValueError, match="valid options: rows, cols"):
        BatchEnv("clobber", 4, size=5)
    with pytest.raises(ValueError):
        BatchEnv("clobber", 4, rows=9)
    with pytest.raises(ValueError):
        BatchEnv("quixo", 4, size=6)
    with pytest.raises(ValueError, match="autoreset"):
        BatchEnv("ttt", 4, autoreset="yes")
    with pytest.raises(ValueError, match="seed"):
        BatchEnv("ttt", 4, seed=-1)
    env = BatchEnv("ttt", 4)
    with pytest.raises(ValueError, match="mask"):
        env.reset(np.ones(3, bool))
    with pytest.raises(ValueError):
        env.boards(4)


def test_views_are_read_only_and_stable():
    env = BatchEnv("clobber", 3, seed=1, rows=2, cols=3)
    obs = env.observation
    with pytest.raises(ValueError):
        obs[0, 0, 0, 0] = 5
    env.step(env.random_actions())
    assert env.observation is obs
    assert env.observation.shape == (3, 2, 2, 3)
    assert env.legal_action_mask.shape == (3, 24)
    assert env.rewards.dtype == np.float32 and env.rewards.shape == (3, 2)


def test_step_where_leaves_other_games_untouched():
    env = BatchEnv("quixo", 4, seed=2, size=4)
    env.step(env.random_actions())
    before = (env.observation.copy(), env.rewards.copy(), env.current_player.copy())
    where = np.array([True, False, True, False])
    acts = env.random_actions().copy()
    env.step(acts, where=where)
    for i in (1, 3):
        np.testing.assert_array_equal(env.observation[i], before[0][i])
        assert env.current_player[i] == before[2][i]
    for i in (0, 2):
        assert env.current_player[i] != before[2][i]
    with pytest.raises(ValueError, match="where must be a bool array of shape"):
        env.step(acts, where=[1, 0, 1, 0])
