"""Side by side: ttt_engine's RL environments and PettingZoo's ``tictactoe_v3``
(and pgx's Tic-Tac-Toe when JAX and pgx are installed), as a Markdown table.

    PYTHONPATH=python python bench/compare_envs.py [--repeat 5]

Rates are medians over ``--repeat`` timed runs after one warm-up, in CPU time
of the calling thread (the machine may be shared).  A "turn" is one move; an
"env-step" of the batched envs is one move in one game.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_envs import _play_aec  # noqa: E402  (the same AEC loop as the benchmarks)

from ttt_engine.envs import BatchEnv  # noqa: E402


def _rate(fn, units, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t = time.thread_time()
        fn()
        times.append(time.thread_time() - t)
    return units / statistics.median(times)


def _batch(game, n, steps):
    env = BatchEnv(game, n, seed=1, autoreset=True)

    def run():
        for _ in range(steps):
            env.step(env.random_actions())
    return run


def _pgx(n, steps):
    """pgx's Tic-Tac-Toe under jax.jit with vmap, random legal actions (or None)."""
    try:
        import jax
        import pgx
    except ImportError:
        return None
    env = pgx.make("tic_tac_toe")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    state = init(keys)

    def act(key, mask):
        return jax.random.categorical(key, jax.numpy.log(mask.astype(jax.numpy.float32)), axis=-1)
    act = jax.jit(act)

    def run():
        nonlocal state
        key = jax.random.PRNGKey(1)
        for _ in range(steps):
            key, sub = jax.random.split(key)
            state = step(state, act(sub, state.legal_action_mask))
        state.observation.block_until_ready()
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--turns", type=int, default=20_000)
    args = p.parse_args(argv)
    rows = []
    for n in (1024, 4096):
        rows.append((f"ttt_engine `BatchEnv('ttt', {n})` step + random_actions", "env-steps",
                     _rate(_batch("ttt", n, 2_000_000 // n), 2_000_000 // n * n, args.repeat)))
        run = _pgx(n, 200)
        if run is not None:
            rows.append((f"pgx tic_tac_toe, vmap batch {n} (jit)", "env-steps",
                         _rate(run, 200 * n, args.repeat)))
    try:
        from ttt_engine.envs import pettingzoo as pz
        env = pz.env(game="ttt")
        rows.append(("ttt_engine PettingZoo AEC env (ttt)", "turns",
                     _rate(lambda: _play_aec(env, args.turns), args.turns, args.repeat)))
    except ImportError as e:
        print(f"(PettingZoo not installed: {e})", file=sys.stderr)
    try:
        from pettingzoo.classic import tictactoe_v3
        env = tictactoe_v3.env()
        rows.append(("PettingZoo `tictactoe_v3`", "turns",
                     _rate(lambda: _play_aec(env, args.turns), args.turns, args.repeat)))
    except Exception as e:  # noqa: BLE001 - it needs pygame, which may be missing or broken
        print(f"(pettingzoo.classic.tictactoe_v3 does not import: {e})", file=sys.stderr)
    print("| environment | unit | per second (median CPU) |")
    print("|---|---|---:|")
    for name, unit, rate in rows:
        print(f"| {name} | {unit} | {rate / 1e6:,.2f} M |" if rate >= 1e6
              else f"| {name} | {unit} | {rate / 1e3:,.1f} k |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
