"""MCTS playout policies (decisive / anti-decisive moves), the strongest-engine
preset and the threads warning."""
import pickle
import random
import warnings

import numpy as np

import pytest
from ttt_engine import _parallel, clobber, engines, games, quixo, uttt
from ttt_engine import Board as TTTBoard
from ttt_engine._core.algorithms import policy_playout as _policy
from ttt_engine.agents import AZAgent, MCTSAgent
from ttt_engine.evaluators import UniformEvaluator
from ttt_engine.search import MCTS, PUCT


def _uniform_logits(observations, legal_mask):
    """An evaluator from Python: equal logits, value 0."""
    return (np.zeros(legal_mask.shape, dtype=np.float32),
            np.zeros(len(legal_mask), dtype=np.float32))


def _random_positions(new_board, count, seed, min_plies=10):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        b = new_board()
        plies = rng.randrange(min_plies, 70)
        for _ in range(plies):
            if b.is_terminal():
                break
            b.push(rng.choice(list(b.legal_moves)))
        if not b.is_terminal():
            out.append(b)
    return out


def _after(board, move):
    b = board.copy()
    b.push(move)
    return b


def _wins_at_once(board, move):
    return _after(board, move).winner == board.to_move


def _opponent_can_win(board, move):
    b = _after(board, move)
    return not b.is_terminal() and any(_wins_at_once(b, m) for m in b.legal_moves)


def test_uttt_decisive_and_anti_decisive_moves():
    checked = {"win": 0, "safe": 0}
    for i, b in enumerate(_random_positions(uttt.Board, 400, seed=1, min_plies=30)):
        moves = list(b.legal_moves)
        m = _policy.policy_move(b, i, "decisive")
        assert m in moves
        if any(_wins_at_once(b, x) for x in moves):
            assert _wins_at_once(b, m)
            checked["win"] += 1
        elif any(_opponent_can_win(b, x) for x in moves) and \
                any(not _opponent_can_win(b, x) for x in moves):
            assert not _opponent_can_win(b, m)
            checked["safe"] += 1
    assert checked["win"] >= 20 and checked["safe"] >= 10     # both rules were exercised


def _decisive_policy_moves(boards):
    """``(board, move, legal moves)`` of the decisive policy on each board, after
    checking it takes a win at once whenever the reference finds one; also how
    many boards had such a win."""
    out, wins = [], 0
    for i, b in enumerate(boards):
        moves = list(b.legal_moves)
        m = _policy.policy_move(b, i, "decisive")
        assert m in moves
        if any(_wins_at_once(b, x) for x in moves):
            assert _wins_at_once(b, m)
            wins += 1
        out.append((b, m, moves))
    return out, wins


def test_quixo_decisive_moves():
    played, wins = _decisive_policy_moves(_random_positions(quixo.Board, 150, seed=2))
    assert wins >= 10
    for b, m, moves in played:
        # a move that completes an opponent line (and loses) only when all do
        loses = [x for x in moves if _after(b, x).winner not in (None, "draw", b.to_move)]
        if len(loses) < len(moves):
            assert m not in loses


def test_clobber_decisive_moves():
    # a move wins at once when it leaves the opponent no capture (the reference
    # scans every move; the policy only positions with at most 7)
    boards = _random_positions(lambda: clobber.Board(4, 5), 300, seed=3, min_plies=4)
    _, wins = _decisive_policy_moves(boards)
    assert wins >= 20


def _position_won_in_one(seed):
    """A random UTTT position where the side to move can win at once."""
    rng = random.Random(seed)
    for _ in range(200):
        b = _random_positions(uttt.Board, 1, seed=rng.randrange(10**6), min_plies=30)[0]
        if any(_wins_at_once(b, x) for x in b.legal_moves):
            return b
    raise AssertionError("no position won in one found")


def test_decisive_playouts_win_a_won_position():
    # a random position where the side to move can win at once: the decisive
    # playout always takes the win, from every random stream
    b = _position_won_in_one(5)
    first = 1 if b.to_move == "X" else 2
    counts = _policy.policy_playouts(b, 200, 3, "decisive")
    assert counts[first] == 200
    rand = _policy.policy_playouts(b, 200, 3, "random")
    assert sum(rand) == 200 and rand[0] == 0


