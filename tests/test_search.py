"""Search core: minimax / negamax / alpha-beta values and node counts, MCTS.

The reference is an independent pure-Python exhaustive minimax over Tic-Tac-Toe
(its own rules, not the engine's board), with win distance, evaluated on every
position reachable from the empty board.
"""
import math
from functools import lru_cache

import pytest

from conftest import ttt_winner

from ttt_engine import Board, MCTS, optimal_moves, solve
from ttt_engine.search import (
    MAX_PLY, WIN_SCORE, SearchResult, alphabeta, minimax, move_values, negamax,
)

# ---------------------------------------------------------------- reference
W = int(WIN_SCORE)


def ref_to_move(cells):
    return 1 if cells.count(1) == cells.count(2) else 2


@lru_cache(maxsize=None)
def ref_score(cells):
    """Node-relative negamax score for the side to move: a loss on the board is
    -W, a win d plies away W - d, a draw 0 (independent of the engine)."""
    w = ttt_winner(cells)
    if w:
        return -W          # the side to move has lost (the other side just won)
    if all(cells):
        return 0
    me = ref_to_move(cells)
    best = -math.inf
    for i in range(9):
        if not cells[i]:
            child = cells[:i] + (me,) + cells[i + 1:]
            s = -ref_score(child)
            s = s - 1 if s > 0 else s + 1 if s < 0 else 0
            best = max(best, s)
    return best


def ref_move_scores(cells):
    me = ref_to_move(cells)
    out = {}
    for i in range(9):
        if not cells[i]:
            s = -ref_score(cells[:i] + (me,) + cells[i + 1:])
            out[i] = s - 1 if s > 0 else s + 1 if s < 0 else 0
    return out


def reachable():
    seen = {}
    stack = [(0,) * 9]
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen[c] = True
        if ttt_winner(c) or all(c):
            continue
        me = ref_to_move(c)
        for i in range(9):
            if not c[i]:
                stack.append(c[:i] + (me,) + c[i + 1:])
    return list(seen)


POSITIONS = reachable()


def ongoing(positions):
    """The positions where the game is still on."""
    return [c for c in positions if not (ttt_winner(c) or all(c))]


#: the positions with a move to search (a finished game is refused: there is none)
ONGOING = ongoing(POSITIONS)


def board_of(cells):
    return Board.from_string("".join(".XO"[v] for v in cells))


def test_reference_is_sane():
    assert len(POSITIONS) == 5478
    assert ref_score((0,) * 9) == 0


# ---------------------------------------------------------------- node counts
def test_plain_minimax_visits_full_tree():
    r = minimax(Board())
    assert r.nodes == 549_946
    assert r.value == 0.0 and r.exact and r.depth == MAX_PLY
    assert negamax(Board()).nodes == 549_946


def test_pruning_counts_match_between_formulations():
    a = minimax(Board(), alphabeta=True)
    b = negamax(Board(), alphabeta=True)
    assert a.nodes == b.nodes < 549_946
    assert a.value == b.value == 0.0
    assert a.pv == b.pv


def test_alphabeta_with_table_is_small():
    r = alphabeta(Board())
    assert r.exact and r.value == 0.0 and r.outcome == 0
    assert r.nodes < 18_297          # OpenSpiel's alpha-beta node count here
    assert len(r.pv) == 9 and r.best_move == r.pv[0]
    plain = alphabeta(Board(), tt=False, ordering=False, pvs=False)
    assert plain.nodes == negamax(Board(), alphabeta=True).nodes


def test_perft_like_depth_limited_counts():
    # depth-limited plain minimax visits sum_{k<=d} perft(k) nodes
    assert minimax(Board(), 1).nodes == 1 + 9
    assert minimax(Board(), 2).nodes == 1 + 9 + 72
    r = minimax(Board(), 2)
    assert not r.exact


# ---------------------------------------------------------------- values everywhere
@pytest.mark.parametrize("variant", ["alphabeta", "ab_no_tt", "ab_no_order", "ab_no_pvs",
                                     "minimax", "negamax_ab", "iterative"])
