"""Parameter sweeps: reproducible, resumable, exact Q-learning measures per run."""
import csv
import io
import json

import pytest
import ttt_engine
from ttt_engine._parallel import process_pool
from ttt_engine.tournament import SerialExecutor, SweepError, qlearning_sweep, sweep
from ttt_engine.tournament.sweep import qlearning_run, run_seed


def noisy(x, y, seed):
    """A cheap sweep function: deterministic in (x, y, seed)."""
    import random
    r = random.Random(seed)
    return {"value": x * 10 + y + r.random(), "label": f"{x}-{y}"}


def fails_on_two(x, seed):
    if x == 2:
        raise ValueError("x=2 is not allowed")
    return {"x2": x * x}


def test_sweep_grid_repeats_and_seeds():
    r = sweep(noisy, {"x": [1, 2], "y": [0.5, 1.5, 2.5]}, 3, seed=4,
              executor=SerialExecutor(), progress=False)
    assert len(r.rows) == 2 * 3 * 3
    assert [(row["point"]["x"], row["point"]["y"], row["repeat"]) for row in r.rows][:4] == \
        [(1, 0.5, 0), (1, 0.5, 1), (1, 0.5, 2), (1, 1.5, 0)]
    seeds = {row["seed"] for row in r.rows}
    assert len(seeds) == 18
    for row in r.rows:
        assert row["seed"] == run_seed(4, row["point"], row["repeat"])
        assert row["metrics"] == noisy(**row["point"], seed=row["seed"])
    agg = r.aggregate()
    assert len(agg) == 6 and agg[0]["runs"] == 3
    assert 10.5 <= agg[0]["value_min"] <= agg[0]["value_mean"] <= agg[0]["value_max"] < 11.5
    rows = list(csv.reader(io.StringIO(r.csv())))
    assert rows[0] == ["x", "y", "repeat", "seed", "value", "label"] and len(rows) == 19
    assert "| x | y | runs | value | label |" in r.markdown()


def test_sweep_same_on_process_pool():
    grid = {"x": [1, 2, 3], "y": [0]}
    a = sweep(noisy, grid, 2, seed=9, executor=SerialExecutor(), progress=False)
    with process_pool(2) as ex:
        b = sweep(noisy, grid, 2, seed=9, executor=ex, progress=False)
    assert a.rows == b.rows


def test_sweep_resume_and_failures(tmp_path):
    path = tmp_path / "s.jsonl"
    with pytest.raises(SweepError) as info:
        sweep(fails_on_two, {"x": [1, 2, 3]}, 2, seed=1, executor=SerialExecutor(),
              progress=False, out=path)
    err = info.value
    assert len(err.errors) == 2 and len(err.result.rows) == 4
    assert all(e["point"] == {"x": 2} for e in err.errors)
    assert "{'x': 2} repeat 0 (seed " in str(err) and "x=2 is not allowed" in str(err)
    lines = path.read_text().splitlines()
    assert len(lines) == 5
    with pytest.raises(SweepError) as info:
        sweep(fails_on_two, {"x": [1, 2, 3]}, 3, seed=None, executor=SerialExecutor(),
              progress=False, out=path)
    assert len(info.value.result.rows) == 6        # 4 kept + x=1, x=3 repeat 2
    assert path.read_text().splitlines()[:5] == lines
    with pytest.raises(ValueError, match="different sweep: grid"):
        sweep(fails_on_two, {"x": [1, 3]}, 1, seed=1, executor=SerialExecutor(),
              progress=False, out=path)


def test_sweep_bad_input(tmp_path):
    with pytest.raises(ValueError, match="sweep function.*does not pickle"):
        sweep(lambda x, seed: {}, {"x": [1]}, 1, seed=1, progress=False)
    with pytest.raises(ValueError, match="non-empty dict"):
        sweep(noisy, {}, 1, seed=1, progress=False)
    with pytest.raises(ValueError, match=r"grid\['x'\] is empty"):
        sweep(noisy, {"x": [], "y": [1]}, 1, seed=1, progress=False)
    with pytest.raises(ValueError, match="repeats must be an integer from 1 to"):
        sweep(noisy, {"x": [1], "y": [1]}, 0, seed=1, progress=False)
    with pytest.raises(ValueError, match="other than 'seed'"):
        sweep(noisy, {"seed": [1]}, 1, seed=1, progress=False)
    with pytest.raises(ValueError, match="alpha must be in"):
        qlearning_sweep(alpha=[0], repeats=1, progress=False)
    with pytest.raises(ValueError, match=r"grid\['x'\] lists 1.0 twice"):
        sweep(noisy, {"x": [1, 2, 1.0], "y": [1]}, 1, seed=1, progress=False)
    with pytest.raises(ValueError, match=r"grid\['alpha'\] lists 0.1 twice"):
        qlearning_sweep(alpha=[0.1, 0.1], repeats=1, progress=False)
    path = tmp_path / "t.jsonl"
    path.write_text('{"ttt_engine": "tournament", "format": 1}\n')
    with pytest.raises(ValueError, match="not a ttt_engine sweep results file"):
        sweep(noisy, {"x": [1], "y": [1]}, 1, seed=1, progress=False, out=path)
    assert path.read_text() == '{"ttt_engine": "tournament", "format": 1}\n'


def test_qlearning_run_is_exact():
    m = qlearning_run(0.3, 0.9, 20_000, seed=3)
    agent = ttt_engine.train(episodes=20_000, alpha=0.3, gamma=0.9, seed=3, progress=False)
    assert m["optimality"] == ttt_engine.optimality(agent).rate
    x = ttt_engine.exact_vs_random(agent, "X")
    assert (m["win_x"], m["draw_x"], m["loss_x"]) == (x.win, x.draw, x.loss)
    assert m["worst_o"] == {"win": 1, "draw": 0, "loss": -1}[ttt_engine.worst_case(agent, "O").outcome]
    assert m["never_loses"] == int(m["worst_x"] >= 0 and m["worst_o"] >= 0)
    assert m["win_o"] + m["draw_o"] + m["loss_o"] == pytest.approx(1)


def test_qlearning_sweep_table_csv_heatmap(tmp_path):
    r = qlearning_sweep(alpha=[0.1, 0.3], gamma=[0.9], episodes=[2_000, 200_000], repeats=2,
                        seed=5, executor=SerialExecutor(), progress=False)
    agg = {(a["alpha"], a["episodes"]): a for a in r.aggregate()}
    # more training is better: at 200k episodes the table is near-optimal everywhere
    for alpha in (0.1, 0.3):
        assert agg[(alpha, 200_000)]["optimality_mean"] > agg[(alpha, 2_000)]["optimality_mean"]
        assert agg[(alpha, 200_000)]["optimality_min"] > 0.95
    r.to_csv(tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text() == r.csv()
    pytest.importorskip("matplotlib")
    r.heatmap(tmp_path / "h.png", "optimality", "alpha", "episodes")
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="not a grid parameter"):
        r.heatmap(tmp_path / "h2.png", "optimality", "beta", "episodes")
    with pytest.raises(ValueError, match="two different grid parameters, got 'alpha' twice"):
        r.heatmap(tmp_path / "h2.png", "optimality", "alpha", "alpha")
    assert not (tmp_path / "h2.png").exists()
    json.dumps([row for row in r.rows])          # every row is JSON-able
