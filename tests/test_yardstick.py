"""The exact yardstick: Wilson intervals, a suite built, saved and read back,
the shares of agents whose answers are known (perfect, the worst move, random
against its exact expectation), and the shipped Connect Four suite against
the solver."""

import numpy as np
import pytest

from ttt_engine import connect4, games, yardstick


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


def test_missing_truncated_foreign_or_future_suites_are_one_line_errors(tmp_path, small_suite):
    suite, path = small_suite
    with pytest.raises(ValueError, match=r"no such file; make it again with: ttt-engine "
                                         r"yardstick --game connect4 --build$"):
        yardstick.load(str(tmp_path / "none.npz"), "connect4")
    p = tmp_path / "x.npz"
    np.savez(p, version=99)
    with pytest.raises(ValueError, match=r"x.npz: format version 99 \(a newer release's\), "
                                         r"this version reads 2; make it again with: "
                                         r"ttt-engine yardstick --game uttt --build$"):
        yardstick.load(str(p), "uttt")
    p.write_bytes(b"not a suite")
    with pytest.raises(ValueError, match="not a yardstick suite, or truncated$"):
        yardstick.load(str(p))
    data = open(path, "rb").read()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError) as e:
        yardstick.load(str(cut), "connect4")
    msg = str(e.value)
    assert "\n" not in msg and str(cut) in msg and "truncated" in msg and \
        msg.endswith("ttt-engine yardstick --game connect4 --build")
    with pytest.raises(ValueError, match=r"a suite of 'connect4', not of 'quixo'; make it "
                                         r"again with: ttt-engine yardstick --game quixo"):
        yardstick.load(path, "quixo")
    agent = games.get("quixo").make_agent("random", seed=1)
    with pytest.raises(ValueError, match="a suite of 'connect4', not of 'quixo'"):
        yardstick.yardstick(agent, game="quixo", suite=path)


def test_every_game_has_a_suite_and_its_source():
    for key in games.GAMES:
        assert yardstick.has_suite(key), key
        assert games.get(key).yardstick_source.startswith("ttt_engine.")


def test_critical_positions_are_those_where_a_move_changes_the_outcome():
    assert yardstick.is_critical({0: 9990, 1: 0})
    assert yardstick.is_critical({0: 0, 1: -9990})
    assert not yardstick.is_critical({0: 9990, 1: 9970})      # won whatever: not critical
    assert not yardstick.is_critical({0: -9990, 1: -9996})    # lost whatever
    assert not yardstick.is_critical({0: 0, 1: 0})
    s = yardstick.Suite("ttt", ((), (4,), (4, 0)),
                        ({0: 0, 4: 0}, {0: 9990, 1: 0, 2: -9990, 3: 9980}, {1: -9990, 2: -9980}),
                        (0, 1, 2), (0, 0, 0), (1, 2))
    assert s.critical == (False, True, False) and s.critical_share == pytest.approx(1 / 3)
    # on the critical position: 2 of 4 moves keep the win, 1 is the fastest
    assert s.random_expectation(critical=True)["all"] == (0.5, 0.25)
    assert s.random_expectation(critical=True)["opening"] == (0.0, 0.0)     # none there
    assert s.random_expectation()["all"] == pytest.approx(((1 + 0.5 + 1) / 3,
                                                           (1 + 0.25 + 0.5) / 3))


def test_compose_keeps_every_critical_position_and_bounds_the_others():
    from ttt_engine._yardstick_build import compose
    crit = [((k,), {0: 9990, 1: -9990}, 0, 0) for k in range(9)]
    calm = [((k, 1), {0: 0, 2: 0}, 1, 0) for k in range(9)]
    s = compose("ttt", crit + calm + crit[:2], size=12, critical_share=0.75, seed=1)
    assert len(s) == 12 and sum(s.critical) == 9 and s.critical_share == 0.75
    assert s.info["candidates"] == 18          # the repeated ones counted once
    s = compose("ttt", crit + calm, size=5, critical_share=0.6, seed=1)
    assert len(s) == 5 and sum(s.critical) == 5


class _Illegal:
    name = "illegal"

    def __init__(self, move, after=0):
        self.move, self.calls = move, 0
        self.after = after

    def select_move(self, board):
        self.calls += 1
        return self.move if self.calls > self.after else board.legal_moves[0]


def test_an_illegal_move_names_the_position_and_move_and_counts_nothing(small_suite):
    suite, _ = small_suite
    occupied = suite.lines[3][0]
    with pytest.raises(ValueError) as e:
        yardstick.yardstick(_Illegal(99, after=3), suite=suite)
    msg = str(e.value)
    assert "agent 'illegal' chose 99, not a legal move of suite position" in msg
    assert "nothing is counted" in msg and "\n" not in msg
    with pytest.raises(ValueError, match="chose 'a', not a legal move of suite position 0 "
                                         r"\(Connect Four, after: "):
        yardstick.yardstick(_Illegal("a"), suite=suite)
    assert occupied in range(7)