def test_values_agree_with_reference_everywhere(variant):
    for cells in POSITIONS:
        b = board_of(cells)
        if ttt_winner(cells) or all(cells):
            # a finished game: no move to search, the same answer as every entry point
            with pytest.raises(ValueError, match="the game is over"):
                alphabeta(b) if variant != "minimax" else minimax(b, alphabeta=True)
            continue
        if variant == "alphabeta":
            r = alphabeta(b)
        elif variant == "ab_no_tt":
            r = alphabeta(b, tt=False)
        elif variant == "ab_no_order":
            r = alphabeta(b, ordering=False)
        elif variant == "ab_no_pvs":
            r = alphabeta(b, pvs=False)
        elif variant == "minimax":
            r = minimax(b, alphabeta=True)
        elif variant == "negamax_ab":
            r = negamax(b, alphabeta=True)
        else:
            r = alphabeta(b, time_limit=60.0)
        expect = ref_score(cells)
        assert r.value == expect, (cells, variant, r)
        assert r.exact
        scores = ref_move_scores(cells)
        assert scores[r.best_move] == expect, (cells, variant, r)
        # PV replays legally and ends the game
        bb = b.copy()
        for m in r.pv:
            bb.push(m)
        assert bb.is_terminal()


def test_plain_minimax_values_on_sample():
    for cells in ONGOING[::7]:
        r = minimax(board_of(cells))
        assert r.value == ref_score(cells)
        assert negamax(board_of(cells)).value == r.value


def test_move_values_solve_and_optimal_moves_everywhere():
    for cells in POSITIONS:
        b = board_of(cells)
        terminal = ttt_winner(cells) or all(cells)
        sign = (ref_score(cells) > 0) - (ref_score(cells) < 0)
        assert solve(b) == sign
        if terminal:
            assert optimal_moves(b) == []
            continue
        values, exact = move_values(b)
        assert exact
        ref = ref_move_scores(cells)
        assert values == {m: float(v) for m, v in ref.items()}
        best = max((v > 0) - (v < 0) for v in ref.values())
        assert optimal_moves(b) == sorted(m for m, v in ref.items() if ((v > 0) - (v < 0)) == best)


def test_prefers_fastest_win():
    # X to move can win now (cells 0,1 -> 2) or later; the search takes the immediate win
    b = Board.from_string("XX.OO....")
    r = alphabeta(b)
    assert r.best_move == 2 and r.plies_to_end == 1 and r.outcome == 1
    assert r.value == WIN_SCORE - 1


def test_board_is_not_modified():
    b = Board.from_string("X...O....")
    before = (b.to_string(), b.moves)
    alphabeta(b)
    minimax(b, 3)
    MCTS(seed=1).search(b, simulations=500)
    assert (b.to_string(), b.moves) == before


def test_depth_limited_heuristic():
    r = alphabeta(Board(), 1)
    assert not r.exact and r.depth == 1 and r.best_move == 4   # centre: most open lines
    assert r.outcome is None
    assert alphabeta(Board(), 0).best_move is None


def test_searcher_settings_keep_values():
    from ttt_engine.search import ABSearcher
    for size, mind in [(1, 1), (64, 1), (1 << 10, 2), (1 << 12, 5)]:
        S = ABSearcher(size, tt_min_depth=mind)
        assert S.tt_min_depth == mind
        for cells in ONGOING[::11]:
            r = alphabeta(board_of(cells), searcher=S)
            assert r.value == ref_score(cells) and r.exact
            r = alphabeta(board_of(cells), 3, searcher=S)
            assert r.value == alphabeta(board_of(cells), 3, tt=False).value
    with pytest.raises(ValueError, match="tt_min_depth"):
        ABSearcher(16, tt_min_depth=0)
    with pytest.raises(ValueError, match="tt_size"):
        ABSearcher(0)


def test_the_module_level_searcher_is_sized_by_the_board_class():
    """The shared searcher's table size is the game's fact (``Board.SEARCH_TT_SIZE``,
    None: ``DEFAULT_TT_SIZE``), not a test of which game the board is."""
    from ttt_engine import games
    from ttt_engine.search import DEFAULT_TT_SIZE, depth_first
    assert Board.SEARCH_TT_SIZE == 1 << 10            # Tic-Tac-Toe's small tree
    for key in games.GAMES:
        board = games.get(key).new_board()
        size = board.SEARCH_TT_SIZE
        assert size is None or (isinstance(size, int) and size > 0 and size & (size - 1) == 0)
        assert depth_first._shared(board).tt_size == (size or DEFAULT_TT_SIZE), key
    assert depth_first._shared(None).tt_size == DEFAULT_TT_SIZE


