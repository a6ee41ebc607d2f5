"""Quixo: the board, tournaments, discounted state values, the epsilon-greedy
value agent, and the value-learning stages A/B/C (``python -m ttt_engine.quixo stages``).

The fast parts are Cython (``quixo.pxd`` core and ``quixo.pyx`` Board,
``quixo_values.pyx`` the value table, ``quixo_agents.pyx`` the agents,
``quixo_tournament.pyx`` the C tournament runner, ``quixo_solve.pyx`` the
exact solver); this module validates input and wires them together.  Value
files: ``ttt_engine.quixo._files`` (binary by default, JSON as an export).

Rules (5x5 by default, 3x3 and 4x4 too): X moves first.  A move takes a cube
from the outer ring that is blank or shows the mover's symbol, turns it to the
mover's symbol and pushes it back in at one end of its row or column (not the
end it came from), sliding the line.  A full row, column or diagonal wins; a
move that completes a line of the OPPONENT loses, even if it completes one of
the mover's own too.  After ``max_plies`` (default 200) moves without a line
the game is a draw.

Move notation: ``<column><row><side>``: ``"a1R"`` = take the cube in column a,
row 1 (rows count from the top), push it back in from the Right end of its row.
Sides: T(op), B(ottom), L(eft), R(ight).  Int codes: ``(r * n + c) * 4 + side``
with side 0..3 = T, B, L, R.

State values (stage B): see ``ValueTable`` -- a state's score is from the point
of view of the player who made the move into it; keys show that player's cubes
as ``'X'``.
"""
from __future__ import annotations

import os
import time

from ttt_engine import _game_text as _text
from ttt_engine.quixo import _files as _qfiles
from ttt_engine import _progress, _symmetry, _verbs, engines
from ttt_engine.quixo import tablebase as _tablebase
from ttt_engine._util import check_bool, check_int, check_real, check_choice, resolve_seed
from ttt_engine._core.games.quixo.board import Board, move_to_str, parse_move, DEFAULT_MAX_PLIES
from ttt_engine._verbs import SolveResult
from ttt_engine._modelfile import ModelKind
from ttt_engine.games import MIDDLE_TRAINING, Engine, Game, ValueTables
from ttt_engine.quixo.features import VALUE_FEATURES
from ttt_engine._core.learning.quixo.values import ValueTable
from ttt_engine._core.learning.quixo import agents as _agents
from ttt_engine._core.learning.quixo.agents import Agent, RandomAgent, HeuristicAgent
from ttt_engine._core.learning.quixo.tournament import run_games as _run_games, random_games_per_second

__all__ = [
    "Board", "move_to_str", "parse_move", "perft", "random_playouts", "solve", "solution",
    "SolveResult", "ValueTable", "Agent", "RandomAgent",
    "GreedyValueAgent", "HeuristicAgent", "run_games", "collect_values", "save_values",
    "load_values", "estimate_value_file_size", "random_games_per_second", "stages", "main",
    "DEFAULT_MAX_PLIES", "solved_move_values", "GAME",
]



class GreedyValueAgent(_agents.GreedyValueAgent):
    __doc__ = _agents.GreedyValueAgent.__doc__
    __slots__ = ()

    def analyse(self, board):
        """The estimated score after each move, the observations behind it, the
        greedy line after it and its move (the analysis protocol, docs/agents.md)."""
        from ttt_engine import _explain
        return _explain.state_values(self, board)

    def save(self, path):
        """Write the agent and its table to ``path`` (binary ``.npz``, no
        pickle, atomic; the format of docs/agents.md).  Returns the bytes written."""
        return _qfiles.save_greedy(self, path)

    @classmethod
    def load(cls, path):
        """Read an agent written by :meth:`save` (``ValueError`` naming what
        the file is if it is another kind of model file)."""
        return _qfiles.load_greedy(cls, path)


perft, random_playouts = _verbs.module_verbs(Board, "quixo", outcomes="draws: the move cap")


_solutions = {}


def solution(size=3):
    """The retrograde ``Solution`` of every
    ``size`` x ``size`` position (3 or 4; computed once per process: 4x4 takes
    about 10 s and 170 MB)."""
    from ttt_engine._core.solvers.quixo import solve as quixo_solve
    size = check_int("size", size, min=3, max=4)
    if size not in _solutions:
        _solutions[size] = quixo_solve.solve(size)
    return _solutions[size]


