"""What an engine thinks of a position: one row per legal move, for every game
and engine of the registry (``ttt_engine.games``).

>>> from ttt_engine import games
>>> g = games.get("ttt")
>>> a = g.analyse(g.new_board(), "mcts", simulations=2000, seed=1)
>>> a.kind, len(a.rows), a.best_move in g.new_board().legal_moves
('mcts', 9, True)
>>> print(a.table())                                      # doctest: +SKIP
>>> a._repr_svg_()                                        # doctest: +SKIP

Every agent explains itself: the analysis protocol is ``agent.analyse(board)
-> Analysis`` (optionally taking ``on_update=`` and ``stop=`` for live,
stoppable searches), the value for the side to move, the best line, each
move's scores and visits and the budget used (``stats``); docs/agents.md
says what each engine gives.  :func:`analyse` (and the web page, the
console's ``--verbose`` and the tournament records, through
:func:`explain`) read that and nothing else of an agent; an agent without
``analyse`` is asked only for its move.  An agent from elsewhere builds its
answer with :meth:`Analysis.of`.  The library's engines build theirs in
``ttt_engine._explain``:

- ``mcts`` / ``az``: the visits and mean value of each root move, from the
  same search ``select_move`` runs, and each move's line, the most visited
  path below it (read without changing the tree);
- ``alphabeta`` / ``minimax`` / ``perfect``: each move's value searched with a
  full window at the engine's depth (exact for ``perfect`` and short games: a
  win or loss with its distance in plies), and its principal variation;
- ``q`` (Tic-Tac-Toe Q-learning): the Q-value of each move;
- ``greedy`` (Quixo state values): the estimated score of the position after
  each move, and how many observations it rests on;
- ``treeq`` / ``sarsa``: the visits and values of the learned root moves, each
  with its line, the learner's own choice at every node of its Q tree;
- ``q`` and ``greedy`` give each move's line too: the agent's greedy choice
  for both sides after it, until the game ends (``greedy``: at most
  ``PV_PLIES``, and not past a position its table has never seen).

``score`` is every number brought to [-1, 1] for the side to move (+1 a win),
which the heat map (:meth:`Analysis.to_svg`, the boards' SVG) and the
evaluation bar of ``ttt-engine serve`` draw.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from ttt_engine import _registry
from ttt_engine._agent import check_game
from ttt_engine._svg import board_svg, move_geometry
from ttt_engine._util import check_int, check_real, takes_keyword

__all__ = ["MoveRow", "Analysis", "analyse", "explain", "move_geometry", "CLOSE", "LINES", "outlook",
           "MoveNote", "review", "position_value", "MISTAKE", "BLUNDER"]

#: Moves whose score is within this of the best one's are "close alternatives".
CLOSE = 0.05
#: Principal variations a depth-first analysis gives beyond the best move's (multi-PV).
LINES = 3
#: Longest principal variation read from a search tree (plies).
PV_PLIES = 16
#: Visits a step of a tree's line needs to be shown, unless the solver proved it
#: (a node visited once holds only the move its expansion or first visit played).
PV_MIN_VISITS = 2


@dataclass(frozen=True)
class MoveRow:
    """One legal move in an :class:`Analysis`.

    move / text: the move and its notation; score: in [-1, 1] for the side to
    move (None when the engine says nothing about it); value: the engine's own
    number (MCTS mean, search score, Q-value, value estimate); visits: MCTS /
    tree visits; observations: table entries behind a value estimate; pv: the
    principal variation as move texts, this move first; verdict: ``"win in
    3"``, ``"draw"``, ``"loss in 4"`` when the value is exact; label: the short
    text drawn on the board."""
    move: int
    text: str
    score: float | None = None
    value: float | None = None
    visits: int | None = None
    observations: int | None = None
    pv: tuple = ()
    verdict: str | None = None
    label: str = ""


@dataclass(frozen=True)
class Analysis:
    """An engine's view of a position (see the module docstring).  ``rows`` are
    sorted best first; ``evaluation`` is the position's score for the side to
    move in [-1, 1]; ``pv`` the best line; ``stats`` the budget the engine
    used and its statistics (simulations, nodes, depth, time ...); ``done``
    is False for the updates a time-budgeted search sends while it runs."""
    game: str
    engine: str
    kind: str
    side: str
    board: object = field(repr=False)
    rows: tuple = ()
    best_move: int | None = None
    evaluation: float | None = None
    evaluation_text: str = ""
    stats: dict = field(default_factory=dict, repr=False)
    done: bool = True

    @property
    def best(self):
        """The best row (None when there is none)."""
        return next((r for r in self.rows if r.move == self.best_move), None)

    @property
    def pv(self):
        """The best line: the best row's principal variation (move texts)."""
        best = self.best
        return best.pv if best is not None else ()

    @classmethod
    def of(cls, board, moves, *, best_move=None, value=None, stats=None, engine="agent",
           kind="agent"):
        """The analysis an agent from elsewhere builds in its ``analyse``:
        ``moves`` is ``{move: {"score": s, ...}}`` with keys among those of
        :class:`MoveRow` (``pv`` as moves or move texts, this move first);
        ``best_move`` defaults to the move of highest score, ``value`` (the
        position's score in [-1, 1] for the side to move) to its score;
        ``stats``: the budget used (``simulations``, ``nodes``, ``depth``,
        ``time`` ...)."""
        game = _registry.of_board(board)
        rows = []
        for m, d in moves.items():
            d = dict(d)
            if d.get("pv") and not isinstance(d["pv"][0], str):
                b, texts = board.copy(), []
                for step in d["pv"]:            # up to a move that does not apply
                    try:
                        texts.append(game.move_to_str(b, step))
                        b.push(step)
                    except (ValueError, TypeError):
                        break
                d["pv"] = texts
            d["pv"] = tuple(d.get("pv") or ())
            rows.append(MoveRow(int(m), game.move_to_str(board, m), **d))
        rows.sort(key=lambda r: -(r.score if r.score is not None else -2))
        if best_move is None and rows:
            best_move = rows[0].move
        top = next((r for r in rows if r.move == best_move), None)
        if value is None and top is not None:
            value = top.score
        text = "" if value is None else f"{value:+.2f}"
        return cls(game.key, engine, kind, board.to_move, board.copy(), tuple(rows), best_move,
                   value, text, dict(stats or {}))

    def alternatives(self, margin=CLOSE, limit=3):
        """Up to ``limit`` rows other than the best whose score is within
        ``margin`` of its score, best first."""
        margin = check_real("margin", margin, low=0)
        limit = check_int("limit", limit, min=0)
        best = self.best
        if best is None or best.score is None:
            return []
        close = [r for r in self.rows if r.move != best.move and r.score is not None
                 and best.score - r.score <= margin]
        return sorted(close, key=lambda r: -r.score)[:limit]

    def heat(self):
        """``{move: (score, label)}`` for the moves with a score."""
        return {r.move: (r.score, r.label) for r in self.rows if r.score is not None}

    def to_svg(self, last_move=None):
        """The board with the scores as a heat map, the best move in green and
        the close alternatives in grey."""
        return board_svg(self.board, heat=self.heat(), best=self.best_move,
                         alternatives=[r.move for r in self.alternatives()],
                         last_move=last_move)

    def _repr_svg_(self):
        return self.to_svg()

    def table(self):
        """The rows as an aligned text table."""
        cols = [("move", lambda r: r.text), ("score", lambda r: _f(r.score, "+.3f")),
                ("value", lambda r: _f(r.value, ".4g")), ("visits", lambda r: _f(r.visits, ",")),
                ("observations", lambda r: _f(r.observations, ",")),
                ("verdict", lambda r: r.verdict or ""), ("pv", lambda r: " ".join(r.pv))]
        cols = [(h, f) for h, f in cols if h in ("move", "score") or any(f(r) for r in self.rows)]
        lines = [[h for h, _ in cols]] + [[f(r) for _, f in cols] for r in self.rows]
        widths = [max(len(line[i]) for line in lines) for i in range(len(cols))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip()
                         for line in lines)

    def to_dict(self):
        """Plain JSON-ready data (the board as its ``to_string``)."""
        return {"game": self.game, "engine": self.engine, "kind": self.kind, "side": self.side,
                "rows": [dict(asdict(r), pv=list(r.pv)) for r in self.rows],
                "best_move": self.best_move, "evaluation": self.evaluation,
                "evaluation_text": self.evaluation_text,
                "alternatives": [r.move for r in self.alternatives()],
                "outlook": self.outlook(), "pv": list(self.best.pv) if self.best else [],
                "stats": _jsonable(self.stats), "done": self.done}

    def outlook(self):
        """The evaluation in words: ``"X wins in 7"``, ``"draw"``, or the side
        to move's winning chance (``"X 64%"``); "" without an evaluation."""
        best = self.best
        return outlook(_registry.get(self.game).sides, self.side, self.evaluation,
                       best.verdict if best is not None else None)


