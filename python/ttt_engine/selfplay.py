"""Batched self-play with PUCT: many games at once, one evaluator call per step.

Every game in flight has its own search tree; at each step the leaves of all
trees are gathered into one batch, evaluated in one call, and backed up
(the tree work in C without the GIL).  When a tree's search reaches its
simulations, its root is recorded (planes, legal mask, visit distribution)
and a move is played: sampled in proportion to the visits for the first
``temperature_moves`` plies, the most visited after that; the chosen subtree
is kept for the next move.  When a game ends, every recorded position gets the
outcome from its side to move as its value target.  With playout-cap
randomisation (``playout_cap_share`` < 1) only the moves searched in full are
recorded; the others are played after a cheap search and leave no row.

>>> from ttt_engine.selfplay import selfplay
>>> from ttt_engine.evaluators import UniformEvaluator
>>> data = selfplay("ttt", UniformEvaluator(), games=8, simulations=50, seed=1)
>>> data.observations.shape[1:], data.policies.shape[1], len(data.outcomes)
((2, 3, 3), 9, 8)

The same seed (and the same ``parallel``) gives the same arrays.  With an
``executor`` (any ``concurrent.futures.Executor``: processes, a Dask
cluster's client executor), the games are split into ``workers`` parts with
their own seeds, played where the executor runs them, and joined in order.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass

import numpy as np

from ttt_engine import _parallel, _symmetry
from ttt_engine import games as _games
from ttt_engine._util import check_bool, check_int, check_real, check_simulations, resolve_seed

__all__ = ["selfplay", "SelfPlayData", "symmetries"]

#: plies played in proportion to the visits before the most visited move is
#: played (each game's ``temperature_moves``); the rest of a game is played greedily
DEFAULT_TEMPERATURE_MOVES = _games.FactView("temperature_moves")


@dataclass
class SelfPlayData:
    """Training targets from self-play (one row per recorded position).

    observations int8 ``[N, *obs_shape]``: the root's planes (side to move);
    masks bool ``[N, A]``: its legal actions; policies float32 ``[N, A]``: the
    search's visit distribution (sums to 1 over the legal actions); values
    float32 ``[N]``: the game's outcome for the side to move there (+1, 0,
    -1); game_ids int32 ``[N]``; plies int32 ``[N]``: the ply of the position;
    outcomes int8 ``[games]``: 0 the first player won, 1 the second, 2 draw;
    lengths int32 ``[games]``: the plies each game was played for (recorded
    or not).  ``game`` is the registry key; ``stats`` holds counts and speeds.
    """
    game: str
    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    game_ids: np.ndarray
    plies: np.ndarray
    outcomes: np.ndarray
    stats: dict
    lengths: np.ndarray = None

    def __len__(self):
        return int(self.values.shape[0])

    def concat(self, other):
        """Both sets of games, ``other``'s game ids shifted after these."""
        if other.game != self.game or other.observations.shape[1:] != self.observations.shape[1:]:
            raise ValueError(f"cannot join self-play data of {self.game} "
                             f"{self.observations.shape[1:]} and {other.game} "
                             f"{other.observations.shape[1:]}")
        shift = len(self.outcomes)
        return SelfPlayData(
            self.game,
            np.concatenate([self.observations, other.observations]),
            np.concatenate([self.masks, other.masks]),
            np.concatenate([self.policies, other.policies]),
            np.concatenate([self.values, other.values]),
            np.concatenate([self.game_ids, other.game_ids + shift]).astype(np.int32),
            np.concatenate([self.plies, other.plies]),
            np.concatenate([self.outcomes, other.outcomes]),
            _merge_stats(self.stats, other.stats),
            np.concatenate([self.lengths, other.lengths]))

    def augment(self):
        """The data with every symmetry of the board applied (the identity
        first): ``len(symmetries)`` times as many rows, same values and game ids."""
        obs, masks, policies, k = augmented(self.game, self.observations, self.masks,
                                            self.policies)
        return SelfPlayData(
            self.game, obs, masks, policies,
            np.tile(self.values, k), np.tile(self.game_ids, k), np.tile(self.plies, k),
            self.outcomes.copy(), dict(self.stats, symmetries=k), self.lengths.copy())


