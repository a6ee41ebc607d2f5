"""Quixo: bitboard core vs an independent pure-Python rules model, rule edge
cases, the move cap, value tables and their JSON, tournaments, the greedy
agent, the exact solver, search engines and the stages command."""
import json
import os
import random
import sys

import pytest
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import quixo_ref as R  # noqa: E402
from conftest import play_randomly, registry_row  # noqa: E402

from ttt_engine import quixo  # noqa: E402
from ttt_engine.quixo import Board  # noqa: E402


def grid_of(board):
    return R.from_cells([v for v in board.cells], board.size)


def player_of(board):
    return 1 if board.to_move == "X" else 2


# ---------------------------------------------------------------- move generation
@pytest.mark.parametrize("size", [3, 4, 5])
def test_perft_matches_reference_to_depth_3(size):
    b = Board(size)
    ref = [R.perft(R.new_board(size), 1, d) for d in range(4)]
    assert [b.perft(d) for d in range(4)] == ref
    assert quixo.perft(b, 2) == ref[2]


@pytest.mark.parametrize("size", [3, 4, 5])
def test_perft_from_random_positions(size):
    rng = random.Random(size)
    for _ in range(4):
        b = play_randomly(Board(size), rng, rng.randrange(3, 15))
        if b.is_terminal():
            continue
        g, p = grid_of(b), player_of(b)
        assert [b.perft(d) for d in range(3)] == [R.perft(g, p, d) for d in range(3)]


@pytest.mark.parametrize("size", [3, 4, 5])
def test_random_games_match_reference_move_by_move(size):
    rng = random.Random(100 + size)
    for _ in range(30):
        b = Board(size)
        g, p = R.new_board(size), 1
        while not b.is_terminal():
            assert b.legal_moves == R.legal_moves(g, p)
            m = rng.choice(b.legal_moves)
            b.push(m)
            g = R.apply(g, m, p)
            assert R.to_cells(g) == b.cells
            w = R.outcome_after(g, p)
            assert b.winner == (None if w == 0 and b.ply < b.max_plies else
                                "draw" if w == 0 else "XO"[w - 1])
            p = 3 - p


def test_move_counts_per_size():
    assert len(Board(5).legal_moves) == 44
    assert len(Board(4).legal_moves) == 32
    assert len(Board(3).legal_moves) == 20
    # never more than 44 on 5x5 anywhere
    rng = random.Random(3)
    for _ in range(20):
        b = Board()
        while not b.is_terminal():
            assert 0 < len(b.legal_moves) <= 44
            b.push(rng.choice(b.legal_moves))


def test_push_pop_restores_exactly():
    rng = random.Random(9)
    for _ in range(20):
        b = Board()
        seen = []
        while not b.is_terminal():
            seen.append((b.to_string(), b.to_move, b.ply, b.hash64(), b.winner))
            b.push(rng.choice(b.legal_moves))
        while b.moves:
            b.pop()
            assert (b.to_string(), b.to_move, b.ply, b.hash64(), b.winner) == seen.pop()
        with pytest.raises(IndexError):
            b.pop()