def outlook(sides, side, score, verdict=None):
    """``score`` (in [-1, 1] for ``side``, to move) or the exact ``verdict``
    (``"win in 3"``, ``"loss in 2"``, ``"win"``, ``"draw"``) in words, naming the winner."""
    other = sides[1] if side == sides[0] else sides[0]
    if verdict:
        word, _, plies = verdict.partition(" in ")
        if word == "draw":
            return "draw"
        winner = side if word == "win" else other
        return f"{winner} wins" + (f" in {plies}" if plies else "")
    if score is None:
        return ""
    # an estimate is never certain: 1-99%
    return f"{side} {min(99, max(1, round(50 + 50 * score)))}%"


def _f(v, spec):
    return "" if v is None else format(v, spec)


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    return str(v)


# ---------------------------------------------------------------------------- engines
def search_score(game_key, v):
    """A search value (win distance or heuristic) in [-1, 1] and its verdict."""
    from ttt_engine.search import MATE_BOUND, WIN_SCORE
    if abs(v) >= MATE_BOUND:
        plies = int(round(WIN_SCORE - abs(v)))
        word = "win" if v > 0 else "loss"
        # a quicker win scores a little higher, a slower loss a little less low
        return math.copysign(1.0 - min(plies, 99) * 1e-4, v), f"{word} in {plies}"
    return math.tanh(v / _registry.get(game_key).analysis_scale), None