def augmented(game, observations, masks, policies):
    """``(observations, masks, policies, k)`` with every one of the board's
    ``k`` symmetries applied (the identity first, one block of rows per
    symmetry): per-position fields are repeated with ``np.tile(x, k)``."""
    syms = symmetries(game, observations.shape[1:], masks.shape[1])
    n = len(observations)
    flat = observations.reshape(n, -1)
    k = len(syms)
    return (np.concatenate([flat[:, o] for o, _ in syms]).reshape((n * k,)
                                                                   + observations.shape[1:]),
            np.concatenate([masks[:, a] for _, a in syms]),
            np.concatenate([policies[:, a] for _, a in syms]), k)


def _merge_stats(a, b):
    out = {}
    for key in ("games", "positions", "moves", "simulations", "evaluations",
                "evaluator_calls"):
        out[key] = a.get(key, 0) + b.get(key, 0)
    out["time"] = max(a.get("time", 0.0), b.get("time", 0.0))
    out["evaluator_time"] = a.get("evaluator_time", 0.0) + b.get("evaluator_time", 0.0)
    return out


# ---------------------------------------------------------------------------- symmetries
def symmetries(game, obs_shape, num_actions):
    """``[(obs_index, action_index), ...]`` for every symmetry ``game`` (a
    registry key) declares (its entry's ``symmetries``, a rule of
    ``ttt_engine._symmetry``), the identity first: ``obs_flat[:, obs_index]``
    and ``policy[:, action_index]`` are the transformed position's planes and
    policy.  A game that declares none has the identity alone."""
    rule = _games.get(game).symmetries or _symmetry.identity
    return rule(tuple(obs_shape), int(num_actions))


# ---------------------------------------------------------------------------- self-play
def _max_record(board):
    """An upper bound on a game's plies from ``board``'s kind."""
    cap = getattr(board, "max_plies", None)
    return int(cap) if cap else int(board.num_actions)


