"""Playout-cap randomisation and the growing self-play budget: the defaults give
the games of before, the cap searches in full exactly the moves its seeded draws
say (checked against a plain splitmix64 reference) and records only those, a
cheap search costs its budget, the ramp gives its scheduled value at the start,
middle and end and continues after a resume, and bad values are one line from
Python and from the console."""
import hashlib
import subprocess
import sys

import numpy as np
import pytest

from ttt_engine import alphazero
from ttt_engine._core.algorithms.puct_selfplay import playout_cap_full
from ttt_engine.alphazero import load_checkpoint, train
from ttt_engine.alphazero.config import simulations_at
from ttt_engine.alphazero.loop import _derived_seed
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.network import Network
from ttt_engine.selfplay import selfplay

TINY = dict(hidden=(16,), games=6, simulations=8, buffer_size=2000, batch_size=32,
            sample_reuse=1.0, max_steps=20, eval_simulations=4, eval_games=2,
            eval_mcts_simulations=20, eval_every=1e9)

M64 = (1 << 64) - 1


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def full_search(seed, share, game, ply):
    """The cap's draw, written from its definition: splitmix64 of the salted
    seed plus (game << 32 | ply), below share * 2**64."""
    key = (mix64(seed ^ 0x5D6F1A2B3C4E8F97) + ((game << 32) | ply)) & M64
    return mix64(key) < int(share * 2.0 ** 64)


def digest(d):
    h = hashlib.sha256()
    for a in (d.observations, d.masks, d.policies, d.values, d.game_ids, d.plies, d.outcomes):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


class PlaneEvaluator:
    """A Python evaluator (the gather / backup loop): fixed logits, values from
    the planes; counts the leaves it is asked for."""

    def __init__(self):
        self.leaves = 0

    def __call__(self, obs, mask):
        n = len(obs)
        self.leaves += n
        logits = np.broadcast_to(np.arange(mask.shape[1], dtype=np.float32) * 0.125,
                                 mask.shape).copy()
        return logits, (obs.reshape(n, -1).astype(np.float32).sum(1) * 0.0625) % 1 - 0.5


# ------------------------------------------------------------------ the defaults
@pytest.mark.parametrize("game,evaluator,kw,expected", [
    ("ttt", UniformEvaluator, dict(games=12, simulations=40, seed=7), "dd895bc352ce5633"),
    ("connect4", UniformEvaluator, dict(games=4, simulations=30, seed=3, dirichlet_alpha=0.3),
     "7a02486bc73deb33"),
    # (re-pinned when the greedy move's ties among equally visited children went to the
    # higher prior: this evaluator's priors differ, so its games changed; the uniform
    # ones above did not)
    ("ttt", PlaneEvaluator, dict(games=10, simulations=30, seed=5, dirichlet_alpha=0.5),
     "408354025f5444c7"),
])
def test_defaults_play_the_games_of_before(game, evaluator, kw, expected):
    # digests of the data self-play gave before the two options existed
    d = selfplay(game, evaluator(), **kw)
    assert digest(d) == expected
    assert d.stats["moves"] == len(d) == d.lengths.sum()
    assert d.stats["simulations"] == len(d) * kw["simulations"]


def test_trainer_defaults_play_the_default_selfplay(tmp_path):
    r = train("ttt", out=tmp_path / "a.npz", iterations=1, seed=4, progress=False, **TINY)
    rec = r.records[0]
    config = alphazero.config_for("ttt", **TINY)
    net = Network.init("ttt", hidden=(16,), seed=_derived_seed(4, 0, 0))
    d = selfplay("ttt", net, games=config.games, simulations=config.simulations,
                 seed=_derived_seed(4, 1, 1), temperature_moves=config.temperature_moves,
                 c_puct=config.c_puct, dirichlet_alpha=config.dirichlet_alpha,
                 noise_fraction=config.noise_fraction, playout_weight=config.playout_weight,
                 mixed_playouts=config.mixed_playouts, expand_after=config.expand_after,
                 gumbel=config.gumbel, gumbel_k=config.gumbel_k)
    counts = np.bincount(d.outcomes, minlength=3)
    assert (rec["first_wins"], rec["second_wins"], rec["draws"]) == tuple(counts)
    assert rec["positions"] == rec["moves"] == len(d)
    assert rec["simulations"] == config.simulations


# ------------------------------------------------------------------ the cap
def test_the_draw_is_splitmix64_of_seed_game_and_ply():
    for seed in (0, 7, 2**63 - 1):
        for game, ply in [(0, 0), (1, 0), (0, 1), (5, 3), (1000, 41)]:
            for share in (0.25, 0.5, 0.9):
                assert playout_cap_full(seed, share, game, ply) == \
                    full_search(seed, share, game, ply)