def _build(game, engine, seed, simulations, time, depth, options):
    if isinstance(engine, str):
        return engine, game.make_agent(engine, seed=seed, simulations=simulations, time=time,
                                       depth=depth, **options)
    if not callable(getattr(engine, "select_move", None)):
        raise ValueError(f"engine must be an engine name of {game.title} "
                         f"({', '.join(game.engines)}) or an agent, got {type(engine).__name__}")
    if any(v is not None for v in (seed, simulations, time, depth)) or options:
        raise ValueError("budgets and options go with an engine name; an agent brings its own")
    return getattr(engine, "name", type(engine).__name__), engine




def analyse(game, board, engine, *, seed=None, simulations=None, time=None, depth=None,
            on_update=None, stop=None, **options):
    """What ``engine`` (a name of ``game``'s engines, built with the budgets,
    or an agent) thinks of ``board``: an :class:`Analysis`, the agent's own
    (:func:`explain`).  ``on_update(analysis)`` receives partial results while
    a time-budgeted search runs (MCTS in slices of a quarter second,
    alpha-beta one depth at a time); ``stop()`` returning True ends such a
    search early with what it has.  Reading the MCTS or PUCT lines leaves the
    tree as the search left it: an agent handed in searches on from it at its
    next move."""
    game = _registry.get(game) if isinstance(game, str) else game
    game._check_board(board)
    if not isinstance(engine, str):
        check_game(engine, board)       # an agent made for another game: select_move's line
    if board.is_terminal():
        raise ValueError("the game is over on this board: there is nothing to analyse")
    name, agent = _build(game, engine, seed, simulations, time, depth, options)

    last = [None, None]         # the last update and its named copy: the final one is the same

    def named(a):
        if last[0] is not a:
            last[:] = a, replace(a, game=game.key, engine=name)
        return last[1]
    a = explain(agent, board, on_update=None if on_update is None
                else (lambda a: on_update(named(a))), stop=stop)
    return named(a)


def explain(agent, board, *, on_update=None, stop=None):
    """``agent.analyse(board)`` (the analysis protocol, docs/agents.md), given
    ``on_update`` and ``stop`` where its ``analyse`` takes them; an agent with
    no ``analyse`` is asked for its move alone (kind ``"move"``, no scores).
    ``TypeError`` when ``analyse`` returns anything but an :class:`Analysis`
    of ``board`` with a legal best move."""
    own = getattr(agent, "analyse", None)
    who = getattr(agent, "name", None) or type(agent).__name__
    if not callable(own):
        game = _registry.of_board(board)
        best = agent.select_move(board.copy())
        rows = [MoveRow(m, game.move_to_str(board, m)) for m in board.legal_moves]
        return Analysis(game.key, who, "move", board.to_move, board.copy(), tuple(rows), best)
    kw = {k: v for k, v in (("on_update", on_update), ("stop", stop))
          if v is not None and takes_keyword(own, k)}
    a = own(board.copy(), **kw)
    if not isinstance(a, Analysis):
        raise TypeError(f"{who}.analyse(board) must return a ttt_engine.analysis.Analysis, "
                        f"got {type(a).__name__}")
    if a.best_move not in board.legal_moves:
        raise TypeError(f"{who}.analyse(board) gave best move {a.best_move!r}, "
                        "not a legal move of the board")
    return a



# ---------------------------------------------------------------------------- game review
#: A move that lowers its side's winning chance ((1 + score) / 2) by this much is a mistake ...
MISTAKE = 0.1
#: ... and by this much a blunder.
BLUNDER = 0.2


