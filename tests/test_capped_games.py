"""Games ended by a move cap are counted apart from true draws wherever a match
is reported: play_match, round robins (table, JSON summary, records), the
console's eval table, play's result line and score."""
from types import SimpleNamespace

from ttt_engine import games, quixo
from ttt_engine.agents import MatchResult, PerfectAgent, RandomAgent, play_match
from ttt_engine.tournament import play_game, round_robin, SerialExecutor, Entrant

CAP = 6


def capped_board():
    return quixo.Board(5, max_plies=CAP)


def test_the_board_says_whether_a_game_was_capped():
    b = capped_board()
    while not b.is_terminal():
        b.push(b.legal_moves[0])
    # the first legal move each time makes no line in 6 plies: the cap ends the game
    assert b.winner == "draw" and b.ply == CAP and games.capped(b)
    assert not games.capped(capped_board())                 # still on
    ttt = games.get("ttt").from_string("XOXXOOOXX")           # a full board: a true draw
    assert ttt.winner == "draw" and not games.capped(ttt)
    won = games.get("ttt").from_string("XXXOO....")
    assert won.winner == "X" and not games.capped(won)


def test_play_match_counts_capped_games_apart_from_true_draws():
    r = play_match(RandomAgent(1), RandomAgent(2), games=8, seed=3, board_factory=capped_board)
    ended_at_cap = sum(1 for _, w, p in r.games if w == "cap")
    assert ended_at_cap == sum(1 for _, w, p in r.games if p == CAP and w == "cap") > 0
    assert r.capped == ended_at_cap and r.true_draws == r.draws - r.capped == 0
    assert f"{r.capped} of the draws capped" in str(r)
    # Tic-Tac-Toe between perfect players: every game a true draw, none capped
    t = play_match(PerfectAgent(seed=1), PerfectAgent(seed=2), games=4, seed=1,
                   board_factory=games.get("ttt").new_board)
    assert t.draws == 4 and t.capped == 0 and t.true_draws == 4 and "capped" not in str(t)
    # the tournament's own cap counts as well
    c = play_match(RandomAgent(1), RandomAgent(2), games=3, seed=0, max_plies=2,
                   board_factory=games.get("ttt").new_board)
    assert c.draws == c.capped == 3


def test_match_result_stays_backward_compatible():
    r = MatchResult(3, 2, 1)
    assert r.capped == 0 and tuple(r) == (3, 2, 1) and r.true_draws == 2


def test_round_robin_reports_capped_games():
    res = round_robin("quixo", ["random", Entrant("other", "random")], 6, seed=5,
                      executor=SerialExecutor(), progress=False, options={"max_plies": CAP},
                      bootstrap=0)
    capped = [r for r in res.records if r.get("capped")]
    assert capped and all(r["winner"] is None and r["plies"] == CAP for r in capped)
    n = len(capped)
    assert res.capped("random", "other") == res.capped("other", "random") == n
    assert res.capped_games == n
    assert f"({n} capped)" in res.markdown()
    s = res.summary()
    assert s["capped_games"] == n and s["capped"]["random vs other"] == n
    # a true draw is no capped record
    rec = play_game("ttt", Entrant("p", "perfect"), Entrant("q", "perfect"), 1)
    assert rec["winner"] is None and "capped" not in rec


def test_eval_table_has_the_capped_column():
    from ttt_engine.cli import eval as ev
    g = games.get("quixo")
    w, d, l, c = ev._play_games(g, capped_board(), RandomAgent(1), RandomAgent(2), 5, "X")
    assert w + d + l == 5 and c == d > 0
    cols, rows = ev._columns(capped_board(), [ev._row("random as X", w, d, l, c)])
    assert "capped" in cols and rows[0][cols.index("capped")] == str(c)
    ttt = games.get("ttt")
    cols, rows = ev._columns(ttt.new_board(), [ev._row("perfect as X", 0, 4, 0, 0)])
    assert "capped" not in cols and len(rows[0]) == len(cols)


def test_play_says_a_capped_draw(capsys):
    from ttt_engine.cli import play
    from ttt_engine.cli.console import Console
    g = games.get("quixo")
    console = Console.for_args(SimpleNamespace(color="never"))
    table = play.Table(g, capped_board(), {}, console)
    agents = {"X": RandomAgent(1), "O": RandomAgent(2)}
    winner = play.play_one_game(table, agents, {"X": "a", "O": "b"})
    out = capsys.readouterr().out
    assert winner == "draw" and games.capped(table.last_board)   # no line in 6 random plies
    assert "Draw (the move cap was reached)." in out


def test_tournament_console_says_how_many_games_were_capped(capsys):
    from ttt_engine.cli import tournament as cli
    from ttt_engine.cli.console import Console
    from ttt_engine.tournament import TournamentResult
    recs = [{"a": "p", "b": "q", "first": "p", "winner": None, "plies": 200, "capped": True},
            {"a": "p", "b": "q", "first": "q", "winner": None, "plies": 40},
            {"a": "p", "b": "q", "first": "p", "winner": "p", "plies": 30}]
    res = TournamentResult(["p", "q"], 3, 1, recs, bootstrap=0)
    assert res.wdl("p", "q") == (1, 2, 0) and res.capped("p", "q") == 1
    args = SimpleNamespace(game="quixo", time=None, simulations=10, openings=None, games=3)
    cli._report(Console.for_args(SimpleNamespace(color="never")), res, args)
    out = capsys.readouterr().out
    assert "| 1-2-0 (1 capped) |" in out and "1 of the games ended at the move cap" in out