def test_proven_win_or_loss_is_exact_at_limited_depth():
    # every forced win/loss whose distance fits in the depth is reported exact
    checked = 0
    for cells in ongoing(POSITIONS[::5]):
        ref = ref_score(cells)
        if ref == 0:
            continue
        dist = W - abs(ref)
        r = alphabeta(board_of(cells), dist)
        assert r.exact and r.value == ref, (cells, r)
        checked += 1
        if dist > 1:
            assert not alphabeta(board_of(cells), dist - 1).exact or (
                alphabeta(board_of(cells), dist - 1).value == ref)
    assert checked > 100
    # iterative deepening stops at the proof instead of going to the end
    r = alphabeta(Board.from_string("XX.OO...."), time_limit=5.0)
    assert r.exact and r.depth == 1 and r.plies_to_end == 1


def test_ply_in_key_keeps_values():
    from ttt_engine.search import ABSearcher
    S = ABSearcher(ply_in_key=True)
    assert S.ply_in_key and not ABSearcher().ply_in_key
    for cells in ONGOING[::7]:
        r = alphabeta(board_of(cells), searcher=S)
        assert r.value == ref_score(cells) and r.exact


def test_iterative_deepening_reaches_exact():
    r = alphabeta(Board(), time_limit=5.0)
    assert r.exact and r.value == 0.0 and r.depth <= 9


def test_result_type_and_validation():
    assert isinstance(alphabeta(Board()), SearchResult)
    with pytest.raises(ValueError, match="depth"):
        alphabeta(Board(), -1)
    with pytest.raises(ValueError, match="depth"):
        alphabeta(Board(), "3")
    with pytest.raises(ValueError, match="time_limit"):
        alphabeta(Board(), time_limit=0)
    with pytest.raises(ValueError, match="heuristic"):
        alphabeta(Board(), heuristic=-2)
    with pytest.raises(ValueError, match="board"):
        alphabeta("X........")
    with pytest.raises(ValueError, match="board"):
        solve([0] * 9)


# ---------------------------------------------------------------- MCTS
def test_mcts_deterministic_with_seed():
    a, b = MCTS(seed=7), MCTS(seed=7)
    assert a.search(Board(), simulations=3000) == b.search(Board(), simulations=3000)
    assert a.stats["children"] == b.stats["children"]


def test_mcts_stats():
    m = MCTS(seed=1)
    move = m.search(Board(), simulations=5000)
    s = m.stats
    assert s["simulations"] == 5000 and s["root_visits"] == 5000
    assert s["best_move"] == move
    assert len(s["children"]) == 9
    assert sum(ch["visits"] for ch in s["children"]) == 5000
    assert all(-1.0 <= ch["mean"] <= 1.0 for ch in s["children"])
    assert max(s["children"], key=lambda ch: ch["visits"])["move"] == move
    assert 1 < s["nodes_used"] <= s["max_nodes"]
    assert s["simulations_per_s"] > 0


@pytest.mark.parametrize("text", [
    "XX.OO....",    # X wins at once
    "X.X.O....",    # O must block at 1
    "OO.XX.X..",    # O wins at 2 rather than blocking 5
    "X...O...X",    # O must play an edge, not a corner
])
def test_mcts_plays_an_optimal_move(text):
    b = Board.from_string(text)
    good = optimal_moves(b)
    assert len(good) < len(b.legal_moves)
    assert MCTS(seed=3).search(b, simulations=20000) in good


def test_mcts_pool_full_keeps_simulating():
    m = MCTS(max_nodes=513, seed=2)
    move = m.search(Board(), simulations=50_000)
    s = m.stats
    assert s["nodes_used"] <= 513 and s["simulations"] == 50_000
    assert move in range(9)
    # and again with the full arena, plus reuse
    b = Board()
    b.push(move)
    b.push(m.search(b, simulations=10_000))
    m.search(b, simulations=10_000)
    assert m.stats["nodes_used"] <= 513


