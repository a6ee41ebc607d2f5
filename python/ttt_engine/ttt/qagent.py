"""Tabular Q-learning for Tic-Tac-Toe: ``train``, ``QAgent``, ``evaluate``.

The hot loops live in the Cython module ``ttt_engine._core.learning.ttt.qlearning``; this module
validates arguments, drives training in chunks (progress bar, history) and
reads/writes model files.

>>> import ttt_engine
>>> agent = ttt_engine.train(seed=1, progress=False)        # doctest: +SKIP
>>> ttt_engine.evaluate(agent, side="O", seed=2)             # doctest: +SKIP
EvalResult(side='O', opponent='random', games=100000: wins 92.9...%, ...)
"""
from __future__ import annotations

import dataclasses
import math
import os

import numpy as np

from ttt_engine import _modelfile, _parallel, _util
from ttt_engine._agent import no_budget
from ttt_engine._core.learning.ttt import qlearning as _ql
from ttt_engine.ttt._training import run_training
from ttt_engine._core.games.ttt.board import Board

__all__ = ["QAgent", "EvalResult", "train", "evaluate", "FORMAT_VERSION", "DEFAULT_EPISODES"]

#: Version of the ``.npz`` model format written by :meth:`QAgent.save`.
FORMAT_VERSION = 1
#: Q-table shape: one row per base-3 index, one column per cell.
Q_SHAPE = (19683, 9)
#: Default number of training episodes (about a second on one core; see docs/qlearning.md).
DEFAULT_EPISODES = 10_000_000

_SIDES = {"X": 0, "O": 1, "random": 2}
_OPPONENTS = ("random", "perfect")
_MODES = ("random", "self-play", "curriculum")
_HISTORY_COLUMNS = ("episodes", "wins", "draws", "losses", "cut", "epsilon", "alpha")
_INT_COLUMNS = frozenset(("episodes", "wins", "draws", "losses", "cut", "self_play"))
_HYPER_KEYS = ("alpha", "gamma", "epsilon", "epsilon_decay", "epsilon_min",
               "alpha_decay", "alpha_min")
_OPTIONAL_HYPER_KEYS = ("curriculum_fraction", "curriculum_epsilon", "curriculum_tiebreak")


def _check_q(q, what="Q"):
    """``q`` as an owned C-contiguous float64 (19683, 9) array of finite values."""
    arr = np.asarray(q)
    if arr.shape != Q_SHAPE:
        raise ValueError(f"{what} must have shape {Q_SHAPE}, got {arr.shape}")
    if arr.dtype != np.float64:
        raise ValueError(f"{what} must have dtype float64, got {arr.dtype}")
    bad = ~np.isfinite(arr)
    if bad.any():
        s, a = np.argwhere(bad)[0]
        raise ValueError(f"{what} has {int(bad.sum())} non-finite value(s), "
                         f"first at state {s}, cell {a}: {arr[s, a]}")
    return np.array(arr, dtype=np.float64, order="C", copy=True)


def _validate_hyper(alpha, gamma, epsilon, epsilon_decay, epsilon_min, alpha_decay, alpha_min):
    chk = _util.check_real
    h = dict(
        alpha=chk("alpha", alpha, low=0, high=1, low_open=True),
        gamma=chk("gamma", gamma, low=0, high=1),
        epsilon=chk("epsilon", epsilon, low=0, high=1),
        epsilon_decay=chk("epsilon_decay", epsilon_decay, low=0, high=1, low_open=True),
        epsilon_min=chk("epsilon_min", epsilon_min, low=0, high=1),
        alpha_decay=chk("alpha_decay", alpha_decay, low=0, high=1, low_open=True),
        alpha_min=chk("alpha_min", alpha_min, low=0, high=1),
    )
    if h["epsilon_min"] > h["epsilon"]:
        raise ValueError(f"epsilon_min ({h['epsilon_min']}) must be <= epsilon ({h['epsilon']})")
    if h["alpha_min"] > h["alpha"]:
        raise ValueError(f"alpha_min ({h['alpha_min']}) must be <= alpha ({h['alpha']})")
    return h


