"""Clobber play modes: agents, ``basic`` and ``extended``.

- ``basic``: minimax against minimax, both with the adaptive heuristic (chosen
  at every turn from the mover's heuristic family by the game phase), depth 3.
- ``extended``: each side configured: algorithm, heuristic, depth (and an
  optional time limit that turns on iterative deepening).

The final board, the winner and the number of rounds (moves played) go to
stdout; per-move statistics (nodes visited, seconds, value) and totals go to
stderr, as in the seed.  The searches are the generic ones of
``ttt_engine.search`` running on ``ttt_engine.clobber.Board`` through the game
interface.

Command line::

    python -m ttt_engine.clobber.play basic board.txt
    python -m ttt_engine.clobber.play extended board.txt \\
        --b-algorithm alphabeta --b-heuristic 2 --b-depth 4 \\
        --w-algorithm minimax --w-heuristic adaptive --w-depth 3
    python -m ttt_engine.clobber.play basic --size 4x4      # standard start, no file
    python -m ttt_engine.clobber.play basic -               # board from stdin
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from ttt_engine._core.games.clobber import board as C
from ttt_engine import search as S
from ttt_engine._util import check_board, check_choice, check_depth, check_int
from ttt_engine._agent import SearchAgent, require_moves

__all__ = ["ClobberAgent", "MoveStats", "GameRecord", "play_game", "play_basic",
           "play_extended", "main", "ALGORITHMS"]

#: ``minimax``: plain minimax (MAX/MIN, no pruning); ``alphabeta``: plain
#: alpha-beta (same values, pruning only); ``alphabeta-tt``: negamax
#: alpha-beta with transposition table and move ordering (the search core's).
ALGORITHMS = ("minimax", "alphabeta", "alphabeta-tt")
SEED_DEPTH = 3
DEFAULT_TT_SIZE = 1 << 16


@dataclass
class MoveStats:
    """One move of a game: who played what, with the search's statistics."""
    round: int
    player: str
    move: int
    notation: str
    value: float
    nodes: int
    seconds: float
    depth: int
    heuristic: str


@dataclass
class GameRecord:
    """Result of ``play_game``: winner (``"B"``/``"W"``), rounds (moves played),
    the final board and the per-move statistics."""
    winner: str
    rounds: int
    board: object
    moves: list = field(default_factory=list)

    def totals(self, player):
        """``(nodes, seconds)`` summed over ``player``'s moves."""
        ms = [m for m in self.moves if m.player == player]
        return sum(m.nodes for m in ms), sum(m.seconds for m in ms)


