"""Helpers shared by the test files."""
import importlib
import os
import random
import signal
import sys
import time

import numpy as np
import pexpect
import pytest
from hypothesis import strategies as st

import ttt_engine

# A shell without job control starts its background jobs with SIGINT ignored, and an
# ignored signal stays ignored in every program they start: the Ctrl-C tests' children
# would never see it.  A handler here is reset to the default action in each child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: the folder holding the ttt_engine under test (installed in CI, the
#: in-place build when developing), for subprocesses
PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))
#: this folder, and the repository it belongs to (whose sources some tests read)
TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)


# ---------------------------------------------------------------- the games
def listed_games():
    """The keys of the repository's game list, ``src/engine/games/list.txt``,
    in its order (the first word of each line, ``#`` comments dropped); the
    test is skipped when the repository sources are not here (an installed
    package tested on its own)."""
    path = os.path.join(ROOT, "src", "engine", "games", "list.txt")
    if not os.path.exists(path):
        pytest.skip(f"the repository sources are absent ({path})")
    with open(path, encoding="utf-8") as f:
        words = [line.split("#", 1)[0].split() for line in f]
    return [w[0] for w in words if w]


#: What a game's test file, ``tests/test_<key>.py``, gives the generic tests
#: (test_games, test_registry, test_properties) in its ``REGISTRY_CASES`` dict:
#: field -> what it holds (docs/add_a_game.md).
REGISTRY_FIELDS = {
    "sides": "the two sides in move order, e.g. ('X', 'O')",
    "options": "the board options and their defaults",
    "engines": "the engine names, in the registry's order",
    "trained_engines": "the engines trained before they play (left out of the quick "
                       "engine test), e.g. ['q']",
    "ships_network": "True when a network for the az engine ships with the package",
    "sample_move": "a legal move of the start position, as text",
    "syntax": "a regular expression matching the move syntax that parse_move's error "
              "names when a text is not a move of this game",
    "from_string_kw": "board -> the keywords Board.from_string needs to read "
                      "board.to_string() back (what the text does not hold)",
    "perft": "(perft 1, perft 2) from the start, from an independent count",
    "num_actions": "num_actions of the start position",
    "solve_small": "(make a board, its value for the side to move -- None: any exact value "
                   "--, the limits solve needs) of a position the module's solve settles",
    "solve_limit_options": "board options of a position solve(max_nodes=1) cannot finish",
    "solve_one_node": "what solve(max_nodes=1) answers there: 'unknown', 'any' (not "
                      "checked), or None (not asked)",
    "solve_finished_options": "board options of a random game played to its end",
    "solve_finished_limits": "the limits given to the solve of a finished game",
    "hypothesis_options": "a hypothesis strategy of the start options",
    "reference_legal": "board -> its legal moves, sorted, by an independent implementation "
                       "of the rules",
    "moves_commute": "True when a player's moves in another order always give the same "
                     "position",
}


#: What a row leaves out: the X/O sides, no board options, no engine trained before
#: it plays, no shipped network, a text that holds the whole position, a solve that
#: needs no options or limits and does not finish in one node, moves whose order
#: matters.
REGISTRY_DEFAULTS = {
    "sides": ("X", "O"), "options": {}, "trained_engines": [], "ships_network": False,
    "from_string_kw": lambda board: {}, "solve_limit_options": {}, "solve_one_node": "unknown",
    "solve_finished_options": {}, "solve_finished_limits": {},
    "hypothesis_options": st.just({}), "moves_commute": False,
}


def registry_row(**fields):
    """A game's ``REGISTRY_CASES``: ``fields`` (the game's own values, named as in
    :data:`REGISTRY_FIELDS`) over :data:`REGISTRY_DEFAULTS`; a name that is not a
    field is a ``TypeError``."""
    unknown = sorted(set(fields) - set(REGISTRY_FIELDS))
    if unknown:
        raise TypeError(f"registry_row: {unknown} are not fields of REGISTRY_FIELDS")
    row = {f: v.copy() if isinstance(v, (dict, list)) else v      # containers of its own
           for f, v in REGISTRY_DEFAULTS.items()}
    row.update(fields)
    return row


class _Cases(dict):
    """A game's ``REGISTRY_CASES``; a missing field fails the test naming it."""

    def __init__(self, path, row):
        super().__init__(row)
        self.path = path

    def __missing__(self, field):
        what = REGISTRY_FIELDS.get(field, "a field the generic tests read")
        pytest.fail(f"{self.path}: REGISTRY_CASES has no {field!r} ({what}; see "
                    "docs/add_a_game.md)", pytrace=False)


def registry_cases(key):
    """The row of game ``key`` in the generic tests: ``REGISTRY_CASES`` of its
    test file ``tests/test_<key>.py`` (imported by name: this folder is on the
    path).  A game without that file or dict fails the test, saying so."""
    name = f"test_{key}"
    path = f"tests/{name}.py"
    if not os.path.exists(os.path.join(TESTS, name + ".py")):
        pytest.fail(f"game {key!r} has no test file {path} (with its REGISTRY_CASES; see "
                    "docs/add_a_game.md)", pytrace=False)
    row = getattr(importlib.import_module(name), "REGISTRY_CASES", None)
    if not isinstance(row, dict):
        pytest.fail(f"{path} has no REGISTRY_CASES dict (the game's row of the generic "
                    "tests; see docs/add_a_game.md)", pytrace=False)
    return _Cases(path, row)


