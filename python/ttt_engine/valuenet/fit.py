"""Fitting a value network to labelled positions (JAX + optax, the ``[nn]`` extra).

Regression: the mean squared error between the network's value (tanh output)
and the label, Adam with a cosine-decayed step size, minibatches of dense 0/1
feature rows.  ``passes``: how many times each training position is used (the
order reshuffled every pass).  With ``symmetries`` every minibatch row is
replaced by its image under one of the game's symmetries drawn at random (the
value is the same), so more passes see more distinct inputs.  Positions of a
few games are held out (by game, so no game is on both sides): after every
pass their mean squared error and sign agreement (the share of positions with a
non-zero label whose value has the label's sign; again over the labels
further than ``CLEAR`` from 0) are measured.

Checkpoints (``<out stem>.ckpt.npz``: the weights, the optimiser state, the
place in the run, the curve so far) are written atomically every
``checkpoint_every`` seconds and at the end of every pass; ``resume`` continues
from the last one exactly as if the run had not stopped (every pass's order
and symmetries come from the seed).  Iterated rounds: ``init`` starts from a
network (e.g. last round's, whose searches labelled this round's positions).
"""
from __future__ import annotations

import json
import math
import os
import time

import numpy as np

from ttt_engine import _modelfile, _util
from ttt_engine.alphazero.learner import _nn
from ttt_engine.valuenet.labels import load_positions
from ttt_engine.valuenet.network import ValueNetwork

__all__ = ["train", "checkpoint_path", "held_out", "CHECKPOINT_KIND"]

CHECKPOINT_KIND = "value_network_checkpoint"
#: the settings that make a run: a checkpoint must match them to be resumed
IDENTITY = ("data", "hidden", "passes", "batch_size", "learning_rate", "seed", "symmetries",
            "holdout", "positions")


def checkpoint_path(out):
    out = os.fspath(out)
    return (out[:-4] if out.endswith(".npz") else out) + ".ckpt.npz"


