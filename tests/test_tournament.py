"""Round-robin tournaments: reproducible on every executor, resumable, robust to failures."""
import json
import os

import pytest
from ttt_engine import uttt
from ttt_engine._parallel import process_pool
from ttt_engine.agents import MCTSAgent, RandomAgent
from ttt_engine.tournament import (
    Entrant,
    ResultsFileError,
    SerialExecutor,
    TournamentError,
    game_seed,
    play_game,
    round_robin,
)

ENGINES = ["mcts", "treeq", "random"]
SIMS = 40


def small(executor, out=None, games=4, seed=7, **kw):
    return round_robin("uttt", ENGINES, games, simulations=SIMS, seed=seed, executor=executor,
                       progress=False, out=out, **kw)


@pytest.fixture(scope="module")
def serial_result():
    return small(SerialExecutor())


@pytest.fixture(scope="module")
def pool():
    with process_pool(2) as ex:
        yield ex


def test_table_shape_and_colours(serial_result):
    r = serial_result
    assert r.names == tuple(ENGINES) and r.games == 3 * 4 and not r.errors
    for (a, b), (w, d, l) in r.table.items():
        assert w + d + l == 4
        assert r.table[(b, a)] == (l, d, w)
        col = r.table_by_colour[(a, b)]
        # colours alternate: each side moves first in half of the games
        assert sum(col["first"]) == sum(col["second"]) == 2
        assert tuple(x + y for x, y in zip(col["first"], col["second"])) == (w, d, l)
    for rec in r.records:
        assert rec["first"] == (rec["a"] if rec["game"] % 2 == 0 else rec["b"])
        assert rec["seed"] == game_seed(7, rec["a"], rec["b"], rec["game"])
    total = {n: sum(sum(v[:1]) + 0.5 * v[1] for (a, _), v in r.table.items() if a == n) / 8
             for n in r.names}
    assert r.scores == pytest.approx(total)
    # a 40-simulation MCTS beats a random player in UTTT almost always
    assert r.wdl("mcts", "random")[0] >= 3
    assert r.rating.elo[r.names.index("mcts")] > r.rating.elo[r.names.index("random")]
    text = r.markdown()
    assert "| **mcts** |" in text and "Elo" in text
    assert r.summary()["games"] == 12


def test_same_table_serial_and_process_pool(serial_result, pool):
    r = small(pool)
    assert r.table_by_colour == serial_result.table_by_colour
    assert [(x["a"], x["b"], x["game"], x["winner"], x["plies"]) for x in r.records] == \
        [(x["a"], x["b"], x["game"], x["winner"], x["plies"]) for x in serial_result.records]
    # the block size does not change any game
    assert small(SerialExecutor(), block=1).table_by_colour == serial_result.table_by_colour


def test_same_table_on_dask(serial_result):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        r = small(client.get_executor())
    assert r.table_by_colour == serial_result.table_by_colour


def test_play_game_replays_a_record(serial_result):
    rec = serial_result.records[5]
    specs = {n: Entrant(n, n) for n in ENGINES}
    again = play_game("uttt", specs[rec["a"]], specs[rec["b"]], rec["seed"],
                      simulations=SIMS, a_first=rec["game"] % 2 == 0)
    assert (again["winner"], again["plies"]) == (rec["winner"], rec["plies"])


def test_factories_and_picklable_agents():
    ents = {"mcts": (MCTSAgent, {"simulations": 30}), "rand": RandomAgent,
            "rand2": Entrant("ignored", RandomAgent), "inst": RandomAgent(seed=4)}
    r = round_robin(uttt.Board, ents, 2, seed=1, executor=SerialExecutor(), progress=False)
    assert r.names == ("mcts", "rand", "rand2", "inst") and r.games == 12
    # an agent instance is copied for each game and reset with the game's seed
    with process_pool(2) as ex:
        r2 = round_robin(uttt.Board, ents, 2, seed=1, executor=ex, progress=False)
    assert r2.table_by_colour == r.table_by_colour


# ---------------------------------------------------------------- resume

def read_lines(path):
    with open(path) as f:
        return [json.loads(x) for x in f]


def test_resume_from_partial_file(tmp_path, serial_result):
    path = tmp_path / "r.jsonl"
    full = small(SerialExecutor(), out=path)
    lines = read_lines(path)
    assert lines[0]["ttt_engine"] == "tournament" and len(lines) == 1 + 12
    # keep the header and 5 games, and a line cut short by a crash mid-write
    with open(path, "w") as f:
        f.writelines(json.dumps(x) + "\n" for x in lines[:6])
        f.write('{"a": "mcts", "b": "tr')
    again = small(SerialExecutor(), out=path, seed=None)     # seed taken from the file
    assert again.table_by_colour == full.table_by_colour == serial_result.table_by_colour
    lines2 = read_lines(path)
    assert len(lines2) == 13 and lines2[:6] == lines[:6]
    # a rerun of a finished tournament plays nothing and appends nothing
    small(SerialExecutor(), out=path)
    assert read_lines(path) == lines2
    # more games per pair extend it
    more = small(SerialExecutor(), out=path, games=6)
    assert more.games == 18 and len(read_lines(path)) == 19