def test_an_agent_bound_to_another_board_is_refused_before_anything_counts():
    from ttt_engine._yardstick_build import compose
    g = games.get("quixo")
    b = g.new_board(size=4)
    scores = {int(m): 0 for m in b.legal_moves}
    scores[int(b.legal_moves[0])] = -9990
    s = compose("quixo", [((), scores, 0, 0)], size=1, options=({"size": 4},))
    net = g.make_agent("az", simulations=2, seed=1)
    with pytest.raises(ValueError, match=r"agent '.*' cannot play the suite's boards of "
                                         "size=4: the network that ships for Quixo"):
        yardstick.yardstick(net, suite=s)
    r = yardstick.yardstick(g.make_agent("heuristic", seed=1), suite=s)
    assert r.positions == 1 and r.critical_keeps["all"].n == 1


def test_result_round_trips_through_plain_data_and_writes_its_table_row():
    import json
    from ttt_engine.yardstick import PHASES, Result, Share
    phases = ("all", *PHASES)
    r = Result("x", "connect4", {p: Share(3 + i, 4 + i) for i, p in enumerate(phases)},
               {p: Share(1, 4 + i) for i, p in enumerate(phases)}, 10, 1.25)
    back = Result.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back.to_dict() == r.to_dict() and back.row() == r.row()
    assert r.row() == "| x | **- / -** | - / - | - / - | - / - | - / - | 75.0 / 25.0 |"
    c = Result("y", "ttt", r.keeps, r.optimal, 10, 1.0,
               {p: Share(1, 2) for p in phases}, {p: Share(0, 2) for p in phases},
               {p: (0.25, 0.125) for p in phases})
    assert c.row() == ("| y | **50.0 / 0.0** | 25.0 / 12.5 | 50.0 / 0.0 | 50.0 / 0.0 | "
                       "50.0 / 0.0 | 75.0 / 25.0 |")
    assert Result.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert str(c).splitlines()[1].startswith("critical positions")
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
    with pytest.raises(ValueError, match="not a yardstick suite, or truncated$"):
        yardstick.load(str(p))


def test_table_covers_every_engine_and_perfect_play_scores_everything():
    rows = yardstick.table(["ttt"], simulations=20, sample=25, seed=2)
    assert [r.engine for r in rows] == list(games.get("ttt").engines)
    by = {r.engine: r for r in rows}
    p = by["perfect"].result
    assert p.critical_keeps["all"].k == p.critical_keeps["all"].n > 0
    assert p.critical_optimal["all"].k == p.critical_optimal["all"].n
    assert by["mcts"].budget == "20 simulations" and by["perfect"].budget == "its default"
    # every engine on the same positions: the same random expectation
    assert len({r.result.random["all"] for r in rows}) == 1
    from ttt_engine._yardstick_report import markdown
    text = markdown(rows)
    assert text.startswith("**Tic-Tac-Toe** (25 positions, ")
    assert "| perfect | its default | **100.0 / 100.0** |" in text


def test_an_engine_of_one_board_is_judged_on_its_boards_positions_in_the_table():
    rows = yardstick.table(["quixo"], ["az", "random"], simulations=2, sample=5)
    az, rnd = rows
    assert az.result.positions == 5 and az.result.boards == "size=5"
    assert rnd.result.positions == 5 and rnd.result.boards == ""
    from ttt_engine._yardstick_report import markdown
    assert "| az | 2 simulations; on the 5 positions with size=5 |" in markdown(rows)
    rows = yardstick.table(["quixo"], ["az"], simulations=2, sample=5, boards=None)
    assert rows[0].result is None and "cannot play the suite's boards of size=4" in rows[0].reason


def test_boards_picks_the_positions_an_agent_plays_or_the_options_asked():
    from ttt_engine._yardstick_build import compose
    g = games.get("quixo")
    found = []
    for v, opts in enumerate(({"size": 4}, {})):
        b = g.new_board(**opts)
        for first in b.legal_moves[:3]:
            after = b.copy()
            after.push(first)
            scores = {int(m): 0 for m in after.legal_moves}
            scores[int(after.legal_moves[0])] = -9990
            found.append(((int(first),), scores, 0, v))
    s = compose("quixo", found, size=len(found), options=({"size": 4}, {}))
    assert sorted(s.variant) == [0, 0, 0, 1, 1, 1]
    net = g.make_agent("az", simulations=2, seed=1)
    r = yardstick.yardstick(net, suite=s, boards="playable")
    assert r.positions == 3 and r.boards == "size=5" and "of the boards with size=5" in str(r)
    assert yardstick.Result.from_dict(r.to_dict()).boards == "size=5"
    h = g.make_agent("heuristic", seed=1)
    assert yardstick.yardstick(h, suite=s, boards="playable").boards == ""
    r4 = yardstick.yardstick(h, suite=s, boards={"size": 4})
    assert r4.positions == 3 and r4.boards == "size=4"
    assert yardstick.yardstick(h, suite=s, boards={"size": 5}, sample=2).positions == 2
    with pytest.raises(ValueError, match="no position of the quixo suite is on a board with "
                                         "size=3"):
        yardstick.yardstick(h, suite=s, boards={"size": 3})
    with pytest.raises(ValueError, match="boards must be None"):
        yardstick.yardstick(h, suite=s, boards="some")


