"""The exact yardstick: Wilson intervals, a suite built, saved and read back,
the shares of agents whose answers are known (perfect, the worst move, random
against its exact expectation), and the shipped Connect Four suite against
the solver."""
import os
import random

import numpy as np
import pytest

from ttt_engine import connect4, games, yardstick
from ttt_engine.agents import RandomAgent


def test_wilson_interval():
    lo, hi = yardstick.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = yardstick.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert yardstick.wilson(0, 0) == (0.0, 1.0)


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory):
    # late phases only: every position scores in milliseconds
    suite = yardstick.build_suite("connect4", per_phase=(0, 6, 8), seed=2, bounds=(20, 30),
                                  strong_budget={"depth": 2}, progress=False)
    path = str(tmp_path_factory.mktemp("ys") / "suite.npz")
    yardstick.save(suite, path)
    return suite, path


def test_suite_round_trips_and_every_move_is_scored(small_suite):
    suite, path = small_suite
    again = yardstick.load(path)
    assert again == suite
    assert len(suite) == 14 and suite.phases.count(1) == 6 and suite.phases.count(2) == 8
    assert set(suite.sources) == {0, 1}
    for i in range(len(suite)):
        b = suite.board(i)
        assert sorted(suite.scores[i]) == sorted(b.legal_moves)
        exact = connect4.analyse(b, table_mb=16)
        for col, s in exact.items():        # the same order as the solver's scores
            stored = suite.scores[i][col]
            assert (stored > 0) == (s > 0) and (stored < 0) == (s < 0)
            for col2, s2 in exact.items():
                assert (stored > suite.scores[i][col2]) == (s > s2)


class _Worst:
    """Plays the lowest-scored move of each suite position."""
    name = "worst"

    def __init__(self, suite):
        self.by_line = {suite.lines[i]: suite.scores[i] for i in range(len(suite))}

    def select_move(self, board):
        s = self.by_line[tuple(board.moves)]
        return min(s, key=s.get)


def test_known_agents_score_as_they_must(small_suite):
    suite, _ = small_suite
    r = yardstick.yardstick(games.get("connect4").make_agent("perfect", book=False, seed=1),
                            suite=suite)
    assert r.keeps["all"].k == r.optimal["all"].k == len(suite)
    worst = yardstick.yardstick(_Worst(suite), suite=suite)
    want_keep = sum(np.sign(min(s.values())) == np.sign(max(s.values()))
                    for s in suite.scores)
    want_opt = sum(min(s.values()) == max(s.values()) for s in suite.scores)
    assert worst.keeps["all"].k == want_keep and worst.optimal["all"].k == want_opt
    assert worst.keeps["middle"].n == 6 and worst.keeps["opening"].n == 0
    assert "keeps the value" in str(worst) and worst.row().startswith("| worst |")


def test_random_agent_against_its_exact_expectation(small_suite):
    suite, _ = small_suite
    exp_keep, exp_opt = suite.random_expectation()["all"]
    keeps = opt = 0
    runs = 300
    for seed in range(runs):
        r = yardstick.yardstick(games.get("connect4").make_agent("random", seed=seed),
                                suite=suite)
        keeps += r.keeps["all"].k
        opt += r.optimal["all"].k
    n = runs * len(suite)
    # 300 runs of 14 positions: the mean share within 4 standard errors
    assert abs(keeps / n - exp_keep) < 4 * np.sqrt(exp_keep * (1 - exp_keep) / n) + 1e-9
    assert abs(opt / n - exp_opt) < 4 * np.sqrt(exp_opt * (1 - exp_opt) / n) + 1e-9


def test_sample_is_fixed_by_its_seed(small_suite):
    suite, _ = small_suite
    agent = games.get("connect4").make_agent("random", seed=1)
    a = yardstick.yardstick(agent, suite=suite, sample=5, seed=3)
    assert a.positions == 5
    with pytest.raises(ValueError, match="sample"):
        yardstick.yardstick(agent, suite=suite, sample=0)


def test_missing_or_foreign_suites_are_one_line_errors(tmp_path):
    agent = games.get("ttt").make_agent("random", seed=1)
    with pytest.raises(ValueError, match="no yardstick suite ships for Tic-Tac-Toe"):
        yardstick.yardstick(agent, game="ttt")
    p = tmp_path / "x.npz"
    np.savez(p, version=99)
    with pytest.raises(ValueError, match="format version 99"):
        yardstick.load(str(p))
    p.write_bytes(b"not a suite")
    with pytest.raises(ValueError, match="not a yardstick suite"):
        yardstick.load(str(p))
    with pytest.raises(ValueError, match="no such file"):
        yardstick.load(str(tmp_path / "none.npz"))