class InterruptAfter:
    """A random agent that raises KeyboardInterrupt (as Ctrl-C would) at its
    ``limit``-th move overall, counted across instances in this process."""
    moves = 0
    limit = None

    def __init__(self, seed=None):
        self.inner = RandomAgent(seed=seed)
        self.name = "interrupt"

    def select_move(self, board):
        InterruptAfter.moves += 1
        if InterruptAfter.limit is not None and InterruptAfter.moves >= InterruptAfter.limit:
            raise KeyboardInterrupt
        return self.inner.select_move(board)


def test_interrupted_run_loses_nothing(tmp_path):
    path = tmp_path / "r.jsonl"
    ents = {"mcts": (MCTSAgent, {"simulations": 20}), "random": RandomAgent,
            "x": InterruptAfter}
    InterruptAfter.moves, InterruptAfter.limit = 0, 60
    with pytest.raises(KeyboardInterrupt):
        round_robin(uttt.Board, ents, 4, seed=3, executor=SerialExecutor(), progress=False,
                    out=path, block=1)
    kept = read_lines(path)[1:]
    assert 0 < len(kept) < 12
    InterruptAfter.limit = None
    resumed = round_robin(uttt.Board, ents, 4, seed=3, executor=SerialExecutor(),
                          progress=False, out=path, block=1)
    assert read_lines(path)[1:len(kept) + 1] == kept and len(read_lines(path)) == 13
    fresh = round_robin(uttt.Board, ents, 4, seed=3, executor=SerialExecutor(), progress=False)
    assert resumed.table_by_colour == fresh.table_by_colour


# ---------------------------------------------------------------- failures

class Exploding:
    """Raises on its first move in game seeds divisible by 3 (for the failure test)."""

    def __init__(self, seed=None):
        self.seed = seed
        self.inner = RandomAgent(seed=seed)
        self.name = "exploding"

    def select_move(self, board):
        if self.seed % 3 == 0:
            raise RuntimeError("boom")
        return self.inner.select_move(board)


def test_failing_worker_is_reported_and_others_kept(tmp_path, pool):
    path = tmp_path / "r.jsonl"
    ents = {"random": RandomAgent, "boom": Exploding, "mcts": (MCTSAgent, {"simulations": 10})}
    with pytest.raises(TournamentError) as info:
        round_robin(uttt.Board, ents, 8, seed=5, executor=pool, progress=False, out=path,
                    block=2)
    err = info.value
    assert err.errors and all("boom" in (e["a"], e["b"]) for e in err.errors)
    for e in err.errors:
        assert f"{e['a']} vs {e['b']}, game {e['game']} (seed {e['seed']})" in str(err)
        assert "RuntimeError: boom" in e["message"] and "boom" in e["traceback"]
    done = err.result.records
    assert {(r["a"], r["b"]) for r in done} >= {("random", "mcts")}
    assert sum(1 for r in done if (r["a"], r["b"]) == ("random", "mcts")) == 8
    assert len(read_lines(path)) == 1 + len(done)


# ---------------------------------------------------------------- bad input

def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="unknown agent 'nope'.*mcts"):
        round_robin("uttt", ["mcts", "nope"], 2, progress=False)
    with pytest.raises(ValueError, match="games_per_pair must be an integer from 1 to"):
        round_robin("uttt", ["mcts", "random"], 0, progress=False)
    with pytest.raises(ValueError, match="at least 2"):
        round_robin("uttt", ["mcts"], 2, progress=False)
    with pytest.raises(ValueError, match="unique.*random"):
        round_robin("uttt", ["random", "random"], 2, progress=False)
    with pytest.raises(ValueError, match="entrant 'lam' cannot be sent to worker processes: "
                                         "it does not pickle"):
        round_robin(uttt.Board, {"lam": lambda seed=None: RandomAgent(seed),
                                 "r": RandomAgent}, 2, progress=False)

    class Local:          # instances of a class local to a function do not pickle
        name = "local"

        def select_move(self, board):
            return board.legal_moves[0]
    with pytest.raises(ValueError, match="entrant 'local' cannot be sent.*Local"):
        round_robin(uttt.Board, [Local(), RandomAgent()], 2, progress=False)
    with pytest.raises(ValueError, match="executor must be"):
        round_robin("uttt", ["mcts", "random"], 2, executor=object(), progress=False)
    with pytest.raises(ValueError):
        round_robin("chess", ["mcts", "random"], 2, progress=False)