def test_strength_curve_and_its_plot(tmp_path):
    pytest.importorskip("matplotlib")
    curve = yardstick.strength_curve("mcts", [5, 400], "connect4", kind="simulations",
                                     sample=40, seed=3)
    assert [b for b, _ in curve] == [5, 400]
    low, high = (r.critical_keeps["all"] for _, r in curve)
    assert low.n == high.n and high.k >= low.k - 3
    calls = []

    def make(b):
        calls.append(b)
        return games.get("ttt").make_agent("mcts", simulations=b, seed=1)
    again = yardstick.strength_curve(make, [3, 30], sample=10, kind="simulations")
    assert calls == [3, 30] and again[0][1].game == "ttt"
    with pytest.raises(ValueError, match="needs game="):
        yardstick.strength_curve("mcts", [1], kind="simulations")
    from ttt_engine._yardstick_report import plot_curves
    out = plot_curves({"mcts": curve}, tmp_path / "c.png", kind="simulations")
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_a_stopped_sampling_continues_from_its_checkpoint(tmp_path):
    """Stopped by Ctrl-C in the middle of a game's scores, the sampling keeps
    what it found before that game; the same call continues and, with random
    games only, finds exactly what an uninterrupted call finds."""
    from ttt_engine._yardstick_build import plies_score, sample_positions
    perfect = games.get("ttt").make_agent("perfect", seed=1)
    calls = []

    def scorer(board, stop_at=None):
        calls.append(1)
        if stop_at is not None and len(calls) == stop_at:
            raise KeyboardInterrupt
        return {int(m): plies_score(v) for m, v in perfect.move_scores(board).items()}

    kw = dict(seed=4, per_game=2, progress=False)
    whole = sample_positions("ttt", scorer, 15, **kw)
    path = tmp_path / "c.json"
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        sample_positions("ttt", lambda b: scorer(b, stop_at=9), 15, checkpoint=str(path), **kw)
    assert path.exists()
    import json
    kept = json.loads(path.read_text())["found"]
    assert 0 < len(kept) < 9
    again = sample_positions("ttt", scorer, 15, checkpoint=str(path), **kw)
    assert again == whole and not path.exists()
    path.write_text(json.dumps({"key": ["ttt", 5, 15, {}]}))
    with pytest.raises(ValueError, match="is of another build"):
        sample_positions("ttt", scorer, 15, checkpoint=str(path), **kw)


def test_the_quixo_source_takes_the_5x5_tablebase_through_its_hook():
    """With ``tablebase=`` (here a stand-in that scores the pushes completing
    an opponent's line as losses and the rest as draws), 5x5 positions with
    at most one blank cube, on the default board, join the 4x4 ones (left out
    here: the 4x4 solution takes a minute)."""
    from ttt_engine.quixo import yardstick as Q
    from ttt_engine.search import WIN_SCORE
    asked = []

    def tablebase(board):
        asked.append(Q.blank_cubes(board))
        out = {}
        for m in board.legal_moves:
            child = board.copy()
            child.push(m)
            out[m] = -(WIN_SCORE - 1) if child.winner not in (None, "draw", board.to_move) \
                else 0.0
        return out
    s = Q.build(seed=2, progress=False, tablebase=tablebase, size_5x5=6, candidates_5x5=12,
                four_by_four=False)
    assert s.options == ({},) and asked and max(asked) <= 1
    five = list(range(len(s)))
    assert five and s.info["tablebase"] and len(s.info["sources"]) == 2
    for i in five:
        b = s.board(i)
        assert b.size == 5 and Q.blank_cubes(b) <= 1
        assert sorted(s.scores[i]) == sorted(b.legal_moves)


def test_a_suite_of_the_first_format_is_read_on_the_default_board(tmp_path, small_suite):
    suite, path = small_suite
    with np.load(path) as z:
        old = {k: z[k] for k in z.files if k not in ("options", "variant")}
    old["version"] = 1
    p = tmp_path / "v1.npz"
    np.savez(p, **old)
    again = yardstick.load(str(p), "connect4")
    assert again == suite and again.options == ({},)
