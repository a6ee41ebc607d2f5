"""round_robin(yardstick=N) and ``ttt-engine tournament --yardstick N``: every
entrant measured on the same positions of the game's exact yardstick suite."""
import json

import pytest
from ttt_engine import games, yardstick
from ttt_engine.cli import main
from ttt_engine.tournament import round_robin

SEED = 11
N = 20


def play(**kw):
    # a long opening and two plies a game keep the perfect engine's games cheap
    return round_robin("connect4", ["perfect", "mcts", "random"], 2, simulations=50,
                       seed=SEED, workers=1, bootstrap=20, progress=False, openings=1,
                       opening_plies=20, max_plies=2, yardstick=N, **kw)


@pytest.fixture(scope="module")
def result():
    return play()


def direct(name):
    kw = {"simulations": 50} if name == "mcts" else {}
    agent = games.get("connect4").make_agent(name, seed=SEED, **kw)
    return yardstick.yardstick(agent, game="connect4", sample=N, seed=SEED)


def test_column_matches_direct_measurements(result):
    assert set(result.yardstick) == {"perfect", "mcts", "random"}
    rows = {line.split("|")[1].strip(" *"): line for line in result.markdown().splitlines()
            if line.startswith("| **")}
    assert ("critical: keeps value % [95% interval] | optimal % | random mover (exact) |"
            in result.markdown())
    for name in ("mcts", "random"):
        d = direct(name)
        got = result.yardstick[name]
        assert got.positions == N and got.keeps == d.keeps and got.optimal == d.optimal
        assert got.critical_keeps == d.critical_keeps and got.random == d.random
        k, o = d.critical_keeps["all"], d.critical_optimal["all"]
        lo, hi = k.interval
        rk, ro = d.random["all"]
        assert rows[name].endswith(f" {100 * k.rate:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] | "
                                   f"{100 * o.rate:.1f} | {100 * rk:.1f} / {100 * ro:.1f} |")
    p = result.yardstick["perfect"]
    assert p.keeps["all"].k == p.optimal["all"].k == N
    n_crit = p.critical_keeps["all"].n
    assert 0 < n_crit < N and p.critical_keeps["all"].k == n_crit
    assert f" 100.0 [{100 * p.critical_keeps['all'].interval[0]:.1f}, 100.0] | 100.0 |" \
        in rows["perfect"]
    # random keeps the value less often than exact play, on the same positions
    assert result.yardstick["random"].keeps["all"].k < N


def test_summary_carries_it(result):
    s = json.loads(json.dumps(result.summary()))
    y = s["yardstick"]["random"]
    r = result.yardstick["random"]
    assert y["positions"] == N
    assert y["keeps"]["all"]["k"] == r.keeps["all"].k and y["keeps"]["all"]["n"] == N
    assert y["optimal"]["all"]["interval"] == list(r.optimal["all"].interval)
    assert set(y["keeps"]) == {"all", *yardstick.PHASES}
    assert y["critical_keeps"]["all"]["k"] == r.critical_keeps["all"].k
    assert y["random"]["all"] == list(r.random["all"])
    plain = round_robin("connect4", ["mcts", "random"], 2, simulations=20, seed=SEED,
                        workers=1, bootstrap=0, progress=False, openings=1,
                        opening_plies=20, max_plies=2)
    assert "yardstick" not in plain.summary() and "keeps value" not in plain.markdown()


def test_resumed_tournament_measures_again(tmp_path, result):
    out = tmp_path / "r.jsonl"
    first = play(out=str(out))
    lines = out.read_text().splitlines()
    again = play(out=str(out))
    assert out.read_text().splitlines() == lines
    assert again.games == first.games == result.games
    for name in ("mcts", "random", "perfect"):
        assert again.yardstick[name].keeps == result.yardstick[name].keeps


def _no_quixo_suite(monkeypatch, tmp_path):
    # every game ships a suite: a missing one is an install without it
    from ttt_engine import _yardstick_core
    real = _yardstick_core.suite_path
    monkeypatch.setattr(_yardstick_core, "suite_path", lambda key: str(tmp_path / "none.npz")
                        if key == "quixo" else real(key))


def test_no_suite_or_bad_count_is_refused_before_any_game(tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    _no_quixo_suite(monkeypatch, tmp_path)
    with pytest.raises(ValueError, match="^no yardstick suite ships for Quixo"):
        round_robin("quixo", ["mcts", "random"], 2, workers=1, yardstick=10, out=str(out))
    assert not out.exists()
    for bad in (0, -1, 10**6):
        with pytest.raises(ValueError, match="yardstick must be an integer from 1 to 1,409"):
            round_robin("connect4", ["mcts", "random"], 2, workers=1, yardstick=bad)


def test_cli(tmp_path, capsys, monkeypatch):
    summary = tmp_path / "s.json"
    args = ["tournament", "--game", "connect4", "--agents", "mcts,random", "--simulations",
            "50", "--games", "2", "--seed", str(SEED), "--workers", "1", "--quiet",
            "--bootstrap", "20", "--openings", "1", "--opening-plies", "20",
            "--yardstick", str(N), "--json", str(summary)]
    assert main(args) == 0
    text = capsys.readouterr().out
    d = direct("random")
    k = d.critical_keeps["all"]
    lo, hi = k.interval
    row = next(x for x in text.splitlines() if x.startswith("| **random**"))
    assert row.endswith(f" {100 * k.rate:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] |"
                        f" {100 * d.critical_optimal['all'].rate:.1f} | "
                        f"{100 * d.random['all'][0]:.1f} / {100 * d.random['all'][1]:.1f} |")
    assert json.loads(summary.read_text())["yardstick"]["random"]["keeps"]["all"]["k"] \
        == d.keeps["all"].k
    out = tmp_path / "q.jsonl"
    _no_quixo_suite(monkeypatch, tmp_path)
    assert main(["tournament", "--game", "quixo", "--agents", "mcts,random", "--yardstick",
                 "10", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no yardstick suite ships for Quixo" in err
    assert not out.exists()
    for bad, why in (("0", "--yardstick"), ("-2", "--yardstick"), ("5000", "1,409")):
        assert main(args[:-4] + ["--yardstick", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and why in err
