#!/usr/bin/env python
"""Side by side: ttt_engine's batched PUCT self-play against DeepMind's mctx
AlphaZero search (``mctx.muzero_policy`` over pgx's Tic-Tac-Toe), on this CPU.

    pip install ".[compare]"                       # ttt_engine + mctx + pgx + jax
    python bench/compare_mctx.py                   # a few minutes
    python bench/compare_mctx.py --quick           # smaller work, 3 rounds
    python bench/compare_mctx.py --batches 1 64 --simulations 64 --rounds 5

Both sides play Tic-Tac-Toe self-play games, ``batch`` games at once (one tree
per game, the leaves of all trees evaluated together), ``--simulations``
simulations per move, the same PUCT constants (c_init 1.25, c_base 19652: the
constants mctx's ``muzero_policy`` uses, and ttt_engine's ``c_base``/``c_init``
schedule), Dirichlet noise at the root (alpha 0.3, fraction 0.25), moves
sampled from the visit counts for the first 2 plies and then the most visited.
The rate is simulations per second: moves played x simulations per move /
seconds, by wall clock and by the CPU time of the whole process (every thread:
XLA may use several; ttt_engine's self-play runs in the calling thread), since
the machine may be shared and a busy machine stretches wall time.  Two evaluators:

- ``uniform``: uniform priors, value 0 (isolates the search and the game):
  ttt_engine's ``UniformEvaluator(playouts=0)``, which the search runs in C
  (no Python call per batch), against mctx's
  recurrent function returning zero logits and value inside the jitted search;
- ``mlp``: the same two-hidden-layer MLP (``--hidden`` wide, ReLU; policy head
  and tanh value head) with the same random weights on both sides: the
  package's numpy ``ttt_engine.network.Network`` on ours, ``jax.numpy`` inside
  the jitted search on mctx's.  The input is the
  side to move's planes ``[2, 3, 3]`` flattened (pgx's ``[3, 3, 2]`` planes are
  transposed to that layout first), so both sides compute the same function
  (checked before timing, on random games played in both).

Every round times both sides once, alternating which goes first, after one
untimed warm-up round (jit compilation happens there).  The table gives the
medians and the median of the per-round ratios (ttt_engine / mctx).

At one game, self-play evaluates one leaf per call on both sides (the
sequential search); the extra row "1 (one tree, 8 leaves a call)" plays the
games one at a time with ``search.PUCT(batch_size=8)``, whose virtual loss
takes 8 leaves of the one tree per evaluator call (mctx has no equivalent: its
batch is across games).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

# numpy's BLAS on one thread (before numpy is imported): ttt_engine's side runs on
# one core.  A multithreaded OpenBLAS on matrices this small spins its threads and,
# on a shared machine, was 20x slower per call here.  XLA keeps its own threads.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

C_INIT, C_BASE = 1.25, 19652.0
ALPHA, NOISE = 0.3, 0.25
SAMPLE_PLIES = 2
MIN_GAMES = 16          # games per timed run at least (batch 1: 16 games one after another)


# ----------------------------------------------------------------- the network
def mlp_weights(hidden, inputs=18, actions=9, seed=0):
    """float32 weights of the shared MLP, named as ``ttt_engine.network.Network``
    takes them: ``w0, b0, w1, b1`` (two hidden layers), ``wp, bp`` (policy),
    ``wv, bv`` (value, through tanh)."""
    rng = np.random.default_rng(seed)
    sizes = {"w0": (inputs, hidden), "w1": (hidden, hidden), "wp": (hidden, actions),
             "wv": (hidden, 1)}
    params = {}
    for name, (n_in, n_out) in sizes.items():
        params[name] = rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)).astype(np.float32)
        params["b" + name[1:]] = rng.normal(0, 0.1, n_out).astype(np.float32)
    return params


def our_network(params):
    """The package's numpy evaluator with these weights."""
    from ttt_engine.network import Network
    return Network("ttt", params)


def jax_forward(params):
    """``forward(pgx observations [B, 3, 3, 2]) -> (logits, values)``: the same
    MLP in ``jax.numpy`` (None: the trivial evaluator, zeros)."""
    import jax
    import jax.numpy as jnp
    if params is None:
        def forward(obs):
            n = obs.shape[0]
            return jnp.zeros((n, 9), jnp.float32), jnp.zeros((n,), jnp.float32)
        return forward
    p = {k: jnp.asarray(v) for k, v in params.items()}

    def forward(obs):
        # pgx planes [3, 3, 2] (side to move, opponent) -> ours [2, 3, 3], flattened
        x = jnp.transpose(obs, (0, 3, 1, 2)).reshape(obs.shape[0], -1).astype(jnp.float32)
        h = jax.nn.relu(x @ p["w0"] + p["b0"])
        h = jax.nn.relu(h @ p["w1"] + p["b1"])
        return h @ p["wp"] + p["bp"], jnp.tanh(h @ p["wv"] + p["bv"])[:, 0]
    return forward