def _check_board(board, who="QAgent"):
    return _util.check_board(board, Board, who)


class QAgent:
    """A greedy Tic-Tac-Toe player backed by a Q table.

    ``q`` is a C-contiguous ``float64`` array of shape (19683, 9): row = base-3
    index of a position (``Board.index``), column = cell.  One table serves both
    sides (the index says whose turn it is).  The agent picks the legal cell of
    highest Q, the lowest cell among ties: the same rule as training and
    :func:`evaluate`.

    Agent protocol (shared with the search agents): ``select_move(board)``,
    ``name`` and ``reset()``; the budget keywords ``simulations``/``time``/
    ``depth`` do not apply (None); ``seed`` is the training seed.  Pickles
    with its table; ``save``/``load`` write and read model files.

    Attributes: ``q``, ``name``, ``hyperparameters`` (dict), ``episodes``
    (trained so far), ``seed`` (resolved training seed or None), ``side``,
    ``shaping``, ``mode``, ``history`` (list of per-chunk dicts: ``episodes``
    so far, that chunk's training ``wins``/``draws``/``losses``/``cut`` (in
    self-play: X wins, draws, O wins), ``epsilon``/``alpha`` at its end,
    ``self_play`` (0/1), and at the ``metrics_every`` stride the exact metrics
    of :func:`ttt_engine.ttt.exact.exact_report`: ``optimality`` and
    ``exact_win_x``/``exact_draw_x``/``exact_loss_x`` (same for ``_o``)
    against a uniformly random opponent).
    """

    def __init__(self, q=None, *, name="Q-learning", hyperparameters=None, episodes=0,
                 seed=None, side="O", shaping=False, history=None, mode="random",
                 symmetry=False, simulations=None, time=None, depth=None):
        no_budget("QAgent", simulations=simulations, time=time, depth=depth)
        self.q = np.zeros(Q_SHAPE) if q is None else _check_q(q)
        self.name = str(name)
        self.hyperparameters = dict(hyperparameters or {})
        self.episodes = _util.check_int("episodes", episodes, min=0)
        self.seed = None if seed is None else _util.resolve_seed(seed)
        self.side = _util.check_choice("side", side, tuple(_SIDES))
        self.shaping = bool(shaping)
        self.mode = _util.check_choice("mode", mode, _MODES)
        self.symmetry = bool(symmetry)
        self.history = list(history or [])

    # ------------------------------------------------------------------ play
    def best_move(self, board):
        """The greedy move (cell 0-8) on ``board``; ``ValueError`` if the game is over."""
        _check_board(board)
        if board.is_terminal():
            raise ValueError(f"the game is over ({_util.game_over(board.winner)}): there is no "
                             f"move to select in {board.to_string()}")
        return _ql.greedy_move(self.q, board)

    def select_move(self, board):
        """Agent protocol: same as :meth:`best_move` (the agent is greedy)."""
        return self.best_move(board)

    def analyse(self, board):
        """Each move's Q-value and the greedy line after it, and its move (the
        analysis protocol, docs/agents.md)."""
        from ttt_engine import _explain
        return _explain.q_table(self, board)

    def q_values(self, board):
        """``{cell: Q}`` for the legal moves of ``board`` (empty once the game is over)."""
        _check_board(board)
        row = self.q[board.index]
        return {c: float(row[c]) for c in board.legal_moves}

    # ------------------------------------------------------------------ files
    def save(self, path):
        """Write the model to ``path`` (``.npz``, no pickle) atomically.

        Fields: ``kind`` (``"ttt_engine.QAgent"``), ``format_version`` (int,
        currently 1), ``q`` (float64 19683x9), the hyperparameters (``alpha``,
        ``gamma``, ``epsilon``, ``epsilon_decay``, ``epsilon_min``,
        ``alpha_decay``, ``alpha_min``; NaN where unknown),
        ``curriculum_fraction``/``curriculum_epsilon`` when used, ``side``,
        ``shaping``, ``mode``, ``symmetry``, ``episodes``, ``seed`` (uint64, with ``has_seed``),
        ``name``, and ``history`` (float64, one row per record, NaN where a record
        lacks a column) with ``history_columns``.
        The path is used exactly as given (no ``.npz`` is appended).
        """
        _save(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`.

        Raises ``FileNotFoundError`` if there is no such file and ``ValueError``
        saying exactly what is wrong otherwise (not an .npz, another kind of
        model file, truncated, missing field, wrong version, wrong shape or
        dtype, non-finite values).  Never unpickles anything.
        """
        return _load(cls, path)

    # ------------------------------------------------------------------ protocol
    def reset(self, seed=None):
        """Agent protocol: a greedy table player has nothing to forget between
        games and no randomness (``seed`` is ignored)."""

    def __reduce__(self):
        return (_rebuild_qagent, (self.q, self.name, self.hyperparameters, self.episodes,
                                  self.seed, self.side, self.shaping, self.history, self.mode,
                                  self.symmetry))

    def __repr__(self):
        return (f"<QAgent {self.name!r}: mode={self.mode}, side={self.side}, episodes={self.episodes:,}, "
                f"seed={self.seed}>")


# ------------------------------------------------------------------ files
def _save(agent, path):
    """:meth:`QAgent.save` (fields listed there)."""
    arrays = {
        "q": agent.q,
        "side": np.str_(agent.side),
        "shaping": np.bool_(agent.shaping),
        "episodes": np.int64(agent.episodes),
        "has_seed": np.bool_(agent.seed is not None),
        "seed": np.uint64(agent.seed or 0),
        "name": np.str_(agent.name),
        "mode": np.str_(agent.mode),
        "symmetry": np.bool_(agent.symmetry),
    }
    cols = list(_HISTORY_COLUMNS)
    for rec in agent.history:
        cols += [k for k in rec if k not in cols]
    arrays["history_columns"] = np.array(cols)
    arrays["history"] = np.array([[rec.get(c, np.nan) for c in cols] for rec in agent.history],
                                 dtype=np.float64).reshape(-1, len(cols))
    for k in _HYPER_KEYS:
        arrays[k] = np.float64(agent.hyperparameters.get(k, np.nan))
    for k in _OPTIONAL_HYPER_KEYS:
        if k in agent.hyperparameters:
            arrays[k] = np.float64(agent.hyperparameters[k])
    return _modelfile.write(path, "ttt_engine.QAgent", arrays)


def _load(cls, path):
    """:meth:`QAgent.load`."""
    path = os.fspath(path)
    raw = _modelfile.read(path, "ttt_engine.QAgent", legacy=True)
    required = ("q", "side", "shaping", "episodes", "has_seed", "seed", "history",
                "history_columns") + _HYPER_KEYS
    missing = [k for k in required if k not in raw]
    if missing:
        raise ValueError(f"{path}: missing field(s): {', '.join(missing)}")
    q = _check_q(raw["q"], what=f"{path}: q")

    def field(key, kinds):
        return _modelfile.scalar(path, raw, key, kinds)

    hyper = {k: float(field(k, "f")) for k in _HYPER_KEYS}
    hyper.update({k: float(field(k, "f")) for k in _OPTIONAL_HYPER_KEYS if k in raw})
    mode = field("mode", "U") if "mode" in raw else "random"
    if mode not in _MODES:
        raise ValueError(f"{path}: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    side = field("side", "U")
    if side not in _SIDES:
        raise ValueError(f"{path}: side must be one of {', '.join(_SIDES)}, got {side!r}")
    episodes = field("episodes", "iu")
    if episodes < 0:
        raise ValueError(f"{path}: episodes must be >= 0, got {episodes}")
    seed = int(field("seed", "u")) if field("has_seed", "b") else None
    cols = [str(c) for c in raw["history_columns"]]
    hist = raw["history"]
    if hist.ndim != 2 or hist.shape[1] != len(cols) or hist.dtype.kind != "f":
        raise ValueError(f"{path}: history must be a float array with {len(cols)} columns, "
                         f"got dtype {hist.dtype} shape {hist.shape}")
    history = []
    for row in hist:
        d = {}
        for c, v in zip(cols, row):
            if math.isnan(v):
                continue          # column absent from this record
            d[c] = int(v) if c in _INT_COLUMNS else float(v)
        history.append(d)
    name = str(raw["name"].item()) if "name" in raw and raw["name"].shape == () else "Q-learning"
    return cls(q, name=name, hyperparameters=hyper, episodes=episodes, seed=seed, side=side,
               shaping=bool(field("shaping", "b")), history=history, mode=mode,
               symmetry=bool(field("symmetry", "b")) if "symmetry" in raw else False)


def _rebuild_qagent(q, name, hyperparameters, episodes, seed, side, shaping, history, mode,
                    symmetry):
    return QAgent(q, name=name, hyperparameters=hyperparameters, episodes=episodes, seed=seed,
                  side=side, shaping=shaping, history=history, mode=mode, symmetry=symmetry)


#: the options of :func:`train` that only some modes use -> those modes
MODE_OPTIONS = {"side": ("random", "curriculum"), "curriculum_fraction": ("curriculum",),
                "curriculum_epsilon": ("curriculum",), "curriculum_tiebreak": ("curriculum",)}


def check_mode_options(mode, **options):
    """``ValueError`` naming an option of :data:`MODE_OPTIONS` that is given
    (not None) although ``mode`` does not use it: it would be ignored."""
    for key, value in options.items():
        modes = MODE_OPTIONS[key]
        if value is not None and mode not in modes:
            raise ValueError(f"{key} applies to mode {' or '.join(map(repr, modes))}; "
                             f"mode={mode!r} does not use it (leave it out)")


def train(episodes=DEFAULT_EPISODES, alpha=0.1, gamma=0.9, epsilon=0.7, epsilon_decay=0.999999,
          epsilon_min=0.01, side=None, shaping=False, seed=None, progress=True, *,
          mode="curriculum", curriculum_fraction=None, curriculum_epsilon=None,
          curriculum_tiebreak=None,
          alpha_decay=0.9999997, alpha_min=0.01, chunk=100_000, metrics_every=2, symmetry=False,
          agent=None):
    """Train a Q-learning agent; by default the strongest one we get in about a second.

    The whole loop runs in C (``ttt_engine._core.learning.ttt.qlearning``) without the GIL,
    history records (one per ``chunk`` episodes, exact metrics included) too;
    the progress bar is drawn from another thread, so a busy Python thread
    next to the training barely slows it down.  Ctrl-C stops it after a whole
    episode (``KeyboardInterrupt``; with ``agent=``, that agent keeps the
    episodes run so far, counted in ``agent.episodes``).

    Modes
    -----
    ``"random"``: Q-learning against a uniformly random opponent.
    ``"self-play"``: one shared table for both sides; the mover's target is r
    if its move ended the game, else ``-gamma * max_a' Q(s', a')`` over the
    opponent's moves (negamax), so Q converges to minimax values.
    ``"curriculum"`` (default): the first ``curriculum_fraction`` of
    the episodes against random, then self-play with epsilon reset to
    ``curriculum_epsilon``.  Self-play drives the values of all equally safe
    moves to the same number (often exactly 0), so the table of the random
    phase breaks those ties: the final table is
    ``Q_self_play + curriculum_tiebreak * Q_random_phase`` (1e-6, far below the
    gaps between self-play values of moves with different game values).
    With the defaults the agent plays an optimal move in all 4520 positions,
    never loses, and among safe moves prefers those that win most against
    random play: exactly 99.48% wins as X and 91.64% as O against a uniformly
    random opponent, the ceilings for a never-losing player.

    Parameters
    ----------
    episodes : int >= 0
        Number of training games (default 10,000,000: about a second).
    alpha : float in (0, 1]
        Learning rate at the start.  After every episode
        ``alpha <- max(alpha_min, alpha * alpha_decay)``: a constant 0.1 leaves
        about +-0.05 of noise in Q, more than the gaps between O's best replies,
        so the default anneals it to 0.01 (pass ``alpha_decay=1`` for a
        constant rate).
    gamma : float in [0, 1]
        Discount of the agent's next decision value.
    epsilon, epsilon_decay, epsilon_min : exploration; after every episode
        ``epsilon <- max(epsilon_min, epsilon * epsilon_decay)``.
        epsilon, epsilon_min in [0, 1]; epsilon_decay in (0, 1].
    side : "O" (moves second), "X" (moves first) or "random" (drawn per
        episode, so who starts is random): the agent's side in games against
        random.  Default: "O" in mode "random", "random" in the curriculum's
        first phase; refused in self-play, which has no random opponent.
    shaping : bool
        Reward shaping: a move that leaves the opponent an immediate
        win is updated as terminal with reward -0.8 and ends the episode
        (counted as ``cut`` in the history).
    seed : int or None
        Same seed => bit-identical Q (independent of ``chunk``).  None draws a
        fresh seed, recorded in ``agent.seed``.
    progress : bool
        Show a tqdm progress bar (only when stderr is a terminal).
    curriculum_fraction, curriculum_epsilon, curriculum_tiebreak : see Modes
        (fraction in [0, 1], default 0.2; epsilon in [0, 1], default 0.6; tiebreak
        in [0, 1], default 1e-6, 0 disables it); only in mode "curriculum"
        (refused in the others, which would ignore them).
    alpha_decay, alpha_min : learning-rate schedule (see ``alpha``).
    chunk : int >= 1
        Episodes per history record.
    metrics_every : int >= 0
        Every this many chunks, add exact metrics to the history record
        (optimality over the 4520 positions, exact W/D/L vs random as X and as
        O: about 0.2 ms each); 0 disables them.
    symmetry : bool
        Learn over the 8 rotations/reflections: every position reads and
        updates the row of its canonical form (precomputed table 19683 ->
        canonical index + transform, moves mapped through the transform); at
        the end every row is filled from its canonical row, so the agent plays
        as usual.
    agent : QAgent or None
        Continue training this agent's table (in place) instead of a fresh one.

    Returns
    -------
    QAgent
        The trained agent.
    """
    episodes = _util.check_int("episodes", episodes, min=0, max=_util.INT64_MAX)
    h = _validate_hyper(alpha, gamma, epsilon, epsilon_decay, epsilon_min, alpha_decay, alpha_min)
    _util.check_choice("mode", mode, _MODES)
    check_mode_options(mode, side=side, curriculum_fraction=curriculum_fraction,
                       curriculum_epsilon=curriculum_epsilon,
                       curriculum_tiebreak=curriculum_tiebreak)
    curriculum_fraction = 0.2 if curriculum_fraction is None else curriculum_fraction
    curriculum_epsilon = 0.6 if curriculum_epsilon is None else curriculum_epsilon
    curriculum_tiebreak = 1e-6 if curriculum_tiebreak is None else curriculum_tiebreak
    if side is None:
        side = "O" if mode == "random" else "random"
    _util.check_choice("side", side, tuple(_SIDES))
    frac = _util.check_real("curriculum_fraction", curriculum_fraction, low=0, high=1)
    h["curriculum_epsilon"] = _util.check_real("curriculum_epsilon", curriculum_epsilon, low=0, high=1)
    h["curriculum_tiebreak"] = _util.check_real("curriculum_tiebreak", curriculum_tiebreak, low=0, high=1)
    metrics_every = _util.check_int("metrics_every", metrics_every, min=0)
    symmetry = _util.check_bool("symmetry", symmetry)
    shaping = _util.check_bool("shaping", shaping)
    if shaping and mode == "self-play":
        raise ValueError("shaping applies to games against the random opponent; "
                         "mode='self-play' has none (use mode='random' or 'curriculum')")
    progress = _util.check_bool("progress", progress)
    chunk = _util.check_int("chunk", chunk, min=1, max=_util.INT64_MAX)
    seed = _util.resolve_seed(seed)
    if agent is None:
        agent = QAgent(side=side, shaping=bool(shaping))
    elif not isinstance(agent, QAgent):
        raise ValueError(f"agent must be a QAgent or None, got {type(agent).__name__}")
    agent.side, agent.shaping = side, bool(shaping)
    agent.seed = seed
    h["curriculum_fraction"] = frac
    agent.hyperparameters = dict(h)
    agent.mode = mode
    n_random = {"random": episodes, "self-play": 0, "curriculum": int(round(episodes * frac))}[mode]
    trainer = _ql.QTrainer(agent.q, h["alpha"], h["gamma"], h["epsilon"], h["epsilon_decay"],
                           h["epsilon_min"], _SIDES[side], bool(shaping), seed,
                           h["alpha_decay"], h["alpha_min"], 0 if n_random else 1, bool(symmetry))
    agent.symmetry = bool(symmetry)
    bar = None
    if progress:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=episodes, unit="ep", unit_scale=True,
                       desc="vs random" if n_random else "self-play",
                       disable=None, mininterval=0.2, smoothing=0.1)
    try:
        run_training(trainer, agent, episodes, n_random, chunk, metrics_every, h,
                     bool(symmetry), bar)
    finally:
        if bar is not None:
            bar.close()
    return agent


@dataclasses.dataclass(frozen=True)
class EvalResult:
    """Outcome counts of an evaluation, from the agent's point of view."""
    wins: int
    draws: int
    losses: int
    side: str
    opponent: str

    @property
    def games(self):
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self):
        return self.wins / self.games if self.games else math.nan

    @property
    def draw_rate(self):
        return self.draws / self.games if self.games else math.nan

    @property
    def loss_rate(self):
        return self.losses / self.games if self.games else math.nan

    def as_dict(self):
        return dict(wins=self.wins, draws=self.draws, losses=self.losses, games=self.games,
                    win_rate=self.win_rate, draw_rate=self.draw_rate, loss_rate=self.loss_rate,
                    side=self.side, opponent=self.opponent)

    def __repr__(self):
        return (f"EvalResult(side={self.side!r}, opponent={self.opponent!r}, games={self.games}: "
                f"wins {self.win_rate:.2%}, draws {self.draw_rate:.2%}, losses {self.loss_rate:.2%})")


def evaluate(agent, games=100_000, side="O", opponent="random", seed=None, threads=1):
    """Play ``games`` games of the greedy ``agent`` against ``opponent`` in C.

    ``agent``: a :class:`QAgent`, a (19683, 9) float64 Q array, or any
    deterministic agent with ``select_move(board)`` (its policy is tabulated
    once over the 4520 decision positions, see :func:`ttt_engine.ttt.exact.policy_table`).
    ``side``: "O", "X" or "random" (drawn per game).  ``opponent``: "random"
    (uniform over legal moves) or "perfect" (uniform over the game-theoretically
    optimal moves, from the solved game).  For exact numbers without sampling
    see :mod:`ttt_engine.ttt.exact`.  Returns an :class:`EvalResult` with counts and
    rates.  ``threads``: split the games over this many threads (each with a
    generator seeded from ``seed``).  Same seed and ``threads`` => same result.
    Ctrl-C raises ``KeyboardInterrupt`` within milliseconds.
    """
    q = agent.q if isinstance(agent, QAgent) else None
    if q is None:
        if isinstance(agent, np.ndarray):
            q = _check_q(agent, what="agent Q table")
        elif callable(getattr(agent, "select_move", None)):
            from ttt_engine.ttt.exact import policy_table   # a deterministic protocol agent
            q = policy_table(agent)
        else:
            raise ValueError(f"agent must be a QAgent, a Q array or an agent with "
                             f"select_move(board), got {type(agent).__name__}")
    games = _util.check_int("games", games, min=1, max=_util.INT64_MAX)
    _util.check_choice("side", side, tuple(_SIDES))
    _util.check_choice("opponent", opponent, _OPPONENTS)
    seed = _util.resolve_seed(seed)
    k = _parallel.check_threads(threads)
    opt = None
    if opponent == "perfect":
        from ttt_engine._core.solvers.ttt import oracle as ttt_oracle
        opt = ttt_oracle.optimal_mask_array()
    parts = [(q, n, _SIDES[side], s, opt) for n, s in
             zip(_parallel.split_counts(games, k), _parallel.split_seeds(seed, k))]
    w, d, l = map(sum, zip(*_parallel.run_parts(_ql.evaluate_random, parts)))
    return EvalResult(w, d, l, side, opponent)