def solve(board, *, max_nodes=None, time_limit=None, progress=False):
    """Value of ``board`` for the side to move: a :class:`SolveResult`.

    3x3 and 4x4: exact, from the retrograde solution (:func:`solution`; the
    move cap is ignored there: a draw is endless play); ``best_move`` keeps the
    value, ``plies`` is the distance to the end.  5x5: alpha-beta deepened one
    ply at a time, which needs ``max_nodes`` and/or ``time_limit`` (seconds);
    ``value`` is ``"unknown"`` when the limit is hit first.  ``progress``: True
    shows the solve on stderr, a callable receives a
    ``SolveProgress`` (``ttt_engine._progress``) (5x5: after each deepening;
    3x3 and 4x4: when the retrograde solution is begun and done, the first
    4x4 solve of a process taking about 10 s).
    """
    _verbs.check_board(board, Board, "quixo.solve")
    max_nodes, time_limit = _verbs.check_limits(max_nodes, time_limit)
    _progress.reporter(progress, "quixo.solve")      # checked before any work
    if board.is_terminal():
        return _verbs.bounded_solve(board, progress=progress, where="quixo.solve")
    if board.size == 5:
        exact = _tablebase.solve_result(board)     # at most one blank cube
        if exact is not None:
            with _progress.reporter(progress, "quixo.solve") as rep:
                rep.finish(0, "from the tablebase")
            return exact
        if max_nodes is None and time_limit is None:
            raise ValueError("quixo.solve on 5x5 needs a limit (max_nodes= and/or "
                             "time_limit=): only 3x3, 4x4 and the tablebase's 5x5 "
                             "positions (at most one blank cube) are solved exactly")
        from ttt_engine.search import ABSearcher
        return _verbs.bounded_solve(board, max_nodes, time_limit,
                                    searcher=ABSearcher(1 << 20, ply_in_key=True),
                                    progress=progress, where="quixo.solve")
    import time as _time
    t0 = _time.perf_counter()
    with _progress.reporter(progress, "quixo.solve") as rep:
        if board.size not in _solutions:
            rep.report(0, f"the {board.size}x{board.size} retrograde solution")
        sol = solution(board.size)
        rep.finish(0, "from the retrograde solution")
    value, plies = sol.value(board)
    best = None
    if value != "loss":
        want = {"win": ("loss", plies - 1 if plies else None), "draw": ("draw", None)}[value]
        for m in board.legal_moves:
            child = board.copy()
            child.push(m)
            if child.is_terminal():
                got = ("loss", 0) if child.winner == board.to_move else None
            else:
                got = sol.value(child)
            if got == want:
                best = m
                break
    return _verbs.make_result(board, value, best, plies, 0, _time.perf_counter() - t0)


def run_games(n_games, agent_a, agent_b, *, alternate=True, size=5, max_plies=DEFAULT_MAX_PLIES,
              seed=None, collect=None, gamma=0.85, draw_score=0.5, progress=False):
    """Play ``n_games`` between two agents (``RandomAgent``, ``GreedyValueAgent``,
    ``HeuristicAgent``) in C.

    ``alternate=True``: agent A is X in even games, O in odd ones; else A is
    always X.  ``collect``: a ``ValueTable`` receiving the discounted score of
    every state of every game (stage B).  Returns a dict: ``games``,
    ``x_wins``, ``o_wins``, ``draws`` (move cap), ``a_wins``, ``b_wins``,
    ``plies``, ``mean_length``, ``lengths`` (numpy: games per length) and the
    resolved ``seed``.  Same seed => same result.
    """
    n_games = check_int("n_games", n_games, min=0)
    size = check_int("size", size, min=3, max=5)
    max_plies = check_int("max_plies", max_plies, min=1, max=100_000)
    gamma = check_real("gamma", gamma, low=0, high=1, low_open=True)
    draw_score = check_real("draw_score", draw_score, low=0, high=1)
    for name, ag in (("agent_a", agent_a), ("agent_b", agent_b)):
        if not isinstance(ag, Agent):
            raise ValueError(f"{name} must be a quixo agent (RandomAgent, GreedyValueAgent, "
                             f"HeuristicAgent), got {type(ag).__name__}")
    if collect is not None and not isinstance(collect, ValueTable):
        raise ValueError(f"collect must be a ValueTable or None, got {type(collect).__name__}")
    seed = resolve_seed(seed)
    res = _run_games(n_games, agent_a, agent_b, alternate=check_bool("alternate", alternate), size=size,
                     max_plies=max_plies, seed=seed, collect=collect, gamma=gamma,
                     draw_score=draw_score, progress=progress)
    res["seed"] = seed
    return res


