"""RL environment throughput: the batched core, the Gymnasium and PettingZoo
adapters, and PettingZoo's own ``tictactoe_v3`` measured in the same run.

    PYTHONPATH=python python -m pytest bench/bench_envs.py --benchmark-only

Each benchmark records ``per_s`` from wall-clock medians (pytest-benchmark)
and ``cpu_per_s`` from the median CPU time of the calling thread (the machine
is shared: CPU time is the steadier of the two).  ``BatchEnv`` rows count
env-steps (one move in one game) including the random draws
(``random_actions()``) and the observation and mask writes of ``step``.
"""
import random

import numpy as np
import pytest
from conftest import pedantic_cpu, record_throughput
from ttt_engine.envs import BatchEnv

GAMES = ["ttt", "uttt", "clobber", "quixo"]
SIZES = [1, 64, 1024, 4096]
#: env-steps per timed round, per game (about 0.05-0.3 s each)
WORK = {"ttt": 2_000_000, "uttt": 600_000, "clobber": 600_000, "quixo": 600_000}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("game", GAMES)
def test_batch_env_random_steps(benchmark, game, n):
    env = BatchEnv(game, n, seed=1, autoreset=True)
    work = WORK[game] if n >= 64 else WORK[game] // 20
    steps = max(1, work // n)

    def run():
        for _ in range(steps):
            env.step(env.random_actions())
        return int(env.terminated.sum())

    _, cpu = pedantic_cpu(benchmark, run, rounds=5)
    record_throughput(benchmark, steps * n, "env-steps", game=game, n=n,
                      cpu_per_s=steps * n / cpu)


def _play_aec(env, turns, seed=0):
    """Random legal play for ``turns`` turns (resetting finished games); the
    action choice is the same Python code for every AEC env measured."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    while done < turns:
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            done += 1
            if done >= turns:
                break
        env.reset()
    return done


TURNS = 20_000


def test_pettingzoo_ttt_engine(benchmark):
    pytest.importorskip("pettingzoo")
    from ttt_engine.envs import pettingzoo as pz
    env = pz.env(game="ttt")
    _, cpu = pedantic_cpu(benchmark, lambda: _play_aec(env, TURNS), rounds=5)
    record_throughput(benchmark, TURNS, "turns", cpu_per_s=TURNS / cpu)


def test_pettingzoo_tictactoe_v3(benchmark):
    pytest.importorskip("pettingzoo")
    try:
        from pettingzoo.classic import tictactoe_v3
    except Exception as e:      # needs pygame (the [compare] extra)
        pytest.skip(f"pettingzoo.classic.tictactoe_v3 does not import: {e}")
    env = tictactoe_v3.env()
    _, cpu = pedantic_cpu(benchmark, lambda: _play_aec(env, TURNS), rounds=5)
    record_throughput(benchmark, TURNS, "turns", cpu_per_s=TURNS / cpu)


def test_gymnasium_single_env(benchmark):
    gym = pytest.importorskip("gymnasium")
    import ttt_engine.envs  # noqa: F401  (registers the ids)
    env = gym.make("ttt_engine/TicTacToe-v0", opponent="random")
    rng = random.Random(0)
    count = {"turns": 0}

    def run():
        obs, info = env.reset(seed=0)
        steps = turns = 0
        while steps < TURNS // 2:
            obs, r, term, trunc, info = env.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
            steps += 1
            turns += 2 - (term or trunc)      # the opponent's reply unless the game ended
            if term or trunc:
                obs, info = env.reset()
        count["turns"] = turns
        return steps

    steps, cpu = pedantic_cpu(benchmark, run, rounds=5)
    record_throughput(benchmark, steps, "env-steps", turns=count["turns"],
                      cpu_per_s=steps / cpu, cpu_turns_per_s=count["turns"] / cpu)
