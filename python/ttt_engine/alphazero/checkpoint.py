"""Training checkpoints (network, configuration, optimiser state, replay buffer
and counters: everything a resumed run needs) and the paths of a run's files."""
from __future__ import annotations

import dataclasses
import json
import os

import numpy as np

from ttt_engine import _modelfile
from ttt_engine.alphazero.config import Config, _checked
from ttt_engine.network import Network

CHECKPOINT_KIND = "ttt_engine.AlphaZeroCheckpoint"


@dataclasses.dataclass
class Checkpoint:
    """A training checkpoint as read by :func:`load_checkpoint`."""
    path: str
    network: Network
    config: Config
    seed: int
    counters: dict
    opt_leaves: list
    raw: dict = dataclasses.field(repr=False, default=None)

    @property
    def iteration(self):
        return self.counters["iteration"]

    def __repr__(self):
        # one line: the arrays (optimiser state, buffer) are never printed
        return (f"<AlphaZero checkpoint: {self.network.game_key}, iteration {self.iteration:,}, "
                f"{self.counters.get('games', 0):,} games played, {self.path}>")


def _write_checkpoint(path, net, config, seed, counters, learner, buffer):
    fields = {f"net_{k}": v for k, v in net._fields().items()}
    fields["config"] = np.str_(config.to_json())
    fields["seed"] = np.uint64(seed)
    fields["counters"] = np.str_(json.dumps(counters, sort_keys=True))
    leaves = learner.opt_leaves()
    fields["opt_count"] = np.int64(len(leaves))
    for i, leaf in enumerate(leaves):
        fields[f"opt_{i}"] = leaf
    fields.update(buffer.fields())
    return _modelfile.write(path, CHECKPOINT_KIND, fields, compress=False)


def load_checkpoint(path):
    """Read a training checkpoint (``ttt_engine.load`` opens these too): its
    network, configuration, seed, counters and optimiser state; needs only numpy."""
    path = os.fspath(path)
    raw = _modelfile.read(path, CHECKPOINT_KIND)
    need = ["config", "seed", "counters", "opt_count", "buffer_obs", "buffer_masks",
            "buffer_policies", "buffer_values", "buffer_next"]
    missing = [k for k in need if k not in raw]
    if missing:
        raise ValueError(f"{path}: missing field(s): {', '.join(missing)}")
    net = Network._from_fields(path, {k[4:]: v for k, v in raw.items() if k.startswith("net_")})
    try:
        config = _checked(Config.from_json(_modelfile.scalar(path, raw, "config", "U")))
        counters = json.loads(_modelfile.scalar(path, raw, "counters", "U"))
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{path}: bad training configuration: {e}") from None
    count = _modelfile.scalar(path, raw, "opt_count", "iu")
    leaves = [raw[f"opt_{i}"] for i in range(count) if f"opt_{i}" in raw]
    if len(leaves) != count:
        raise ValueError(f"{path}: the optimiser state is incomplete")
    return Checkpoint(path, net, config, int(_modelfile.scalar(path, raw, "seed", "u")),
                      counters, leaves, raw)


def run_paths(out):
    """``(checkpoint, metrics)`` paths of a run whose network goes to ``out``."""
    out = os.fspath(out)
    stem = out[:-4] if out.endswith(".npz") else out
    return stem + ".ckpt.npz", stem + ".metrics.jsonl"