def collect_values(n_games, agent_a=None, agent_b=None, *, size=5, max_plies=DEFAULT_MAX_PLIES,
                   gamma=0.85, draw_score=0.5, seed=None, progress=False, capacity=None,
                   symmetric=False):
    """Stage B: play ``n_games`` (random vs random by default) and return
    ``(ValueTable, results)`` with every state's discounted score.
    ``symmetric=True`` merges each state with its 7 rotations/reflections."""
    n_games = check_int("n_games", n_games, min=0)
    if capacity is None:
        capacity = max(1 << 16, min(n_games * 48, 1_000_000_000))
    table = ValueTable(check_int("capacity", capacity, min=1), size, check_bool("symmetric", symmetric))
    res = run_games(n_games, agent_a or RandomAgent(), agent_b or RandomAgent(), size=size,
                    max_plies=max_plies, seed=seed, collect=table, gamma=gamma,
                    draw_score=draw_score, progress=progress)
    return table, res


def save_values(table, path, format=None):
    """Write ``table`` to ``path`` atomically and return the bytes written.

    ``format="binary"`` (the default unless ``path`` ends in ``.json``): a
    compact ``.npz`` model file (about 5.5 bytes a state; see docs/agents.md);
    ``format="json"``: the JSON form ``{"<board>": [average, count], ...}``
    (about 47 bytes a state), kept as an export."""
    return _qfiles.save_values(table, path, format)


def estimate_value_file_size(games, format="binary"):
    """Approximate bytes of the value file of ``games`` 5x5 games (about 40
    new states a game from random play), to say what will be written before
    collecting."""
    games = check_int("games", games, min=0)
    return _qfiles.estimate_bytes(games * 40, format)


def load_values(path, symmetric=False):
    """Read a value file, binary or JSON (told apart by content), into a
    ``ValueTable``; ``ValueError`` naming what is wrong (for JSON the byte
    offset).  ``symmetric=True`` merges every state with its images (a binary
    file written from a symmetric table is symmetric by itself)."""
    return _qfiles.load_values(path, symmetric=check_bool("symmetric", symmetric))


# ---------------------------------------------------------------------- stages A/B/C
def _pct(a, n):
    return f"{100.0 * a / n:.2f}%" if n else "n/a"


def _print_result(title, res, a_name=None, b_name=None, out=print):
    n = res["games"]
    out(f"{title}: {n:,} games (seed {res['seed']})")
    out(f"  X wins: {res['x_wins']:,} ({_pct(res['x_wins'], n)})   "
        f"O wins: {res['o_wins']:,} ({_pct(res['o_wins'], n)})   "
        f"draws by move cap: {res['draws']:,} ({_pct(res['draws'], n)})")
    if a_name:
        out(f"  {a_name} wins: {res['a_wins']:,} ({_pct(res['a_wins'], n)})   "
            f"{b_name} wins: {res['b_wins']:,} ({_pct(res['b_wins'], n)})")
    lengths = res["lengths"]
    nz = lengths.nonzero()[0]
    if len(nz):
        out(f"  game length: mean {res['mean_length']:.2f} plies, min {nz[0]}, max {nz[-1]}")


