"""Every game of the registry has every fact the generic code asks for, of the
right kind; each game's test file has its row of the generic tests
(``REGISTRY_CASES``); and a game added by the game list and its own module
alone is picked up by the registry and the generic code (docs/add_a_game.md)."""
import dataclasses
import json
import os
import subprocess
import sys

import pytest
from hypothesis.strategies import SearchStrategy

from conftest import PYDIR, REGISTRY_FIELDS, ROOT, registry_cases

from ttt_engine import _modelfile, games

KEYS = list(games.GAMES)
OUTCOMES = ("win", "draw", "loss")


def _int(v, low=0):
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def _optional_function(v):
    return v is None or callable(v)


def _str_keys(v):
    return isinstance(v, dict) and all(isinstance(k, str) for k in v)


def _settings(v):
    """AZAgent / MCTS settings: a value, or ``{"simulations": x, "time": y}`` (it
    depends on the kind of budget)."""
    return _str_keys(v) and all(set(x) == {"simulations", "time"} for x in v.values()
                                if isinstance(x, dict))


def _engines(game, v):
    return (isinstance(v, dict) and v
            and all(isinstance(e, games.Engine) and e.name == name and e.help
                    and callable(e.factory) and set(e.budgets) <= set(games.BUDGETS)
                    and all(isinstance(x, str) for x in e.extra) for name, e in v.items()))


def _command_module(game, name):
    import importlib
    if not isinstance(name, str) or not name.startswith(f"ttt_engine.{game.key}."):
        return False
    mod = importlib.import_module(name)
    return all(callable(getattr(mod, f, None)) for f in ("add_parser", "run", "configure"))


