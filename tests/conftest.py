"""Helpers shared by the test files."""
import os

import numpy as np
import pytest

import ttt_engine

#: the folder holding the ttt_engine under test (installed in CI, the
#: in-place build when developing), for subprocesses
PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))


def random_positions(game, n, seed=0, **options):
    """Observations and masks of ``n`` positions reached by random play."""
    g = ttt_engine.games.get(game)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    b = g.new_board(**options)
    while len(obs) < n:
        if b.is_terminal():
            b = g.new_board(**options)
        obs.append(b.observation())
        masks.append(b.action_mask())
        b.push(b.legal_moves[rng.integers(len(b.legal_moves))])
    return np.stack(obs), np.stack(masks)


@pytest.fixture
def cli_env(tmp_path):
    """The environment of a ``ttt-engine`` subprocess: this package, a private
    cache folder, no colours, no debug tracebacks."""
    e = dict(os.environ)
    e["PYTHONPATH"] = PYDIR + os.pathsep + e.get("PYTHONPATH", "")
    e["TTT_ENGINE_CACHE_DIR"] = str(tmp_path / "cache")
    e["NO_COLOR"] = "1"
    e.pop("XDG_CACHE_HOME", None)
    e.pop("TTT_ENGINE_DEBUG", None)
    return e