def stages(which="abc", *, games_a=10_000, games_b=100_000, games_c_eval=10_000,
           games_c_collect=100_000, size=5, max_plies=DEFAULT_MAX_PLIES, gamma=0.85,
           epsilon=0.1, unknown=0.5, draw_score=0.5, seed_faithful=False, symmetric=False,
           out_dir=".", seed=None, progress=True, out=print, format="binary"):
    """Run the value-learning stages end to end and print its statistics.

    A: random vs random tournament (X / O wins).  B: ``games_b`` random games,
    every state scored ``gamma**(N-1-i)`` for its player's win (0 for a loss),
    saved to ``<out_dir>/states_random.npz`` (``format="json"``: ``.json``, the
    JSON format).  C: the epsilon-greedy value
    agent (unknown states ``unknown``) against random over ``games_c_eval``
    games, then ``games_c_collect`` greedy-vs-greedy games saved to
    ``<out_dir>/states_greedy.npz`` (or ``.json``).  C without B in the same
    call loads ``states_random`` (either format).  Before each long stage the
    file it will write and its estimated size are printed.  ``seed_faithful=True`` makes the greedy agent
    look terminal states up in the table like every other state (else a move that ends
    the game is scored by its true result: 1 win, 0 loss).  ``symmetric=True``
    merges every state with its rotations/reflections (not in the seed).
    Returns a dict of the results.
    """
    which = str(which).lower()
    if not which or set(which) - set("abc"):
        raise ValueError(f"stages must be letters among 'a', 'b', 'c', got {which!r}")
    games_a = check_int("games_a", games_a, min=1)
    games_b = check_int("games_b", games_b, min=1)
    games_c_eval = check_int("games_c_eval", games_c_eval, min=1)
    games_c_collect = check_int("games_c_collect", games_c_collect, min=0)
    epsilon = check_real("epsilon", epsilon, low=0, high=1)
    unknown = check_real("unknown", unknown, low=0, high=1)
    # run_games' rules, checked here so that no stage runs before a bad value stops a later one
    size = check_int("size", size, min=3, max=5)
    max_plies = check_int("max_plies", max_plies, min=1, max=100_000)
    gamma = check_real("gamma", gamma, low=0, high=1, low_open=True)
    draw_score = check_real("draw_score", draw_score, low=0, high=1)
    seed = resolve_seed(seed)
    out_dir = os.fspath(out_dir)
    format = check_choice("format", format, ("binary", "json"))
    ext = ".json" if format == "json" else ".npz"
    random_path = os.path.join(out_dir, "states_random" + ext)
    greedy_path = os.path.join(out_dir, "states_greedy" + ext)

    def announce(games, path):
        est = estimate_value_file_size(games, format)
        out(f"  writes {path} ({format}, about {est / 1e6:,.1f} MB for {games:,} games)")
    common = dict(size=size, max_plies=max_plies, progress=progress)
    results = {"seed": seed}
    table = None
    if "a" in which:
        out("== Stage A: random vs random ==")
        t0 = time.perf_counter()
        res = run_games(games_a, RandomAgent(), RandomAgent(), seed=seed, **common)
        dt = time.perf_counter() - t0
        _print_result("Tournament", res, out=out)
        out(f"  time {dt:.2f} s ({games_a / dt:,.0f} games/s)")
        results["a"] = res
    if "b" in which:
        out("== Stage B: discounted state values from random games ==")
        announce(games_b, random_path)
        t0 = time.perf_counter()
        table, res = collect_values(games_b, size=size, max_plies=max_plies, gamma=gamma,
                                    draw_score=draw_score, seed=seed + 1, progress=progress,
                                    symmetric=symmetric)
        t1 = time.perf_counter()
        nbytes = save_values(table, random_path, format)
        t2 = time.perf_counter()
        _print_result("Games", res, out=out)
        empty = " " * (size * size)
        out(f"  unique states: {len(table):,}   scored states: {table.observations:,}   "
            f"gamma {gamma}")
        out(f"  empty board: {table.get(empty)}")
        out(f"  saved {random_path} ({nbytes / 1e6:.1f} MB)   play+score {t1 - t0:.2f} s, "
            f"writing {t2 - t1:.2f} s, total {t2 - t0:.2f} s")
        results["b"] = dict(res, states=len(table), seconds=t2 - t0, path=random_path)
    if "c" in which:
        out("== Stage C: epsilon-greedy value agent ==")
        if table is None:
            t0 = time.perf_counter()
            if not os.path.exists(random_path):
                other = os.path.splitext(random_path)[0] + (".npz" if ext == ".json" else ".json")
                random_path = other if os.path.exists(other) else random_path
            table = load_values(random_path, symmetric=symmetric)
            out(f"  loaded {random_path}: {len(table):,} states in {time.perf_counter() - t0:.2f} s")
        greedy = GreedyValueAgent(table, epsilon=epsilon, unknown=unknown,
                                  exact_terminal=not seed_faithful)
        res = run_games(games_c_eval, greedy, RandomAgent(), seed=seed + 2, **common)
        _print_result(f"Greedy (eps={epsilon}, unknown={unknown}) vs random, alternating sides",
                      res, "greedy", "random", out=out)
        results["c_eval"] = res
        if games_c_collect:
            announce(games_c_collect, greedy_path)
            t0 = time.perf_counter()
            gtable, gres = collect_values(games_c_collect, greedy,
                                          GreedyValueAgent(table, epsilon=epsilon, unknown=unknown,
                                                           exact_terminal=not seed_faithful),
                                          size=size, max_plies=max_plies, gamma=gamma,
                                          draw_score=draw_score, seed=seed + 3, progress=progress,
                                          symmetric=symmetric)
            nbytes = save_values(gtable, greedy_path, format)
            _print_result("Greedy vs greedy data games", gres, out=out)
            out(f"  unique states: {len(gtable):,}   saved {greedy_path} ({nbytes / 1e6:.1f} MB) "
                f"in {time.perf_counter() - t0:.2f} s")
            results["c_collect"] = dict(gres, states=len(gtable), path=greedy_path)
    return results