#: every field of :class:`games.Game`: what it must be (the check is ``(game, value) -> bool``)
FACTS = {
    "key": ("its registry key", lambda g, v: v == g.key and isinstance(v, str)),
    "title": ("a name", lambda g, v: isinstance(v, str) and v.strip()),
    "sides": ("two side names", lambda g, v: isinstance(v, tuple) and len(set(v)) == 2
              and all(isinstance(s, str) and s for s in v)),
    "options": ("a dict of board options", lambda g, v: _str_keys(v)),
    "module_name": ("'ttt_engine.<key>'", lambda g, v: v == f"ttt_engine.{g.key}"),
    "engines": ("a dict name -> Engine", _engines),
    "default_engine": ("one of its engines", lambda g, v: v in g.engines),
    "notation": ("a tuple of keyword names",
                 lambda g, v: isinstance(v, tuple) and all(isinstance(x, str) for x in v)),
    "opening_plies": ("an int >= 0", lambda g, v: _int(v)),
    "temperature_moves": ("an int >= 0", lambda g, v: _int(v)),
    "training": ("a dict of Config overrides", lambda g, v: _str_keys(v)),
    "ships_network": ("a bool", lambda g, v: isinstance(v, bool)),
    "network_settings": ("a dict of AZAgent settings", lambda g, v: _settings(v)),
    "analysis_scale": ("a number > 0", lambda g, v: isinstance(v, (int, float))
                       and not isinstance(v, bool) and v > 0),
    "exact_values": ("a function or None", lambda g, v: _optional_function(v)),
    "table_value": ("a function or None", lambda g, v: _optional_function(v)),
    "endgame_cells": ("a function or None", lambda g, v: _optional_function(v)),
    # the game's own endgame solve is used only where endgame_cells opens the policy
    "endgame_solve": ("a function or None, set only with endgame_cells",
                      lambda g, v: _optional_function(v)
                      and (v is None or g.endgame_cells is not None)),
    "heuristic_ok": ("a function or None", lambda g, v: _optional_function(v)),
    # a game with heuristics of its own states their rule
    "heuristic_rule": ("a str, set only with heuristic_ok",
                       lambda g, v: (v is None) == (g.heuristic_ok is None)
                       and (v is None or isinstance(v, str))),
    "oracle": ("None or a games.Oracle", lambda g, v: v is None or isinstance(v, games.Oracle)),
    "text": ("None or five functions (parse, format, draw, legend, hint)",
             lambda g, v: v is None or (isinstance(v, tuple) and len(v) == 5
                                        and all(callable(f) for f in v))),
    "text_strip": ("a str or None", lambda g, v: v is None or isinstance(v, str)),
    "move_geometry": ("a function or None", lambda g, v: _optional_function(v)),
    "svg_decor": ("a function or None", lambda g, v: _optional_function(v)),
    "marks_move_cell": ("a bool", lambda g, v: isinstance(v, bool)),
    "symmetries": ("a function or None (a rule of ttt_engine._symmetry)",
                   lambda g, v: _optional_function(v)),
    "mover_planes": ("a tuple of plane numbers",
                     lambda g, v: isinstance(v, tuple) and all(_int(p) for p in v)),
    "move_list": ("None or two functions (read, write)",
                  lambda g, v: v is None or (isinstance(v, tuple) and len(v) == 2
                                             and all(callable(f) for f in v))),
    "long_solve": ("a function or None", lambda g, v: _optional_function(v)),
    "yardstick_source": ("None or the name of a module of its package with build(seed=, "
                         "progress=, ...)", lambda g, v: v is None or (
                             isinstance(v, str) and v.startswith(f"ttt_engine.{g.key}.")
                             and callable(getattr(__import__("importlib").import_module(v),
                                                  "build", None)))),
    "openspiel": ("None or the name of a module of OpenSpiel facts",
                  lambda g, v: v is None or (isinstance(v, str) and _openspiel_facts(v))),
    "best_mcts": ("None or a dict of MCTS settings", lambda g, v: v is None or _settings(v)),
    "best_az": ("None or a dict of AZAgent settings", lambda g, v: v is None or _settings(v)),
    "best_az_beside": ("a dict of AZAgent settings", lambda g, v: _settings(v)),
    "value_tables": ("None or a games.ValueTables, set with a 'values' engine",
                     lambda g, v: (v is None or isinstance(v, games.ValueTables))
                     and (v is not None) == any(e.learned == "values"
                                                for e in g.engines.values())),
    "model_kinds": ("a dict kind -> ModelKind",
                    lambda g, v: isinstance(v, dict) and all(
                        isinstance(k, str) and isinstance(m, _modelfile.ModelKind)
                        for k, m in v.items())),
    "commands": ("None or the name of a module of its package with add_parser, run and "
                 "configure", lambda g, v: v is None or _command_module(g, v)),
    "exports": ("a dict name -> a module of its package",
                lambda g, v: _str_keys(v) and all(
                    isinstance(m, str) and (m == f"ttt_engine.{g.key}"
                                            or m.startswith(f"ttt_engine.{g.key}."))
                    for m in v.values())),
    "moved": ("a dict old path -> a module of its package",
              lambda g, v: _str_keys(v) and all(
                  isinstance(m, str) and m.startswith(f"ttt_engine.{g.key}.")
                  for m in v.values())),
    "value_features": ("None or a ValueFeatures", lambda g, v: v is None or _value_features(g, v)),
    "kaggle": ("None or the name of a module of its package with ENVIRONMENT, CONFIGURATION, "
               "agent and EXPORTS", lambda g, v: v is None or _kaggle_module(g, v)),
}


def _kaggle_module(g, name):
    """``name`` is a module of the game's package with what ``ttt_engine.kaggle``
    reads (its environment's name and configuration, the agent, the exports)."""
    import importlib
    if not (isinstance(name, str) and name.startswith(f"ttt_engine.{g.key}.")):
        return False
    m = importlib.import_module(name)
    return (isinstance(getattr(m, "ENVIRONMENT", None), str)
            and isinstance(getattr(m, "CONFIGURATION", None), dict)
            and callable(getattr(m, "agent", None))
            and all(hasattr(m, x) for x in getattr(m, "EXPORTS", ())))


def _openspiel_facts(name):
    """The module ``name`` has what ``ttt_engine.openspiel`` asks of a game."""
    import importlib
    m = importlib.import_module(name)
    return (isinstance(getattr(m, "NAME", None), str) and isinstance(m.DIFFERENCES, str)
            and all(callable(getattr(m, f, None)) for f in
                    ("parameters", "options", "move_actions", "action_move", "state_of"))
            and (m.board_of is None or callable(m.board_of)))