@pytest.mark.parametrize("evaluator", ["uniform", "python", "network"])
def test_a_quarter_of_the_moves_are_searched_in_full_and_only_they_recorded(evaluator):
    ev = {"uniform": UniformEvaluator(), "python": PlaneEvaluator(),
          "network": Network.init("ttt", hidden=(16,), seed=1)}[evaluator]
    games, seed = 120, 11
    d = selfplay("ttt", ev, games=games, simulations=24, seed=seed, playout_cap_share=0.25,
                 cheap_simulations=3, dirichlet_alpha=0.5)
    assert d.stats["moves"] == d.lengths.sum() and len(d.lengths) == games
    want = {(g, p) for g in range(games) for p in range(d.lengths[g])
            if full_search(seed, 0.25, g, p)}
    got = set(zip(d.game_ids.tolist(), d.plies.tolist()))
    assert got == want and len(got) == len(d)          # no row twice, none missing
    share = len(d) / d.stats["moves"]
    assert 0.18 < share < 0.32, share                  # ~800 moves: 0.25 +- 4 sigma
    # every recorded row is a search's target over the legal moves, valued by the outcome
    np.testing.assert_allclose(d.policies.sum(1), 1, atol=1e-5)
    assert not (d.policies[~d.masks] > 0).any()
    winners = d.outcomes[d.game_ids]
    assert set(np.abs(d.values[winners != 2])) <= {1.0}
    assert not d.values[winners == 2].any()
    assert d.stats["simulations"] == len(d) * 24 + (d.stats["moves"] - len(d)) * 3


def test_a_cheap_search_costs_its_simulations():
    kw = dict(games=40, simulations=60, seed=3, dirichlet_alpha=0.5)
    capped, full = PlaneEvaluator(), PlaneEvaluator()
    d = selfplay("ttt", capped, playout_cap_share=0.25, cheap_simulations=2, **kw)
    e = selfplay("ttt", full, **kw)
    # leaves evaluated: at most the searches' budgets (the cheap ones 2 each);
    # a quarter of the moves in full cost well under every move in full (11 vs 28 a move)
    assert capped.leaves <= d.stats["simulations"] < 0.5 * d.stats["moves"] * 60
    assert capped.leaves / d.stats["moves"] < 0.6 * full.leaves / e.stats["moves"]


def test_capped_selfplay_repeats_with_its_seed_and_joins_parts():
    kw = dict(games=8, simulations=20, seed=9, playout_cap_share=0.5, cheap_simulations=4)
    a, b = selfplay("ttt", UniformEvaluator(), **kw), selfplay("ttt", UniformEvaluator(), **kw)
    assert digest(a) == digest(b)
    aug = a.augment()
    assert len(aug) == 8 * len(a) and (aug.lengths == a.lengths).all()
    both = a.concat(b)
    assert (both.lengths == np.concatenate([a.lengths, b.lengths])).all()
    assert both.stats["moves"] == 2 * a.stats["moves"]


# ------------------------------------------------------------------ the ramp
def test_the_ramp_schedule():
    c = alphazero.config_for("ttt", simulations=50, simulations_start=10, simulations_ramp=100)
    assert [simulations_at(c, t) for t in (0, 25, 50, 99.9, 100, 1e6)] == \
        [10, 20, 30, 49, 50, 50]
    assert simulations_at(alphazero.config_for("ttt", simulations=50), 1e6) == 50


def test_the_ramp_continues_after_a_resume(tmp_path):
    out = tmp_path / "r.npz"
    hyper = dict(TINY, simulations=42, simulations_start=2)
    r = train("ttt", out=out, iterations=1, seed=2, progress=False, simulations_ramp=1e9,
              **hyper)
    assert r.records[0]["simulations"] == 2                    # the start
    s1 = load_checkpoint(tmp_path / "r.ckpt.npz").counters["seconds"]
    # resumed with the ramp twice the training time so far: half-way, not the start again
    r = train("ttt", out=out, iterations=2, resume=True, progress=False,
              simulations_ramp=2 * s1)
    assert r.records[-1]["simulations"] == 22
    s2 = load_checkpoint(tmp_path / "r.ckpt.npz").counters["seconds"]
    r = train("ttt", out=out, iterations=3, resume=True, progress=False,
              simulations_ramp=s2 / 2)
    assert r.records[-1]["simulations"] == 42                  # the end
    assert [x["simulations"] for x in alphazero.read_metrics(tmp_path / "r.metrics.jsonl")] \
        == [2, 22, 42]


def test_the_trainer_records_the_capped_games(tmp_path):
    r = train("ttt", out=tmp_path / "c.npz", iterations=2, seed=6, progress=False,
              **dict(TINY, simulations=16, playout_cap_share=0.25, cheap_simulations=2))
    for rec in r.records:
        assert rec["simulations"] == 16
    assert 0 < r.records[-1]["positions"] < sum(x["moves"] for x in r.records)
    # the buffer holds the recorded positions and their 8 images
    assert r.records[-1]["buffer"] == 8 * r.records[-1]["positions"]


