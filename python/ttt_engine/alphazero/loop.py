"""The training loop: self-play, the replay buffer, SGD, evaluations,
checkpoints and the metrics log, resumable (see the package docstring)."""
from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import signal
import sys
import threading
import time as _time

import numpy as np

from ttt_engine import _registry, _util
# a module import, not a name import: plot imports alphazero.metrics, and when plot
# is imported first this package loads while plot is still loading
from ttt_engine import plot as _plot
from ttt_engine.alphazero.buffer import ReplayBuffer
from ttt_engine.alphazero.checkpoint import _write_checkpoint, load_checkpoint, run_paths
from ttt_engine.alphazero.config import _checked, config_for, simulations_at
from ttt_engine.alphazero.evaluation import evaluate_network
from ttt_engine.alphazero.learner import _Learner, _nn
from ttt_engine.alphazero.metrics import _append_jsonl, _resumed_metrics, _truncate_metrics
from ttt_engine.network import Network, _game


@dataclasses.dataclass
class Training:
    """What :func:`train` returns."""
    network: Network
    out: str
    checkpoint: str
    metrics: str
    iteration: int
    records: list
    stopped: str                   # "time", "iterations"


class _CountingEvaluator:
    """Wraps the network to count evaluations and the time spent in it."""

    def __init__(self, net):
        self.net = net
        self.evaluations = 0
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, observations, legal_mask):
        t0 = _time.perf_counter()
        out = self.net(observations, legal_mask)
        self.seconds += _time.perf_counter() - t0
        self.evaluations += len(observations)
        self.calls += 1
        return out

    @property
    def compiled(self):
        """The network's compiled weights: self-play evaluates with them in C
        and reports its counts through ``count``."""
        return self.net.compiled

    def check_board(self, board):
        self.net.check_board(board)

    def count(self, calls, evaluations, seconds):
        """Evaluations made in C with ``compiled``."""
        self.calls += calls
        self.evaluations += evaluations
        self.seconds += seconds

    def __setstate__(self, state):
        self.__init__(state["net"])         # on a worker: its own counts from zero


#: upper bound of ``workers=`` (far above any cluster this trains on; guards typos)
_MAX_WORKERS = 4096


def _derived_seed(seed, iteration, purpose):
    return int(np.random.SeedSequence([seed, iteration, purpose]).generate_state(
        1, np.uint64)[0] >> np.uint64(1))


