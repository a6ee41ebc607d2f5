"""The web page's API (``ttt-engine serve``) through Starlette's TestClient, and
the analysis as a library call (``games.get(g).analyse``)."""
import json
import re
import warnings

import pytest

with warnings.catch_warnings():     # newer Starlette prefers httpx2 to httpx; both work
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ttt_engine import games
from ttt_engine.agents import MCTSAgent
from ttt_engine.web import create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(max_time=2.0, max_simulations=100_000)) as c:
        yield c


def post(client, path, body, **kw):
    return client.post(path, content=json.dumps(body),
                       headers={"Content-Type": "application/json", **kw})


# ---------------------------------------------------------------------------- library
def _uttt_mcts(simulations):
    """A UTTT position analysed by the ``mcts`` engine, and an agent with the same
    settings that searched it: ``(game, board, analysis, agent, its move)``."""
    g = games.get("uttt")
    b = g.new_board()
    b.push(40)
    a = g.analyse(b, "mcts", simulations=simulations, seed=5)
    agent = MCTSAgent(simulations=simulations, seed=5)
    return g, b, a, agent, agent.select_move(b)


def test_mcts_analysis_is_the_agents_own_search():
    g, b, a, agent, move = _uttt_mcts(3000)
    visits = {c["move"]: c["visits"] for c in agent.last_stats["children"]}
    assert a.kind == "mcts" and a.best_move == move
    assert {r.move: r.visits for r in a.rows} == visits
    assert sum(visits.values()) > 2900 and set(visits) == set(b.legal_moves)
    assert a.rows[0].visits == max(visits.values())


def test_perfect_analysis_gives_exact_verdicts_and_lines():
    g = games.get("ttt")
    b = g.from_string("XX.OO....")          # X to move wins at once on cell 2
    a = g.analyse(b, "perfect")
    assert a.kind == "exact" and a.best_move == 2
    assert a.best.verdict == "win in 1" and a.best.pv == ("3",)
    verdicts = {r.move: r.verdict for r in a.rows}
    assert verdicts[5] == "draw"            # blocking O's row draws
    assert verdicts[6] == "loss in 2"       # leaving it open loses
    assert a.evaluation > 0.99 and a.alternatives() == []
    svg = a.to_svg()
    assert svg.startswith("<svg") and "#2e7d32" in svg and "W1" in svg


def test_alphabeta_analysis_lists_a_pv_and_the_table():
    g = games.get("quixo")
    a = g.analyse(g.new_board(size=4), "alphabeta", depth=2)
    assert len(a.rows) == len(g.new_board(size=4).legal_moves)
    assert a.best.pv[0] == a.best.text and len(a.best.pv) == 2
    text = a.table()
    assert text.splitlines()[0].split()[:2] == ["move", "score"]
    assert a.best.text in text


def test_q_and_value_agents_give_their_numbers():
    g = games.get("ttt")
    agent = g.make_agent("q", seed=1, episodes=200_000)
    b = g.new_board()
    a = g.analyse(b, agent)
    q = agent.q_values(b)
    assert a.kind == "q" and {r.move: r.value for r in a.rows} == q
    assert a.best_move == agent.select_move(b)
    from ttt_engine import quixo
    values, _ = quixo.collect_values(2000, seed=3, size=3)
    gq = games.get("quixo")
    bq = gq.new_board(size=3)
    greedy = gq.make_agent("greedy", seed=1, values=values)
    aq = gq.analyse(bq, greedy)
    assert aq.kind == "values"
    for r in aq.rows:
        child = bq.copy()
        child.push(r.move)
        got = values.get(child)
        assert r.value == (0.5 if got is None else got[0])
        assert 0 <= r.value <= 1 and -1 <= r.score <= 1
        assert got is not None or r.score == 0          # never seen: nothing known