class ClobberAgent(SearchAgent):
    """A search agent: a search algorithm, a heuristic and a depth.

    - algorithm: one of ``ALGORITHMS``.
    - heuristic: ``"adaptive"`` (the choice by game phase, made at the
      root each turn from the mover's family), ``"1"``/``"2"``/``"3"`` (the
      mover's seed heuristic with that key: B1..B3 for B, W1..W3 for W), a
      fixed name (``"pieces"``, ``"safe"``, ``"B2"``, ...; see
      ``clobber.HEURISTICS``) or ``"adaptive-leaf"`` (the phase rule applied
      at every leaf instead of once per turn).  Leaves are scored from the
      mover's point of view (a fixed ``root_player``).
    - depth: plies (3 in the ``basic`` mode).
    - time: seconds per move; turns on iterative deepening (1, 2, ...
      plies up to ``depth``; the last completed depth is played);
      ``time_limit`` is its deprecated name.
    - seed: recorded (the searches are deterministic); ``simulations`` does
      not apply (None).
    - tt_size: entries of the agent's own transposition table (``alphabeta-tt``);
      the default 2**16 (1.5 MB) stays in cache, which on Clobber is faster
      per node than a larger table (see docs/clobber.md).

    ``last_stats``: the last move's value, move (also ``best_move``), nodes,
    seconds (also ``time``), depth and heuristic; ``last`` is its old name.
    """

    def __init__(self, algorithm="minimax", heuristic="adaptive", depth=SEED_DEPTH,
                 time=None, tt_size=DEFAULT_TT_SIZE, *, time_limit=None, seed=None,
                 simulations=None):
        self._init_search("ClobberAgent", time, time_limit, seed, simulations)
        self.algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
        if not isinstance(heuristic, str):
            raise ValueError(f"heuristic must be a string, got {heuristic!r}")
        if heuristic not in ("adaptive", "adaptive-leaf", "1", "2", "3"):
            C.heuristic_id(heuristic)          # validates the name
        self.heuristic = heuristic
        self.depth = check_depth("depth", depth)
        self.tt_size = check_int("tt_size", tt_size, min=1, max=1 << 30)
        self._searcher = None

    @property
    def last(self):
        """Old name of ``last_stats`` (None before the first move)."""
        return self.last_stats or None

    def _config(self):
        return {"algorithm": self.algorithm, "heuristic": self.heuristic, "depth": self.depth,
                "time": self.time, "tt_size": self.tt_size, "seed": self.seed}

    @property
    def name(self):
        t = f", {self.time:g}s" if self.time else ""
        return f"{self.algorithm}({self.heuristic}, depth {self.depth}{t})"

    def __repr__(self):
        return f"ClobberAgent({self.algorithm!r}, {self.heuristic!r}, {self.depth}, {self.time!r})"

    def analyse(self, board, **live):
        """Every move's value and line at its depth with its heuristic for the
        mover, deeper by iteration when timed (the analysis protocol, docs/agents.md)."""
        from ttt_engine import _explain
        return _explain.depth_first(self, board, heuristic=self.heuristic_for(board)[1],
                                    depth=self.depth, time=self.time, **live)

    def heuristic_for(self, board):
        """``(label, id)`` of the heuristic this agent uses on ``board`` for its mover."""
        p = board.to_move
        h = self.heuristic
        if h == "adaptive":
            label = board.adaptive_choice(p)
        elif h in ("1", "2", "3"):
            label = p + h
        elif h == "adaptive-leaf":
            return h, C.heuristic_id("adaptive", p)
        else:
            label = h
        return label, C.heuristic_id(label, p)

    def _search(self, board, depth, h, time_limit=None):
        if self.algorithm == "alphabeta-tt":
            if self._searcher is None:
                self._searcher = S.ABSearcher(self.tt_size)
            return S.alphabeta(board, depth, heuristic=h, time_limit=time_limit,
                               iterative=False if time_limit is None else None,
                               searcher=self._searcher)
        return S.minimax(board, depth, heuristic=h, alphabeta=self.algorithm == "alphabeta",
                         time_limit=time_limit)

    def get_move_and_stats(self, board):
        """Search the board: ``(value, move, nodes, seconds)``;
        also kept as ``self.last_stats`` (a dict with the heuristic and depth)."""
        require_moves(self, board)                  # made by the registry: naming the engine
        check_board(board, C.Board, "ClobberAgent")
        label, h = self.heuristic_for(board)
        t0 = time.perf_counter()
        if self.time is None:
            r = self._search(board, self.depth, h)
            nodes, value, move, depth = r.nodes, r.value, r.best_move, r.depth
        elif self.algorithm == "alphabeta-tt":
            r = self._search(board, self.depth, h, self.time)
            nodes, value, move, depth = r.nodes, r.value, r.best_move, r.depth
        else:
            # iterative deepening around the table-free searches
            nodes, value, move, depth = 0, 0.0, None, 0
            deadline = t0 + self.time
            for d in range(1, self.depth + 1):
                left = deadline - time.perf_counter()
                if d > 1 and left <= 0:
                    break
                try:
                    r = self._search(board, d, h, None if d == 1 else left)
                except TimeoutError:
                    break
                nodes += r.nodes
                value, move, depth = r.value, r.best_move, d
                if r.exact:
                    break
        seconds = time.perf_counter() - t0
        if move is None:                      # cannot happen on a live board
            move = board.legal_moves[0]
        self.last_stats = {"value": value, "move": move, "best_move": move, "nodes": nodes,
                           "seconds": seconds, "time": seconds, "depth": depth,
                           "heuristic": label}
        return value, move, nodes, seconds

    def select_move(self, board):
        """A move for the side to move (agent protocol)."""
        return self.get_move_and_stats(board)[1]


def _fmt_value(v):
    if abs(v) >= S.MATE_BOUND:
        plies = int(round(S.WIN_SCORE - abs(v)))
        return f"{'win' if v > 0 else 'loss'} in {plies}"
    return f"{v:g}"


