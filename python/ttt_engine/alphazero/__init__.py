"""AlphaZero training (the module moved into a package; split by purpose next)."""
from ttt_engine.alphazero.loop import *  # noqa: F401,F403
from ttt_engine.alphazero.loop import (  # noqa: F401
    __all__, CHECKPOINT_KIND, PUCTPlayer, ReplayBuffer, jax_forward, _Learner, _losses, _nn,
    _TTTTable, _checked, _check_targets, _ttt_decisions, _write_checkpoint, _truncate_metrics,
    _append_jsonl, _derived_seed, _CountingEvaluator, _NONNEG_INT, _POSITIVE_INT)