def selfplay(game, evaluator, games=64, simulations=100, *, parallel=None, seed=None,
             temperature_moves=None, c_puct=1.25, c_base=None, c_init=None,
             dirichlet_alpha=None, noise_fraction=0.25, max_nodes=None, playout_weight=0.0,
             mixed_playouts=1, expand_after=0, gumbel=False, gumbel_k=16,
             playout_cap_share=1.0, cheap_simulations=None, executor=None,
             workers=None, progress=False, **game_options):
    """Play ``games`` games of ``game`` (a registry key) against itself with
    PUCT guided by ``evaluator`` at ``simulations`` per move; returns
    :class:`SelfPlayData`.

    - parallel: games in flight at once (default ``min(games, 256)``): the
      evaluator sees up to that many positions per call.
    - temperature_moves: plies played in proportion to the visits (default per
      game: ``DEFAULT_TEMPERATURE_MOVES``); later plies take the most visited.
    - c_puct, c_base, c_init, dirichlet_alpha, noise_fraction, playout_weight,
      mixed_playouts, expand_after: as for :class:`ttt_engine.search.PUCT` (a
      young leaf's playout visits count towards the move's simulations).
    - max_nodes: nodes per tree (default: enough for the simulations).
    - gumbel: Gumbel root search (Danihelka et al., ICLR 2022) instead of
      visit counts and Dirichlet noise: at each move's root, ``gumbel_k``
      actions are sampled without replacement (Gumbel-top-k on the
      priors' logits), the simulations are shared among them by sequential
      halving, the move played maximises g + logit + sigma(completed Q)
      among the most visited, and the recorded policy is
      softmax(logit + sigma(completed Q)); PUCT below the root, a fresh
      tree every move.  ``temperature_moves`` and ``dirichlet_alpha`` do not
      apply (the Gumbel noise explores).  Rules in docs/alphazero.md.
    - playout_cap_share, cheap_simulations: playout-cap randomisation (Wu,
      KataGo, 2019): each move's search is full (``simulations``) with
      probability ``playout_cap_share``, else cheap (``cheap_simulations``,
      below ``simulations``, without root noise); only the positions
      searched in full are recorded (the cheap moves only play).  The draw
      of a move is seeded by the game's seed, its number and the ply.  1
      (the default) searches every move in full.  Not with ``gumbel``.
    - executor, workers: play on a ``concurrent.futures.Executor`` in
      ``workers`` parts (the evaluator must pickle).  A part is a pure
      function of its arguments (its seed among them) that writes nothing,
      so one played again (Dask reruns the tasks of a lost worker) gives the
      same games; Ctrl-C or a failed part cancels the others.
    - progress: a progress bar over the games.

    A :class:`~ttt_engine.network.Network` (or any evaluator whose
    ``compiled`` attribute is a ``CompiledNetwork``) is not called: the
    whole self-play step (gather, forward pass, back-up, moves) runs in C
    without the GIL; an evaluator with a ``count(calls, evaluations,
    seconds)`` method is told what was evaluated.

    game_options: board options (e.g. ``rows=4, cols=5`` for Clobber).
    """
    g = _games.get(game) if isinstance(game, str) else game
    if not isinstance(g, _games.Game):
        raise ValueError(f"game must be a registry key such as 'ttt', got {game!r}")
    if not callable(evaluator):
        raise TypeError(f"evaluator must be callable as evaluate(observations, legal_mask), "
                        f"got {type(evaluator).__name__}")
    n_games = check_int("games", games, min=1, max=10**9)
    sims = check_simulations("simulations", simulations)
    seed = resolve_seed(seed)
    proto = g.new_board(**game_options)
    kw = dict(parallel=parallel, temperature_moves=temperature_moves, c_puct=c_puct,
              c_base=c_base, c_init=c_init, dirichlet_alpha=dirichlet_alpha,
              noise_fraction=noise_fraction, max_nodes=max_nodes,
              playout_weight=playout_weight, mixed_playouts=mixed_playouts,
              expand_after=expand_after, gumbel=check_bool("gumbel", gumbel),
              gumbel_k=check_int("gumbel_k", gumbel_k, min=1, max=256))
    kw.update(zip(("playout_cap_share", "cheap_simulations"),
                  check_playout_cap(playout_cap_share, cheap_simulations, sims, kw["gumbel"])))
    if executor is not None:
        k = check_int("workers", workers if workers is not None else 2, min=1, max=4096)
        counts = [c for c in _parallel.split_counts(n_games, k) if c > 0]
        seeds = _parallel.split_seeds(seed, len(counts))
        futures = [executor.submit(selfplay, g.key, evaluator, c, sims, seed=s, **kw,
                                   **game_options) for c, s in zip(counts, seeds)]
        data = None
        try:
            for fut in futures:
                part = fut.result()
                data = part if data is None else data.concat(part)
        except BaseException:
            # Ctrl-C or a failed part: the other parts would only be thrown away
            for fut in futures:
                fut.cancel()
            raise
        return data
    if workers is not None:
        raise ValueError("workers= needs an executor=")
    return _selfplay_local(g, proto, evaluator, n_games, sims, seed, progress, **kw)


def check_playout_cap(share, cheap, simulations, gumbel, simulations_name="simulations"):
    """``(share, cheap)`` checked for ``simulations`` per full search: share
    in (0, 1] (1: every search full, ``cheap`` unused), and below 1 a
    ``cheap`` from 1 to ``simulations`` - 1, without Gumbel root search."""
    share = check_real("playout_cap_share", share, low=0, low_open=True, high=1)
    cheap = check_int("cheap_simulations", cheap, min=1, allow_none=True)
    if share < 1:
        if cheap is None:
            raise ValueError(f"playout_cap_share={share:g} needs cheap_simulations (the "
                             "simulations of the searches that are not full)")
        if cheap >= simulations:
            raise ValueError(f"cheap_simulations must be below {simulations_name} "
                             f"({simulations}), got {cheap}")
        if gumbel:
            raise ValueError("playout_cap_share < 1 does not go with gumbel (sequential "
                             "halving plans one budget for every move)")
    return share, cheap


