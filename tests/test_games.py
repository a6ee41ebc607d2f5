"""The game registry: boards, move text, drawings, engines and bad input.

Every game of the registry is tested; what differs between games (its engines,
a move text, ...) is its row ``REGISTRY_CASES`` in its own test file
``tests/test_<key>.py`` (``conftest.registry_cases``)."""
import importlib

import re

import pytest

from conftest import listed_games, registry_cases

from ttt_engine import games
from ttt_engine.evaluators import UniformEvaluator

KEYS = list(games.GAMES)


def test_registry_lists_the_games_of_the_game_list():
    assert list(games.GAMES) == listed_games()


@pytest.mark.parametrize("key", KEYS)
def test_each_game_is_its_module_entry(key):
    g = games.get(key)
    case = registry_cases(key)
    assert g is importlib.import_module(f"ttt_engine.{key}").GAME
    assert g.sides == case["sides"]
    assert g.options == case["options"]


@pytest.mark.parametrize("bad", ["chess", "", None, 3, "TTT"])
def test_unknown_game_lists_the_valid_ones(bad):
    with pytest.raises(ValueError, match="valid games: " + ", ".join(listed_games())):
        games.get(bad)


@pytest.mark.parametrize("key", KEYS)
def test_game_shape(key):
    g = games.get(key)
    assert g.key == key and g.title
    assert g.module.__name__ == f"ttt_engine.{key}"
    assert list(g.engines) == registry_cases(key)["engines"]
    assert g.default_engine in g.engines
    for e in g.engines.values():
        assert e.help and callable(e.factory)
    b = g.new_board()
    assert isinstance(b, g.module.Board)
    assert b.to_move == g.sides[0]


@pytest.mark.parametrize("key", KEYS)
def test_unknown_option_lists_the_valid_ones(key):
    g = games.get(key)
    with pytest.raises(ValueError, match="valid options") as e:
        g.new_board(colour="red")
    for name in g.options:
        assert name in str(e.value)


def test_options_reach_the_board():
    b = games.get("clobber").new_board(rows=4, cols=3)
    assert (b.rows, b.cols) == (4, 3)
    assert games.get("quixo").new_board(size=3).size == 3
    with pytest.raises(ValueError):
        games.get("quixo").new_board(size=9)