def test_shipped_connect4_suite():
    """The shipped suite: phases, sources and a sample re-scored by the solver;
    while none ships, asking for it says how to make one."""
    path = yardstick.suite_path("connect4")
    if not os.path.exists(path):
        with pytest.raises(ValueError, match="no yardstick suite ships for Connect Four; make "
                                             "one with bench/yardstick_suite.py"):
            yardstick.yardstick(RandomAgent(seed=1), game="connect4")
        return
    suite = yardstick.load(path)
    assert len(suite) >= 1600 and suite.game == "connect4"
    assert {0, 1, 2} == set(suite.phases) and {0, 1} == set(suite.sources)
    for i, line in enumerate(suite.lines):
        assert yardstick.PHASES[suite.phases[i]] == \
            ("opening" if len(line) < suite.bounds[0] else
             "middle" if len(line) < suite.bounds[1] else "end")
    rng = random.Random(1)
    late = [i for i in range(len(suite)) if len(suite.lines[i]) >= 18]
    for i in rng.sample(late, 10):                       # re-scored by the solver
        b = suite.board(i)
        exact = connect4.analyse(b, table_mb=16)
        best = max(exact.values())
        stored = suite.scores[i]
        assert {c for c in exact if exact[c] == best} == \
            {c for c in stored if stored[c] == max(stored.values())}


def test_result_round_trips_through_plain_data_and_writes_its_table_row():
    import json
    from ttt_engine.yardstick import PHASES, Result, Share
    phases = ("all", *PHASES)
    r = Result("x", "connect4", {p: Share(3 + i, 4 + i) for i, p in enumerate(phases)},
               {p: Share(1, 4 + i) for i, p in enumerate(phases)}, 10, 1.25)
    back = Result.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back.to_dict() == r.to_dict() and back.row() == r.row()
    assert r.row() == "| x | 75.0 / 25.0 | 80.0 / 20.0 | 83.3 / 16.7 | 85.7 / 14.3 |"
    head = Result.TABLE_HEAD.splitlines()
    assert head[0].count("|") == r.row().count("|") == head[1].count("|")


@pytest.mark.parametrize("kw,message", [
    ({"per_phase": (-1, 1, 1)}, r"per_phase\[0\] must be an integer >= 0"),
    ({"per_phase": (1, 2)}, "per_phase must be three counts"),
    ({"per_phase": (0, 0, 0)}, "no position at all"),
    ({"epsilon": float("nan")}, r"epsilon must be in \[0, 1\]"),
    ({"bounds": (5, 3)}, "bounds must rise"),
    ({"bounds": (0, 3)}, r"bounds\[0\] must be an integer >= 1"),
    ({"cap": -1}, "cap must be a number of seconds"),
    ({"strong": "nope"}, "strong must be one of"),
    ({"seed": -1}, "seed must be an integer from 0"),
])
def test_build_suite_refuses_bad_arguments_at_once(kw, message):
    with pytest.raises(ValueError, match=message):
        yardstick.build_suite("connect4", progress=False, **{"per_phase": (1, 1, 1), **kw})


def test_build_suite_stops_when_no_game_reaches_the_phase():
    # Connect Four games end by ply 42: an end phase from ply 60 is never reached
    with pytest.raises(ValueError, match="games in a row ended by ply 60"):
        yardstick.build_suite("connect4", per_phase=(0, 0, 2), bounds=(50, 60),
                              strong="random", progress=False)


def test_build_suite_stops_when_the_phase_has_too_few_positions():
    # Tic-Tac-Toe has 1 + 9 + 72 positions before ply 3: 400 cannot be drawn
    with pytest.raises(ValueError, match="no new position of phase 0"):
        yardstick.build_suite("ttt", per_phase=(400, 1, 1), progress=False)


def test_a_file_that_is_no_suite_is_one_line_without_numpy_advice(tmp_path):
    p = tmp_path / "suite.txt"
    p.write_text("hello")
    with pytest.raises(ValueError, match="not a yardstick suite$"):
        yardstick.load(str(p))