def test_playout_option_is_checked_per_game():
    with pytest.raises(ValueError, match="valid: random, decisive"):
        MCTS(playout="smart")
    m = MCTS(playout="decisive", seed=1)
    with pytest.raises(ValueError, match="valid playouts there: random"):
        m.search(TTTBoard(), simulations=100)
    b = clobber.Board(rows=4, cols=4)
    assert MCTS(playout="decisive", seed=1).search(b, simulations=300) in list(b.legal_moves)
    m = MCTS(playout="decisive", solver=True, seed=1)
    b = uttt.Board()
    assert m.search(b, simulations=3000) in list(b.legal_moves)
    agent = MCTSAgent(simulations=500, playout="decisive", seed=3)
    import pickle
    again = pickle.loads(pickle.dumps(agent))
    assert again._mcts.playout == "decisive"


def test_puct_leaf_playouts_follow_the_playout_policy():
    # PUCT's leaf value with playout_weight=1 is the playouts' mean: with
    # decisive playouts, every playout from a position won in one is a win
    b = _position_won_in_one(5)
    dec = PUCT(_uniform_logits, playout_weight=1.0, mixed_playouts=200, playout="decisive",
               seed=1)
    dec.search(b.copy(), simulations=1)
    assert dec.stats["root_value"] == 1.0
    rand = PUCT(_uniform_logits, playout_weight=1.0, mixed_playouts=200, seed=1)
    rand.search(b.copy(), simulations=1)
    assert rand.stats["root_value"] < 1.0
    assert pickle.loads(pickle.dumps(dec)).playout == "decisive"
    with pytest.raises(ValueError, match="valid: random, decisive"):
        PUCT(_uniform_logits, playout="smart")
    with pytest.raises(ValueError, match="PUCT playout 'decisive' does not apply to "
                                         "Tic-Tac-Toe; valid playouts there: random"):
        dec.search(TTTBoard(), simulations=10)
    # the uniform evaluator's playouts (searched in C) follow it too
    native = PUCT(UniformEvaluator(playouts=200), playout="decisive", seed=1)
    native.search(b.copy(), simulations=1)
    assert native.stats["root_value"] == 1.0
    agent = AZAgent(_uniform_logits, simulations=50, playout="decisive", seed=2)
    assert agent.select_move(b.copy()) in list(b.legal_moves)
    assert pickle.loads(pickle.dumps(AZAgent(simulations=50, playout="decisive")))._config()[
        "playout"] == "decisive"
    with pytest.raises(ValueError, match="unknown playout 'greedy'; valid: random, decisive"):
        AZAgent(playout="greedy")


@pytest.mark.parametrize("key", ["uttt", "clobber", "quixo"])
def test_best_preset_plays_and_refuses_foreign_options(key, monkeypatch):
    g = games.get(key)
    assert g.default_engine == "best"
    agent = g.make_agent("best", simulations=400, seed=1, threads=1)
    board = g.new_board()
    assert agent.select_move(board) in list(board.legal_moves)
    if key in games.BEST_AZ:       # the network-guided search, with proofs
        assert agent._puct.solver and agent.network is None          # the shipped network
    else:
        assert agent._mcts.solver
    assert agent.name.startswith("best(")
    cores = 1 if key in games.BEST_AZ else min(2, _parallel.cores())
    assert g.make_agent("best", simulations=400, seed=1).threads == cores
    if key in games.BEST_AZ:       # on a time budget: the cores the load rule gives, one tree
        for n in (2, 1):
            monkeypatch.setattr(engines, "_default_threads", lambda timed, n=n: n if timed else 0)
            timed = g.make_agent("best", time=0.05, seed=1)
            assert timed.threads == n and timed.parallel == "tree"
            # exact endgames on a time budget, as the game's facts say (UTTT: with
            # two threads the solve runs beside the tree, from more empty cells
            # and with more of the move)
            facts = games.for_budget(g.best_az, timed=True)
            if n == 2:
                facts.update(g.best_az_beside)
            assert (timed.endgame, timed.endgame_share) == (facts.get("endgame", 0),
                                                            facts.get("endgame_share"))
            if key == "uttt":
                assert facts["endgame"] == (30 if n == 2 else 25)
            assert timed.select_move(board) in list(board.legal_moves)
        # a simulation budget: UTTT keeps the clock out of the moves (no timed
        # alpha-beta solve); a game's own solve is bounded by work and stays
        untimed = games.for_budget(g.best_az, timed=False).get("endgame", 0)
        assert agent.endgame == untimed and (key != "uttt" or untimed == 0)
    assert g.make_agent("best", simulations=400, seed=1, threads=2).threads == 2
    with pytest.raises(ValueError, match="valid: threads"):
        g.make_agent("best", time=0.1, heuristic="pieces")
    with pytest.raises(ValueError, match="does not take depth"):
        g.make_agent("best", depth=3)