# ---------------------------------------------------------------- rule edge cases
def test_corner_and_edge_push_directions():
    n = 5
    for r in range(n):
        for c in range(n):
            on_ring = r in (0, n - 1) or c in (0, n - 1)
            for side, letter in enumerate("TBLR"):
                note = f"{'abcde'[c]}{r + 1}{letter}"
                own_edge = ((side == 0 and r == 0) or (side == 1 and r == n - 1)
                            or (side == 2 and c == 0) or (side == 3 and c == n - 1))
                if not on_ring or own_edge:
                    with pytest.raises(ValueError):
                        quixo.parse_move(note)
                    continue
                m = quixo.parse_move(note)
                assert quixo.move_to_str(m) == note
                # a board with distinct markers: the line must slide towards the hole
                b = Board()
                b.push(m)
                g = R.apply(R.new_board(n), m, 1)
                assert b.cells == R.to_cells(g)
            if on_ring:
                corner = r in (0, n - 1) and c in (0, n - 1)
                moves = [m for m in Board().legal_moves if m // 4 == r * n + c]
                assert len(moves) == (2 if corner else 3)


def test_push_shifts_the_line():
    # X takes the blank a1 and pushes it in from the right: row 1 slides left
    b = Board.from_string(" OXO " + " " * 20, to_move="X")
    b.push("a1R")
    assert b.to_string()[:5] == "OXO X"
    # from the bottom of column a: column a slides up
    b = Board.from_string(" " * 5 + "O    " + "X    " + " " * 10, to_move="X")
    b.push("a1B")
    assert [b.to_string()[5 * r] for r in range(5)] == ["O", "X", " ", " ", "X"]
    # corner e5 pushed in from the top of column e
    b = Board.from_string("    O" + " " * 7 + "X" + " " * 12, to_move="X")
    b.push("e5T")
    assert [b.to_string()[5 * r + 4] for r in range(5)] == ["X", "O", " ", " ", " "]


def test_taking_own_blank_and_opponent_cube():
    b = Board.from_string("X   O" + " " * 20, to_move="X")
    assert "a1B" in b.legal_moves_str()       # own cube
    assert "b1B" in b.legal_moves_str()       # blank cube
    assert not any(s.startswith("e1") for s in b.legal_moves_str())
    with pytest.raises(ValueError, match="opponent"):
        b.push("e1L")
    b.push("a1R")                              # own cube moved: it stays X
    assert b.to_string()[:5] == "   OX"
    assert b.to_move == "O"
    # O may take its own cube (now d1) but not X's e1
    assert "d1B" in b.legal_moves_str() and not any(s.startswith("e1") for s in b.legal_moves_str())


def test_simultaneous_lines_mover_loses():
    # X takes the blank e2 and pushes it in at the top of column e: the O at
    # e1 drops to e2 and completes O's row 2 while X completes row 1.
    b = Board.from_string("XXXXO" + "OOOO " + " " * 15, to_move="X")
    b.push("e2T")
    assert b.to_string()[:10] == "XXXXX" + "OOOOO"
    assert b.winner == "O" and b.is_terminal() and b.legal_moves == []
    # completing only the opponent's line also loses
    b = Board.from_string(" X  O" + "OOOO " + " " * 15, to_move="X")
    b.push("e2T")
    assert b.winner == "O"
    # and completing only your own wins
    b = Board.from_string("XXXX " + " " * 15 + "O    ", to_move="X")
    b.push("e2T")
    assert b.winner == "X"


def test_simultaneous_lines_found_in_random_play_agree_with_reference():
    rng = random.Random(5)
    found = 0
    for _ in range(400):
        b = Board()
        while not b.is_terminal():
            g, p = grid_of(b), player_of(b)
            for m in b.legal_moves:
                g2 = R.apply(g, m, p)
                if R.has_line(g2, p) and R.has_line(g2, 3 - p):
                    found += 1
                    b.push(m)
                    assert b.winner == "XO"[(3 - p) - 1]
                    b.pop()
            b.push(rng.choice(b.legal_moves))
        if found >= 5:
            break
    assert found >= 5


def test_move_cap_is_a_draw():
    b = Board(5, max_plies=3)
    for m in ("a1R", "e5L", "c1B"):
        b.push(m)
    assert b.winner == "draw" and b.is_terminal() and b.legal_moves == []
    b.pop()
    assert b.winner is None and b.ply == 2
    res = quixo.run_games(200, quixo.RandomAgent(), quixo.RandomAgent(), max_plies=10, seed=1)
    assert res["draws"] > 0 and res["lengths"][11:].sum() == 0
    assert res["x_wins"] + res["o_wins"] + res["draws"] == 200


def test_line_on_the_last_allowed_ply_still_wins():
    b = Board.from_string("XXXX " + " " * 15 + "O    ", to_move="X", max_plies=1)
    b.push("e2T")
    assert b.winner == "X"


# ---------------------------------------------------------------- board API
def test_board_api_and_validation():
    b = Board()
    assert b.to_string() == " " * 25 and b.to_move == "X" and b.winner is None
    s = str(b)
    assert "a b c d e" in s and s.splitlines()[1].startswith(" 1")
    b.push("c1B")
    c = b.copy()
    c.push(c.legal_moves[0])
    assert b.ply == 1 and c.ply == 2
    assert Board.from_string(b.to_string(), to_move="O") == b
    for bad in (lambda: Board(6), lambda: Board(5, max_plies=0), lambda: b.push("z9Q"),
                lambda: b.push("c3T"), lambda: b.push(0), lambda: b.push(True and 100), lambda: Board.from_string("X" * 24),
                lambda: Board.from_string("Q" * 25), lambda: Board.from_string(" " * 25, to_move="Z")):
        with pytest.raises(ValueError):
            bad()
    assert quixo.parse_move("A1r") == quixo.parse_move("a1R")
    assert Board(3).legal_moves_str()[0] == "a1B"
    import pickle
    b2 = pickle.loads(pickle.dumps(b))
    assert b2 == b and b2.moves == b.moves


def test_evaluate_and_hash():
    b = Board()
    assert b.evaluate() == 0
    b.push("a1R")                      # X on e1
    assert b.evaluate() < 0            # O to move, X has open lines
    hashes = set()
    rng = random.Random(1)
    for _ in range(200):
        b = Board()
        for _ in range(rng.randrange(1, 10)):
            if not b.is_terminal():
                b.push(rng.choice(b.legal_moves))
        hashes.add((b.hash64(), (b.to_string(), b.to_move)))
    assert len({h for h, _ in hashes}) == len({k for _, k in hashes})


# ---------------------------------------------------------------- tournaments and values
def test_tournament_counts_and_reproducibility():
    a = quixo.run_games(2000, quixo.RandomAgent(), quixo.RandomAgent(), seed=42)
    b = quixo.run_games(2000, quixo.RandomAgent(), quixo.RandomAgent(), seed=42)
    c = quixo.run_games(2000, quixo.RandomAgent(), quixo.RandomAgent(), seed=43)
    assert a["x_wins"] + a["o_wins"] + a["draws"] == 2000
    assert a["a_wins"] + a["b_wins"] + a["draws"] == 2000
    assert a["lengths"].sum() == 2000 and a["lengths"] @ range(len(a["lengths"])) == a["plies"]
    assert (a["x_wins"], a["plies"]) == (b["x_wins"], b["plies"])
    assert (a["x_wins"], a["plies"]) != (c["x_wins"], c["plies"])
    fixed = quixo.run_games(500, quixo.HeuristicAgent(), quixo.RandomAgent(), alternate=False, seed=1)
    assert fixed["a_wins"] == fixed["x_wins"]
    with pytest.raises(ValueError):
        quixo.run_games(-1, quixo.RandomAgent(), quixo.RandomAgent())
    with pytest.raises(ValueError):
        quixo.run_games(10, "random", quixo.RandomAgent())


def test_discounted_scores_of_single_games():
    gamma = 0.85
    for seed in range(15):
        table, res = quixo.collect_values(1, size=3, seed=seed, gamma=gamma)
        plies = res["plies"]
        assert table.observations == plies + 1
        avg, cnt = table.get(" " * 9)
        # the empty board is scored for O (it "moved into" it): gamma**plies if O won
        o_won = res["o_wins"] == 1
        assert cnt == 1 and avg == pytest.approx(gamma ** plies if o_won else 0.0)
        # the winner's last state scores 1.0, or gamma if the loser completed
        # the winner's line with the final move (the official rule)
        last_mover_won = (res["x_wins"] == 1) == (plies % 2 == 1)
        assert max(a for _, a, _ in table.items()) == (1.0 if last_mover_won else gamma)


def test_value_tables_reproducible_and_json_round_trip(tmp_path):
    t1, _ = quixo.collect_values(300, seed=7)
    t2, _ = quixo.collect_values(300, seed=7)
    assert t1.to_json_bytes() == t2.to_json_bytes()
    path = tmp_path / "states_random.json"
    quixo.save_values(t1, path)
    back = quixo.load_values(path)
    assert len(back) == len(t1)
    for (k1, a1, c1), (k2, a2, c2) in zip(t1.items(), back.items()):
        assert k1 == k2 and c1 == c2 and a2 == pytest.approx(a1, rel=1e-15, abs=0)
    with open(path) as f:
        d = json.load(f)                          # it is plain JSON in the seed's format
    assert len(d) == len(t1)
    k, (avg, cnt) = next(iter(d.items()))
    assert k == " " * 25 and cnt == 300 and isinstance(avg, float)
    assert t1.get(k) == (pytest.approx(avg), cnt)
    # whitespace-free and pretty-printed JSON load too
    small = {" " * 25: [0.25, 4], "X" + " " * 24: [1.0, 1]}
    for text in (json.dumps(small), json.dumps(small, indent=2)):
        t = quixo.ValueTable.from_json_bytes(text.encode())
        assert t.get(" " * 25) == (0.25, 4) and t.get("X" + " " * 24) == (1.0, 1)


@pytest.mark.parametrize("text", [b"", b"[]", b'{"   ": [0.5, 1]}', b'{"' + b" " * 25 + b'": [0.5]}',
                                  b'{"' + b" " * 25 + b'": [0.5, 0]}', b'{"' + b" " * 25 + b'": [nan, 1]}',
                                  b'{"' + b" " * 24 + b'Q": [0.5, 1]}', b'{"' + b" " * 25 + b'": [0.5, 1]} x'])
def test_bad_json_is_rejected(text):
    with pytest.raises(ValueError):
        quixo.ValueTable.from_json_bytes(text)


def test_value_table_symmetric_takes_only_true_or_false():
    with pytest.raises(ValueError, match="^symmetric must be True or False, got 'no'"):
        quixo.ValueTable(symmetric="no")
    assert quixo.ValueTable(1024, 3, True).symmetric


def test_quixo_agents_name_their_game():
    from ttt_engine import games
    g = games.get("quixo")
    assert g.make_agent("heuristic").game == "quixo" == quixo.RandomAgent().game
    assert g.make_agent("greedy", games=10, seed=1).game == "quixo"


def test_registry_greedy_refuses_games_beside_values():
    table, _ = quixo.collect_values(10, seed=1)
    from ttt_engine import games
    g = games.get("quixo")
    with pytest.raises(ValueError, match="games= applies without values="):
        g.make_agent("greedy", values=table, games=10)
    assert g.make_agent("greedy", games=10, seed=1).values.size > 0


def test_greedy_agent_beats_random_and_takes_wins():
    table, _ = quixo.collect_values(3000, seed=11)
    greedy = quixo.GreedyValueAgent(table, epsilon=0.1, unknown=0.5)
    res = quixo.run_games(2000, greedy, quixo.RandomAgent(), seed=12)
    assert res["a_wins"] / 2000 > 0.6
    # epsilon 0: a winning move on the board is always taken
    g0 = quixo.GreedyValueAgent(table, epsilon=0.0)
    b = Board.from_string("XXXX " + "OOO  " + " " * 15, to_move="X")
    b.push(g0.select_move(b))
    assert b.winner == "X"
    with pytest.raises(ValueError):
        quixo.GreedyValueAgent(table, epsilon=1.5)


# ---------------------------------------------------------------- solver
def test_retrograde_3x3_first_player_wins_and_is_consistent():
    from ttt_engine._core.solvers.quixo import solve as quixo_solve
    sol = quixo_solve.solve(3)
    assert sol.start == "win" and sol.start_plies == 7
    assert sol.wins + sol.losses + sol.draws == sol.positions == 3 ** 9 - sol.terminal
    rng = random.Random(0)
    checked = 0
    while checked < 300:
        cells = "".join(rng.choice(" XO") for _ in range(9))
        try:
            b = Board.from_string(cells, to_move=rng.choice("XO"))
        except ValueError:          # a position no game reaches
            continue
        if b.is_terminal():
            continue
        checked += 1
        me = b.to_move
        outcomes = []
        for m in b.legal_moves:
            b.push(m)
            if b.is_terminal():
                outcomes.append(("win" if b.winner == me else "loss", 1))
            else:
                v, d = sol.value(b)
                outcomes.append(({"win": "loss", "loss": "win", "draw": "draw"}[v],
                                 None if d is None else d + 1))
            b.pop()
        wins = [d for v, d in outcomes if v == "win"]
        if wins:
            expect = ("win", min(wins))
        elif all(v == "loss" for v, _ in outcomes):
            expect = ("loss", max(d for _, d in outcomes))
        else:
            expect = ("draw", None)
        assert sol.value(b) == expect


# ---------------------------------------------------------------- search engines
def test_search_engines_play_quixo():
    from ttt_engine import agents, search
    b = Board(3)
    r = search.alphabeta(b, None)
    assert r.exact and r.value > 0            # 3x3: first player wins
    res = agents.play_match(agents.AlphaBetaAgent(depth=2), agents.RandomAgent(seed=1), games=4,
                            board_factory=Board, seed=1)
    assert res.wins >= 3
    res = agents.play_match(agents.MCTSAgent(simulations=200, seed=2), agents.RandomAgent(seed=3),
                            games=2, board_factory=Board, seed=2)
    assert res.total == 2


def test_best_expands_lazily_and_its_arena_grows_with_the_time():
    """The classical ``best`` keeps its tree small (a leaf's ~40 children made
    at its eighth visit) and its arena grows with a timed move, so that a long
    move does not fill it."""
    from ttt_engine import games
    from ttt_engine.agents import MCTSAgent
    from ttt_engine.engines import BEST_ARENA, BEST_ARENA_MAX
    g = games.get("quixo")
    b = Board()
    for m in (90, 11, 3, 63):
        b.push(m)
    lazy = g.make_agent("best", simulations=4000, seed=1, threads=1)
    eager = MCTSAgent(simulations=4000, seed=1, solver=True, playout="decisive")
    for agent in (lazy, eager):
        assert agent.select_move(b) in list(b.legal_moves)
    assert lazy.last_stats["simulations"] == eager.last_stats["simulations"] == 4000
    assert 4 * lazy.last_stats["nodes_used"] < eager.last_stats["nodes_used"]
    assert g.make_agent("best", time=0.1, threads=1)._mcts.max_nodes == BEST_ARENA
    assert g.make_agent("best", time=3.0, threads=1)._mcts.max_nodes == 3 * BEST_ARENA
    assert g.make_agent("best", simulations=10, threads=1)._mcts.max_nodes == BEST_ARENA
    assert g.make_agent("best", time=3600, threads=1)._mcts.max_nodes == BEST_ARENA_MAX
    with pytest.raises(ValueError, match="time must be"):
        g.make_agent("best", time="soon")


# ---------------------------------------------------------------- stages command
def test_stages_command(tmp_path, capsys):
    rc = quixo.main(["stages", "abc", "--games-a", "500", "--games-b", "2000", "--games-c-eval", "500",
                     "--games-c-collect", "300", "--out-dir", str(tmp_path), "--seed", "5",
                     "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "Stage A" in out and "X wins" in out and "unique states" in out and "greedy wins" in out
    # value files are binary by default, and announced with their size before the work
    assert (tmp_path / "states_random.npz").exists() and (tmp_path / "states_greedy.npz").exists()
    assert f"writes {tmp_path / 'states_random.npz'} (binary, about" in out
    # stage C alone reloads states_random
    quixo.main(["stages", "c", "--games-c-eval", "200", "--games-c-collect", "0",
                "--out-dir", str(tmp_path), "--seed", "5", "--no-progress"])
    assert "loaded" in capsys.readouterr().out
    # the seed's JSON stays available as an export, and stage C reads it too
    json_dir = tmp_path / "json"
    json_dir.mkdir()       # the console never creates a folder it was given
    quixo.main(["stages", "b", "--games-b", "300", "--out-dir", str(json_dir), "--seed", "5",
                "--no-progress", "--format", "json"])
    assert json.loads((json_dir / "states_random.json").read_text())
    quixo.main(["stages", "c", "--games-c-eval", "100", "--games-c-collect", "0",
                "--out-dir", str(json_dir), "--seed", "5", "--no-progress"])
    assert "loaded" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        quixo.main(["stages", "xyz", "--out-dir", str(tmp_path)])
    assert e.value.code == 2


@pytest.mark.parametrize("option,value", [("gamma", 5), ("gamma", 0), ("draw_score", 2),
                                          ("max_plies", 0), ("size", 6)])
def test_stages_checks_every_option_before_the_first_stage(option, value, tmp_path):
    said = []
    with pytest.raises(ValueError, match=option):
        quixo.stages("abc", games_a=10, games_b=10, games_c_eval=10, games_c_collect=0,
                     out_dir=str(tmp_path), progress=False, out=said.append, **{option: value})
    assert said == [] and os.listdir(tmp_path) == []


@pytest.mark.parametrize("option,value", [("--gamma", "5"), ("--draw-score", "2"),
                                          ("--epsilon", "3"), ("--unknown", "-1")])
def test_stages_command_refuses_a_value_out_of_range(option, value, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        quixo.main(["stages", "--games-a", "10", "--games-b", "10", "--out-dir", str(tmp_path),
                    "--no-progress", option, value])
    assert e.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and os.listdir(tmp_path) == []
    assert f"{option}: must be in" in captured.err


def _images(cells, n):
    """The 8 rotations/reflections of a row-order cell string (pure Python)."""
    g = [list(cells[r * n:(r + 1) * n]) for r in range(n)]
    out = []
    for _ in range(4):
        g = [list(row) for row in zip(*g[::-1])]          # rotate 90
        out.append("".join("".join(r) for r in g))
        out.append("".join("".join(r[::-1]) for r in g))  # and its mirror
    return out


def test_symmetric_values_merge_the_eight_images(tmp_path):
    plain, res = quixo.collect_values(400, seed=21)
    sym, res2 = quixo.collect_values(400, seed=21, symmetric=True)
    assert res["plies"] == res2["plies"] and sym.symmetric and not plain.symmetric
    assert sym.observations == plain.observations and len(sym) < len(plain)
    # every image of a stored board reads the same entry, which sums the plain
    # table's entries over the distinct images
    for key, avg, cnt in list(sym.items(limit=300)):
        imgs = set(_images(key, 5))
        assert all(sym.get(k) == sym.get(key) for k in imgs)
        tot = [plain.get(k) for k in imgs if plain.get(k) is not None]
        assert sum(c for _, c in tot) == cnt
        assert sum(a * c for a, c in tot) == pytest.approx(avg * cnt)
    path = tmp_path / "sym.json"
    quixo.save_values(sym, path)
    back = quixo.load_values(path, symmetric=True)
    assert back.symmetric and len(back) == len(sym)
    # loading the plain file symmetrically merges it into the same table
    quixo.save_values(plain, tmp_path / "plain.json")
    merged = quixo.load_values(tmp_path / "plain.json", symmetric=True)
    assert len(merged) == len(sym) and merged.observations == sym.observations


# The move cap makes a position's value depend on the plies left; quixo_hash
# includes them, so the search table never reuses a deep cap draw near the root.
@pytest.mark.parametrize("cells,to_move", [(" OO X  X ", "X"), ("  X  O OX", "O"), ("   O   XO", "X")])
def test_full_depth_alphabeta_agrees_with_the_solver(cells, to_move):
    from ttt_engine import search
    from ttt_engine._core.solvers.quixo import solve as quixo_solve
    b = Board.from_string(cells, to_move=to_move)
    v, d = quixo_solve.solve(3).value(b)
    r = search.alphabeta(b, None)
    assert r.exact and {1: "win", -1: "loss", 0: "draw"}[r.outcome] == v


# ---------------------------------------------------------------- row of the generic tests
def _reference_legal(board):
    if board.is_terminal():
        return []
    grid = R.from_cells(board.cells, board.size)
    return R.legal_moves(grid, 1 if board.to_move == "X" else 2)


#: Quixo's row of the generic tests (tests/test_games.py, test_registry.py,
#: test_properties.py; the fields: conftest.REGISTRY_FIELDS)
REGISTRY_CASES = registry_row(
    options={"size": 5, "max_plies": 200},
    engines=["greedy", "heuristic", "alphabeta", "mcts", "az", "valuenet", "best", "random"],
    trained_engines=["greedy"],
    ships_network=True,
    sample_move="a1R",
    syntax="'a1R'",
    from_string_kw=lambda board: {"to_move": board.to_move},
    perft=(44, 1836),
    num_actions=5 * 5 * 4,
    solve_small=(lambda: quixo.GAME.new_board(size=3), "win", {}),
    solve_one_node=None,
    solve_finished_options={"size": 3},
    hypothesis_options=st.builds(dict, size=st.integers(3, 5)),
    reference_legal=_reference_legal,
)


def _retrograde_3x3():
    """Every 3x3 position without a line, both sides to move, solved backwards
    with the reference rules alone: ``{(cells, player): (value, plies)}`` with
    value 1 / -1 for the side to move (no draws on 3x3: every position is
    decided, as the level loop checks)."""
    import itertools
    states = [(cells, p) for cells in itertools.product((0, 1, 2), repeat=9)
              for p in (1, 2)
              if not (R.has_line(R.from_cells(cells, 3), 1) or
                      R.has_line(R.from_cells(cells, 3), 2))]
    index = {s: i for i, s in enumerate(states)}
    children = []       # per state: (move, "W" | "L" | child index)
    for cells, p in states:
        grid = R.from_cells(cells, 3)
        out = []
        for m in R.legal_moves(grid, p):
            after = R.apply(grid, m, p)
            w = R.outcome_after(after, p)
            out.append((m, "W" if w == p else "L" if w else index[(R.to_cells(after), 3 - p)]))
        children.append(out)
    value = [None] * len(states)
    for level in range(1, 64):
        new = {}
        for i, kids in enumerate(children):
            if value[i] is not None:
                continue
            win, all_lose, longest = False, True, 0
            for _, c in kids:
                if c == "W":
                    win = win or level == 1
                    all_lose = False
                elif c != "L":
                    v = value[c]
                    win = win or v == (-1, level - 1)
                    if v is None or v[0] != 1:
                        all_lose = False
                    else:
                        longest = max(longest, v[1])
            if win:
                new[i] = (1, level)
            elif all_lose and longest + 1 == level:
                new[i] = (-1, level)
        if not new:
            break
        for i, v in new.items():
            value[i] = v
    assert None not in value
    return states, value, children


def test_3x3_solution_agrees_with_an_independent_retrograde_analysis():
    """quixo.solve on 3x3 (value, plies to the end, a best move that keeps the
    value at the same distance) against a backward solve of all 22,250
    positions written from the reference rules alone (every 9th checked)."""
    states, value, children = _retrograde_3x3()
    assert len(states) == 22250
    checked = 0
    for i in range(0, len(states), 9):
        (cells, p), v = states[i], value[i]
        try:
            b = Board.from_string("".join(" XO"[c] for c in cells), to_move=" XO"[p])
        except ValueError:
            continue                        # not reachable in a game (from_string says why)
        r = quixo.solve(b)
        assert (r.value, r.plies) == ({1: "win", -1: "loss"}[v[0]], v[1]), (cells, p, r)
        if v[0] == 1:
            keeps = [m for m, c in children[i]
                     if (c == "W" and v[1] == 1) or
                     (c not in ("W", "L") and value[c] == (-1, v[1] - 1))]
            assert r.best_move in keeps, (cells, p, r, keeps)
        checked += 1
    assert checked > 2000