@pytest.mark.parametrize("key", KEYS)
def test_every_legal_move_round_trips_through_its_text(key):
    g = games.get(key)
    b = g.new_board()
    for _ in range(6):
        for m in b.legal_moves:
            assert g.parse_move(b, g.move_to_str(b, m)) == m
        b.push(b.legal_moves[len(b.legal_moves) // 2])


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("other", KEYS)
def test_a_move_of_another_game_gets_this_games_syntax(key, other):
    g = games.get(key)
    b = g.new_board()
    if key == other:
        assert g.parse_move(b, registry_cases(key)["sample_move"]) in b.legal_moves
        return
    sample = registry_cases(other)["sample_move"]
    try:
        move = g.parse_move(b, sample)
    except ValueError as e:
        assert re.search(registry_cases(key)["syntax"], str(e)), str(e)
    else:
        # notations may share a text (Tic-Tac-Toe's cell 5, Connect Four's column 5): then
        # it is this game's move, written back the same way
        assert move in b.legal_moves and g.move_to_str(b, move) == sample.strip()


@pytest.mark.parametrize("key", KEYS)
def test_empty_and_non_text_moves_are_refused(key):
    g = games.get(key)
    b = g.new_board()
    with pytest.raises(ValueError, match="empty input"):
        g.parse_move(b, "  ")
    with pytest.raises(ValueError):
        g.parse_move(b, None)


def test_illegal_moves_say_why():
    ttt = games.get("ttt")
    b = ttt.new_board()
    b.push(4)
    with pytest.raises(ValueError, match="cell 5 is already taken by X"):
        ttt.parse_move(b, "5")
    with pytest.raises(ValueError, match="out of range"):
        ttt.parse_move(b, "10")
    assert ttt.parse_move(b, "0", zero_based=True) == 0
    assert ttt.move_to_str(b, 0, zero_based=True) == "0"
    with pytest.raises(ValueError, match="zero_based"):
        ttt.parse_move(b, "1", base=0)
    cl = games.get("clobber")
    b = cl.new_board(rows=4, cols=4)
    with pytest.raises(ValueError, match="off the 4x4 board"):
        cl.parse_move(b, "e1-e2")
    q = games.get("quixo")
    b = q.new_board()
    with pytest.raises(ValueError, match="outer ring"):
        q.parse_move(b, "c3T")


def test_wrong_board_type_is_a_value_error_like_everywhere():
    from ttt_engine import uttt
    with pytest.raises(ValueError, match="plays Tic-Tac-Toe, got an Ultimate Tic-Tac-Toe board"):
        games.get("ttt").parse_move(uttt.Board(), "1")


@pytest.mark.parametrize("key", KEYS)
def test_draw_is_plain_text_and_styles_hook_in(key):
    g = games.get(key)
    b = g.new_board()
    m = b.legal_moves[0]
    b.push(m)
    text = g.draw(b, last_move=m)
    assert "\x1b" not in text and len(text.splitlines()) >= 3
    tags = []

    def style(s, *t):
        tags.append(t)
        return f"<{s}>" if "reverse" in t else s
    shown = g.draw(b, style=style, last_move=m)
    assert "reverse" in sum(tags, ())                    # the last move is highlighted
    assert shown.replace("<", "").replace(">", "") == text
    assert g.legend(b) and g.prompt_hint(b)


def test_drawings_show_the_position():
    b = games.get("ttt").new_board()
    b.push(4)
    assert games.get("ttt").draw(b).splitlines()[2] == "   4 | X | 6"
    q = games.get("quixo")
    b = q.new_board(size=3)
    b.push(q.parse_move(b, "a1R"))
    assert q.draw(b).splitlines()[1].split()[1:4] == [".", ".", "X"]


@pytest.mark.parametrize("key", KEYS)
def test_every_cheap_engine_plays_a_legal_move(key):
    g = games.get(key)
    b = g.new_board()
    for name in g.engines:
        if name in registry_cases(key)["trained_engines"]:
            continue          # trained first: covered below with a small budget
        budget = {"simulations": 200} if "simulations" in g.engines[name].budgets else {}
        if "depth" in g.engines[name].budgets:
            budget = {"depth": 1}
        if name == "az":     # any evaluator: the shipped networks are tested on their own
            budget["network"] = UniformEvaluator()
        agent = g.make_agent(name, seed=3, **budget)
        assert agent.select_move(b.copy()) in b.legal_moves


@pytest.mark.parametrize("key", KEYS)
def test_az_without_a_shipped_network_says_how_to_train_one(key):
    g = games.get(key)
    if registry_cases(key)["ships_network"]:      # then az plays with it
        b = g.new_board()
        assert g.make_agent("az", seed=1, simulations=20).select_move(b) in b.legal_moves
        return
    with pytest.raises(ValueError, match=f"ttt-engine az train --game {key}"):
        games.get(key).make_agent("az")


def test_learned_engines_with_small_budgets():
    b = games.get("ttt").new_board()
    agent = games.get("ttt").make_agent("q", seed=1, episodes=20_000)
    assert agent.select_move(b) in b.legal_moves
    q = games.get("quixo")
    b = q.new_board()
    agent = q.make_agent("greedy", seed=1, games=200)
    assert agent.select_move(b) in b.legal_moves


def test_q_engine_refuses_what_a_loaded_model_ignores(tmp_path):
    g = games.get("ttt")
    path = tmp_path / "q.npz"
    g.make_agent("q", seed=1, episodes=2000).save(path)
    with pytest.raises(ValueError, match="episodes applies when the q engine trains"):
        g.make_agent("q", model=str(path), episodes=500)
    with pytest.raises(ValueError, match="seed"):
        g.make_agent("q", model=str(path), seed=-1)
    assert g.make_agent("q", model=str(path), seed=3).episodes == 2000


def test_same_seed_same_moves():
    g = games.get("uttt")
    b = g.new_board()
    a1 = g.make_agent("mcts", seed=5, simulations=300)
    a2 = g.make_agent("mcts", seed=5, simulations=300)
    assert a1.select_move(b) == a2.select_move(b)


def test_engine_bad_input():
    g = games.get("clobber")
    with pytest.raises(ValueError,
                       match="valid engines: alphabeta, minimax, mcts, az, valuenet, best, random"):
        g.make_agent("perfect")
    with pytest.raises(ValueError, match="does not take simulations"):
        g.make_agent("alphabeta", simulations=10)
    with pytest.raises(ValueError, match="does not take depth"):
        g.make_agent("mcts", depth=3)
    with pytest.raises(ValueError, match="valid: heuristic"):
        g.make_agent("alphabeta", colour=1)
    with pytest.raises(ValueError, match="simulations"):
        games.get("ttt").make_agent("mcts", simulations=0)
    assert g.make_agent("alphabeta", depth=2, heuristic="pieces").depth == 2


@pytest.mark.parametrize("key", KEYS)
def test_from_string_reads_the_games_text(key):
    g = games.get(key)
    b = g.new_board()
    b.push(b.legal_moves[1])
    kw = registry_cases(key)["from_string_kw"](b)
    assert g.from_string(b.to_string() + "\n", **kw) == b
    with pytest.raises(TypeError):
        g.from_string(None)


def test_learned_engines_say_what_they_learn(monkeypatch, tmp_path):
    """The registry says which engines learn (and what), and the console and the
    web view find their files in one cache folder."""
    from ttt_engine import _modelfile
    assert games.get("ttt").engines["q"].learned == "model"
    assert games.get("quixo").engines["greedy"].learned == "values"
    assert all(e.learned is None for e in games.get("uttt").engines.values())
    monkeypatch.setenv("TTT_ENGINE_CACHE_DIR", str(tmp_path / "cache"))
    assert _modelfile.model_path("ttt", "q") == str(tmp_path / "cache" / "ttt-q.npz")
    assert _modelfile.values_path("quixo", 4) == str(tmp_path / "cache" / "quixo-states-4x4.npz")
    assert _modelfile.values_path("quixo") == str(tmp_path / "cache" / "quixo-states.npz")