def test_best_ttt_is_perfect_play():
    g = games.get("ttt")
    agent = g.make_agent("best", time=0.5, seed=1)
    b = TTTBoard.from_string("XX.OO....")
    assert agent.select_move(b) == 2


def test_threads_above_the_cores_warn_once(monkeypatch):
    monkeypatch.setattr(_parallel, "_warned_cores", False)
    n = _parallel.cores() + 1
    with pytest.warns(RuntimeWarning, match="more than the"):
        MCTS(threads=n, max_nodes=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MCTS(threads=n, max_nodes=1000)          # once per process
        MCTS(threads=1, max_nodes=1000)


def _open_empty(b):
    cells, lw = b.cells, b.local_winners
    return sum(1 for m in range(81) if cells[m] == 0 and lw[(m // 27) * 3 + (m % 9) // 3] is None)


def _exact_after(board, move):
    """The exact value of ``move`` for the side that plays it."""
    from ttt_engine.search import alphabeta
    after = _after(board, move)
    if after.is_terminal():
        return 1 if after.winner == board.to_move else 0 if after.winner == "draw" else -1
    return -alphabeta(after, time_limit=600).outcome   # UTTT: no unbounded search


def _endgames(seed):
    """Random UTTT positions with at most 14 empty cells in the open local
    boards, and their exact values (for the side to move), endlessly."""
    from ttt_engine.search import alphabeta
    rng = random.Random(seed)
    while True:
        b = uttt.Board()
        while not b.is_terminal() and _open_empty(b) > 14:
            b.push(rng.choice(b.legal_moves))
        if not b.is_terminal():
            yield b, alphabeta(b, time_limit=600).outcome


def _engine(kind, **kw):
    if kind == "mcts":
        return MCTS(seed=1, **kw)
    return PUCT(_uniform_logits, playout_weight=1.0, seed=1, **kw)


@pytest.mark.parametrize("kind", ["mcts", "puct"])
def test_endgame_plays_wins_and_vetoes_moves_that_lose_a_draw(kind):
    """endgame=k: a proven win is played at once (no tree search); in a
    proven draw the tree's move stands only if it draws too; a proven loss is
    left to the tree.  With one simulation the tree's move is the first legal
    one, so drawn endgames whose first move loses show the veto."""
    seen = {1: 0, 0: 0, -1: 0}
    vetoed = 0
    endgames = _endgames(11)
    while min(seen.values()) < 3 or vetoed < 2:
        b, exact = next(endgames)
        p = _engine(kind, endgame=14)
        move = p.search(b.copy(), simulations=1)
        assert p.stats["endgame"] == exact and p.stats["best_move"] == move
        assert _exact_after(b, move) == exact or exact == -1   # the value is kept
        if exact == 1:
            assert p.stats["simulations"] == 0 and p.stats["root_proven"] == 1
            if kind == "puct":
                assert p.policy(0)[b.move_to_action(move)] == 1.0
        else:
            assert p.stats["simulations"] == 1
        tree_move = _engine(kind).search(b.copy(), simulations=1)
        if exact == 0 and _exact_after(b, tree_move) < 0:
            assert move != tree_move
            vetoed += 1
        elif exact == 0:
            assert move == tree_move          # a drawing tree move is kept
        seen[exact] += 1
    # above the threshold the tree search runs; other games refuse the option
    p = _engine(kind, endgame=14)
    p.search(uttt.Board(), simulations=50)
    assert p.stats["endgame"] is None and p.stats["simulations"] == 50
    what = kind.upper()
    with pytest.raises(ValueError, match=f"{what} endgame= applies to Ultimate Tic-Tac-Toe, "
                       "Clobber or Connect Four only, not Quixo; use endgame=0"):
        p.search(quixo.Board(), simulations=10)
    with pytest.raises(ValueError, match="endgame"):
        _engine(kind, endgame=82)
    assert pickle.loads(pickle.dumps(p)).endgame == 14


def test_endgame_solve_beside_a_tree_of_two_threads():
    """With two threads on a time budget the solve runs beside the tree (one
    thread each, then both on the tree): the same rule -- a proven win
    played at once, a proven draw kept, a proven loss left to the tree --
    and the statistics of the tree's two phases summed."""
    seen = {1: 0, 0: 0, -1: 0}
    endgames = _endgames(5)
    while min(seen.values()) < 2:
        b, exact = next(endgames)
        p = PUCT(_uniform_logits, playout_weight=1.0, seed=1, threads=2, endgame=14,
                 endgame_share=0.5)
        move = p.search(b.copy(), time=0.05)
        st = p.stats
        assert st["endgame"] == exact and st["best_move"] == move
        assert _exact_after(b, move) == exact or exact == -1
        if exact == 1:
            assert st["simulations"] == 0 and st["root_proven"] == 1
        else:
            assert st["simulations"] >= 1 and st["evaluations"] >= 1
        seen[exact] += 1
    # a position the solve cannot finish in time: the tree decides alone
    b = _random_positions(uttt.Board, 1, seed=3, min_plies=12)[0]
    p = PUCT(_uniform_logits, playout_weight=1.0, seed=1, threads=2, endgame=81,
             endgame_share=0.001)
    move = p.search(b.copy(), time=0.05)
    assert p.stats["endgame"] is None and move in b.legal_moves
    assert p.stats["simulations"] > 0
    assert pickle.loads(pickle.dumps(p)).endgame_share == 0.001


# A drawn endgame (22 empty cells, O to move) whose draw takes a solve of about
# 0.3 s: only 80 draws; 60 and 79 lose, each proven in 5-20 ms.
_DRAWN_ENDGAME = [40, 30, 9, 46, 66, 28, 14, 42, 45, 56, 25, 68, 51, 74, 61, 12, 29, 6, 11,
                  44, 52, 58, 22, 76, 57, 10, 48, 63, 38, 43, 32, 24, 72, 65, 75, 23, 62,
                  26, 69, 36, 47]


def test_unproven_endgame_move_is_checked_for_a_loss():
    """When the solve beside the tree proves nothing, a tree move that a short
    solve proves lost gives way to the next one not proven lost; if every
    candidate loses, or time runs out before an alternative is checked,
    nothing better is known."""
    from ttt_engine.search import _avoid_loss, ABSearcher
    b = uttt.Board()
    for m in _DRAWN_ENDGAME:
        b.push(m)
    assert _open_empty(b) == 22 and _exact_after(b, 60) == -1 and _exact_after(b, 80) == 0
    s = ABSearcher()
    assert _avoid_loss(b, [60, 79, 80], 30.0, s) == 80
    assert _avoid_loss(b, [80, 60], 30.0, s) == 80
    assert _avoid_loss(b, [60, 79], 30.0, s) == 60           # all lose: the tree's
    assert _avoid_loss(b, [60, 80], 0.0, s) == 60            # no time to check


def test_az_agent_endgame_option():
    agent = AZAgent(_uniform_logits, simulations=20, endgame=14, seed=1)
    assert agent._config()["endgame"] == 14
    b = _position_won_in_one(5)
    agent.select_move(b.copy())
    with pytest.raises(ValueError, match="endgame= needs one tree: use parallel='tree'"):
        AZAgent(_uniform_logits, endgame=14, threads=2)
    agent = AZAgent(_uniform_logits, time=0.05, endgame=14, endgame_share=0.5, threads=2,
                    parallel="tree")
    assert agent._config()["endgame_share"] == 0.5
    assert agent.select_move(b.copy()) in b.legal_moves
    with pytest.raises(ValueError, match=r"endgame_share must be in \(0, 1\]"):
        AZAgent(_uniform_logits, endgame_share=0)


def test_mcts_agent_endgame_share_option():
    """The same option, the same name and check, on the MCTS agent."""
    agent = MCTSAgent(time=0.05, endgame=14, endgame_share=0.5, seed=1)
    assert agent._config()["endgame_share"] == 0.5
    b = _position_won_in_one(5)
    assert agent.select_move(b.copy()) in b.legal_moves
    assert MCTSAgent(simulations=10)._config()["endgame_share"] == 0.3
    with pytest.raises(ValueError, match=r"endgame_share must be in \(0, 1\]"):
        MCTSAgent(endgame_share=1.5)
