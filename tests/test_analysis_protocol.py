"""The analysis protocol (``agent.analyse(board) -> Analysis``): an agent from
elsewhere that has only ``select_move`` and ``analyse`` is explained by the web
page, the console's ``--verbose`` and the tournament records, which read
nothing else of an agent (no private attribute)."""
import io
import json
import pathlib
import re
import warnings

import pytest

from ttt_engine import games
from ttt_engine.analysis import Analysis, analyse, explain
from ttt_engine.tournament import round_robin

ROOT = pathlib.Path(__file__).resolve().parents[1] / "python" / "ttt_engine"


class Corner:
    """A third-party Tic-Tac-Toe agent: the lowest legal cell, explained by a
    made-up score per cell (higher cells score lower) and a fixed budget."""

    def select_move(self, board):
        return min(board.legal_moves)

    def analyse(self, board):
        moves = sorted(board.legal_moves)
        rows = {m: {"score": 0.5 - 0.1 * i, "visits": 10 * (len(moves) - i),
                    "pv": [m] + ([moves[1]] if m == moves[0] and len(moves) > 1 else [])}
                for i, m in enumerate(moves)}
        return Analysis.of(board, rows, stats={"nodes": 42, "time": 0.001})


def _expected(board):
    return min(board.legal_moves)


def test_a_third_party_agent_is_analysed_through_its_analyse():
    g = games.get("ttt")
    b = g.from_string("X...O....")
    a = analyse(g, b, Corner())
    assert a.engine == "Corner" and a.kind == "agent" and a.game == "ttt"
    assert a.best_move == _expected(b) == 1
    assert a.evaluation == pytest.approx(0.5) and a.evaluation_text == "+0.50"
    assert [r.move for r in a.rows] == [1, 2, 3, 5, 6, 7, 8]
    assert a.pv == (g.move_to_str(b, 1), g.move_to_str(b, 2))
    assert a.stats == {"nodes": 42, "time": 0.001}
    d = a.to_dict()
    assert d["pv"] == list(a.pv) and d["rows"][0]["visits"] == 70


def test_an_agent_without_analyse_is_asked_for_its_move_only():
    class Plain:
        def select_move(self, board):
            return max(board.legal_moves)
    g = games.get("ttt")
    a = explain(Plain(), g.new_board())
    assert a.kind == "move" and a.best_move == 8 and a.evaluation is None
    assert all(r.score is None for r in a.rows) and len(a.rows) == 9


def test_analyse_must_answer_an_analysis_with_a_legal_move():
    class Wrong:
        def select_move(self, board):
            return 0

        def analyse(self, board):
            return {"best_move": 0}

    class Illegal(Corner):
        def analyse(self, board):
            return Analysis.of(board, {0: {"score": 1.0}})
    g = games.get("ttt")
    with pytest.raises(TypeError, match="must return a ttt_engine.analysis.Analysis"):
        explain(Wrong(), g.new_board())
    with pytest.raises(TypeError, match="not a legal move"):
        explain(Illegal(), g.from_string("X........"))