def _value_features(game, vf):
    """The feature set of a new board is named, sized, refound from its name,
    and its symmetries are permutations with the identity first."""
    import numpy as np
    b = game.new_board()
    name, count = vf.name(b), vf.count(b)
    perms = np.asarray(vf.symmetries(b))
    return (isinstance(name, str) and _int(count, 1) and vf.options(name) is not None
            and vf.count(game.new_board(**vf.options(name))) == count
            and perms.ndim == 2 and perms.shape[1] == count
            and list(perms[0]) == list(range(count))
            and all(sorted(p) == list(range(count)) for p in perms)
            and all(0 <= f < count for f in vf.active(b)))


def test_every_fact_of_a_game_has_a_check():
    fields = [f.name for f in dataclasses.fields(games.Game)]
    assert sorted(FACTS) == sorted(fields), "FACTS here and games.Game's fields differ"


@pytest.mark.parametrize("key", KEYS)
def test_every_fact_is_of_the_right_kind(key):
    g = games.get(key)
    wrong = [f"{name} = {getattr(g, name)!r} (should be {what})"
             for name, (what, ok) in FACTS.items() if not ok(g, getattr(g, name))]
    assert not wrong, f"ttt_engine.{key}.GAME: " + "; ".join(wrong)


@pytest.mark.parametrize("key", KEYS)
def test_the_best_engine_is_described(key):
    """``best_az`` only with a shipped network (``best_mcts`` beside it is the
    fallback of a damaged install); with neither, a 'best' engine of the game's
    own, which then plays."""
    g = games.get(key)
    if g.best_az is not None:
        assert g.ships_network, f"ttt_engine.{key}.GAME has best_az but ships no network"
    if g.best_az is None and g.best_mcts is None:
        b = g.new_board()
        assert g.make_agent("best", seed=1, simulations=50).select_move(b) in b.legal_moves
    # what the console and the page say 'best' is agrees with what it plays
    says_network = "network" in g.engines["best"].help
    assert says_network == (g.best_az is not None), (key, g.engines["best"].help)


@pytest.mark.parametrize("key", [k for k in KEYS if games.get(k).training])
def test_training_overrides_are_config_fields(key):
    from ttt_engine.alphazero.config import Config, config_for
    config = config_for(key)            # refuses an unknown option
    assert isinstance(config, Config)
    for name, value in games.get(key).training.items():
        assert getattr(config, name) == (tuple(value) if isinstance(value, list) else value)


# ---------------------------------------------------------------- rows of the generic tests
#: what each field of a game's REGISTRY_CASES must be
CASE_KINDS = {
    "sides": lambda v: isinstance(v, tuple) and len(v) == 2,
    "options": lambda v: isinstance(v, dict),
    "engines": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
    "trained_engines": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v),
    "ships_network": lambda v: isinstance(v, bool),
    "sample_move": lambda v: isinstance(v, str),
    "syntax": lambda v: isinstance(v, str) and v,
    "from_string_kw": callable,
    "perft": lambda v: isinstance(v, tuple) and len(v) == 2 and all(_int(x, 1) for x in v),
    "num_actions": lambda v: _int(v, 1),
    "solve_small": lambda v: (isinstance(v, tuple) and len(v) == 3 and callable(v[0])
                              and v[1] in (*OUTCOMES, None) and isinstance(v[2], dict)),
    "solve_limit_options": lambda v: isinstance(v, dict),
    "solve_one_node": lambda v: v in ("unknown", "any", None),
    "solve_finished_options": lambda v: isinstance(v, dict),
    "solve_finished_limits": lambda v: isinstance(v, dict),
    "hypothesis_options": lambda v: isinstance(v, SearchStrategy),
    "reference_legal": callable,
    "moves_commute": lambda v: isinstance(v, bool),
}


def test_every_field_of_a_row_has_a_check():
    assert sorted(CASE_KINDS) == sorted(REGISTRY_FIELDS)