def main(argv=None, prog="python -m ttt_engine.quixo"):
    """``python -m ttt_engine.quixo stages [abc] [options]`` (``prog``: the name
    shown in usage lines); the console tool's ``quixo`` command, see
    ``ttt_engine.quixo.commands``.  Returns 0; an error exits through ``SystemExit``
    with the status (1 a file problem, 2 bad input)."""
    from ttt_engine.cli import run_standalone
    code = run_standalone("quixo", argv, prog)
    if code:
        raise SystemExit(code)
    return 0


def solved_move_values(board):
    """``{move: score}`` of a 3x3 or 4x4 position from the retrograde solution
    (5x5: from the endgame tablebase when it is built and the board has at
    most one blank cube, else None), scored as ``search.move_values`` scores: a win in
    ``p`` plies ``WIN_SCORE - p`` (the move cap is ignored, as in :func:`solve`)."""
    if board.size not in (3, 4):
        return _tablebase.solved_move_values(board)
    from ttt_engine.search import WIN_SCORE
    sol = solution(board.size)
    me = board.to_move
    values = {}
    for m, child in _verbs.children(board):
        if child.is_terminal():
            w = child.winner
            v = 0.0 if w == "draw" else (WIN_SCORE - 1.0 if w == me else -(WIN_SCORE - 1.0))
        else:
            value, plies = sol.value(child)          # for the opponent, to move there
            if value == "draw":                      # no distance to the end (plies is None)
                v = 0.0
            else:
                v = WIN_SCORE - (plies + 1) if value == "loss" else -(WIN_SCORE - (plies + 1))
        values[m] = float(v)
    return values


# ---------------------------------------------------------------------------- text face
# Moves are typed as the cube taken and the end it is pushed back in from, e.g. a1R.
def _cube(board, move):
    cell, _side = divmod(move, 4)
    return divmod(cell, board.size)


def _parse(board, text):
    t = _text.move_text(text, "a1R")
    if not t:
        raise ValueError("empty input: type a move like a1R (the cube to take, then the end "
                         "T/B/L/R it is pushed back in from)")
    m = board.parse_move(t)
    r, c = _cube(board, m)
    v = board.cells[r * board.size + c]
    me = board.to_move
    if v and "XO"[v - 1] != me:
        raise ValueError(f"the cube on {'abcde'[c]}{r + 1} shows {'XO'[v - 1]}: take a blank "
                         f"cube or one showing {me}")
    board.copy().push(m)
    return m


def _format(board, move):
    return board.move_to_str(move)


def _draw(board, style, last):
    n = board.size
    cells = board.cells
    grid = [[".XO"[cells[r * n + c]] for c in range(n)] for r in range(n)]
    hl = None
    if last is not None:
        r, c = _cube(board, last)
        side = "TBLR"[last % 4]
        hl = {"T": (0, c), "B": (n - 1, c), "L": (r, 0), "R": (r, n - 1)}[side]
    return _text.grid(style, grid, n, n, hl, colours={"X", "O"})


def _legend(board):
    n = board.size if board is not None else 5
    last = "abcde"[n - 1]
    return (f"Columns a-{last} from the left, rows 1-{n} from the top. A move is the cube you "
            "take from the outer\nring (blank or yours) and the end it is pushed back in from: "
            "T top, B bottom, L left, R right;\ne.g. a1R takes the top-left cube and pushes "
            "it in at the right end of row 1.\n? lists the legal moves, q quits.")


def _hint(board):
    return "e.g. a1R"