def test_time_budgeted_mcts_analysis_sends_updates_and_stops_on_request():
    g = games.get("uttt")
    seen = []
    a = g.analyse(g.new_board(), "mcts", time=5.0, seed=1,
                  on_update=seen.append, stop=lambda: len(seen) >= 2)
    # stop() is asked after each slice: the third slice is the last
    assert len(seen) == 3 and seen[0].done is False and seen[-1].done is True
    assert seen[0].stats["simulations"] < seen[1].stats["simulations"] < \
        seen[2].stats["simulations"]
    visits = [sum(r.visits for r in u.rows) for u in seen]
    assert visits[0] < visits[1] < visits[2]            # one tree, grown slice by slice
    for u in seen:                                      # every update carries the lines
        assert all(r.pv and r.pv[0] == r.text for r in u.rows)
    assert sum(len(r.pv) >= 2 for r in seen[-1].rows) >= 3
    assert a is seen[-1]


def test_analyse_refuses_bad_input():
    g = games.get("ttt")
    with pytest.raises(ValueError, match="unknown Tic-Tac-Toe engine"):
        g.analyse(g.new_board(), "deep-blue")
    with pytest.raises(ValueError, match="game is over"):
        g.analyse(g.from_string("XXXOO...."), "perfect")
    with pytest.raises(ValueError, match="plays Tic-Tac-Toe, got an Ultimate Tic-Tac-Toe board"):
        g.analyse(games.get("uttt").new_board(), "perfect")


# ---------------------------------------------------------------------------- API
def test_page_and_registry(client):
    r = client.get("/")
    assert r.status_code == 200
    # plain scripts sharing globals: app.js, which starts the page, comes last
    scripts = re.findall(r'<script src="([^"]+)"></script>', r.text)
    assert scripts == ["/static/analysis.js", "/static/records.js", "/static/app.js"]
    for src in scripts:
        got = client.get(src)
        assert got.status_code == 200 and "function " in got.text, src
    info = client.get("/api/games").json()
    assert [g["key"] for g in info["games"]] == list(games.GAMES)
    ttt = info["games"][0]
    assert [e["name"] for e in ttt["engines"]] == list(games.get("ttt").engines)
    assert info["caps"] == {"time": 2.0, "simulations": 100_000, "depth": 64}


def test_position_replays_and_plays_typed_moves(client):
    r = post(client, "/api/position", {"game": "ttt", "moves": [4, 0], "play": "3"})
    assert r.status_code == 200
    p = r.json()
    assert p["moves"] == [4, 0, 2] and p["texts"] == ["5", "1", "3"]
    assert p["to_move"] == "O" and len(p["legal"]) == 6 and p["svg"].startswith("<svg")
    q = post(client, "/api/position", {"game": "quixo", "options": {"size": 4}}).json()
    a1r = next(m for m in q["legal"] if m["text"] == "a1R")
    assert a1r["from"] == [0, 0] and a1r["dir"] == "R" and q["rows"] == 4
    c = post(client, "/api/position", {"game": "clobber"}).json()
    assert all(m["to"] is not None for m in c["legal"])


def test_engine_move_returns_the_searchs_analysis(client):
    r = post(client, "/api/engine-move", {"game": "ttt", "moves": [0, 4, 8],
                                          "engine": "mcts", "budgets": {"simulations": 2000},
                                          "seed": 3})
    assert r.status_code == 200
    d = r.json()
    agent = MCTSAgent(simulations=2000, time=2.0, seed=3)
    b = games.get("ttt").new_board()
    for m in (0, 4, 8):
        b.push(m)
    assert d["move"] == agent.select_move(b)
    assert {row["move"]: row["visits"] for row in d["analysis"]["rows"]} == \
        {c["move"]: c["visits"] for c in agent.last_stats["children"]}
    assert d["position"]["moves"] == [0, 4, 8, d["move"]]