def play_randomly(board, rng, plies):
    """Push up to ``plies`` uniformly random moves (``rng`` a ``random.Random``)
    on ``board``, stopping at the end of the game; returns the board."""
    for _ in range(plies):
        if board.is_terminal():
            break
        board.push(rng.choice(board.legal_moves))
    return board


def unfinished_positions(new_board, count, seed, plies):
    """``count`` boards (``new_board()`` each) after ``plies`` random moves,
    games that ended on the way skipped; ``seed`` seeds a ``random.Random``."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        b = play_randomly(new_board(), rng, plies)
        if not b.is_terminal():
            out.append(b)
    return out


def random_positions(game, n, seed=0, **options):
    """Observations and masks of ``n`` positions reached by random play."""
    g = ttt_engine.games.get(game)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    b = g.new_board(**options)
    while len(obs) < n:
        if b.is_terminal():
            b = g.new_board(**options)
        obs.append(b.observation())
        masks.append(b.action_mask())
        b.push(b.legal_moves[rng.integers(len(b.legal_moves))])
    return np.stack(obs), np.stack(masks)


@pytest.fixture
def cli_env(tmp_path):
    """The environment of a ``ttt-engine`` subprocess: this package, a private
    cache folder, no colours, no debug tracebacks."""
    e = dict(os.environ)
    e["PYTHONPATH"] = PYDIR + os.pathsep + e.get("PYTHONPATH", "")
    e["TTT_ENGINE_CACHE_DIR"] = str(tmp_path / "cache")
    e["NO_COLOR"] = "1"
    e.pop("XDG_CACHE_HOME", None)
    e.pop("TTT_ENGINE_DEBUG", None)
    return e


@pytest.fixture
def spawn_cli(cli_env):
    """``spawn_cli(args, **pexpect_options)`` starts ``python -m ttt_engine
    args`` on a pseudo-terminal (environment of ``cli_env``); a child still
    running when the test ends is killed."""
    children = []

    def spawn(args, **options):
        child = pexpect.spawn(sys.executable, ["-m", "ttt_engine", *args],
                              env=dict(cli_env, TERM="xterm"), encoding="utf-8", timeout=60,
                              **options)
        children.append(child)
        return child
    yield spawn
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def interrupt(child, timeout):
    """Ctrl-C ``child`` and wait until it ends: ``(its output since the last
    match, seconds from the Ctrl-C to its end)``; ``child.exitstatus`` is set."""
    child.sendintr()
    t0 = time.monotonic()
    child.expect(pexpect.EOF, timeout=timeout)
    elapsed = time.monotonic() - t0
    out = child.before
    child.close()
    return out, elapsed


# ---------------------------------------------------------------- shared test helpers
#: the eight lines of a Tic-Tac-Toe board, cells 0-8 row by row
TTT_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
             (2, 4, 6))


def ttt_winner(cells):
    """1 or 2 (the player with a line on the 9 ``cells``, 0 empty), else 0."""
    for a, b, c in TTT_LINES:
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return 0


def self_play_moves(agent, board, plies):
    """The moves ``agent`` plays against itself from ``board`` (a board, or a
    callable making one), ``plies`` at most; ``board`` is played on."""
    if callable(board):
        board = board()
    out = []
    while not board.is_terminal() and len(out) < plies:
        out.append(agent.select_move(board))
        board.push(out[-1])
    return out


def duel_with_stat(agents, board, stat):
    """Two ``agents`` (X's first) play ``board`` to its end; returns the moves
    and each mover's ``last_stats[stat]`` after its move."""
    moves, values = [], []
    while not board.is_terminal():
        agent = agents[board.ply % 2]
        moves.append(agent.select_move(board.copy()))
        values.append(agent.last_stats[stat])
        board.push(moves[-1])
    return moves, values


def uttt_winning_position():
    """Ultimate Tic-Tac-Toe, X to move in board 2, where (board 2, cell 2)
    wins the big board (boards 0 and 1 won by X on their top rows)."""
    from ttt_engine import uttt
    grid = [["."] * 9 for _ in range(9)]

    def put(board, cell, v):
        grid[3 * (board // 3) + cell // 3][3 * (board % 3) + cell % 3] = v

    for board in (0, 1):
        for cell in (0, 1, 2):
            put(board, cell, "X")
    put(2, 0, "X")
    put(2, 1, "X")
    for board, cell in [(3, 0), (3, 1), (4, 0), (4, 1), (5, 0), (5, 1), (6, 0), (7, 2)]:
        put(board, cell, "O")
    return uttt.Board.from_string("".join("".join(r) for r in grid) + ":2")