def check_same_function(params, games=5, seed=0):
    """Play random games in pgx and ttt_engine with the same actions: the planes
    agree at every ply (after the transpose) and so do both networks' outputs."""
    import jax
    import pgx
    from ttt_engine import Board
    env = pgx.make("tic_tac_toe")
    step = jax.jit(env.step)
    forward, net = jax_forward(params), our_network(params)
    rng = np.random.default_rng(seed)
    for g in range(games):
        state, board = env.init(jax.random.PRNGKey(g)), Board()
        while not board.is_terminal():
            theirs = np.asarray(state.observation)[None]
            assert np.array_equal(np.transpose(theirs, (0, 3, 1, 2)).astype(np.int8)[0],
                                  board.observation()), "pgx and ttt_engine planes differ"
            lj, vj = forward(theirs)
            ln, vn = net(board.observation()[None], board.action_mask()[None])
            assert np.allclose(lj, ln, atol=1e-4) and np.allclose(vj, vn, atol=1e-4), \
                "the two networks differ"
            a = int(rng.choice(np.flatnonzero(board.action_mask())))
            state, _ = step(state, a), board.push(a)


# ----------------------------------------------------------------- ttt_engine's side
def ours(batch, simulations, evaluator):
    """``run() -> simulations done``: one self-play call of ``batch`` games."""
    from ttt_engine.selfplay import selfplay
    seed = [0]

    def run():
        seed[0] += 1
        data = selfplay("ttt", evaluator, games=max(batch, MIN_GAMES), simulations=simulations,
                        parallel=batch, seed=seed[0], temperature_moves=SAMPLE_PLIES,
                        c_puct=C_INIT, c_base=C_BASE, dirichlet_alpha=ALPHA,
                        noise_fraction=NOISE)
        return len(data) * simulations
    return run


def ours_virtual_loss(simulations, evaluator, games=MIN_GAMES, batch_size=8):
    """``run() -> simulations done``: one game at a time with ``search.PUCT``,
    ``batch_size`` leaves of the one tree per evaluator call (virtual loss),
    the tree kept between moves."""
    from ttt_engine import Board
    from ttt_engine.search import PUCT
    seed = [0]

    def run():
        done = 0
        for g in range(games):
            seed[0] += 1
            rng = np.random.default_rng(seed[0])
            puct = PUCT(evaluator, c_puct=C_INIT, c_base=C_BASE, dirichlet_alpha=ALPHA,
                        noise_fraction=NOISE, batch_size=batch_size, seed=seed[0])
            board = Board()
            while not board.is_terminal():
                move = puct.search(board, simulations=simulations)
                done += puct.stats["simulations"]
                if board.ply < SAMPLE_PLIES:
                    pi = puct.policy(1.0).astype(np.float64)
                    move = board.action_to_move(int(rng.choice(pi.size, p=pi / pi.sum())))
                board.push(move)
        return done
    return run


# ----------------------------------------------------------------- mctx's side
def theirs(batch, simulations, weights, moves):
    """``(run, moves)``: ``run() -> simulations done`` plays ``moves[0]`` moves in
    each of ``batch`` pgx Tic-Tac-Toe games under ``jax.vmap`` (a finished game
    restarts at once), mctx's ``muzero_policy`` per move, one jitted function
    per move."""
    import jax
    import jax.numpy as jnp
    import mctx
    import pgx

    env = pgx.make("tic_tac_toe")
    forward = jax_forward(weights)

    def recurrent_fn(params, rng_key, action, state):
        player = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = forward(state.observation)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        reward = state.rewards[jnp.arange(state.rewards.shape[0]), player]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0 * jnp.ones_like(value))
        return mctx.RecurrentFnOutput(reward=reward, discount=discount,
                                      prior_logits=logits, value=value), state

    def step(state, key):
        key_search, key_act, key_reset = jax.random.split(key, 3)
        logits, value = forward(state.observation)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        out = mctx.muzero_policy(
            params=None, rng_key=key_search, root=root, recurrent_fn=recurrent_fn,
            num_simulations=simulations, invalid_actions=~state.legal_action_mask,
            dirichlet_fraction=NOISE, dirichlet_alpha=ALPHA, pb_c_init=C_INIT, pb_c_base=C_BASE,
            temperature=1.0)
        sampled = jax.random.categorical(
            key_act, jnp.log(jnp.maximum(out.action_weights, 1e-30)), axis=-1)
        greedy = jnp.argmax(out.action_weights, axis=-1)
        action = jnp.where(state._step_count < SAMPLE_PLIES, sampled, greedy)
        state = jax.vmap(env.step)(state, action)
        fresh = jax.vmap(env.init)(jax.random.split(key_reset, batch))
        state = jax.tree_util.tree_map(
            lambda f, s: jnp.where(
                jnp.reshape(state.terminated, (-1,) + (1,) * (s.ndim - 1)), f, s), fresh, state)
        return state, None

    step = jax.jit(step)
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), batch))
    key = [jax.random.PRNGKey(1)]
    moves_per_run = [moves]

    def run():
        nonlocal state
        for _ in range(moves_per_run[0]):
            key[0], sub = jax.random.split(key[0])
            state, _ = step(state, sub)
        jax.block_until_ready(state)
        return moves_per_run[0] * batch * simulations
    return run, moves_per_run