def test_streamed_analysis_sends_events_until_done(client):
    with client.stream("POST", "/api/analyse", content=json.dumps(
            {"game": "uttt", "engine": "mcts", "budgets": {"time": 0.6}, "seed": 1,
             "stream": True}), headers={"Content-Type": "application/json"}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith(
            "text/event-stream")
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    assert len(events) >= 2 and events[-1]["done"] and not events[0]["done"]
    assert events[-1]["stats"]["simulations"] > events[0]["stats"]["simulations"]
    for e in events:                                    # MCTS lines, live ones too
        assert all(row["pv"] for row in e["rows"])
        assert e["pv"] == next(row["pv"] for row in e["rows"] if row["move"] == e["best_move"])
    assert sum(len(row["pv"]) >= 2 for row in events[-1]["rows"]) >= 3


def test_solve(client):
    d = post(client, "/api/solve", {"game": "ttt", "moves": [0, 3, 1, 4]}).json()
    assert d["value"] == "win" and d["best_text"] == "3" and d["side"] == "X"
    d = post(client, "/api/solve", {"game": "uttt", "time": 0.2}).json()
    assert d["value"] == "unknown"


@pytest.mark.parametrize("body, status, reason", [
    ({"game": "chess"}, 400, "unknown game 'chess'"),
    ({"game": "ttt", "moves": [4, 4]}, 400, "move 2 (4) is not legal"),
    ({"game": "ttt", "moves": "4"}, 400, "moves must be a list"),
    ({"game": "ttt", "moves": [0, 3, 1, 4, 2, 5]}, 400, "move 6: the game is already over"),
    ({"game": "ttt", "moves": [0, 3, 1, 4, 2], "play": "6"}, 400, "the game is over"),
    ({"game": "ttt", "play": "10"}, 400, "not a legal move: 10 is out of range"),
    ({"game": "quixo", "options": {"size": 9}}, 400, "bad board options"),
    ({"game": "quixo", "options": {"colour": 1}}, 400, "has no option 'colour'"),
])
def test_bad_positions_are_4xx_with_one_line(client, body, status, reason):
    r = post(client, "/api/position", body)
    assert r.status_code == status
    err = r.json()["error"]
    assert reason in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("body, reason", [
    ({"game": "ttt", "engine": "deep-blue"}, "unknown Tic-Tac-Toe engine"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"time": 3}}, "above this server's cap"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"simulations": 10**6}}, "above this server"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"simulations": -5}}, "at least 1"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"time": "soon"}}, "time must be a number"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"depth": 3}}, "does not take depth"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"speed": 3}}, "unknown budget 'speed'"),
    ({"game": "ttt", "engine": "mcts", "seed": -1}, "seed must be"),
    ({"game": "ttt", "engine": "perfect", "moves": [0, 3, 1, 4, 2]}, "the game is over"),
    ({"game": "ttt", "engine": ["mcts"]}, "unknown Tic-Tac-Toe engine"),
    ({"game": "ttt", "engine": {"a": 1}}, "unknown Tic-Tac-Toe engine"),
    ({"game": "ttt", "engine": "mcts", "budgets": "x"}, "budgets must be an object"),
    ({"game": "ttt", "engine": "mcts", "budgets": [1]}, "budgets must be an object"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"time": 10**400}}, "above this server's cap"),
    ({"game": "ttt", "engine": "mcts", "budgets": {"simulations": 10**400}}, "above this server"),
])
def test_bad_searches_are_4xx(client, body, reason):
    for path in ("/api/engine-move", "/api/analyse", "/api/review"):
        if path == "/api/review" and "moves" in body:
            continue                    # a finished game is a review's input
        r = post(client, path, body)
        assert r.status_code == 400 and reason in r.json()["error"], (path, r.text)


def test_a_huge_solve_time_is_refused(client):
    r = post(client, "/api/solve", {"game": "ttt", "time": 10**400})
    assert r.status_code == 400 and "above this server's cap" in r.json()["error"]