@pytest.mark.parametrize("key", KEYS)
def test_each_game_has_its_row_of_the_generic_tests(key):
    case = registry_cases(key)          # fails naming the missing file or dict
    missing = [f for f in REGISTRY_FIELDS if f not in case]
    assert not missing, (f"{case.path}: REGISTRY_CASES lacks "
                         + "; ".join(f"{f!r} ({REGISTRY_FIELDS[f]})" for f in missing))
    unknown = sorted(set(case) - set(REGISTRY_FIELDS))
    assert not unknown, f"{case.path}: REGISTRY_CASES has unknown fields {unknown}"
    wrong = [f for f, ok in CASE_KINDS.items() if not ok(case[f])]
    assert not wrong, (f"{case.path}: REGISTRY_CASES fields of the wrong kind: "
                       + "; ".join(f"{f!r} ({REGISTRY_FIELDS[f]})" for f in wrong))
    assert set(case["trained_engines"]) <= set(case["engines"])


def test_a_game_without_its_row_fails_saying_what_is_missing():
    with pytest.raises(pytest.fail.Exception, match=r"no test file tests/test_nogame\.py"):
        registry_cases("nogame")
    case = registry_cases(KEYS[0])
    del case["perft"]
    with pytest.raises(pytest.fail.Exception, match=r"REGISTRY_CASES has no 'perft' \(\(perft 1"):
        case["perft"]


def test_the_page_names_every_fact_and_every_field():
    path = os.path.join(ROOT, "docs", "add_a_game.md")
    if not os.path.exists(path):
        pytest.skip(f"the repository sources are absent ({path})")
    with open(path, encoding="utf-8") as f:
        page = f.read()
    absent = [name for name in (*FACTS, *REGISTRY_FIELDS) if f"`{name}`" not in page]
    assert not absent, f"docs/add_a_game.md does not name {absent}"


# ---------------------------------------------------------------- a sixth game
# A fresh interpreter whose game list has one more line, "fake", and whose module
# ttt_engine.fake (here made in memory: its Board is Tic-Tac-Toe's) holds its
# entry; nothing else is edited.  ttt_engine._game_list is the reader of the game
# list file (src/engine/games/list.txt, installed with the package): replacing it
# stands for the new line in that file.
SIXTH_GAME = r"""
import json, sys, types
import ttt_engine
listed = ttt_engine._game_list()
ttt_engine._game_list = lambda: (*listed, "fake")
from ttt_engine import engines, games, ttt
from ttt_engine.tournament import opening_suite

fake = types.ModuleType("ttt_engine.fake")
fake.Board = ttt.Board
fake.GAME = games.Game("fake", "Fake", ("X", "O"), {}, "ttt_engine.fake",
                       engines.standard("fake"), opening_plies=3,
                       best_mcts={"solver": True})
sys.modules["ttt_engine.fake"] = fake

g = games.get("fake")
b = g.new_board()
print(json.dumps({
    "keys": list(games.GAMES),
    "entry": g is fake.GAME,
    "engines": list(g.engines),
    "random": g.make_agent("random", seed=1).select_move(b) in b.legal_moves,
    "best": g.make_agent("best", seed=1, simulations=200).select_move(b) in b.legal_moves,
    "openings": opening_suite("fake", 5, seed=1),
    "best_mcts": games.BEST_MCTS.get("fake"),
    "text": all(g.parse_move(b, g.move_to_str(b, m)) == m for m in b.legal_moves),
    "unknown": games.GAMES.get("nogame") is None,
}))
"""


def test_a_sixth_game_is_picked_up_from_its_list_line_and_module():
    env = dict(os.environ, PYTHONPATH=PYDIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", SIXTH_GAME], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout.splitlines()[-1])
    assert r["keys"] == [*KEYS, "fake"] and r["entry"]
    assert r["engines"] == ["mcts", "az", "best", "random"]
    assert r["random"] and r["best"] and r["text"] and r["unknown"]
    assert r["best_mcts"] == {"solver": True}
    # the opening suite reads the fake game's opening plies (3; Tic-Tac-Toe's are 2)
    assert len(r["openings"]) == 5 and all(len(line) == 3 for line in r["openings"])
    assert len({tuple(line) for line in r["openings"]}) == 5