def _move_geometry(board, move):
    """The cube taken, the end it is pushed in at and the side (T/B/L/R)."""
    n = board.size
    cell, side = divmod(int(move), 4)
    r, c = divmod(cell, n)
    d = "TBLR"[side]
    end = {"T": (0, c), "B": (n - 1, c), "L": (r, 0), "R": (r, n - 1)}[d]
    return (r, c), end, d


def _svg_decor(board):
    """The outer ring, where the cubes are taken from, shaded."""
    n = board.size
    return 0, {(r, c): "#eeeeee" for r in range(n) for c in range(n)
               if r in (0, n - 1) or c in (0, n - 1)}


def _greedy(seed=None, values=None, games=None, epsilon=0.0):
    """The state-value agent: ``values`` a ValueTable or a saved file; without
    one, values are collected from ``games`` random games first (default
    100,000; with ``values`` there are none to play, so ``games`` is refused)."""
    if values is not None and games is not None:
        raise ValueError("games= applies without values= (the random games values are "
                         "collected from); with values= there are none to play")
    if values is None:
        values, _ = collect_values(100_000 if games is None else games, seed=seed)
    elif not isinstance(values, ValueTable):
        values = load_values(values)
    return GreedyValueAgent(values, epsilon=epsilon, exact_terminal=True,
                            seed=resolve_seed(seed))


def _heuristic(seed=None):
    """One ply: a winning move, never a losing one when another exists, else the
    best line-count evaluation (random tie break)."""
    return HeuristicAgent(seed=resolve_seed(seed))


#: The registry entry (:mod:`ttt_engine.games`): what generic code asks of Quixo.
GAME = Game(
    "quixo", "Quixo", ("X", "O"), {"size": 5, "max_plies": 200}, __name__,
    engines.standard(
        "quixo",
        Engine("greedy", "the state-value agent, played greedily (values from random "
               "games)", _greedy, extra=("values", "games", "epsilon")),
        Engine("heuristic", "one ply: a win, never a loss when avoidable, else the "
               "best line count", _heuristic),
        Engine("alphabeta", "alpha-beta with a table (depth, default 3; time for "
               "iterative deepening)", engines.alphabeta(3, tt_min_depth=1), engines.DEPTH),
        value_search=dict(search="mcts")),
    default_engine="best",
    text=(_parse, _format, _draw, _legend, _hint),
    yardstick_source="ttt_engine.quixo.yardstick",
    move_geometry=_move_geometry,
    svg_decor=_svg_decor,
    temperature_moves=12,
    training=dict(MIDDLE_TRAINING, temperature_moves=8),
    analysis_scale=200.0,
    exact_values=solved_move_values,
    table_value=_tablebase.position_score,
    long_solve=lambda board: ("4x4 Quixo is solved by a retrograde pass of many minutes: use "
                              "ttt_engine.quixo.solution(4) once, in Python")
    if board.size == 4 else None,
    # a leaf makes its ~40 children at its eighth visit, not its first: about
    # 3x the simulations a second, and a 1-s search on two threads stays
    # within its arenas (docs/alphazero.md, "Quixo 5x5")
    best_mcts={"solver": True, "playout": "decisive", "expand_after": 8},
    # the network of a 110-minute run on the 5x5 board (docs/alphazero.md),
    # searched as it was trained: half the leaf value from one random playout
    ships_network=True,
    network_settings={"playout_weight": 0.5},
    commands="ttt_engine.quixo.commands",
    moved={"_quixo_files": "ttt_engine.quixo._files", "cli.quixo": "ttt_engine.quixo.commands"},
    symmetries=_symmetry.cells_and_directions,
    model_kinds={
        "ttt_engine.quixo.GreedyValueAgent": ModelKind(
            "Quixo GreedyValueAgent", "ttt_engine.quixo:GreedyValueAgent.load"),
        "ttt_engine.quixo.ValueTable": ModelKind(
            "Quixo value table", "ttt_engine.quixo:load_values",
            json_reader="ttt_engine.quixo.load_values")},
    value_tables=ValueTables(
        load_values, save_values,
        lambda games, *, seed=None, board=None, progress=False: collect_values(
            games, seed=seed, progress=progress,
            **({} if board is None else {"size": board.size}))[0],
        estimate_value_file_size, tag=lambda board: f"{board.size}x{board.size}"),
    value_features=VALUE_FEATURES,
)