def test_malformed_requests(client):
    r = client.post("/api/position", content=b"{not json",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"].startswith("malformed JSON")
    r = client.post("/api/position", content=b"game=ttt",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    r = post(client, "/api/position", [1, 2])
    assert r.status_code == 400 and "JSON object" in r.json()["error"]
    deep = '{"game": "ttt", "moves": ' + "[" * 20_000 + "]" * 20_000 + "}"
    r = client.post("/api/position", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "nested too deeply" in r.json()["error"]
    huge = '{"game": "ttt", "moves": [' + "7" * 5000 + "]}"
    r = client.post("/api/position", content=huge, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == \
        "a number in the request has 5,000 digits; numbers here have at most 1000"
    r = client.post("/api/position", content=b" " * 70_000,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert client.get("/api/position").status_code == 405


def test_other_origins_are_refused(client):
    r = post(client, "/api/position", {"game": "ttt"}, Origin="http://evil.example")
    assert r.status_code == 403 and "other origins" in r.json()["error"]
    r = post(client, "/api/position", {"game": "ttt"}, **{"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = post(client, "/api/position", {"game": "ttt"}, Origin="http://testserver")
    assert r.status_code == 200


def test_loopback_server_refuses_foreign_host_names():
    app = create_app(allowed_hosts=("127.0.0.1:8000",))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/games").status_code == 200
    with TestClient(app, base_url="http://attacker.example") as c:
        r = c.get("/api/games")
        assert r.status_code == 403 and "answers only to" in r.json()["error"]


# ---------------------------------------------------------------------------- analysis board
def test_every_mcts_row_has_its_line_from_the_tree():
    from ttt_engine.analysis import PV_MIN_VISITS, PV_PLIES
    g, b, a, agent, _ = _uttt_mcts(4000)
    lines = {line[0]["move"]: line for line in agent._mcts.lines(depth=PV_PLIES)}
    assert set(lines) == {r.move for r in a.rows}
    for r in a.rows:
        # the line's moves, shown up to the first step visited only once
        line, replay = lines[r.move], b.copy()
        assert r.pv[0] == r.text
        for text, step in zip(r.pv, line):
            assert g.parse_move(replay, text) == step["move"]
            replay.push(step["move"])
        assert len(r.pv) == len(line) or line[len(r.pv)]["visits"] < PV_MIN_VISITS
    assert sum(len(r.pv) >= 3 for r in a.rows) >= 3            # several lines to show
    # an agent handed in gets its lines too and keeps its tree: it searches on from it
    mine = g.analyse(b, agent)
    assert all(r.pv[0] == r.text for r in mine.rows) and len(mine.best.pv) >= 3
    visits = agent.last_stats["root_visits"]
    agent.select_move(b)
    assert agent.last_stats["reused_visits"] == visits
    assert agent.last_stats["root_visits"] == visits + 4000


def test_alphabeta_gives_several_lines_with_a_heuristic():
    from ttt_engine.analysis import LINES
    g = games.get("connect4")
    a = g.analyse(g.new_board(), "alphabeta", depth=4)
    lined = [r for r in a.rows if len(r.pv) > 1]
    assert len(lined) >= LINES and all(r.pv[0] == r.text for r in lined)


def test_outlook_names_the_winner_or_the_chance():
    from ttt_engine.analysis import outlook
    g = games.get("ttt")
    assert g.analyse(g.from_string("XX.OO...."), "perfect").outlook() == "X wins in 1"
    assert g.analyse(g.new_board(), "perfect").outlook() == "draw"
    assert outlook(("X", "O"), "O", -1.0, "loss in 4") == "X wins in 4"
    assert outlook(("X", "O"), "X", 0.28) == "X 64%"


def test_review_is_exact_for_tic_tac_toe():
    from ttt_engine.analysis import review
    notes = review("ttt", [4, 1, 0, 8, 2])          # 5 2 1 9 3
    assert [n.mark for n in notes] == ["", "blunder", "", "", "blunder"]
    assert notes[1].note == "threw away the draw" and notes[1].exact_after == "X wins in 6"
    assert notes[4].note == "threw away the win"
    assert (notes[4].exact_before, notes[4].exact_after) == ("X wins in 3", "draw")
    assert notes[4].best in ("4", "7")


def test_records_round_trip_for_every_game():
    import random
    from ttt_engine.web.record import read_record, write_record
    for key, g in games.GAMES.items():
        b, rng, moves = g.new_board(), random.Random(3), []
        for _ in range(6):
            m = rng.choice(b.legal_moves)
            moves.append(m)
            b.push(m)
        rec = read_record(write_record(g, moves))
        assert rec.game is g and list(rec.moves) == moves and rec.board() == b, key
    assert write_record(games.get("connect4"), [3, 3, 4, 2]) == "game: connect4\nmoves: 4453\n"
    for text, error in [("4458", "move 4 '8' of '4458': column out of range"),
                        ("4444444", "move 7 '4' of '4444444': column 4 is full")]:
        with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
            read_record(text, "connect4")
    with pytest.raises(ValueError, match=r"move 3 \(10\): 10 is out of range"):
        read_record("game: ttt\nmoves: 5 1 10")


def test_from_moves_reads_each_games_notation():
    """``Board.from_moves`` (every game, one name) reads what the records and ``pos=``
    links write: Connect Four's columns 1-7, the others their move texts."""
    import random
    from ttt_engine.web.record import write_moves
    for key, g in games.GAMES.items():
        b, rng = g.new_board(), random.Random(7)
        for _ in range(5):
            b.push(rng.choice(b.legal_moves))
        text = write_moves(g, g.new_board(), b.moves)
        for read in (g.Board.from_moves(text), g.from_moves(text)):
            assert read == b and read.moves == b.moves, key
    assert games.get("connect4").Board.from_moves("4453").moves == [3, 3, 4, 2]
    assert games.get("uttt").Board.from_moves("4,4 3,3").moves == [40, 30]
    assert games.get("clobber").Board.from_moves("a1-a2", rows=3, cols=4).ply == 1
    with pytest.raises(ValueError, match="move 2 \\(9,9\\)"):
        games.get("uttt").Board.from_moves("4,4 9,9")
    with pytest.raises(ValueError, match="has no option 'size'"):
        games.get("connect4").Board.from_moves("44", size=3)


def test_record_route_and_start_positions(client):
    r = post(client, "/api/record", {"game": "connect4", "text": "4453"})
    assert r.json() == {"game": "connect4", "options": {}, "start": None, "moves": [3, 3, 4, 2],
                        "error": None}
    r = post(client, "/api/record", {"game": "connect4", "text": "44x"})
    assert r.status_code == 400 and "move 3 'x' of '44x'" in r.json()["error"]
    # partial (a pos= link): the moves before the bad one, and why it is bad
    r = post(client, "/api/record", {"text": "game: connect4\npos: 44x5", "partial": True})
    assert r.json()["moves"] == [3, 3] and "move 3 'x' of '44x5'" in r.json()["error"]
    r = post(client, "/api/record", {"text": "game: uttt\npos: 4,4 3,3 9,9", "partial": True})
    assert r.json()["moves"] == [40, 30] and r.json()["error"].startswith("move 3 (9,9)")
    r = post(client, "/api/record", {"text": "game: ttt\npos: 5", "partial": "yes"})
    assert r.status_code == 400 and r.json()["error"] == "partial must be true or false"
    p = post(client, "/api/position", {"game": "ttt", "start": "XX.OO....", "moves": [2]}).json()
    assert p["winner"] == "X" and p["record"] == 'game: ttt\nstart: "XX.OO...."\nmoves: 3\n'
    r = post(client, "/api/position", {"game": "ttt", "start": "XX?"})
    assert r.status_code == 400 and r.json()["error"].startswith("start: not a Tic-Tac-Toe")


def test_review_route_streams_one_event_per_move(client):
    with client.stream("POST", "/api/review", content=json.dumps(
            {"game": "ttt", "moves": [4, 1, 0, 8, 2], "engine": "perfect"}),
            headers={"Content-Type": "application/json"}) as r:
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    assert [e.get("ply") for e in events[:-1]] == [1, 2, 3, 4, 5] and events[-1]["done"]
    assert events[4]["note"] == "threw away the win" and events[4]["value_after"] == 0


def test_status_and_favicon(client):
    assert client.get("/api/status").json() == {"searches": 0, "waiting": 0, "workers": 2,
                                                "queue": 32}
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.text.startswith("<svg")


@pytest.fixture
def live_server():
    """A real server on loopback (uvicorn in a thread): its URL and app."""
    import threading
    import time
    from ttt_engine.web.server import bind, make_server, url_of

    def start(**settings):
        sock = bind("127.0.0.1", 0)
        server = make_server(sock, settings)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        started.append((server, thread, sock))
        return url_of(sock), server.config.app
    started = []
    yield start
    for server, thread, sock in started:
        server.stopping.set()
        server.should_exit = True
        thread.join(10)
        sock.close()


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def test_a_search_stops_within_a_step_of_the_client_leaving(live_server):
    import time
    import httpx
    url, app = live_server(max_time=10.0)
    searches = app.state.searches
    with httpx.Client(timeout=10) as c:
        with c.stream("POST", url + "api/analyse", content=json.dumps(
                {"game": "uttt", "engine": "mcts", "budgets": {"time": 9}, "stream": True}),
                headers={"Content-Type": "application/json"}) as r:
            next(line for line in r.iter_lines() if line.startswith("data: "))
            assert searches.running == 1
        t0 = time.monotonic()                       # the stream is closed here
        while searches.running and time.monotonic() - t0 < 2:
            time.sleep(0.005)
        assert searches.running == 0
        # the disconnect reaches the server at once on loopback; a step is 0.05 s
        assert time.monotonic() - t0 < 0.25


def test_twenty_streaming_clients_share_the_workers(live_server):
    import threading
    import time
    import httpx
    url, app = live_server(max_time=5.0, workers=2, queue=12)
    searches = app.state.searches
    peak, stop = [0], threading.Event()

    def watch():
        while not stop.is_set():
            peak[0] = max(peak[0], searches.running)
            time.sleep(0.005)
    results = [None] * 20

    def client(i):
        body = {"game": "ttt", "engine": "mcts", "budgets": {"time": 0.3}, "seed": i,
                "stream": True, "moves": [i % 9]}
        with httpx.Client(timeout=30) as c:
            with c.stream("POST", url + "api/analyse", content=json.dumps(body),
                          headers={"Content-Type": "application/json"}) as r:
                if r.status_code != 200:
                    r.read()
                    results[i] = (r.status_code, r.json()["error"])
                    return
                events = [json.loads(x[6:]) for x in r.iter_lines() if x.startswith("data: ")]
                results[i] = (200, events)
    rss = _rss_mb()
    threading.Thread(target=watch, daemon=True).start()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    stop.set()
    served = [r[1] for r in results if r[0] == 200]
    refused = [r for r in results if r[0] != 200]
    assert len(served) + len(refused) == 20
    assert len(served) >= 2 + 12                    # the workers and the queue
    for events in served:                           # each got live updates and the end
        assert len(events) >= 2 and events[-1]["done"] and "error" not in events[-1]
    for status, reason in refused:
        assert status == 503 and reason.startswith("the server is busy")
    assert 1 <= peak[0] <= 2
    deadline = time.monotonic() + 1                 # the last threads end after their event
    while (searches.running or searches.waiting) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert searches.running == 0 and searches.waiting == 0
    assert _rss_mb() - rss < 500                    # bounded: no per-update backlog kept


def test_the_console_reads_and_writes_the_same_records(tmp_path, capsys):
    from ttt_engine.cli import main
    from ttt_engine.web.record import read_record
    src = tmp_path / "game.txt"
    src.write_text("game: connect4\nmoves: 4453\n")
    out = tmp_path / "out.txt"
    assert main(["play", "--from", str(src), "--watch", "random", "--opponent", "random",
                 "--games", "1", "--seed", "1", "--save", str(out), "--color", "never"]) == 0
    rec = read_record(out.read_text())
    assert rec.game.key == "connect4" and list(rec.moves[:4]) == [3, 3, 4, 2]
    assert rec.board().is_terminal()
    capsys.readouterr()
    assert main(["play", "--from", "4458", "--game", "connect4", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "move 4 '8' of '4458': column out of range" in err


def test_the_az_engine_plays_the_servers_network_file(tmp_path):
    """``Settings.networks`` (``serve --network``): the az engine of that game
    searches with the file's network, the same moves and visits as the library's
    agent with that file, not the shipped network's; other games keep theirs."""
    from ttt_engine.network import Network
    path = tmp_path / "ttt-mine.npz"
    Network.init("ttt", hidden=(8,), seed=5).save(path)
    body = {"game": "ttt", "moves": [4], "engine": "az", "budgets": {"simulations": 200},
            "seed": 3}
    with TestClient(create_app(max_time=2.0, networks=(("ttt", str(path)),))) as c:
        mine = post(c, "/api/engine-move", body).json()
    with TestClient(create_app(max_time=2.0)) as c:
        shipped = post(c, "/api/engine-move", body).json()

    def visits(d):
        return {row["move"]: row["visits"] for row in d["analysis"]["rows"]}

    b = games.get("ttt").new_board()
    b.push(4)
    agent = games.get("ttt").make_agent("az", network=str(path), simulations=200, time=2.0,
                                        seed=3)
    assert mine["move"] == agent.select_move(b)
    assert visits(mine) == {c["move"]: c["visits"] for c in agent.last_stats["children"]}
    assert visits(mine) != visits(shipped)
    with pytest.raises(ValueError, match="this network is for Tic-Tac-Toe.*not for Connect"):
        create_app(networks=(("connect4", str(path)),))


@pytest.mark.parametrize("path, extra", [("/api/analyse", {"stream": True,
                                                            "budgets": {"time": 0.5}}),
                                          ("/api/review", {})])
def test_a_stream_refused_before_its_first_event_is_a_4xx(client, path, extra):
    body = {"game": "clobber", "engine": "best", "options": {"rows": 8, "cols": 8}, **extra}
    r = post(client, path, body)
    assert r.status_code == 400, r.text
    assert "network" in r.json()["error"]


@pytest.mark.parametrize("path, body, field, guess", [
    ("/api/engine-move", {"game": "uttt", "engine": "mcts", "budget": {"simulations": 10}},
     "budget", "budgets"),
    ("/api/analyse", {"game": "ttt", "steam": True}, "steam", "stream"),
    ("/api/position", {"game": "ttt", "move": [4]}, "move", "moves"),
    ("/api/solve", {"game": "ttt", "times": 1}, "times", "time"),
    ("/api/review", {"game": "ttt", "seeds": 1}, "seeds", "seed"),
    ("/api/record", {"text": "4", "option": {}}, "option", "options"),
])
def test_unknown_fields_are_refused_naming_them(client, path, body, field, guess):
    r = post(client, path, body)
    err = r.json()["error"]
    assert r.status_code == 400 and f"'{field}'" in err and f"did you mean '{guess}'" in err


@pytest.mark.parametrize("path, stream", [("/api/analyse", "yes"), ("/api/analyse", 1),
                                          ("/api/review", False)])
def test_stream_takes_only_true_or_false(client, path, stream):
    r = post(client, path, {"game": "ttt", "engine": "perfect", "stream": stream})
    assert r.status_code == 400 and "stream must be true" in r.json()["error"]


@pytest.mark.parametrize("body, reason", [
    ({"game": "ttt", "start": ".........", "options": {"bogus": 1}}, "has no option 'bogus'"),
    ({"game": "clobber", "start": "B W\nW B", "options": {"rows": 8}},
     "rows=8 contradicts the start position (rows=2)"),
])
def test_board_options_are_checked_with_a_start_position(client, body, reason):
    r = post(client, "/api/position", body)
    assert r.status_code == 400 and reason in r.json()["error"], r.text


def test_a_start_position_is_read_with_the_options_it_does_not_say(client):
    r = post(client, "/api/position", {"game": "quixo", "start": "." * 25,
                                       "options": {"size": 5, "max_plies": 50}})
    assert r.status_code == 200 and r.json()["options"] == {"size": 5, "max_plies": 50}
    r = post(client, "/api/position", {"game": "clobber", "start": "B W\nW B"})
    assert r.json()["options"] == {"rows": 2, "cols": 2}


@pytest.mark.parametrize("text, options, reason", [
    ('game: clobber\noptions: {"rows": 8}\nstart: "B W\\nW B"\n', {}, "contradicts"),
    ('game: ttt\noptions: {"rows": 3}\nstart: "........."\n', {}, "has no option 'rows'"),
    ("B W\nW B", {"bogus": 1}, "has no option 'bogus'"),
])
def test_record_options_are_checked(client, text, options, reason):
    r = post(client, "/api/record", {"game": "clobber", "text": text, "options": options})
    assert r.status_code == 400 and reason in r.json()["error"], r.text


def test_the_time_cap_cuts_a_depth_search_off(client, monkeypatch):
    import threading
    import time
    from ttt_engine import _explain
    real = time.perf_counter

    class Clock:                        # the stop watcher sees the deadline passed
        @staticmethod
        def perf_counter():
            late = threading.current_thread().name == "ttt-engine-stop"
            return real() + (1e6 if late else 0)
    monkeypatch.setattr(_explain, "_time", Clock)
    body = {"game": "connect4", "engine": "alphabeta", "budgets": {"depth": 12}}
    r = post(client, "/api/analyse", body)
    assert r.status_code == 200 and r.json()["stats"]["depth"] < 12
    r = post(client, "/api/analyse", dict(body, budgets={}))    # the engine's own depth, 12
    assert r.status_code == 200 and r.json()["stats"]["depth"] < 12


def test_a_depth_search_stops_when_its_client_leaves():
    from ttt_engine.web.app import Settings, _run_analysis, build_app
    from ttt_engine.web.inputs import budgets_of
    app = build_app(Settings(max_time=5.0))
    g = games.get("connect4")
    budgets = budgets_of(app.state.settings, g.engines["alphabeta"], {"budgets": {"depth": 12}})
    a = _run_analysis(app, g, g.new_board(), "alphabeta", budgets, None, stop=lambda: True)
    assert a.stats["depth"] == 1        # the client was gone from the start


def _review(client, body):
    r = post(client, "/api/review", body)
    return r, [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]


def test_review_budgets_are_a_positions_and_honoured(client, monkeypatch):
    from ttt_engine import analysis
    seen = []
    real = analysis.analyse

    def spy(*args, **kw):
        seen.append({k: kw.get(k) for k in ("simulations", "time", "depth")})
        return real(*args, **kw)
    monkeypatch.setattr(analysis, "analyse", spy)
    body = {"game": "uttt", "moves": [30, 20], "engine": "mcts"}
    r = post(client, "/api/review", dict(body, budgets={"time": 1.5}))
    assert r.status_code == 400 and "at most 1 s" in r.json()["error"]
    r, events = _review(client, dict(body, budgets={"simulations": 50}))
    assert r.status_code == 200 and events[-1]["done"] and len(events) == 3
    assert seen and all(s == {"simulations": 50, "time": 1.0, "depth": None} for s in seen)
    seen.clear()
    _review(client, body)
    assert seen and all(s == {"simulations": None, "time": 0.2, "depth": None} for s in seen)
    seen.clear()
    _review(client, {"game": "connect4", "moves": [3], "engine": "alphabeta",
                     "budgets": {"depth": 2}})
    assert seen and all(s == {"simulations": None, "time": 1.0, "depth": 2} for s in seen)


def test_a_learned_engine_answers_a_seed_alike_whatever_came_before(monkeypatch, tmp_path):
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path))
    body = {"game": "quixo", "engine": "greedy", "options": {"size": 3}, "moves": [1]}

    def answers(seeds):
        with TestClient(create_app(learn_games=300)) as c:
            return [post(c, "/api/engine-move", dict(body, seed=s)).json()["analysis"]
                    for s in seeds]
    first = answers([1])[0]
    later = answers([2, 7, 1])[-1]
    assert (later["best_move"], later["rows"]) == (first["best_move"], first["rows"])


def test_the_value_tables_evaluation_is_the_side_to_moves_share():
    from ttt_engine import quixo
    g = games.get("quixo")
    table, _ = quixo.collect_values(20_000, seed=0, size=3)
    agent = g.make_agent("greedy", seed=0, values=table)
    b = g.new_board(size=3)
    a = g.analyse(b, agent)
    assert 0 < a.evaluation < 0.5           # the start: X a little ahead, as MCTS says
    assert all(-1 <= r.score <= 1 for r in a.rows)
    b.push(a.best_move)
    assert -0.5 < g.analyse(b, agent).evaluation < 0      # O to move: the other side


def _raw_post(app, headers, chunks):
    """A POST to /api/position straight through ASGI: ``(status, body chunks the
    app read)``; ``chunks`` is a generator of body parts."""
    import asyncio
    read, out = [], {}

    async def receive():
        part = next(chunks, None)
        if part is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        read.append(part)
        return {"type": "http.request", "body": part, "more_body": True}

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/api/position",
             "raw_path": b"/api/position", "query_string": b"", "root_path": "",
             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
             "headers": [(b"host", b"127.0.0.1:8000"),
                         (b"content-type", b"application/json")] + headers}
    asyncio.run(app(scope, receive, send))
    return out["status"], len(read)


def test_a_large_body_is_refused_before_it_is_read():
    app = create_app()
    parts = (b" " * 16_384 for _ in range(10_000))              # 160 MB
    assert _raw_post(app, [(b"content-length", b"163840000")], parts) == (413, 0)
    parts = (b" " * 16_384 for _ in range(10_000))              # no length: chunked
    status, read = _raw_post(app, [], parts)
    assert status == 413 and read <= 5