def held_out(game_ids, holdout):
    """The positions of held-out games: those whose game index falls in the
    last ``holdout`` share of a fixed hash of the index."""
    h = (np.asarray(game_ids, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return (h % np.uint64(1 << 20)).astype(np.float64) / (1 << 20) >= 1.0 - holdout


def _forward(jnp, params, x):
    h = jnp.clip(x @ params["w1"] + params["b1"], 0.0, 1.0)
    return jnp.tanh(h @ params["w2"] + params["b2"])


#: labels at least this far from 0 are "clear": a second sign agreement counts only those
CLEAR = 0.2


def _evaluate(net_params, x, y):
    """(mse, sign agreement, sign agreement where |label| > CLEAR) of numpy
    params on held-out rows."""
    if len(y) == 0:
        return float("nan"), float("nan"), float("nan")
    h = np.clip(x.astype(np.float32) @ net_params["w1"] + net_params["b1"], 0, 1)
    v = np.tanh(h @ net_params["w2"] + net_params["b2"])
    mse = float(np.mean((v - y) ** 2))
    out = [mse]
    for low in (0.0, CLEAR):
        nz = np.abs(y) > low
        out.append(float(np.mean(np.sign(v[nz]) == np.sign(y[nz]))) if nz.any()
                   else float("nan"))
    return tuple(out)


class _Checkpoint:
    def __init__(self, path):
        self.path = path

    def write(self, params, opt_leaves, state, settings):
        fields = {f"p_{k}": np.asarray(v, dtype=np.float32) for k, v in params.items()}
        fields["opt_count"] = np.int64(len(opt_leaves))
        for i, leaf in enumerate(opt_leaves):
            fields[f"opt_{i}"] = np.asarray(leaf)
        fields["state"] = np.str_(json.dumps(state, sort_keys=True))
        fields["settings"] = np.str_(json.dumps(settings, sort_keys=True))
        fields["kind"] = np.str_(CHECKPOINT_KIND)
        _util.atomic_write(self.path, lambda f: np.savez(f, **fields), "training checkpoint")

    def read(self):
        raw = _modelfile._open(self.path)
        try:
            if str(raw["kind"]) != CHECKPOINT_KIND:
                raise ValueError(f"{self.path}: not a value-network training checkpoint")
            params = {k[2:]: raw[k] for k in raw if k.startswith("p_")}
            leaves = [raw[f"opt_{i}"] for i in range(int(raw["opt_count"]))]
            return (params, leaves, json.loads(str(raw["state"])),
                    json.loads(str(raw["settings"])))
        except (KeyError, ValueError, TypeError) as e:
            raise ValueError(f"{self.path}: not a readable value-network training checkpoint "
                             f"({e})") from None


def train(data, out, *, hidden=256, passes=4, batch_size=64, learning_rate=3e-3, seed=0,
          symmetries=True, holdout=0.05, resume=False, force=False, init=None,
          checkpoint_every=60.0, max_positions=None, log=None, progress=True):
    """Fit a network to the labelling run folder(s) ``data`` and write it to
    ``out``; returns ``(network, history)``, ``history`` one dict per pass
    (``pass``, ``train_mse``, ``heldout_mse``, ``heldout_sign``, ``seconds``).
    An existing ``out`` is refused unless ``force`` (start over) or ``resume``
    (continue the checkpoint of the same settings)."""
    jax, jnp, optax = _nn()
    data = [os.fspath(d) for d in ([data] if isinstance(data, (str, os.PathLike)) else data)]
    out = os.fspath(out)
    _util.check_output_path(out, "value network file")
    ckpt = _Checkpoint(checkpoint_path(out))
    if resume and not os.path.exists(ckpt.path):
        raise ValueError(f"nothing to resume: {ckpt.path} does not exist (run without --resume)")
    if not resume and not force and (os.path.exists(out) or os.path.exists(ckpt.path)):
        raise ValueError(f"{out if os.path.exists(out) else ckpt.path} exists; pass --force to "
                         "overwrite it or --resume to continue its run")
    hidden = _util.check_int("hidden", hidden, min=1, max=1 << 16)
    passes = _util.check_int("passes", passes, min=1, max=10_000)
    batch_size = _util.check_int("batch_size", batch_size, min=1, max=1 << 20)
    learning_rate = _util.check_real("learning_rate", learning_rate, low=0, low_open=True, high=1)
    holdout = _util.check_real("holdout", holdout, low=0, high=0.5)
    seed = int(_util.resolve_seed(seed))

    x, y, game_ids, run = _load(data, max_positions)
    test = held_out(game_ids, holdout)
    xt, yt, xs, ys = x[~test], y[~test], x[test], y[test]
    from ttt_engine import games
    game = games.get(run["game"])
    board = game.new_board(**run["options"])
    perms = np.asarray(game.value_features.symmetries(board), dtype=np.int32)
    # row s: the feature of the original position that lands on each feature of its image
    inverse = (np.argsort(perms, axis=1) if symmetries
               else np.arange(perms.shape[1])[None]).astype(np.int32)
    settings = {"data": data, "hidden": hidden, "passes": passes, "batch_size": batch_size,
                "learning_rate": learning_rate, "seed": seed, "symmetries": bool(symmetries),
                "holdout": holdout, "positions": int(len(y)), "game": run["game"],
                "features": run["features"]}
    steps_per_pass = max(1, -(-len(yt) // batch_size))
    total = passes * steps_per_pass
    schedule = optax.cosine_decay_schedule(learning_rate, total, alpha=0.05)
    tx = optax.adam(schedule)

    if init is not None:
        start_net = init if isinstance(init, ValueNetwork) else ValueNetwork.load(init, run["game"])
        if start_net.features != run["features"] or start_net.hidden != hidden:
            raise ValueError(f"--init network is {start_net.features} with {start_net.hidden} "
                             f"hidden units; this run is {run['features']} with {hidden}")
    else:
        start_net = initial_network(run, hidden, seed, x)
    params = {k: jnp.asarray(getattr(start_net, k)) for k in ("w1", "b1", "w2", "b2")}
    opt_state = tx.init(params)
    state = {"pass": 0, "step": 0, "seconds": 0.0, "history": [], "train_sum": 0.0}
    if resume:
        p, leaves, state, old = ckpt.read()
        diff = [k for k in IDENTITY if old.get(k) != settings.get(k)]
        if diff:
            raise ValueError(f"{ckpt.path} is a run with {diff[0]}={old.get(diff[0])!r}, not "
                             f"{settings.get(diff[0])!r}; resume with the same settings, or "
                             "pass --force to start over")
        params = {k: jnp.asarray(v) for k, v in p.items()}
        treedef = jax.tree_util.tree_structure(opt_state)
        cur = jax.tree_util.tree_leaves(opt_state)
        opt_state = jax.tree_util.tree_unflatten(
            treedef, [jnp.asarray(a, dtype=b.dtype) for a, b in zip(leaves, cur)])

    def loss_fn(params, xb, yb):
        return jnp.mean((_forward(jnp, params, xb) - yb) ** 2)

    @jax.jit
    def step(params, opt_state, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    def numpy_params():
        return {k: np.asarray(v, dtype=np.float32) for k, v in jax.device_get(params).items()}

    def save_checkpoint():
        leaves = [np.asarray(a) for a in jax.device_get(jax.tree_util.tree_leaves(opt_state))]
        ckpt.write(numpy_params(), leaves, state, settings)

    say = log or (lambda text: None)
    zero_mse = float(np.mean(ys ** 2)) if len(ys) else float("nan")
    say(f"{len(yt)} training positions, {len(ys)} held out ({run['game']}, {run['features']}; "
        f"held-out mse of the value 0: {zero_mse:.4f}), "
        f"{perms.shape[0] if symmetries else 1} symmetries, {passes} passes of "
        f"{steps_per_pass} steps")
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=total, initial=state["pass"] * steps_per_pass + state["step"],
                   desc=f"fitting {run['game']}", unit="step", dynamic_ncols=True)
    last_save = time.perf_counter()
    t0 = time.perf_counter() - state["seconds"]
    try:
        while state["pass"] < passes:
            p = state["pass"]
            rng = np.random.default_rng([seed, p])
            order = rng.permutation(len(yt))
            sym = rng.integers(0, inverse.shape[0], len(yt))
            for s in range(state["step"], steps_per_pass):
                idx = order[s * batch_size:(s + 1) * batch_size]
                xb = np.take_along_axis(xt[idx], inverse[sym[idx]], axis=1).astype(np.float32)
                params, opt_state, loss = step(params, opt_state, xb, yt[idx])
                state["train_sum"] += float(loss) * len(idx)
                state["step"] = s + 1
                if bar is not None:
                    bar.update(1)
                if time.perf_counter() - last_save >= checkpoint_every:
                    state["seconds"] = time.perf_counter() - t0
                    save_checkpoint()
                    last_save = time.perf_counter()
            mse, sign, clear = _evaluate(numpy_params(), xs, ys)
            entry = {"pass": p + 1, "train_mse": state["train_sum"] / len(yt),
                     "heldout_mse": mse, "heldout_sign": sign, "heldout_sign_clear": clear,
                     "seconds": round(time.perf_counter() - t0, 1)}
            state["history"].append(entry)
            state.update({"pass": p + 1, "step": 0, "train_sum": 0.0,
                          "seconds": time.perf_counter() - t0})
            save_checkpoint()
            last_save = time.perf_counter()
            say(f"pass {p + 1}: train mse {entry['train_mse']:.4f}, held-out mse {mse:.4f}, "
                f"sign {sign:.3f}, sign where |label| > {CLEAR}: {clear:.3f} ({entry['seconds']} s)")
    except KeyboardInterrupt:
        state["seconds"] = time.perf_counter() - t0
        save_checkpoint()
        raise
    finally:
        if bar is not None:
            bar.close()
    w = numpy_params()
    meta = {"positions": int(len(yt)), "heldout_positions": int(len(ys)),
            "heldout_zero_mse": zero_mse, "passes": passes,
            "batch_size": batch_size, "learning_rate": learning_rate, "seed": seed,
            "symmetries": bool(symmetries), "hidden": hidden, "seconds": round(state["seconds"], 1),
            "labels": {k: run[k] for k in ("simulations", "search", "opening", "seed")},
            "history": state["history"], "init": None if init is None else start_net.meta}
    net = ValueNetwork(run["game"], run["features"], w["w1"], w["b1"], w["w2"], w["b2"], meta)
    net.save(out)
    return net, state["history"]


def initial_network(run, hidden, seed, x):
    """The start of a run: every hidden unit in the middle of its linear range
    (``b1 = 0.5``, first-layer rows of a spread that moves a typical position's
    accumulator by about 0.25) and a small output layer, so that the first
    values are near 0 and every unit passes gradients."""
    rng = np.random.default_rng([seed, 1])
    count = x.shape[1]
    active = max(1.0, float(x[:4096].sum(axis=1).mean()))
    w1 = rng.normal(0.0, 0.25 / math.sqrt(active), (count, hidden)).astype(np.float32)
    w2 = rng.normal(0.0, 0.1 / math.sqrt(hidden), hidden).astype(np.float32)
    return ValueNetwork(run["game"], run["features"], w1, np.full(hidden, 0.5, np.float32), w2,
                        np.float32(0.0), {"init": "fit", "seed": seed})


def _load(data, max_positions):
    xs, ys, gs, run = [], [], [], None
    for d in data:
        x, y, _, g, settings = load_positions(d)
        if run is not None and (settings["game"], settings["features"]) != \
                (run["game"], run["features"]):
            raise ValueError(f"{d} holds {settings['features']} positions, {data[0]} "
                             f"{run['features']}: one network is fitted to one feature set")
        run = run or settings
        xs.append(x)
        ys.append(y)
        gs.append(g + (len(gs) << 40))     # games of different runs stay apart
    x, y, g = np.concatenate(xs), np.concatenate(ys), np.concatenate(gs)
    if max_positions is not None:
        n = _util.check_int("max_positions", max_positions, min=1)
        x, y, g = x[:n], y[:n], g[:n]
    if not math.isfinite(float(np.sum(y))):
        raise ValueError("the labels hold NaN or infinite values")
    return x, y.astype(np.float32), g, run
