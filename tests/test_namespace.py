"""The package namespace: exactly the documented API, game modules by attribute."""
import subprocess
import sys

from conftest import listed_games

import ttt_engine


def _fresh(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**__import__("os").environ})
    return out.stdout.strip()


def test_every_game_module_is_an_attribute_after_import():
    # every game of the repository's game list, in its order
    names = [*listed_games(), "games"]
    out = _fresh("import ttt_engine\n"
                 "print(' '.join(getattr(ttt_engine, k).__name__ for k in "
                 f"{names!r}))")
    assert out.split() == [f"ttt_engine.{k}" for k in names]


def test_all_is_the_documented_api_and_resolves():
    assert len(set(ttt_engine.__all__)) == len(ttt_engine.__all__)
    for name in ttt_engine.__all__:
        assert getattr(ttt_engine, name) is not None
    for name in ["Board", "QAgent", "train", "evaluate", "solve", "MCTS", "MCTSAgent",
                 "play_match", "games", *listed_games()]:
        assert name in ttt_engine.__all__


def test_dir_shows_no_implementation_modules():
    # after the heavy parts have loaded, too
    import ttt_engine.quixo  # noqa: F401
    import ttt_engine.search  # noqa: F401
    shown = set(dir(ttt_engine))
    assert shown == set(ttt_engine.__all__) | {"__version__"}
    for impl in ("_core", "_util", "alphabeta", "mcts", "qlearning", "quixo_tournament",
                 "ttt_oracle", "treelearn", "qagent", "exact"):
        assert impl not in shown


def test_import_is_lazy():
    out = _fresh("import sys, ttt_engine\n"
                 "print(sorted(m for m in sys.modules if m.startswith('ttt_engine')))")
    assert out == "['ttt_engine']"


def test_existing_names_keep_working():
    from ttt_engine import Board, QAgent, search, train  # noqa: F401
    from ttt_engine.agents import MCTSAgent  # noqa: F401
    assert ttt_engine.tree_agents.TreeQAgent
    assert ttt_engine.Board is ttt_engine.ttt.Board


def test_unknown_attribute_is_an_attribute_error():
    import pytest
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ttt_engine.nope