def test_the_web_page_draws_a_third_party_agents_analysis(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from ttt_engine.web import app as web_app, create_app
    monkeypatch.setattr(web_app, "_agent", lambda *args: Corner())
    with TestClient(create_app(max_time=2.0)) as client:
        def post(path, body):
            return client.post(path, content=json.dumps(body),
                               headers={"Content-Type": "application/json"})
        r = post("/api/analyse", {"game": "ttt", "moves": [0, 4], "engine": "mcts"})
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["best_move"] == 1 and d["evaluation"] == pytest.approx(0.5)
        assert d["stats"]["nodes"] == 42 and d["rows"][0]["visits"] == 70
        assert len(d["pv"]) == 2 and "<svg" in d["svg"]
        r = post("/api/engine-move", {"game": "ttt", "moves": [0, 4], "engine": "mcts"})
        assert r.status_code == 200, r.text
        assert r.json()["move"] == 1 and r.json()["analysis"]["best_move"] == 1


def test_console_verbose_explains_a_third_party_agent():
    from ttt_engine.cli.console import Console
    from ttt_engine.cli.play import Table, play_one_game
    from ttt_engine.cli.style import Style
    out = io.StringIO()
    console = Console(Style(out, "never"), out)
    g = games.get("ttt")
    table = Table(g, g.new_board(), {}, console, verbose=True)
    winner = play_one_game(table, {"X": Corner(), "O": Corner()}, {"X": "one", "O": "two"})
    text = out.getvalue()
    # the lowest cell each time: X takes 1 2 3 ... and wins on the bottom row first
    assert winner == "X" and table.moves == [0, 1, 2, 3, 4, 5, 6]
    plays = re.findall(r"(one|two) \((X|O)\) plays (\d)  \[(.*)\]", text)
    assert len(plays) == 7
    assert all(p[3].startswith("42 nodes, ") and p[3].endswith(" ms") for p in plays), plays


def test_a_tournament_records_what_each_entrant_thought(tmp_path):
    out = tmp_path / "t.jsonl"
    res = round_robin("ttt", {"corner": Corner(), "perfect": "perfect"}, 2, seed=3,
                      workers=1, progress=False, out=str(out), analysis=True, bootstrap=0)
    assert len(res.records) == 2
    for rec in res.records:
        notes = rec["analysis"]
        assert len(notes) == rec["plies"] and {n["by"] for n in notes} == {"corner", "perfect"}
        for n in notes:
            if n["by"] == "corner":
                assert n["value"] == pytest.approx(0.5) and n["budget"] == {"nodes": 42,
                                                                            "time": 0.001}
                assert n["kind"] == "agent" and 1 <= len(n["pv"]) <= 2
            else:                       # the exact engine: its result and its line
                assert n["kind"] == "exact" and n["verdict"] and n["pv"][0] == n["move"]
                assert n["budget"]["nodes"] > 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["analysis"] is True
    assert sum("analysis" in x for x in lines[1:]) == 2


def test_a_records_file_with_analysis_is_another_tournament_than_one_without(tmp_path):
    out = str(tmp_path / "t.jsonl")
    kw = dict(seed=3, workers=1, progress=False, out=out, bootstrap=0)
    first = round_robin("ttt", ["random", "perfect"], 2, analysis=True, **kw)
    again = round_robin("ttt", ["random", "perfect"], 2, analysis=True, **kw)   # complete
    assert again.records == first.records and all("analysis" in r for r in first.records)
    with pytest.raises(ValueError, match="analysis"):
        round_robin("ttt", ["random", "perfect"], 2, **kw)
    with pytest.raises(ValueError, match="analysis"):
        round_robin("ttt", ["random", "perfect"], 2, analysis="yes", seed=3, workers=1)


# the readers of an analysis: the protocol only
READERS = [ROOT / "analysis.py", *sorted((ROOT / "web").glob("*.py")),
           *sorted((ROOT / "cli").glob("*.py")), *sorted((ROOT / "tournament").glob("*.py"))]
PRIVATE = re.compile(r"\bagents?(\[[^\]]*\])?\._\w|getattr\(\s*agents?\b[^,]*,\s*[\"']_")
PROBES = re.compile(r"isinstance\([^)]*\bAgent\b|\b(last_stats|last_result|q_values|"
                    r"move_scores|root_children|heuristic_for|analysis_rows|ANALYSIS)\b")


@pytest.mark.parametrize("path", READERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_readers_read_no_private_attribute_of_an_agent(path):
    text = path.read_text()
    code = "\n".join(line.split("#")[0] for line in text.splitlines())
    assert not PRIVATE.findall(code), path
    if path.name != "analysis.py":          # its docstrings name what engines give
        assert not PROBES.search(code), (path, PROBES.search(code))


def test_the_private_attribute_grep_finds_one():
    assert PRIVATE.search("x = agent._mcts.lines") and PRIVATE.search("getattr(agent, '_pucts')")
    assert PRIVATE.search("agents[mover]._tree") and not PRIVATE.search("agent.analyse(b)")


ENGINES = [(k, e) for k in games.GAMES for e in games.get(k).engines]
SILENT = {"random", "heuristic"}        # engines with nothing to say: the move only


@pytest.mark.parametrize("key, engine", ENGINES, ids=[f"{k}-{e}" for k, e in ENGINES])
def test_every_engine_explains_itself_through_its_analyse(key, engine):
    g = games.get(key)
    budgets = g.engines[engine].budgets
    kw = {"simulations": 200} if "simulations" in budgets else \
        {"depth": 2} if "depth" in budgets else {}
    agent = g.make_agent(engine, seed=1, **kw)
    b = g.new_board()
    b.push(sorted(b.legal_moves)[0])
    a = explain(agent, b)
    assert a.best_move in b.legal_moves and {r.move for r in a.rows} <= set(b.legal_moves)
    if engine in SILENT:
        assert not callable(getattr(agent, "analyse", None)) and a.kind == "move"
    else:
        assert a.kind != "move" and a.evaluation is not None and -1 <= a.evaluation <= 1
        assert a.rows and a.pv and a.pv[0] == g.move_to_str(b, a.best_move)


def test_the_network_alone_and_the_evaluation_search_explain_themselves():
    from ttt_engine.agents import PolicyAgent, load_shipped
    from ttt_engine.alphazero.evaluation import PUCTPlayer
    g = games.get("connect4")
    b = g.new_board()
    a = explain(PolicyAgent(), b)
    priors = [r.value for r in a.rows]
    assert a.kind == "policy" and sum(priors) == pytest.approx(1.0)
    assert priors == sorted(priors, reverse=True) and a.best_move == a.rows[0].move
    assert -1 <= a.evaluation <= 1
    p = PUCTPlayer(load_shipped("connect4"), simulations=60)
    a = explain(p, b)
    assert a.kind == "mcts" and sum(r.visits for r in a.rows) >= 50
    assert a.best_move == p.select_move(b)          # the same deterministic search


def test_the_tournament_command_records_the_analysis(tmp_path, capsys):
    from ttt_engine.cli import main
    out = tmp_path / "t.jsonl"
    args = ["tournament", "--game", "ttt", "--agents", "perfect,mcts", "--simulations", "200",
            "--games", "2", "--seed", "1", "--workers", "1", "--quiet"]
    assert main(args + ["--analysis"]) == 2
    assert "--analysis needs --out" in capsys.readouterr().err
    assert main(args + ["--analysis", "--out", str(out)]) == 0
    recs = [json.loads(x) for x in out.read_text().splitlines()[1:]]
    assert len(recs) == 2
    for rec in recs:
        assert [n["by"] for n in rec["analysis"]][:2] in (["perfect", "mcts"],
                                                            ["mcts", "perfect"])
        mcts = [n for n in rec["analysis"] if n["by"] == "mcts"]
        assert all(n["budget"]["simulations"] == 200 and "best_move" not in n["budget"]
                   for n in mcts)