@dataclass(frozen=True)
class MoveNote:
    """One move of a reviewed game.  ``before`` / ``after``: the mover's score
    in [-1, 1] before the move (its best) and after it; ``exact_before`` /
    ``exact_after``: the exact results in words (``"X wins in 5"``,
    ``"draw"``) where the position is solved; ``mark``: ``""``,
    ``"mistake"`` or ``"blunder"``; ``note``: ``"threw away the win"`` or
    ``"threw away the draw"`` when an exact result got worse, else ``""``;
    ``best``: the engine's move there (text)."""
    ply: int
    move: int
    text: str
    side: str
    before: float | None
    after: float | None
    exact_before: str | None = None
    exact_after: str | None = None
    mark: str = ""
    note: str = ""
    best: str | None = None


def _exact_reach(game, board):
    """True when the exact engines finish ``board`` in reasonable time."""
    if board.exhaustive_limit() is not None:
        return False
    return game.long_solve is None or game.long_solve(board) is None


def position_value(game, board, engine=None, **budgets):
    """``(score, verdict, best_move, move_scores)`` of ``board`` for its side to
    move: exact where the exact engines finish it (``move_scores``: every
    move's exact score and verdict), else ``engine``'s evaluation with
    ``budgets`` (``move_scores`` None).  A finished game: its result."""
    from ttt_engine import search as S
    game = _registry.get(game) if isinstance(game, str) else game
    if board.is_terminal():
        w = board.winner
        if w == "draw":
            return 0.0, "draw", None, None
        return (1.0, "win in 0", None, None) if w == board.to_move else \
            (-1.0, "loss in 0", None, None)
    if _exact_reach(game, board):
        values = S.exact_move_values(board, who="review")
        scored = {m: search_score(game.key, v) for m, v in values.items()}
        scored = {m: (sc, vd or "draw") for m, (sc, vd) in scored.items()}
        best = max(scored, key=lambda m: (scored[m][0], -m))
        return scored[best][0], scored[best][1], best, scored
    a = analyse(game, board, engine if engine is not None else game.default_engine, **budgets)
    return a.evaluation, (a.best.verdict if a.best else None), a.best_move, None


def review(game, moves, *, start=None, engine=None, on_note=None, stop=None, **budgets):
    """Every move of a game marked from the drop in its side's evaluation:
    a list of :class:`MoveNote`.  ``start``: the first position (default a new
    board); ``engine`` and ``budgets`` evaluate the positions exact play does
    not finish (see :func:`position_value`); ``on_note(note)`` gets each note
    as it is made; ``stop()`` returning True ends the review early."""
    game = _registry.get(game) if isinstance(game, str) else game
    board = game.new_board() if start is None else start.copy()
    game._check_board(board)
    sides = game.sides
    notes = []
    here = position_value(game, board, engine, **budgets)
    for ply, m in enumerate(moves, 1):
        if stop is not None and stop():
            break
        side = board.to_move
        text = game.move_to_str(board, m)
        score, verdict, best, scored = here
        board.push(m)
        here = position_value(game, board, engine, **budgets)
        if scored is not None:                      # exact: the move's own value
            after, after_verdict = scored[m]
        else:
            after = None if here[0] is None else -here[0]
            after_verdict = here[1] if board.is_terminal() or here[3] is not None else None
            after_verdict = _flip(after_verdict)
        exact_before = outlook(sides, side, score, verdict) if scored is not None else None
        exact_after = outlook(sides, side, after, after_verdict) if after_verdict else None
        mark = note = ""
        if score is not None and after is not None:
            drop = (score - after) / 2
            mark = "blunder" if drop >= BLUNDER else "mistake" if drop >= MISTAKE else ""
        if exact_before and exact_after:
            rank = {"win": 1, "draw": 0, "loss": -1}
            was, now = rank[verdict.split()[0]], rank[after_verdict.split()[0]]
            if now < was:
                note = "threw away the win" if was == 1 else "threw away the draw"
                mark = mark or "blunder"
        n = MoveNote(ply, m, text, side, score, after, exact_before, exact_after, mark, note,
                     None if best is None else game.move_to_str(game_board_before(board), best))
        notes.append(n)
        if on_note is not None:
            on_note(n)
    return notes


def game_board_before(board):
    """A copy of ``board`` with its last move taken back."""
    b = board.copy()
    b.pop()
    return b


def _flip(verdict):
    """A verdict for the side to move, seen by the other side."""
    if not verdict:
        return verdict
    word, _, plies = verdict.partition(" in ")
    word = {"win": "loss", "loss": "win"}.get(word, word)
    return word + (f" in {plies}" if plies else "")