def test_mcts_time_budget():
    m = MCTS(seed=1)
    m.search(Board(), time=0.05)
    s = m.stats
    assert s["simulations"] > 0 and 0.04 <= s["time"] < 1.0


def test_mcts_tree_reuse_by_descent_and_advance():
    m = MCTS(seed=5)
    b = Board()
    first = m.search(b, simulations=20_000)
    child_visits = {ch["move"]: ch["visits"] for ch in m.stats["children"]}
    b.push(first)
    reply = [x for x in b.legal_moves][0]
    b.push(reply)
    m.search(b, simulations=1000)
    s = m.stats
    assert s["reused"] and s["reused_visits"] > 0
    assert s["root_visits"] == s["reused_visits"] + 1000
    assert s["reused_visits"] < child_visits[first]
    # explicit advance keeps the subtree as well
    move = m.search(b, simulations=1000)
    before = {ch["move"]: ch["visits"] for ch in m.stats["children"]}[move]
    m.advance(move)
    b.push(move)
    m.search(b, simulations=10)
    assert m.stats["reused"] and m.stats["reused_visits"] == before
    # an unrelated position starts afresh
    m.search(Board.from_string("O.X.X...."), simulations=100)
    assert not m.stats["reused"] and m.stats["root_visits"] == 100


@pytest.mark.parametrize("make", ["mcts", "puct"])
def test_advance_checks_the_move_and_keeps_the_tree_on_a_refusal(make):
    from ttt_engine.evaluators import UniformEvaluator
    from ttt_engine.search import PUCT
    m = MCTS(seed=1) if make == "mcts" else PUCT(UniformEvaluator(), seed=1)
    for bad in ("garbage", True, 1.5, None):         # with no tree yet, too
        with pytest.raises(ValueError, match="move must be a move code"):
            m.advance(bad)
    b = Board()
    m.search(b, simulations=200)
    with pytest.raises(ValueError, match="cell -1 is out of range"):
        m.advance(-1)
    with pytest.raises(ValueError, match="move must be a move code"):
        m.advance(None)
    m.advance(4)                                     # the tree survived the refusal
    b.push(4)
    m.search(b, simulations=10)
    assert m.stats["reused"] and m.stats["reused_visits"] > 0


def test_mcts_no_reuse_option():
    m = MCTS(seed=5, reuse=False)
    m.search(Board(), simulations=1000)
    m.search(Board(), simulations=1000)
    assert not m.stats["reused"] and m.stats["root_visits"] == 1000


def test_mcts_validation():
    with pytest.raises(ValueError, match="max_nodes"):
        MCTS(max_nodes=10)
    with pytest.raises(ValueError, match="c must"):
        MCTS(c=-1)
    with pytest.raises(ValueError, match="seed"):
        MCTS(seed=-3)
    m = MCTS(seed=1)
    with pytest.raises(ValueError, match="simulations"):
        m.search(Board(), simulations=0)
    with pytest.raises(ValueError, match="time"):
        m.search(Board(), time=-1)
    with pytest.raises(ValueError, match="game is over"):
        m.search(Board.from_string("XXXOO...."))


def test_mcts_expand_after_saves_nodes():
    eager = MCTS(seed=4)
    lazy = MCTS(seed=4, expand_after=3)
    eager.search(Board(), simulations=20_000)
    move = lazy.search(Board(), simulations=20_000)
    assert lazy.stats["nodes_used"] < eager.stats["nodes_used"] / 2
    assert move in optimal_moves(Board())
    b = Board.from_string("X.X.O....")
    assert MCTS(seed=4, expand_after=3).search(b, simulations=20_000) == 1
    with pytest.raises(ValueError, match="expand_after"):
        MCTS(expand_after=-1)


def test_mcts_solver_proofs_are_correct():
    """Every proof the solver makes agrees with the exact values."""
    proved = 0
    for cells in ongoing(POSITIONS[::9]):
        b = board_of(cells)
        m = MCTS(seed=2, solver=True)
        move = m.search(b, simulations=3000)
        s = m.stats
        ref = ref_move_scores(cells)
        for ch in s["children"]:
            if ch["proven"]:
                proved += 1
                assert ch["proven"] == (ref[ch["move"]] > 0) - (ref[ch["move"]] < 0), (cells, ch)
        root = (ref_score(cells) > 0) - (ref_score(cells) < 0)
        if s["root_proven"]:
            assert s["root_proven"] == root
        if root == 1:
            assert ref[move] > 0          # a won position is never thrown away
        if s["root_proven"] == 1:
            assert s["simulations"] < 3000     # stops once the root is solved
    assert proved > 100