# ----------------------------------------------------------------- measuring
def _time(fn):
    w, c = time.perf_counter(), time.process_time()
    units = fn()
    return units, time.perf_counter() - w, time.process_time() - c


def measure(batch, simulations, evaluator_name, rounds, hidden, virtual_loss=False):
    weights = mlp_weights(hidden) if evaluator_name == "mlp" else None
    if weights is not None:
        evaluator = our_network(weights)
    else:
        from ttt_engine.evaluators import UniformEvaluator
        evaluator = UniformEvaluator(playouts=0)     # priors and value in C, like mctx's jit
    run_ours = ours(batch, simulations, evaluator)
    units, _, _ = _time(run_ours)                 # warm-up; gives the moves per game
    moves = units // simulations
    if virtual_loss:                              # one game at a time, several leaves a call
        run_ours = ours_virtual_loss(simulations, evaluator)
        _time(run_ours)
    # the same number of moves per game as our side played
    run_theirs, _ = theirs(batch, simulations, weights, max(1, round(moves / batch)))
    _time(run_theirs)                                 # warm-up: jit compilation
    rows = {"ours": [], "mctx": [], "ours_cpu": [], "mctx_cpu": [], "ratio": [],
            "ratio_cpu": []}
    for r in range(rounds):
        order = [("ours", run_ours), ("mctx", run_theirs)]
        if r % 2:
            order.reverse()
        for name, fn in order:
            units, wall, cpu = _time(fn)
            rows[name].append(units / wall)
            rows[name + "_cpu"].append(units / cpu)
        rows["ratio"].append(rows["ours"][-1] / rows["mctx"][-1])
        rows["ratio_cpu"].append(rows["ours_cpu"][-1] / rows["mctx_cpu"][-1])
    return {k: statistics.median(v) for k, v in rows.items()}


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import jax
    import mctx
    import pgx
    return (f"{cpu}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, "
            f"numpy {np.__version__}, jax {jax.__version__} ({jax.default_backend()}), "
            f"mctx {getattr(mctx, '__version__', '?')}, pgx {getattr(pgx, '__version__', '?')}")


def _fmt(rate):
    return f"{rate / 1e6:,.2f} M" if rate >= 1e6 else f"{rate / 1e3:,.1f} k"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batches", type=int, nargs="+", default=[1, 64, 256])
    p.add_argument("--simulations", type=int, default=64)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--evaluators", nargs="+", default=["uniform", "mlp"],
                   choices=["uniform", "mlp"])
    p.add_argument("--no-virtual-loss", dest="virtual_loss", action="store_false",
                   help="leave out the batch-1 row where our one tree gives 8 leaves a call")
    p.add_argument("--quick", action="store_true", help="batches 1 and 64, 3 rounds")
    args = p.parse_args(argv)
    if args.quick:
        args.batches, args.rounds = [1, 64], 3
    try:
        import jax  # noqa: F401
        import mctx  # noqa: F401
        import pgx  # noqa: F401
    except ImportError as e:
        print(f"mctx, pgx and jax are needed: pip install '.[compare]' ({e})", file=sys.stderr)
        return 3
    print(f"machine: {machine()}")
    if "mlp" in args.evaluators:
        check_same_function(mlp_weights(args.hidden))
    print(f"Tic-Tac-Toe self-play, {args.simulations} simulations per move, "
          f"{args.rounds} rounds, medians\n")
    print("| evaluator | games at once | ttt_engine sims/s | mctx sims/s | ratio "
          "| ttt_engine sims/CPU-s | mctx sims/CPU-s | ratio (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.evaluators:
        rows = [(b, False) for b in args.batches]
        if 1 in args.batches and args.virtual_loss:
            rows.insert(args.batches.index(1) + 1, (1, True))
        for batch, vl in rows:
            m = measure(batch, args.simulations, name, args.rounds, args.hidden, vl)
            label = "1 (one tree, 8 leaves a call)" if vl else str(batch)
            print(f"| {name} | {label} | {_fmt(m['ours'])} | {_fmt(m['mctx'])} "
                  f"| {m['ratio']:.1f}x | {_fmt(m['ours_cpu'])} | {_fmt(m['mctx_cpu'])} "
                  f"| {m['ratio_cpu']:.1f}x |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