def _selfplay_local(g, proto, evaluator, n_games, sims, seed, progress, *, parallel,
                    temperature_moves, c_puct, c_base, c_init, dirichlet_alpha,
                    noise_fraction, max_nodes, playout_weight, mixed_playouts, expand_after,
                    gumbel, gumbel_k, playout_cap_share, cheap_simulations):
    from ttt_engine._core.algorithms import puct as _puct
    from ttt_engine._core.algorithms import puct_selfplay as _puct_selfplay
    from ttt_engine.evaluators import UniformEvaluator, call_evaluator, check_output
    from ttt_engine.search import _dispatch
    par = check_int("parallel", parallel if parallel is not None else min(n_games, 256),
                    min=1, max=65536)
    par = min(par, n_games)
    if temperature_moves is None:
        temperature_moves = g.temperature_moves
    temperature_moves = check_int("temperature_moves", temperature_moves, min=0, max=10**6)
    c_puct = check_real("c_puct", c_puct, low=0, high=1e6)
    c_base = check_real("c_base", c_base, low=0, low_open=True, high=1e12, allow_none=True)
    c_init = check_real("c_init", c_init, low=0, high=1e6, allow_none=True)
    alpha = check_real("dirichlet_alpha", dirichlet_alpha, low=0, low_open=True, high=1e6,
                       allow_none=True)
    noise_fraction = check_real("noise_fraction", noise_fraction, low=0, high=1)
    playout_weight = check_real("playout_weight", playout_weight, low=0, high=1)
    mixed_playouts = check_int("mixed_playouts", mixed_playouts, min=1, max=10_000)
    expand_after = check_int("expand_after", expand_after, min=0, max=1_000_000)
    branching = min(proto.num_actions, 64)
    if max_nodes is None:
        # room for the search of one move and the subtree kept from the last,
        # within 2**18 nodes a tree and 2**26 (2 GB) over the trees
        max_nodes = min(2 * (sims + 1) * branching, 1 << 18, (1 << 26) // par)
        max_nodes = max(int(_puct.MIN_NODES), max_nodes)
    max_nodes = check_int("max_nodes", max_nodes, min=int(_puct.MIN_NODES), max=(1 << 31) - 1)
    native = isinstance(evaluator, UniformEvaluator)      # run in C, no Python call
    max_rec = _max_record(proto)
    f = _puct.PUCTForest(proto, par, 1, max_nodes, seed, c_puct, c_base or 0.0,
                         c_puct if c_init is None else c_init, alpha or 0.0, noise_fraction,
                         evaluator.playouts if native else 0, max_rec)
    f.set_playout_weight(playout_weight, mixed_playouts)
    f.set_expand_after(expand_after)
    if gumbel:
        _puct_selfplay.forest_set_gumbel(f, gumbel_k, sims)
    cap = None
    if playout_cap_share < 1:
        cap = _puct_selfplay.PlayoutCap(f, playout_cap_share, cheap_simulations, seed)
    compiled = None if native else getattr(evaluator, "compiled", None)
    if compiled is not None:
        check = getattr(evaluator, "check_board", None)
        if check is not None:
            check(proto)
        f.attach_network(compiled)
    obs_shape = tuple(proto.observation().shape)
    num_actions = proto.num_actions
    slot_game = [-1] * par
    started = 0
    for slot in range(par):
        _dispatch(_puct.forest_set_root, f, proto, slot)
        if cap is not None:
            cap.start(f, slot, started, sims)
        slot_game[slot] = started
        started += 1
    rows = []          # (game id, obs, mask, policy, players, plies)
    lengths = np.zeros(n_games, dtype=np.int32)
    outcomes = np.zeros(n_games, dtype=np.int8)
    calls = evaluations = 0
    eval_time = 0.0
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=n_games, desc=f"self-play {g.key}", unit="game")
    t0 = _time.perf_counter()
    finished = 0
    try:
        while finished < n_games:
            if compiled is not None:
                ended, c, e, te = _dispatch(_puct_selfplay.forest_selfplay_network, f, proto,
                                            sims, temperature_moves, cap)
                calls += c
                evaluations += e
                eval_time += te
                if ended == 0:
                    continue
            elif native:
                _puct.forest_native(f, proto, sims)
            else:
                n = _puct.forest_gather(f, proto, sims)
                if n:
                    te = _time.perf_counter()
                    out = call_evaluator(evaluator, f.observations[:n].reshape((n,) + obs_shape),
                                         f.masks[:n])
                    logits, values = check_output(evaluator, out, n, num_actions)
                    eval_time += _time.perf_counter() - te
                    _puct.forest_backup(f, proto, logits, values)
                    calls += 1
                    evaluations += n
            if compiled is None and _puct_selfplay.forest_advance(f, proto, sims,
                                                                  temperature_moves, cap) == 0:
                continue
            for slot in range(par):
                gid = slot_game[slot]
                if gid < 0 or f.is_active(slot):
                    continue
                count, players = f.records(slot)
                status = _puct.forest_status(f, proto, slot)
                winner = {1: 0, 2: 1}.get(status, -1)
                outcomes[gid] = winner if winner >= 0 else 2
                lengths[gid] = count
                keep = slice(None) if cap is None else cap.rec_full[slot, :count].astype(bool)
                rows.append((gid, f.rec_obs[slot, :count][keep], f.rec_mask[slot, :count][keep],
                             f.rec_policy[slot, :count][keep], players[keep],
                             np.arange(count, dtype=np.int32)[keep]))
                finished += 1
                if bar is not None:
                    bar.update(1)
                if started < n_games:
                    _dispatch(_puct.forest_set_root, f, proto, slot)
                    if cap is not None:
                        cap.start(f, slot, started, sims)
                    slot_game[slot] = started
                    started += 1
                else:
                    slot_game[slot] = -1
    finally:
        if bar is not None:
            bar.close()
    seconds = _time.perf_counter() - t0
    counter = getattr(evaluator, "count", None) if compiled is not None else None
    if counter is not None:
        counter(calls, evaluations, eval_time)
    rows.sort(key=lambda r: r[0])
    obs = np.concatenate([r[1] for r in rows]).reshape((-1,) + obs_shape)
    masks = np.concatenate([r[2] for r in rows])
    policies = np.concatenate([r[3] for r in rows])
    game_ids = np.concatenate([np.full(len(r[4]), r[0], dtype=np.int32) for r in rows])
    plies = np.concatenate([r[5] for r in rows])
    players = np.concatenate([r[4] for r in rows]).astype(np.int64)
    winners = outcomes[game_ids].astype(np.int64)
    values = np.where(winners == 2, 0.0, np.where(winners == players, 1.0, -1.0))
    positions = len(values)
    moves = int(lengths.sum())
    # the searches' budgets (a cheap search's head start is not simulated)
    total_sims = positions * sims + (0 if cap is None else (moves - positions) * cap.cheap)
    stats = {"games": n_games, "positions": positions, "moves": moves,
             "simulations": total_sims,
             "evaluations": total_sims if native else evaluations,
             "evaluator_calls": calls, "time": seconds, "evaluator_time": eval_time,
             "simulations_per_s": total_sims / seconds if seconds > 0 else float("inf")}
    return SelfPlayData(g.key, obs, masks, policies, values.astype(np.float32), game_ids,
                        plies, outcomes, stats, lengths)