# ------------------------------------------------------------------ bad values
@pytest.mark.parametrize("kw,needle", [
    (dict(playout_cap_share=0), "playout_cap_share must be in (0, 1], got 0"),
    (dict(playout_cap_share=1.5), "playout_cap_share must be in (0, 1], got 1.5"),
    (dict(playout_cap_share=0.25), "playout_cap_share=0.25 needs cheap_simulations"),
    (dict(playout_cap_share=0.25, cheap_simulations=64),
     "cheap_simulations must be below simulations (64), got 64"),
    (dict(cheap_simulations=0), "cheap_simulations must be an integer >= 1, got 0"),
    (dict(playout_cap_share=0.5, cheap_simulations=4, gumbel=True),
     "playout_cap_share < 1 does not go with gumbel"),
    (dict(simulations_ramp=10), "simulations_ramp needs simulations_start"),
    (dict(simulations_ramp=-1), "simulations_ramp must be a finite number >= 0"),
    (dict(simulations_start=65, simulations_ramp=10),
     "simulations_start must be an integer from 1 to 64, got 65"),
    (dict(simulations_start=8, simulations_ramp=10, playout_cap_share=0.5,
          cheap_simulations=8), "cheap_simulations must be below simulations_start (8)"),
])
def test_bad_values_are_one_line_from_python(kw, needle):
    with pytest.raises(ValueError) as e:
        alphazero.config_for("ttt", **dict(dict(simulations=64), **kw))
    assert needle in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("kw,needle", [
    (dict(playout_cap_share=0.5), "playout_cap_share=0.5 needs cheap_simulations"),
    (dict(playout_cap_share=0.5, cheap_simulations=10),
     "cheap_simulations must be below simulations (10)"),
    (dict(playout_cap_share=-1, cheap_simulations=2), "playout_cap_share must be in (0, 1]"),
    (dict(playout_cap_share=0.5, cheap_simulations=2, gumbel=True), "does not go with gumbel"),
])
def test_selfplay_refuses_bad_caps(kw, needle):
    with pytest.raises(ValueError) as e:
        selfplay("ttt", UniformEvaluator(), games=2, simulations=10, seed=1, **kw)
    assert needle in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("args,needle", [
    (["--playout-cap", "0.5"], "cannot train: playout_cap_share=0.5 needs cheap_simulations"),
    (["--playout-cap", "0"], "cannot train: playout_cap_share must be in (0, 1], got 0"),
    (["--playout-cap", "0.5", "--cheap-simulations", "8"],
     "cannot train: cheap_simulations must be below simulations (8), got 8"),
    (["--cheap-simulations", "0"], "--cheap-simulations: must be an integer from 1"),
    (["--simulations-ramp", "60"], "cannot train: simulations_ramp needs simulations_start"),
    (["--simulations-ramp", "-1"], "--simulations-ramp"),
    (["--simulations-start", "9", "--simulations-ramp", "60"],
     "cannot train: simulations_start must be an integer from 1 to 8, got 9"),
])
def test_bad_values_are_one_line_from_the_console(tmp_path, cli_env, args, needle):
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "az", "train", "--out",
                        str(tmp_path / "x.npz"), "--simulations", "8", "--quiet", *args],
                       capture_output=True, text=True, env=cli_env, timeout=300)
    assert r.returncode == 2, (r.stdout[-500:], r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ttt-engine: error: "), r.stderr
    assert needle in lines[0], lines[0]
    assert not (tmp_path / "x.npz").exists()


def test_the_console_trains_with_both_options(tmp_path, cli_env):
    out = tmp_path / "t.npz"
    r = subprocess.run([sys.executable, "-m", "ttt_engine", "az", "train", "--out", str(out),
                        "--iterations", "2", "--seed", "1", "--hidden", "16", "--games", "6",
                        "--simulations", "12", "--playout-cap", "0.5",
                        "--cheap-simulations", "2", "--simulations-start", "4",
                        "--simulations-ramp", "3600", "--eval-simulations", "4",
                        "--buffer-size", "2000", "--batch-size", "32", "--quiet"],
                       capture_output=True, text=True, env=cli_env, timeout=300)
    assert r.returncode == 0, r.stderr
    recs = alphazero.read_metrics(tmp_path / "t.metrics.jsonl")
    assert [x["simulations"] for x in recs][0] == 4 and all(4 <= x["simulations"] < 12
                                                            for x in recs)
    config = load_checkpoint(tmp_path / "t.ckpt.npz").config
    assert (config.playout_cap_share, config.cheap_simulations, config.simulations_start,
            config.simulations_ramp) == (0.5, 2, 4, 3600.0)