def test_an_agent_of_another_game_is_refused_before_any_task(monkeypatch):
    import importlib
    from ttt_engine import games
    rr_module = importlib.import_module("ttt_engine.tournament.round_robin")
    monkeypatch.setattr(rr_module, "run_tasks",
                        lambda *a, **k: pytest.fail("the tasks started"))
    ttt_agent = games.get("ttt").make_agent("random", seed=1)
    with pytest.raises(ValueError, match="is a Tic-Tac-Toe agent; this round robin plays "
                                         "Connect Four"):
        round_robin("connect4", [ttt_agent, "mcts"], 2, progress=False)


def test_bad_board_options_are_refused_before_any_task(monkeypatch):
    import importlib
    rr_module = importlib.import_module("ttt_engine.tournament.round_robin")
    monkeypatch.setattr(rr_module, "run_tasks",
                        lambda *a, **k: pytest.fail("the tasks started"))
    with pytest.raises(ValueError, match=r"options \{'rows': 99\}: rows must be in 1-8"):
        round_robin("clobber", ["random", "mcts"], 8, simulations=10, seed=1,
                    options={"rows": 99}, workers=1, progress=False)
    with pytest.raises(ValueError, match="Clobber has no option 'bogus'"):
        round_robin("clobber", ["random", "mcts"], 8, options={"bogus": 1}, progress=False)
    with pytest.raises(ValueError, match="options must be a dict"):
        round_robin("clobber", ["random", "mcts"], 8, options=5, progress=False)


def test_a_resume_with_the_entrants_reordered_names_the_order(tmp_path):
    """The pairings and their seeds follow the entrants' order: a resume that
    gives them in another order is refused, naming both orders."""
    path = tmp_path / "r.jsonl"
    small(SerialExecutor(), out=path, games=2)
    content = path.read_bytes()
    order = ", ".join(repr(e) for e in ENGINES)
    with pytest.raises(ResultsFileError, match=f"entrants are {order} in this order") as info:
        round_robin("uttt", ENGINES[::-1], 2, simulations=SIMS, seed=7,
                    executor=SerialExecutor(), progress=False, out=path)
    assert ", ".join(repr(e) for e in ENGINES[::-1]) + " here" in str(info.value)
    with pytest.raises(ResultsFileError, match=f"entrants are {order} there and "
                                               "'mcts', 'random' here"):
        round_robin("uttt", ["mcts", "random"], 2, simulations=SIMS, seed=7,
                    executor=SerialExecutor(), progress=False, out=path)
    assert path.read_bytes() == content
    # a file written before the order was kept: its records tell
    lines = content.split(b"\n")
    head = json.loads(lines[0])
    del head["order"]
    path.write_bytes(b"\n".join([json.dumps(head).encode()] + lines[1:]))
    with pytest.raises(ResultsFileError, match="the other way round here; give the entrants"):
        round_robin("uttt", ENGINES[::-1], 2, simulations=SIMS, seed=7,
                    executor=SerialExecutor(), progress=False, out=path)


def test_wdl_names_the_entrants_and_the_colours(serial_result):
    with pytest.raises(ValueError, match=r"b must be an entrant of this tournament "
                                         r"\(mcts, treeq, random\), got 'bogus'"):
        serial_result.wdl("random", "bogus")
    with pytest.raises(ValueError, match="a must be an entrant"):
        serial_result.wdl("bogus", "random")
    with pytest.raises(ValueError, match="colour must be 'first', 'second' or None"):
        serial_result.wdl("random", "mcts", "purple")


@pytest.mark.parametrize("content, why", [
    (b"alpha,gamma\n0.1,0.9\n", "not a ttt_engine results file"),
    (b'{"ttt_engine": "sweep", "format": 1}\n', "not a ttt_engine tournament results file"),
    (None, "line 3 is not valid JSON"),
    (None, "different tournament: seed"),
    (None, "line 2 is not a valid record"),
])
def test_corrupt_or_foreign_file_is_refused_untouched(tmp_path, content, why):
    path = tmp_path / "r.jsonl"
    if content is None:
        small(SerialExecutor(), out=path, games=2)
        lines = path.read_bytes().split(b"\n")
        if "line 3" in why:
            lines[2] = b"{not json"
        elif "line 2" in why:
            lines[1] = b'{"a": "mcts", "b": "chess", "game": 0}'
        content = b"\n".join(lines)
    path.write_bytes(content)
    with pytest.raises(ValueError, match=why) as info:
        small(SerialExecutor(), out=path, games=2, seed=99 if "seed" in why else 7)
    assert "left unchanged" in str(info.value)
    assert path.read_bytes() == content
    assert not [p for p in os.listdir(tmp_path) if p != "r.jsonl"]