def test_mcts_solver_off_by_default_and_in_agent():
    m = MCTS(seed=1)
    m.search(Board.from_string("XX.OO...."), simulations=500)
    assert m.stats["root_proven"] == 0 and all(ch["proven"] == 0 for ch in m.stats["children"])
    from ttt_engine.agents import MCTSAgent, PerfectAgent, play_match
    r = play_match(MCTSAgent(simulations=3000, seed=3, solver=True), PerfectAgent(), games=40, seed=4)
    assert r.losses == 0


# ---------------------------------------------------------------- pickling
def _mcts_run(m, board, sims):
    move = m.search(board, simulations=sims)
    return move, [(c["move"], c["visits"], c["proven"]) for c in m.stats["children"]]


@pytest.mark.parametrize("config", [dict(seed=3), dict(seed=4, threads=2, solver=True),
                                    dict(seed=5, c=0.7, expand_after=2, reuse=False)])
def test_mcts_pickles_from_its_settings(config):
    import pickle
    from ttt_engine import uttt
    board = uttt.Board()
    m = MCTS(**config)
    clone = pickle.loads(pickle.dumps(m))
    assert (clone.c, clone.seed, clone.threads, clone.solver, clone.expand_after, clone.reuse) \
        == (m.c, m.seed, m.threads, m.solver, m.expand_after, m.reuse)
    # a fresh search and its copy search identically (another seed does not)
    first = _mcts_run(m, board, 600)
    assert _mcts_run(clone, board, 600) == first
    assert _mcts_run(MCTS(**{**config, "seed": config["seed"] + 100}), board, 600) != first
    # a copy of a searched object starts with an empty tree: it searches as the
    # original does after reset(seed)
    copy = pickle.loads(pickle.dumps(m))
    assert copy.stats == {} and copy._root is None
    m.reset(seed=m.seed)
    assert _mcts_run(copy, board, 400) == _mcts_run(m, board, 400)


def test_absearcher_pickles_from_its_settings():
    import pickle
    from ttt_engine.search import ABSearcher, alphabeta
    from ttt_engine import clobber
    s = ABSearcher(1000, tt_min_depth=3, ply_in_key=True)
    clone = pickle.loads(pickle.dumps(s))
    assert type(clone) is ABSearcher
    assert (clone.tt_size, clone.tt_min_depth, clone.ply_in_key) == (1024, 3, True)
    board = clobber.Board(rows=4, cols=4)
    fresh = ABSearcher(1000, tt_min_depth=3, ply_in_key=True)
    want = alphabeta(board, 5, searcher=fresh)
    alphabeta(board, 4, searcher=s)              # the original's table is not carried
    got = alphabeta(board, 5, searcher=pickle.loads(pickle.dumps(s)))
    assert (got.value, got.best_move, got.pv, got.nodes) == \
        (want.value, want.best_move, want.pv, want.nodes)


def test_pickled_puct_starts_with_an_empty_tree():
    import pickle
    from ttt_engine.evaluators import UniformEvaluator
    from ttt_engine.search import PUCT
    board = Board.from_string("X...O....")
    p = PUCT(UniformEvaluator(), seed=8)
    p.search(board, simulations=300)
    copy = pickle.loads(pickle.dumps(p))
    assert copy.stats == {}
    with pytest.raises(ValueError, match="needs a search first"):
        copy.policy()
    p.reset(seed=8)
    assert copy.search(board, simulations=300) == p.search(board, simulations=300)
    assert copy.stats["children"] == p.stats["children"]


def test_a_raw_compiled_searcher_is_refused():
    from ttt_engine._core.algorithms import alphabeta as _ab
    from ttt_engine.search import alphabeta
    with pytest.raises(TypeError, match="ttt_engine.search.ABSearcher"):
        alphabeta(Board(), searcher=_ab.ABSearcher())
