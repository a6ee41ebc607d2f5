"""Gymnasium and PettingZoo adapters: the libraries' own checkers, seeding, rules."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import ttt_engine.envs  # noqa: E402  (registers the ids)
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402
from ttt_engine.envs import pettingzoo as pz_envs  # noqa: E402
from ttt_engine.envs.gymnasium import ENV_IDS, GameEnv, VectorGameEnv  # noqa: E402

GAME_KEYS = ["ttt", "uttt", "clobber", "quixo"]


def test_import_ttt_engine_does_not_import_gymnasium():
    code = ("import sys, ttt_engine, ttt_engine.ttt, ttt_engine.uttt, ttt_engine.clobber; "
            "print('gymnasium' in sys.modules, 'pettingzoo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_gymnasium_check_env(env_id):
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=False)
    with warnings.catch_warnings():      # check_env notes that gym.make's env is wrapped
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version")
        check_env(gym.make(env_id, render_mode="ansi"), skip_render_check=False)


@pytest.mark.parametrize("game", GAME_KEYS)
@pytest.mark.parametrize("side", [0, 1])
def test_gymnasium_episode_rules(game, side):
    env = gym.make(f"ttt_engine/{ttt_engine.envs._games.env_name(game)}-v0", agent_side=side)
    rng = np.random.default_rng(0)
    results = []
    for ep in range(20):
        obs, info = env.reset(seed=ep)
        assert obs.dtype == np.int8 and info["action_mask"].any()
        done = False
        while not done:
            mask = info["action_mask"]
            np.testing.assert_array_equal(mask, env.unwrapped.action_masks())
            a = int(rng.choice(np.flatnonzero(mask)))
            obs, r, term, trunc, info = env.step(a)
            done = term or trunc
        results.append(r)
        b = env.unwrapped.board
        if r == 1:
            assert b.winner == ttt_engine.envs._games.sides(game)[side]
        if trunc:
            assert game == "quixo" and b.winner == "draw"
    assert set(results) <= {-1.0, 0.0, 1.0}


def test_gymnasium_seed_reproduces_opponent():
    def episode(seed):
        env = gym.make("ttt_engine/UltimateTicTacToe-v0", opponent="random")
        obs, info = env.reset(seed=seed)
        trace = []
        done = False
        while not done:
            a = int(np.flatnonzero(info["action_mask"])[0])
            obs, r, term, trunc, info = env.step(a)
            trace.append(obs.tobytes())
            done = term or trunc
        return trace
    assert episode(5) == episode(5)
    assert episode(5) != episode(6)


def test_gymnasium_illegal_action_and_bad_input():
    env = gym.make("ttt_engine/TicTacToe-v0")
    env.reset(seed=0)
    env.step(4)
    obs, r, term, trunc, info = env.step(4)        # X's own cell: illegal
    assert r == -1.0 and term and not info["action_mask"].any()
    assert env.unwrapped.board.cells[4] == 1
    with pytest.raises(ValueError, match="the episode is over: call reset"):
        env.step(0)                                # over as after a normal end
    env.reset(seed=0)
    for bad in (9, -1, 2.5, "a", None):
        with pytest.raises(ValueError, match="0..8"):
            env.step(bad)
    with pytest.raises(ValueError, match="opponent must be .* 'perfect'"):
        GameEnv("ttt", opponent="grandmaster")
    with pytest.raises(ValueError, match="'mcts'"):
        GameEnv("uttt", opponent="perfect")
    with pytest.raises(ValueError, match="agent_side"):
        GameEnv("ttt", agent_side=2)
    with pytest.raises(ValueError, match="game"):
        GameEnv("go")


def test_gymnasium_perfect_opponent_never_loses():
    env = gym.make("ttt_engine/TicTacToe-v0", opponent="perfect")
    rng = np.random.default_rng(1)
    for ep in range(10):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r, term, trunc, info = env.step(a)
            done = term or trunc
        assert r <= 0


def test_gymnasium_agent_object_opponent():
    from ttt_engine.agents import MCTSAgent
    env = GameEnv("clobber", opponent=MCTSAgent(simulations=50, seed=1), rows=3, cols=3)
    obs, info = env.reset(seed=2)
    assert obs.shape == (2, 3, 3)
    obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert obs.shape == (2, 3, 3)


def test_gymnasium_opponent_of_another_game_is_refused():
    from ttt_engine import games
    with pytest.raises(ValueError, match="opponent plays Tic-Tac-Toe, not Ultimate"):
        GameEnv("uttt", opponent=games.get("ttt").make_agent("random"))


def test_gymnasium_step_leaves_the_board_when_the_opponent_fails():
    class Failing:
        def select_move(self, board):
            raise RuntimeError("no reply")
    env = GameEnv("uttt", opponent=Failing())
    env.reset(seed=0)
    with pytest.raises(RuntimeError, match="no reply"):
        env.step(40)
    assert env.board.ply == 0
    env = GameEnv("ttt", opponent=Failing(), agent_side=1)
    with pytest.raises(RuntimeError, match="no reply"):
        env.reset(seed=0)
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("game", GAME_KEYS)
@pytest.mark.parametrize("opponent,side", [("random", 0), ("random", 1), (None, 0)])
def test_vector_env_next_step_autoreset(game, opponent, side):
    if opponent is None and side:
        pytest.skip("self-play has no side")
    venv = VectorGameEnv(game, num_envs=32, opponent=opponent, agent_side=side, seed=3)
    assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=4)
    assert obs.shape == (32, *venv.single_observation_space.shape)
    prev_done = np.zeros(32, bool)
    finished = 0
    start = VectorGameEnv(game, num_envs=1, opponent=None).reset()[0][0]
    for t in range(300):
        mask = info["action_mask"]
        acts = np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in mask], np.int32)
        obs, rew, term, trunc, info = venv.step(acts)
        # games that ended last step come back at the start with reward 0 and no flags
        assert not rew[prev_done].any() and not term[prev_done].any() and not trunc[prev_done].any()
        if opponent is None or side == 0:
            for i in np.flatnonzero(prev_done):
                np.testing.assert_array_equal(obs[i], start)
        assert set(np.unique(rew)) <= {-1.0, 0.0, 1.0}
        assert not rew[~(term | trunc)].any()
        finished += int((term | trunc).sum())
        prev_done = term | trunc
        assert (info["action_mask"][~prev_done].any(axis=1)).all()
    assert finished > 0


@pytest.mark.parametrize("side", [0, 1])
def test_vector_env_reset_mask_resets_only_those_games(side):
    venv = VectorGameEnv("ttt", num_envs=4, agent_side=side, seed=0)
    venv.reset(seed=0)
    venv.step(np.array([4, 4, 4, 4], np.int32) if side == 0 else
              np.array([int(np.flatnonzero(m)[0]) for m in venv.action_masks()], np.int32))
    before = venv.core.observation.copy()
    start = VectorGameEnv("ttt", num_envs=1, agent_side=side, seed=0).reset(seed=0)[0][0]
    mask = np.array([True, False, True, False])
    obs, info = venv.reset(options={"reset_mask": mask})
    assert obs.shape[0] == 4 and info["action_mask"].shape == (4, 9)
    np.testing.assert_array_equal(obs[~mask], before[~mask])
    marks = obs.reshape(4, -1).sum(axis=1)
    assert list(marks[mask]) == [side, side] and (marks[~mask] == 2 + side).all()
    if side == 0:
        np.testing.assert_array_equal(obs[0], start)
    for options, match in [({"reset_mask": mask, "seeds": 1}, "unknown reset option.*'seeds'"),
                           ({"reset_mask": [True] * 4}, r"reset_mask.*shape \(4,\)"),
                           ({"reset_mask": np.ones(3, bool)}, r"reset_mask.*shape \(4,\)"),
                           ({"reset_mask": np.zeros(4, bool)}, "at least one True")]:
        with pytest.raises(ValueError, match=match):
            venv.reset(options=options)
    np.testing.assert_array_equal(venv.core.observation, obs)
    with pytest.raises(ValueError, match="call reset"):
        VectorGameEnv("ttt", num_envs=4).reset(options={"reset_mask": mask})


def test_vector_env_perfect_opponent_and_errors():
    venv = VectorGameEnv("ttt", num_envs=256, opponent="perfect", seed=0)
    obs, info = venv.reset()
    total = []
    for _ in range(40):
        acts = np.array([np.random.default_rng(len(total)).choice(np.flatnonzero(m)) if m.any() else 0
                         for m in info["action_mask"]], np.int32)
        obs, rew, term, trunc, info = venv.step(acts)
        total.extend(rew[term].tolist())
    assert total and max(total) <= 0          # nobody beats the perfect player
    with pytest.raises(ValueError, match="0..8"):
        venv.step(np.full(256, 9, np.int32))
    with pytest.raises(ValueError, match="num_envs"):
        VectorGameEnv("ttt", num_envs=0)
    with pytest.raises(ValueError, match="only offered for 'ttt'"):
        VectorGameEnv("quixo", opponent="perfect")
    with pytest.raises(ValueError, match="opponent"):
        VectorGameEnv("ttt", opponent="mcts")


@pytest.mark.parametrize("game", GAME_KEYS)
def test_pettingzoo_api_seed_render(game):
    opts = {"rows": 4, "cols": 4} if game == "clobber" else {}
    api_test(pz_envs.env(game=game, **opts), num_cycles=200)
    seed_test(lambda **kw: pz_envs.env(game=game, **opts, **kw), num_cycles=50)
    render_test(lambda render_mode=None: pz_envs.env(game=game, render_mode=render_mode, **opts))
    api_test(pz_envs.wrapped_env(game=game, **opts), num_cycles=100)


def test_pettingzoo_order_and_range_errors():
    e = pz_envs.env(game="quixo", size=3)
    with pytest.raises(ValueError, match=r"call reset\(\) before step\(\)"):  # as every env
        e.step(1)
    e.reset()
    for bad in (36, -1, 1.5, "x"):
        with pytest.raises(ValueError, match="0..35"):
            e.step(bad)


@pytest.mark.parametrize("make", [pz_envs.env, pz_envs.raw_env])
def test_pettingzoo_unknown_agent_and_step_after_the_end(make):
    e = make(game="ttt")
    e.reset()
    with pytest.raises(ValueError, match="agent must be one of 'player_0', 'player_1', "
                                         "got 'player_7'"):
        e.observe("player_7")
    for a in (0, 3, 1, 4, 2):           # X takes the top row
        e.step(a)
    while e.agents:
        e.step(None)
    assert e.observe("player_1")["action_mask"].sum() == 0
    if make is pz_envs.raw_env:
        with pytest.raises(ValueError, match=r"the episode is over: call reset\(\)"):
            e.step(0)
    else:                               # logged and ignored, as PettingZoo's OrderEnforcingWrapper
        assert e.step(0) is None and not e.agents


def test_pettingzoo_rules_and_ttt_numbering():
    env = pz_envs.env(game="ttt")
    env.reset(seed=0)
    for a in (0, 3, 1, 4, 2):           # X takes the top row
        env.step(a)
    obs, r, term, trunc, info = env.last()
    assert term
    assert env.rewards == {"player_0": 1, "player_1": -1}
    assert [pz_envs.pettingzoo_ttt_action(a) for a in range(9)] == [0, 3, 6, 1, 4, 7, 2, 5, 8]
    # an illegal move ends the game with -1 for the mover (the wrapper's rule)
    env.reset()
    env.step(4)
    env.step(4)
    assert env.terminations["player_1"] and env.rewards["player_1"] == -1


def test_pettingzoo_observation_is_the_observers_view():
    env = pz_envs.raw_env(game="uttt")
    env.reset()
    env.step(40)
    o0 = env.observe("player_0")
    o1 = env.observe("player_1")
    assert o0["observation"][0, 4, 4] == 1 and o1["observation"][1, 4, 4] == 1
    assert not o0["action_mask"].any() and o1["action_mask"].sum() == 8


def test_example_learns_to_never_lose(capsys):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "vector_q_learning.py"
    spec = importlib.util.spec_from_file_location("vector_q_learning", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--steps", "600", "--envs", "1024", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "as X: worst case over every opponent = draw" in out
    assert "as O: worst case over every opponent = draw" in out
    assert out.count(" 0 losses") == 2
    assert "never loses to the perfect player: yes" in out


@pytest.mark.parametrize("kwargs", [{"agent_side": 1}, {"agent_side": "W", "rows": 3, "cols": 4},
                                    {"size": 3, "max_plies": 6}])
def test_gymnasium_check_env_with_options(kwargs):
    env_id = "ttt_engine/Clobber-v0" if "rows" in kwargs else (
        "ttt_engine/Quixo-v0" if "size" in kwargs else "ttt_engine/UltimateTicTacToe-v0")
    check_env(gym.make(env_id, **kwargs).unwrapped, skip_render_check=True)


def test_quixo_move_cap_truncates_everywhere():
    env = gym.make("ttt_engine/Quixo-v0", size=3, max_plies=4)
    truncated = 0
    for ep in range(30):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = term or trunc
        truncated += trunc
        if trunc:
            assert r == 0.0 and not term
    assert truncated > 0
    e = pz_envs.env(game="quixo", size=3, max_plies=4)
    api_test(e, num_cycles=100)
    e.reset(seed=0)
    ends = []
    for _agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            ends.append((term, trunc, reward))
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert ends == [(False, True, 0), (False, True, 0)]     # 4 plies, no line: both truncated


def _package_dir():
    """The folder holding the ttt_engine under test: the installed package in CI,
    the in-place build under PYTHONPATH=python when developing (never the bare
    source folder, which has no compiled modules on a clean checkout)."""
    import os
    import ttt_engine
    return os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))


def test_compare_envs_script_prints_the_table():
    import pathlib
    root = pathlib.Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "bench" / "compare_envs.py"), "--repeat", "1",
                          "--turns", "300"], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": _package_dir()})
    lines = out.stdout.splitlines()
    assert lines[0].startswith("| environment")
    assert any("BatchEnv('ttt', 4096)" in line for line in lines)
    assert any("PettingZoo AEC env" in line for line in lines)