@contextlib.contextmanager
def _interrupt_after():
    """Hold a first Ctrl-C until the block ends (then ``KeyboardInterrupt``):
    an SGD phase cut short leaves no state worth saving, a finished one does.
    A second Ctrl-C interrupts at once.  Only in the main thread, and only
    over Python's own handler (never a caller's)."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    pending = []

    def held(signum, frame):
        if pending:
            raise KeyboardInterrupt
        pending.append(signum)
        # the steps may take seconds: say why nothing stops yet
        print("\nCtrl-C: saving once this iteration's training steps end "
              "(Ctrl-C again stops at once)", file=sys.stderr, flush=True)

    signal.signal(signal.SIGINT, held)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pending:
        raise KeyboardInterrupt


def _out_kind(out):
    """None when ``out`` does not exist; else ``(is_network, what it is)``."""
    if not os.path.exists(out):
        return None
    from ttt_engine import _modelfile
    try:
        kind = _modelfile.kind_of(out)
    except (OSError, ValueError):
        return False, "is not a ttt_engine model file"
    return kind == "ttt_engine.Network", f"is a {_modelfile._describe(kind)} file"


def train(game=None, *, out, time=None, iterations=None, resume=False, overwrite=False,
          seed=None, progress=True, plot=None, log=None, board_options=None, executor=None,
          workers=None, _on_start=None, **hyper):
    """Train a policy-value network for ``game`` by AlphaZero self-play.

    Parameters
    ----------
    game : str
        A registry key (``ttt_engine.games.GAMES``), e.g. "uttt"; None: the
        first game of the game list (Tic-Tac-Toe).
    out : str or os.PathLike
        The network file (a :class:`~ttt_engine.network.Network` model file),
        written at every checkpoint; the checkpoint and the metrics log go next
        to it (``run_paths``).  All three are checked before any work (a
        missing folder is refused, as by every writer: ``check_output_path``).
    time : float, optional
        Wall-time budget of this call in seconds (default: the preset's).
        Training stops after the iteration that reaches it, with a checkpoint:
        one iteration always completes, so a budget shorter than an iteration
        is exceeded by it.
    iterations : int, optional
        Stop when the run (resumed or not) has done this many iterations in
        all; resuming a run already there is a ``ValueError``.
    resume : bool
        Continue from the checkpoint next to ``out`` (the hyperparameters are
        the checkpoint's; ``hyper`` may change the ones that do not change the
        network or the buffer's shape).  Without a checkpoint it is a
        ``FileNotFoundError`` naming the file expected (a mistyped ``out``
        must not start a new run).
    overwrite : bool
        Start anew even if a checkpoint or the network ``out`` exists (which is
        otherwise an error).  A file ``out`` that is not a network is never
        overwritten.
    seed : int, optional
        Seed of the whole run (initial weights, self-play, minibatches).  A
        resumed run keeps its checkpoint's: a seed with it is a ``ValueError``.
    progress : bool
        A tqdm progress bar.
    plot : str or os.PathLike, optional
        Write the learning curves (PNG, needs the ``[plot]`` extra) at the end.
    log : callable, optional
        ``log(record)`` after every iteration (the metrics record, a dict).
    board_options : dict, optional
        The game's board options (Clobber ``rows``/``cols``, Quixo ``size``...).
    executor : concurrent.futures.Executor, optional
        Where each iteration's self-play games are played (a Dask cluster:
        ``distributed.Client(address).get_executor()``), in ``workers`` parts
        with their own seeds; the current weights go with every part, and the
        learner trains here.  Needs ``workers``.
    workers : int, optional
        The parts each iteration's games are split into: with ``executor``,
        as many as its worker threads; without one, ``workers > 1`` plays them
        on a local process pool of that many processes (started by
        forkserver/spawn, never a fork of this process).  Default: one part,
        in this process.  The games depend on ``seed`` and ``workers`` only,
        not on where they are played: ``workers=k`` gives the same run on any
        executor, and ``workers=1`` on an executor the same as none.
    **hyper
        Overrides of the preset's hyperparameters (:class:`ttt_engine.alphazero.Config` fields).

    Returns
    -------
    Training
        The run's record.

    Notes
    -----
    Ctrl-C: the last complete iteration is
    checkpointed (when no SGD step was under way), then ``KeyboardInterrupt``
    propagates; the last complete checkpoint always survives.  The same when
    self-play fails on the executor (a cluster lost, a pool broken): its
    exception propagates after that checkpoint.  A worker lost mid-iteration
    is not a failure on Dask: the scheduler plays its part again elsewhere,
    with the same seed, so the same games.
    """
    _nn()                                   # the [nn] extra, before any work
    from ttt_engine.selfplay import selfplay
    game = _registry.default_game(game)
    g = _game(game)
    options = dict(board_options or {})
    resume, overwrite = _util.check_bool("resume", resume), _util.check_bool("overwrite", overwrite)
    progress = _util.check_bool("progress", progress)
    _util.check_output_path(out, "network")
    out = os.fspath(out)
    ckpt_path, metrics_path = run_paths(out)
    # all three are written, the first after an iteration's work: checked before any
    _util.check_output_path(ckpt_path, "checkpoint")
    _util.check_output_path(metrics_path, "metrics log")
    time_budget = _util.check_real("time", time, low=0, low_open=True, allow_none=True)
    iterations = _util.check_int("iterations", iterations, min=1, allow_none=True)
    workers = _util.check_int("workers", workers, min=1, max=_MAX_WORKERS, allow_none=True)
    if executor is not None:
        from ttt_engine.tournament._runner import check_executor
        check_executor(executor)
        if workers is None:
            raise ValueError("executor= needs workers=: the parts each iteration's games are "
                             "split into (e.g. the executor's worker threads)")
    if plot is not None:
        _plot._require_matplotlib()

    ck = None
    if resume and not overwrite and not os.path.exists(ckpt_path):
        raise FileNotFoundError(f"resume=True: no checkpoint {ckpt_path} to continue (the run "
                                f"of out={out!r} writes it); without resume a new run starts")
    if os.path.exists(ckpt_path) and not overwrite:
        if not resume:
            raise FileExistsError(f"{ckpt_path} exists: resume=True continues that run, "
                                  "overwrite=True starts a new one")
        ck = load_checkpoint(ckpt_path)
        try:
            ck.network.check_game(g.key, **options)
        except ValueError as e:
            raise ValueError(f"{ckpt_path}: {e}") from None
    # the network is written over --out: never a file of another kind, and an
    # existing network only when the caller continues or restarts its run
    found = _out_kind(out)
    if found is not None:
        is_network, what = found
        if not is_network:
            raise FileExistsError(f"{out} exists and {what}: only a network file is "
                                  "overwritten; choose another out")
        if not (resume or overwrite):
            raise FileExistsError(f"{out} exists and {what}: overwrite=True replaces it")

    if ck is not None:
        fixed = ("hidden", "architecture", "channels", "blocks", "buffer_size")
        changed = [k for k in fixed if k in hyper and hyper[k] is not None
                   and tuple(np.atleast_1d(hyper[k])) != tuple(np.atleast_1d(
                       getattr(ck.config, k)))]
        if changed:
            raise ValueError(f"{ckpt_path}: cannot resume with a different "
                             f"{', '.join(changed)} (the checkpoint has "
                             f"{', '.join(f'{k}={getattr(ck.config, k)}' for k in changed)})")
        config = _checked(dataclasses.replace(
            ck.config, **{k: v for k, v in hyper.items() if v is not None}))
        if seed is not None:
            raise ValueError(f"{ckpt_path}: cannot resume with a seed: the run keeps its own "
                             f"({ck.seed})")
        if iterations is not None and ck.iteration >= iterations:
            raise ValueError(f"{ckpt_path}: the run is already at iteration {ck.iteration:,}: "
                             f"iterations={iterations:,} would train nothing (it counts the "
                             "run's iterations in all, not this session's)")
        kept, dropped = _resumed_metrics(metrics_path, ck.iteration)
        seed = ck.seed
        net = ck.network
        counters = dict(ck.counters)
    else:
        config = config_for(g.key, **hyper)
        seed = _util.resolve_seed(seed)
        sizes = (dict(channels=config.channels, blocks=config.blocks)
                 if config.architecture == "conv" else dict(hidden=config.hidden))
        net = Network.init(g.key, architecture=config.architecture, **sizes,
                           seed=_derived_seed(seed, 0, 0), **options)
        counters = {"iteration": 0, "games": 0, "positions": 0, "sgd_steps": 0,
                    "seconds": 0.0, "evaluations": 0, "last_eval_seconds": None}
    if time_budget is None and iterations is None:
        time_budget = config.time
    if _on_start is not None:       # every check passed: the console announces the run
        _on_start({"iteration": counters["iteration"],
                   "dropped": dropped if ck is not None else 0})

    learner = _Learner(config, net.params)
    buffer = ReplayBuffer(config.buffer_size, net.obs_shape, net.num_actions)
    if ck is not None:
        learner.set_opt_leaves(ck.opt_leaves, ckpt_path)
        buffer.restore(ck.raw, ckpt_path)
        _truncate_metrics(metrics_path, kept)
        records = kept
        ck = None
    else:
        records = []
        if os.path.exists(metrics_path):
            _util.atomic_write(metrics_path, lambda f: None)
    board_options_full = net.board_options
    # where self-play runs: in this process, the caller's executor or a pool of ours
    pool, own_pool = executor, False
    if executor is None and workers is not None and workers > 1:
        from ttt_engine.tournament._runner import default_executor
        pool, own_pool = default_executor(workers), True
    parts = workers if pool is not None else None
    playing = False                     # self-play under way (on the executor)

    bar = None
    if progress:
        from tqdm.auto import tqdm
        if iterations is not None and time_budget is None:
            bar = tqdm(total=iterations, initial=counters["iteration"], unit="it",
                       desc=f"AlphaZero {g.key}")
        else:
            # seconds as floats: a budget under 10 s shows tenths (not "0/0 s")
            digits = 1 if time_budget < 10 else 0
            bar = tqdm(total=time_budget, unit="s", desc=f"AlphaZero {g.key}",
                       bar_format=f"{{l_bar}}{{bar}}| {{n:.{digits}f}}/{{total:.{digits}f}} s "
                                  "[{elapsed}<{remaining}{postfix}]")

    start = _time.perf_counter()
    last_ckpt_iteration = counters["iteration"]
    last_ckpt_seconds = counters["seconds"]
    session_base = counters["seconds"]
    consistent = True                   # the state is that of a complete iteration
    unlogged = None                     # a complete iteration's record not yet logged
    stopped = "time"

    def save_all():
        nonlocal last_ckpt_iteration, last_ckpt_seconds
        _write_checkpoint(ckpt_path, net, config, seed, counters, learner, buffer)
        net.save(out)
        last_ckpt_iteration = counters["iteration"]
        last_ckpt_seconds = counters["seconds"]

    try:
        while True:
            if iterations is not None and counters["iteration"] >= iterations:
                stopped = "iterations"
                break
            elapsed = _time.perf_counter() - start
            if time_budget is not None and elapsed >= time_budget:
                stopped = "time"
                break
            it = counters["iteration"] + 1
            t0 = _time.perf_counter()
            evaluator = _CountingEvaluator(net)
            # the growing budget at the training time the last iteration ended (kept
            # in the checkpoint, so a resumed run continues the ramp where it was)
            sims = simulations_at(config, counters["seconds"])
            playing = True
            data = selfplay(g.key, evaluator, games=config.games, simulations=sims,
                            seed=_derived_seed(seed, it, 1),
                            temperature_moves=config.temperature_moves, c_puct=config.c_puct,
                            dirichlet_alpha=config.dirichlet_alpha,
                            noise_fraction=config.noise_fraction,
                            playout_weight=config.playout_weight,
                            mixed_playouts=config.mixed_playouts,
                            expand_after=config.expand_after, gumbel=config.gumbel,
                            gumbel_k=config.gumbel_k,
                            playout_cap_share=config.playout_cap_share,
                            cheap_simulations=config.cheap_simulations, executor=pool,
                            workers=parts, **board_options_full)
            playing = False
            t_play = _time.perf_counter() - t0
            if pool is None:
                evaluations = evaluator.evaluations
                net_share = evaluator.seconds / t_play if t_play > 0 else None
            else:
                # the evaluator counted on the workers: their parts' statistics say
                # (the network's share of the workers' time, the slowest part's x parts)
                evaluations = data.stats["evaluations"]
                busy = data.stats["time"] * parts
                net_share = data.stats["evaluator_time"] / busy if busy > 0 else None
            outcomes = np.bincount(np.asarray(data.outcomes, dtype=np.int64), minlength=3)
            n_positions = len(data)
            n_moves = data.stats["moves"]
            if config.augment:
                data = data.augment()
            t1 = _time.perf_counter()
            # a Ctrl-C here is held until the iteration is complete, and its
            # record ready: the handler below then saves it
            with _interrupt_after():
                consistent = False
                buffer.add(data.observations, data.masks, data.policies, data.values)
                steps = min(config.max_steps, max(1, math.ceil(
                    len(data) * config.sample_reuse / config.batch_size)))
                rng = np.random.default_rng(_derived_seed(seed, it, 2))
                sums = np.zeros(4)
                for _ in range(steps):
                    sums += np.asarray(learner.step(*buffer.sample(rng, config.batch_size)))
                net.set_params(learner.numpy_params())
                t_sgd = _time.perf_counter() - t1
                counters.update(iteration=it, games=counters["games"] + config.games,
                                positions=counters["positions"] + n_positions,
                                sgd_steps=counters["sgd_steps"] + steps,
                                evaluations=counters["evaluations"] + evaluations,
                                seconds=session_base + _time.perf_counter() - start)
                loss = sums / steps
                rec = {"iteration": it, "seconds": round(counters["seconds"], 3),
                       "games": counters["games"], "positions": counters["positions"],
                       "sgd_steps": counters["sgd_steps"], "buffer": len(buffer),
                       "loss": float(loss[0]), "policy_loss": float(loss[1]),
                       "value_loss": float(loss[2]), "l2": float(loss[3]),
                       "first_wins": int(outcomes[0]), "second_wins": int(outcomes[1]),
                       "draws": int(outcomes[2]), "simulations": sims, "moves": n_moves,
                       "selfplay_s": round(t_play, 3), "sgd_s": round(t_sgd, 3),
                       "games_per_s": config.games / t_play if t_play > 0 else None,
                       "evaluations_per_s": evaluations / t_play if t_play > 0 else None,
                       "network_share": net_share, "workers": parts or 1,
                       "steps_per_s": steps / t_sgd if t_sgd > 0 else None}
                unlogged = rec          # the iteration's record, not yet in the log
                consistent = True
            last_eval = counters.get("last_eval_seconds")
            final = ((time_budget is not None
                      and _time.perf_counter() - start >= time_budget)
                     or (iterations is not None and it >= iterations))
            if last_eval is None or counters["seconds"] - last_eval >= config.eval_every \
                    or final:
                t2 = _time.perf_counter()
                scores = evaluate_network(net, simulations=config.eval_simulations,
                                          games=config.eval_games,
                                          mcts_simulations=config.eval_mcts_simulations,
                                          c_puct=config.c_puct, seed=_derived_seed(seed, it, 3),
                                          playout_weight=config.playout_weight,
                                          mixed_playouts=config.mixed_playouts)
                rec.update({f"eval_{k}": v for k, v in scores.items()})
                rec["eval_s"] = round(_time.perf_counter() - t2, 3)
                counters["last_eval_seconds"] = counters["seconds"]
            records.append(rec)
            _append_jsonl(metrics_path, rec)
            unlogged = None
            if log is not None:
                log(rec)
            if counters["seconds"] - last_ckpt_seconds >= config.checkpoint_every or final:
                save_all()
            if bar is not None:
                post = {"loss": f"{loss[0]:.3f}", "buf": f"{len(buffer):,}"}
                for k in ("eval_optimality", "eval_score"):
                    if k in rec:
                        post[k[5:]] = f"{rec[k]:.3f}"
                bar.set_postfix(post, refresh=False)
                if bar.unit == "it":
                    bar.update(1)
                else:
                    bar.update(min(time_budget, _time.perf_counter() - start) - bar.n)
        if counters["iteration"] > last_ckpt_iteration or not os.path.exists(out):
            save_all()
    except BaseException as exc:
        if own_pool and isinstance(exc, KeyboardInterrupt):
            from ttt_engine.tournament._runner import stop_now
            stop_now(pool)              # its workers' games would only be thrown away
            own_pool = False
        # Ctrl-C, or self-play failing on the executor: keep the last complete iteration
        if (isinstance(exc, KeyboardInterrupt) or playing) and consistent \
                and counters["iteration"] > last_ckpt_iteration:
            if unlogged is not None:    # cut in its evaluation: logged without it
                records.append(unlogged)
                _append_jsonl(metrics_path, unlogged)
            save_all()
        raise
    finally:
        if own_pool:
            pool.shutdown(wait=True)
        if bar is not None:
            bar.close()
    if plot is not None:
        _plot.plot_alphazero(records, plot, title=f"AlphaZero {g.title}")
    return Training(net, out, ckpt_path, metrics_path, counters["iteration"], records, stopped)
