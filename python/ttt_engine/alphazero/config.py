"""Hyperparameters of a training run: :class:`Config`, the per-game presets and
their checking."""
from __future__ import annotations

import dataclasses
import json
import math

from ttt_engine import _util, games
from ttt_engine.network import _check_hidden, _game, check_architecture
from ttt_engine.selfplay import check_playout_cap


@dataclasses.dataclass(frozen=True)
class Config:
    """Hyperparameters of a training run (see :data:`ttt_engine.alphazero.PRESETS` and docs/alphazero.md)."""
    hidden: tuple = (256, 256)          # hidden layer sizes of the MLP
    architecture: str = "mlp"           # "mlp" or "conv" (ttt_engine.network)
    channels: int = 32                  # the conv network's channels
    blocks: int = 2                     # and residual blocks
    games: int = 64                     # self-play games per iteration (played at once)
    simulations: int = 100              # PUCT simulations per self-play move
    temperature_moves: int = 4          # plies played from the visit distribution (then best)
    c_puct: float = 1.25
    dirichlet_alpha: float = 0.5        # root noise in self-play
    noise_fraction: float = 0.25
    playout_weight: float = 0.0         # weight of random playouts in every leaf value
    mixed_playouts: int = 1             # how many playouts that value averages
    expand_after: int = 0               # visits a leaf is valued by playouts alone first
    gumbel: bool = False                # Gumbel root search in self-play (no Dirichlet noise)
    gumbel_k: int = 16                  # root actions it samples and halves
    playout_cap_share: float = 1.0      # share of moves searched in full (1: every move)
    cheap_simulations: int | None = None  # simulations of the other moves (not recorded)
    simulations_start: int | None = None  # self-play simulations when a ramp starts
    simulations_ramp: float = 0.0       # training seconds they grow to simulations (0: off)
    augment: bool = True                # add the board symmetries to the buffer
    buffer_size: int = 100_000          # positions kept (after augmentation)
    batch_size: int = 256               # SGD minibatch
    sample_reuse: float = 4.0           # SGD samples per new buffer position
    max_steps: int = 1000               # SGD steps per iteration at most
    optimizer: str = "adam"             # "adam" (L2 in the loss) or "adamw" (decoupled)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    eval_every: float = 60.0            # seconds of training between evaluations
    eval_simulations: int = 100         # PUCT simulations per move in evaluations
    eval_games: int = 10                # games against MCTS (not Tic-Tac-Toe)
    eval_mcts_simulations: int = 800    # MCTS's simulations in those games
    checkpoint_every: float = 120.0     # seconds of training between checkpoints
    time: float = 600.0                 # default wall-time budget of one train() call

    def to_json(self):
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text):
        d = json.loads(text)
        d["hidden"] = tuple(d["hidden"])
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


#: Per-game hyperparameters (overrides of :class:`Config`'s defaults): a
#: read-only view ``{key: game.training}`` of the games that have a preset
#: (the ``training`` fact of each game's registry entry, ``ttt_engine.<game>.GAME``),
#: read from the registry when used.
PRESETS = games.FactView("training")

_POSITIVE_INT = ("games", "simulations", "buffer_size", "batch_size", "max_steps",
                 "eval_simulations")
_NONNEG_INT = ("temperature_moves", "eval_games", "eval_mcts_simulations")


def config_for(game, **overrides):
    """The :class:`Config` of ``game``'s preset with ``overrides`` applied
    (each checked; an unknown name is a ``ValueError`` listing the valid ones)."""
    g = _game(game)
    fields = {f.name for f in dataclasses.fields(Config)}
    bad = sorted(set(overrides) - fields)
    if bad:
        raise ValueError(f"unknown training option(s) {', '.join(map(repr, bad))}; valid: "
                         f"{', '.join(sorted(fields))}")
    values = dict(g.training)
    values.update({k: v for k, v in overrides.items() if v is not None})
    return _checked(Config(**values))


def simulations_at(config, seconds):
    """Self-play simulations per move after ``seconds`` of training: with a
    ramp (``simulations_ramp`` > 0) they grow linearly from
    ``simulations_start`` to ``simulations`` over its seconds (rounded down),
    without one they are ``simulations``."""
    if config.simulations_ramp <= 0:
        return config.simulations
    share = min(1.0, max(0.0, seconds / config.simulations_ramp))
    span = config.simulations - config.simulations_start
    return config.simulations_start + math.floor(span * share)


def _checked(c):
    v = dict(hidden=_check_hidden(c.hidden))
    v["architecture"] = check_architecture(c.architecture)[0]
    # the conv sizes are checked whatever the architecture (an MLP ignores them)
    _, v["channels"], v["blocks"] = check_architecture("conv", c.channels, c.blocks)
    for k in _POSITIVE_INT:
        v[k] = _util.check_int(k, getattr(c, k), min=1)
    for k in _NONNEG_INT:
        v[k] = _util.check_int(k, getattr(c, k), min=0)
    v["c_puct"] = _util.check_real("c_puct", c.c_puct, low=0, low_open=True)
    v["dirichlet_alpha"] = _util.check_real("dirichlet_alpha", c.dirichlet_alpha, low=0,
                                            low_open=True, allow_none=True)
    v["noise_fraction"] = _util.check_real("noise_fraction", c.noise_fraction, low=0, high=1)
    v["playout_weight"] = _util.check_real("playout_weight", c.playout_weight, low=0, high=1)
    v["mixed_playouts"] = _util.check_int("mixed_playouts", c.mixed_playouts, min=1,
                                          max=10_000)
    v["expand_after"] = _util.check_int("expand_after", c.expand_after, min=0, max=1_000_000)
    v["sample_reuse"] = _util.check_real("sample_reuse", c.sample_reuse, low=0, low_open=True)
    v["learning_rate"] = _util.check_real("learning_rate", c.learning_rate, low=0,
                                          low_open=True)
    v["weight_decay"] = _util.check_real("weight_decay", c.weight_decay, low=0)
    v["value_weight"] = _util.check_real("value_weight", c.value_weight, low=0)
    for k in ("eval_every", "checkpoint_every", "time"):
        v[k] = _util.check_real(k, getattr(c, k), low=0, low_open=True)
    v["optimizer"] = _util.check_choice("optimizer", c.optimizer, ("adam", "adamw"))
    v["gumbel_k"] = _util.check_int("gumbel_k", c.gumbel_k, min=1, max=256)
    for k in ("augment", "gumbel"):
        _util.check_bool(k, getattr(c, k))
    # the growing budget, then the playout cap below its smallest value
    v["simulations_ramp"] = _util.check_real("simulations_ramp", c.simulations_ramp, low=0)
    v["simulations_start"] = _util.check_int("simulations_start", c.simulations_start, min=1,
                                             max=v["simulations"], allow_none=True)
    lowest, lowest_name = v["simulations"], "simulations"
    if v["simulations_ramp"] > 0:
        if v["simulations_start"] is None:
            raise ValueError("simulations_ramp needs simulations_start (the simulations it "
                             "grows from)")
        lowest, lowest_name = v["simulations_start"], "simulations_start"
    v["playout_cap_share"], v["cheap_simulations"] = check_playout_cap(
        c.playout_cap_share, c.cheap_simulations, lowest, c.gumbel, lowest_name)
    return dataclasses.replace(c, **v)