def play_game(board, agent_b, agent_w, *, out=None, err=None, max_rounds=None):
    """Play ``board`` (a ``clobber.Board``, not modified) to the end between two
    agents; per-move statistics to ``err`` (default stderr), final board,
    winner and rounds to ``out`` (default stdout).  Returns a ``GameRecord``."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    check_board(board, C.Board, "clobber_play.play_game")
    max_rounds = check_int("max_rounds", max_rounds, min=0, allow_none=True)
    b = board.copy()
    agents = {"B": agent_b, "W": agent_w}
    rec = GameRecord(winner=None, rounds=0, board=b)
    for p in "BW":
        print(f"{p}: {getattr(agents[p], 'name', repr(agents[p]))}", file=err)
    while not b.is_terminal() and (max_rounds is None or rec.rounds < max_rounds):
        p = b.to_move
        agent = agents[p]
        if hasattr(agent, "get_move_and_stats"):
            value, move, nodes, seconds = agent.get_move_and_stats(b)
            info = agent.last_stats
        else:
            t0 = time.perf_counter()
            move = agent.select_move(b)
            seconds = time.perf_counter() - t0
            value, nodes, info = float("nan"), 0, {"depth": 0, "heuristic": "-"}
        ms = MoveStats(rec.rounds + 1, p, move, C.format_move(move), value, nodes, seconds,
                       info["depth"], info["heuristic"])
        b.push(move)
        rec.moves.append(ms)
        rec.rounds += 1
        print(f"round {ms.round:3d}  {p}  {ms.notation}  heuristic {ms.heuristic:<13} "
              f"depth {ms.depth}  value {_fmt_value(value):>10}  nodes {nodes:>10d}  "
              f"time {seconds:.4f} s", file=err)
    rec.winner = b.winner
    for p in "BW":
        nodes, secs = rec.totals(p)
        nmoves = sum(1 for m in rec.moves if m.player == p)
        rate = f"{nodes / secs:,.0f} nodes/s" if secs > 0 else "-"
        print(f"{p}: {nmoves} moves, {nodes} nodes visited, {secs:.4f} s ({rate})", file=err)
    print(b.to_string(), file=out)
    print(f"Winner: {rec.winner if rec.winner else 'none (stopped)'}", file=out)
    print(f"Rounds: {rec.rounds}", file=out)
    return rec


def play_basic(board, depth=SEED_DEPTH, *, out=None, err=None):
    """The ``basic`` mode: minimax vs minimax, adaptive heuristic, ``depth`` 3."""
    a = ClobberAgent("minimax", "adaptive", depth)
    b = ClobberAgent("minimax", "adaptive", depth)
    return play_game(board, a, b, out=out, err=err)


def play_extended(board, b_settings=None, w_settings=None, *, out=None, err=None):
    """The ``extended`` mode: ``b_settings`` / ``w_settings`` are dicts of
    ``ClobberAgent`` arguments (``algorithm``, ``heuristic``, ``depth``,
    ``time``); missing keys take the defaults (minimax, adaptive, 3)."""
    def make(settings):
        settings = dict(settings or {})
        unknown = set(settings) - {"algorithm", "heuristic", "depth", "time", "time_limit"}
        if unknown:
            raise ValueError(f"unknown agent setting(s): {', '.join(sorted(unknown))}")
        return ClobberAgent(**settings)
    return play_game(board, make(b_settings), make(w_settings), out=out, err=err)


# ---------------------------------------------------------------------- command line
def main(argv=None, *, out=None, err=None, prog=None):
    """Command-line entry point (the console tool's ``clobber`` command, see
    ``ttt_engine.clobber.commands``); returns the exit status (0 ok, 1 a file cannot
    be read, 2 bad input).  ``out`` / ``err`` redirect stdout / stderr."""
    import contextlib
    from ttt_engine.cli import run_standalone
    with contextlib.redirect_stdout(out or sys.stdout), \
            contextlib.redirect_stderr(err or sys.stderr):
        return run_standalone("clobber", argv, prog or "python -m ttt_engine.clobber.play")


if __name__ == "__main__":
    sys.exit(main())
