"""Command line and console frontend: ``ttt-engine`` (also ``python -m ttt_engine``).

Subcommands::

    ttt-engine play    play a game against an engine, or watch two engines
    ttt-engine train   train a Tic-Tac-Toe Q-learning model (progress bar, summary)
    ttt-engine eval    a saved model or an engine against random/perfect/another engine
    ttt-engine clobber the Clobber "basic" / "extended" modes on a board file
    ttt-engine quixo   the Quixo stages A/B/C

Everything game-specific lives in one small adapter per game (``GameSpec`` in
``GAMES``): how to make a board, how to read a typed move (with a one-line
reason when it is not legal), how to draw the board with the coordinates the
user types, and which engines exist and how to build them from the command
line options.  Adding a game is one entry in that table.

Console conventions: anything that is not a legal move gets a one-line reason
and the prompt again; ``q`` quits (exit 0); end of input (Ctrl-D) exits 0;
Ctrl-C exits 130; never a traceback for a user error.  Colours and box
drawing only when stdout is a terminal and ``NO_COLOR`` is unset; plain text
when piped, so transcripts read well.
"""
from __future__ import annotations

import argparse
import inspect
import os
import random
import sys
import textwrap
import time
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["main", "GAMES", "GameSpec", "EngineSpec", "default_model_path"]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

PROG = "ttt-engine"
CACHE_ENV = "TTT_ENGINE_CACHE_DIR"


# ---------------------------------------------------------------------------- errors
class CLIError(Exception):
    """A user-facing error: printed as one line, exit status ``code``."""

    def __init__(self, message, code=EXIT_ERROR):
        super().__init__(message)
        self.code = code


class Quit(Exception):
    """The user typed ``q``."""


class EndOfInput(Exception):
    """Ctrl-D / end of the input stream."""


class MoveError(ValueError):
    """A typed move that is not legal; the message is the one-line reason."""


# ---------------------------------------------------------------------------- style
class Style:
    """ANSI colours and box drawing, only on a terminal and without ``NO_COLOR``."""

    CODES = {"bold": "1", "dim": "2", "under": "4", "reverse": "7", "red": "31",
             "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36"}

    def __init__(self, stream=None, mode="auto"):
        stream = stream or sys.stdout
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        if mode == "always":
            self.color = True
        elif mode == "never":
            self.color = False
        else:
            self.color = (tty and not os.environ.get("NO_COLOR")
                          and os.environ.get("TERM", "") != "dumb")
        enc = (getattr(stream, "encoding", None) or "ascii").lower()
        self.boxes = (tty or mode == "always") and ("utf" in enc) and mode != "never"

    def __call__(self, text, *styles):
        if not self.color or not styles:
            return str(text)
        codes = ";".join(self.CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


# ---------------------------------------------------------------------------- console
class Console:
    """Line input with the quit / end-of-input conventions, output to stdout."""

    QUIT_WORDS = frozenset({"q", "quit", "exit"})

    def __init__(self, style, out=None):
        self.style = style
        self.out = out or sys.stdout
        try:
            # a terminal echoes what the user types; when input is piped, echo it
            # ourselves so a transcript shows the moves
            self.echo = not sys.stdin.isatty()
        except (AttributeError, ValueError):
            self.echo = False

    def say(self, text=""):
        print(text, file=self.out, flush=True)

    def ask(self, prompt):
        """One stripped line; ``Quit`` for q/quit/exit, ``EndOfInput`` on Ctrl-D."""
        try:
            line = input(prompt)
        except EOFError:
            raise EndOfInput() from None
        if self.echo:
            print(line, file=self.out, flush=True)
        line = line.strip()
        if line.lower() in self.QUIT_WORDS:
            raise Quit()
        return line

    def yes_no(self, prompt, default=False):
        hint = "[Y/n]" if default else "[y/N]"
        while True:
            answer = self.ask(f"{prompt} {hint} ").lower()
            if not answer:
                return default
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            self.say("Please answer y or n (q quits).")


# ---------------------------------------------------------------------------- engines
@dataclass
class EngineSpec:
    """One engine of a game: ``build(args, side, console) -> agent``."""
    name: str
    help: str
    build: Callable


@dataclass
class GameSpec:
    """Everything the console needs to know about one game."""
    key: str
    title: str
    sides: tuple                   # symbols in move order, e.g. ("X", "O")
    module: str                    # the module that must import for the game to exist
    new_board: Callable            # (args) -> board
    parse_move: Callable           # (board, text, args) -> move; MoveError(reason)
    move_text: Callable            # (board, move, args) -> str, as the user would type it
    draw: Callable                 # (board, style, last_move, args) -> str
    legend: Callable               # (args, style) -> str
    prompt_hint: Callable          # (board, args) -> short hint for the prompt
    engines: dict = field(default_factory=dict)
    default_opponent: str = "random"

    def check_available(self):
        try:
            __import__(self.module)
        except ImportError as e:
            raise CLIError(f"the game {self.key!r} is not in this build of ttt_engine "
                           f"({self.module} cannot be imported: {e})") from None


def _import(name, what):
    """``ttt_engine.<...>`` attribute or a one-line CLIError saying what is missing."""
    mod_name, _, attr = name.rpartition(".")
    try:
        mod = __import__(mod_name, fromlist=[attr])
        return getattr(mod, attr)
    except (ImportError, AttributeError):
        raise CLIError(f"{what} is not available in this build of ttt_engine "
                       f"({name} is missing)") from None


def _kwargs_for(func, **candidates):
    """The candidates ``func`` accepts (None values dropped)."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return {k: v for k, v in candidates.items() if v is not None}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return {k: v for k, v in candidates.items() if v is not None}
    return {k: v for k, v in candidates.items() if v is not None and k in params}


def _engine_seed(args, side_index):
    """Per-side seed derived from --seed so both engines are reproducible."""
    if args.seed is None:
        return None
    return (args.seed * 2 + side_index) % (2**63)


def _build_agent(class_path, what, args, side_index, **extra):
    cls = _import(class_path, what)
    kw = _kwargs_for(cls, seed=_engine_seed(args, side_index), **extra)
    try:
        return cls(**kw)
    except (ValueError, TypeError) as e:
        raise CLIError(f"cannot build the {what}: {e}", EXIT_USAGE) from None


def _random_engine():
    def build(args, side_index, console):
        return _build_agent("ttt_engine.agents.RandomAgent", "random engine", args, side_index)
    return EngineSpec("random", "uniformly random legal moves", build)


def _mcts_engine():
    def build(args, side_index, console):
        sims = args.simulations
        if sims is None and args.time is None:
            sims = 20_000
        return _build_agent("ttt_engine.agents.MCTSAgent", "MCTS engine", args, side_index,
                            simulations=sims, time=args.time)
    return EngineSpec("mcts", "Monte Carlo tree search (--simulations or --time per move)", build)


def _heuristic_id(game_key, name):
    """``--heuristic`` as the game's integer id (0 = the game's default)."""
    if name is None:
        return 0
    if game_key == "clobber":
        from ttt_engine import clobber
        try:
            return clobber.heuristic_id(name)
        except ValueError as e:
            raise CLIError(f"--heuristic: {e}", EXIT_USAGE) from None
    if name in ("0", "default"):
        return 0
    raise CLIError(f"--heuristic: {GAMES[game_key].title} has one heuristic ('default'); "
                   f"got {name!r}", EXIT_USAGE)


class MinimaxAgent:
    """Seed 002's plain minimax (no pruning, no table) at a fixed depth, as an agent
    (wiring around :func:`ttt_engine.search.minimax`)."""

    def __init__(self, depth=3, heuristic=0, time_limit=None):
        self.depth, self.heuristic, self.time_limit = depth, heuristic, time_limit
        self.last_result = None
        self.name = f"minimax(d={depth})"

    def select_move(self, board):
        from ttt_engine.search import minimax
        self.last_result = minimax(board, self.depth, heuristic=self.heuristic,
                                   time_limit=self.time_limit)
        return self.last_result.best_move


def _clobber_agent(name, depth, args):
    """Seed 002's agent (``clobber_play.ClobberAgent``: heuristics from the mover's
    point of view, the adaptive choice per turn); None if that module is missing."""
    try:
        from ttt_engine.clobber_play import ClobberAgent
    except ImportError:
        return None
    algorithm = "minimax" if name == "minimax" else "alphabeta-tt"
    try:
        return ClobberAgent(algorithm, args.heuristic or "adaptive",
                            depth if depth is not None else 64, args.time)
    except ValueError as e:
        raise CLIError(f"cannot build the Clobber {name} engine: {e}", EXIT_USAGE) from None


def _alphabeta_engine(game_key, name="alphabeta", default_depth=None):
    def build(args, side_index, console):
        depth = args.depth if args.depth is not None else default_depth
        if args.time is not None and args.depth is None:
            depth = None            # iterative deepening under the time limit
        if game_key == "clobber":
            agent = _clobber_agent(name, depth, args)
            if agent is not None:
                return agent
        h = _heuristic_id(game_key, args.heuristic)
        if name == "minimax":
            return MinimaxAgent(depth if depth is not None else 3, h, args.time)
        cls = _import("ttt_engine.agents.AlphaBetaAgent", f"{name} engine")
        try:
            return cls(depth=depth, heuristic=h, time_limit=args.time)
        except (ValueError, TypeError) as e:
            raise CLIError(f"cannot build the {name} engine: {e}", EXIT_USAGE) from None
    what = ("plain minimax, no pruning (--depth, default 3)" if name == "minimax" else
            "alpha-beta with a table (--depth, default "
            f"{default_depth or 'to the end'}; --time for iterative deepening)")
    if game_key == "clobber":
        what += "; seed 002's heuristics (--heuristic, default adaptive)"
    return EngineSpec(name, what, build)


# ---------------------------------------------------------------------------- model cache
def cache_dir():
    """``$TTT_ENGINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttt_engine``, else ``~/.cache/ttt_engine``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return os.path.abspath(os.path.expanduser(override))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ttt_engine")


def _trainer_has_selfplay():
    try:
        from ttt_engine import train
    except ImportError:
        return False
    try:
        return "mode" in inspect.signature(train).parameters
    except (TypeError, ValueError):
        return False


def default_model_path(side="O"):
    """Where ``play --opponent q`` keeps its model.  With the self-play trainer one
    table plays both sides; with the vs-random trainer there is one per side."""
    if _trainer_has_selfplay():
        return os.path.join(cache_dir(), "ttt-q.npz")
    return os.path.join(cache_dir(), f"ttt-q-{side}.npz")


def _train_and_save(train, kwargs, path):
    """Run ``train(**kwargs)`` and save the model to ``path``; one-line errors.
    Returns ``(agent, training seconds)``."""
    t0 = time.perf_counter()
    try:
        agent = train(**kwargs)
    except ValueError as e:
        raise CLIError(f"cannot train: {e}", EXIT_USAGE) from None
    dt = time.perf_counter() - t0
    try:
        agent.save(path)
    except OSError as e:
        raise CLIError(f"cannot save the model to {path}: {e.strerror or e}") from None
    return agent, dt


def _train_q(console, path, episodes, side, seed, progress=True):
    train = _import("ttt_engine.train", "the Q-learning trainer")
    kw = _kwargs_for(train, episodes=episodes, seed=seed, progress=progress)
    if not _trainer_has_selfplay():
        kw.update(_kwargs_for(train, side=side))
    what = f"{episodes:,} episodes" if episodes else "default settings"
    console.say(f"Training a Q-learning model ({what}); this happens once.")
    agent, dt = _train_and_save(train, kw, path)
    console.say(f"Trained in {dt:.1f} s; saved to {path} (the next run loads it at once).")
    return agent


def load_or_train_q(args, side, console):
    """Seed 000's start-up: load the saved model, else train one and save it."""
    QAgent = _import("ttt_engine.QAgent", "the Q-learning engine")
    path = args.model or default_model_path(side)
    episodes = args.train_episodes
    if args.retrain:
        return _train_q(console, path, episodes, side, args.seed)
    if not os.path.exists(path):
        if args.model:      # a path the user typed: maybe a typo, so ask first
            console.say(f"No model file at {path}.")
            if not console.yes_no("Train a new model and save it there?", default=True):
                raise CLIError(f"no model file at {path}") from None
        else:               # seed 000's first run: train, save, play
            console.say(f"No saved Q-learning model yet ({path}).")
        return _train_q(console, path, episodes, side, args.seed)
    try:
        agent = QAgent.load(path)
    except Exception as e:  # noqa: BLE001 - any load failure is reported, not raised
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        console.say(f"The model file {path} cannot be used: {reason}")
        if console.yes_no("Train a new model and overwrite it?", default=True):
            return _train_q(console, path, episodes, side, args.seed)
        raise CLIError("no usable Q-learning model (use --retrain, or --model PATH)") from None
    console.say(f"Loaded the Q-learning model from {path}.")
    trained = _trained_side(agent)
    if trained is not None and trained != side:
        console.say(f"note: this model learned to play {trained} against a random player; "
                    f"here it plays {side}.")
    return agent


def _q_engine():
    def build(args, side_index, console):
        return load_or_train_q(args, "XO"[side_index], console)
    return EngineSpec("q", "tabular Q-learning (loaded from the cache, trained on first use)",
                      build)


# ---------------------------------------------------------------------------- Tic-Tac-Toe
def _ttt_base(args):
    return 0 if getattr(args, "zero_based", False) else 1


def _ttt_new(args):
    from ttt_engine.ttt import Board
    return Board()


def _ttt_parse(board, text, args):
    base = _ttt_base(args)
    lo, hi = base, base + 8
    if not text:
        raise MoveError(f"empty input: type a cell number {lo}-{hi} (q quits, ? shows the cells)")
    try:
        n = int(text)
    except ValueError:
        raise MoveError(f"{text!r} is not a cell number: type {lo}-{hi}") from None
    if not lo <= n <= hi:
        raise MoveError(f"{n} is out of range: cells are numbered {lo}-{hi}")
    cell = n - base
    who = board.cells[cell]
    if who:
        raise MoveError(f"cell {n} is already taken by {'XO'[who - 1]}")
    return cell


def _ttt_move_text(board, move, args):
    return str(move + _ttt_base(args))


def _paint_mark(style, mark, highlight=False):
    colour = {"X": "red", "O": "cyan", "B": "blue", "W": "yellow"}.get(mark, "bold")
    styles = ("bold", colour) + (("reverse",) if highlight else ())
    return style(mark, *styles)


def _ttt_draw(board, style, last, args):
    base = _ttt_base(args)
    cells = board.cells
    shown = []
    for i in range(9):
        if cells[i]:
            shown.append(_paint_mark(style, "XO"[cells[i] - 1], highlight=(i == last)))
        else:
            shown.append(style(str(i + base), "dim"))
    rows = [shown[r * 3:r * 3 + 3] for r in range(3)]
    if style.boxes:
        top, mid, bot = "┌───┬───┬───┐", "├───┼───┼───┤", "└───┴───┴───┘"
        lines = [top]
        for r, row in enumerate(rows):
            lines.append("│ " + " │ ".join(row) + " │")
            lines.append(mid if r < 2 else bot)
    else:
        lines = []
        for r, row in enumerate(rows):
            lines.append(" " + " | ".join(row))
            if r < 2:
                lines.append("---+---+---")
    return "\n".join("  " + line for line in lines)


def _ttt_legend(args, style):
    b = _ttt_base(args)
    grid = " / ".join(" ".join(str(b + r * 3 + c) for c in range(3)) for r in range(3))
    kind = "0-8 as in seed 000" if b == 0 else "1-9 laid out like a phone keypad"
    return (f"Cells are numbered {kind}: {grid}.\n"
            "Type a cell number and Enter; ? shows the legal moves, q quits.")


def _ttt_hint(board, args):
    b = _ttt_base(args)
    return f"{b}-{b + 8}"


def _ttt_perfect():
    def build(args, side_index, console):
        return _build_agent("ttt_engine.agents.PerfectAgent", "perfect engine", args,
                            side_index, randomize=True)
    return EngineSpec("perfect", "exact alpha-beta: never loses (fastest win, slowest loss; "
                      "a random choice among equal moves, fixed by --seed)", build)


# ---------------------------------------------------------------------------- grid games
def _grid(style, cells, rows, cols, highlight=None, colours=None):
    """A rows x cols board with column letters and row numbers on every edge.
    ``cells[r][c]`` is the character to show; ``highlight`` a (row, col)."""
    files = "abcdefgh"[:cols]
    head = "    " + " ".join(style(f, "dim") for f in files)
    lines = [head]
    for r in range(rows):
        shown = []
        for c in range(cols):
            ch = cells[r][c]
            if ch in (colours or {}):
                shown.append(_paint_mark(style, ch, highlight=(highlight == (r, c))))
            elif highlight == (r, c):
                shown.append(style(ch, "reverse"))
            else:
                shown.append(style(ch, "dim"))
        num = style(f"{r + 1:>2}", "dim")
        lines.append(f"{num}  " + " ".join(shown) + f"  {style(str(r + 1), 'dim')}")
    lines.append(head)
    return "\n".join(lines)


def _parse_size(text, default):
    """``"6x5"`` -> (6, 5); ``"5"`` -> (5, 5)."""
    if text is None:
        return default
    t = text.lower().replace(" ", "")
    try:
        if "x" in t:
            r, _, c = t.partition("x")
            return int(r), int(c)
        return int(t), int(t)
    except ValueError:
        raise CLIError(f"--size {text!r}: write ROWSxCOLS (e.g. 6x5) or N", EXIT_USAGE) from None


def _read_board_file(path):
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise CLIError(f"cannot read the board file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise CLIError(f"the board file {path} is not text") from None


# ---------------------------------------------------------------------------- Clobber
def _clobber_new(args):
    from ttt_engine import clobber
    try:
        if getattr(args, "board", None):
            if args.board == "-":
                return clobber.Board.from_string(_read_board_file("-"))
            return clobber.Board.from_file(args.board)
        rows, cols = _parse_size(getattr(args, "size", None), (6, 5))
        return clobber.Board(rows, cols)
    except ValueError as e:
        raise CLIError(f"bad Clobber board: {e}", EXIT_USAGE) from None
    except OSError as e:
        raise CLIError(f"cannot read the board file {args.board}: {e.strerror or e}") from None


def _clobber_parse(board, text, args):
    from ttt_engine import clobber
    if not text:
        raise MoveError("empty input: type a move like b3-b4 (your stone, then the "
                        "neighbouring enemy stone it captures)")
    try:
        m = clobber.parse_move(text)
    except ValueError as e:
        raise MoveError(str(e)) from None
    (r1, c1), (r2, c2) = clobber.move_squares(m)
    R, C = board.rows, board.cols
    for r, c in ((r1, c1), (r2, c2)):
        if r >= R or c >= C:
            raise MoveError(f"{clobber.square_name(r, c)} is off the {R}x{C} board "
                            f"(columns a-{'abcdefgh'[C - 1]}, rows 1-{R})")
    me = board.to_move
    opp = "W" if me == "B" else "B"
    a, b = clobber.square_name(r1, c1), clobber.square_name(r2, c2)
    src, dst = board.cell(r1, c1), board.cell(r2, c2)
    if src == "_":
        raise MoveError(f"there is no stone on {a}")
    if src != me:
        raise MoveError(f"the stone on {a} is {src}'s; you play {me}")
    if dst != opp:
        what = "is empty" if dst == "_" else f"holds your own stone"
        raise MoveError(f"{b} {what}: a move must capture a {opp} stone next to yours")
    if not board.is_legal(m):
        raise MoveError(f"{a}-{b} is not legal here")
    return m


def _clobber_move_text(board, move, args):
    from ttt_engine import clobber
    return clobber.format_move(move)


def _clobber_draw(board, style, last, args):
    cells = [[board.cell(r, c) for c in range(board.cols)] for r in range(board.rows)]
    hl = None
    if last is not None:
        from ttt_engine import clobber
        hl = clobber.move_squares(last)[1]
    return _grid(style, cells, board.rows, board.cols, hl, colours={"B", "W"})


def _clobber_legend(args, style):
    return ("Columns a-h from the left, rows 1-8 from the top. A move takes one of your "
            "stones onto an\northogonally adjacent enemy stone, e.g. b3-b4; B moves first; "
            "whoever cannot move loses.\n? lists the legal moves, q quits.")


def _clobber_hint(board, args):
    return "e.g. b3-b4"


# ---------------------------------------------------------------------------- Quixo
def _quixo_board_module():
    try:
        from ttt_engine import quixo
        if hasattr(quixo, "Board"):
            return quixo
    except ImportError:
        pass
    from ttt_engine._core import quixo as quixo_board
    return quixo_board


def _quixo_new(args):
    mod = _quixo_board_module()
    try:
        if getattr(args, "board", None):
            text = _read_board_file(args.board).rstrip("\n")
            return mod.Board.from_string(text)
        n, m = _parse_size(getattr(args, "size", None), (5, 5))
        if n != m:
            raise ValueError("Quixo boards are square: --size 3, 4 or 5")
        return mod.Board(n)
    except ValueError as e:
        raise CLIError(f"bad Quixo board: {e}", EXIT_USAGE) from None


def _quixo_cube(board, move):
    n = board.size
    cell, _side = divmod(move, 4)
    return divmod(cell, n)


def _quixo_parse(board, text, args):
    if not text:
        raise MoveError("empty input: type a move like a1R (the cube to take, then the end "
                        "T/B/L/R it is pushed back in from)")
    try:
        m = board.parse_move(text)
    except ValueError as e:
        raise MoveError(str(e)) from None
    r, c = _quixo_cube(board, m)
    v = board.cells[r * board.size + c]
    me = board.to_move
    if v and "XO"[v - 1] != me:
        raise MoveError(f"the cube on {'abcde'[c]}{r + 1} shows {'XO'[v - 1]}: take a blank "
                        f"cube or one showing {me}")
    try:
        board.copy().push(m)
    except ValueError as e:
        raise MoveError(str(e)) from None
    return m


def _quixo_move_text(board, move, args):
    return board.move_to_str(move)


def _quixo_draw(board, style, last, args):
    n = board.size
    cells = board.cells
    grid = [[".XO"[cells[r * n + c]] for c in range(n)] for r in range(n)]
    hl = None
    if last is not None:
        r, c = _quixo_cube(board, last)
        side = "TBLR"[last % 4]
        hl = {"T": (0, c), "B": (n - 1, c), "L": (r, 0), "R": (r, n - 1)}[side]
    return _grid(style, grid, n, n, hl, colours={"X", "O"})


def _quixo_legend(args, style):
    return ("Columns a-e from the left, rows 1-5 from the top. A move is the cube you take "
            "from the outer\nring (blank or yours) and the end it is pushed back in from: "
            "T top, B bottom, L left, R right;\ne.g. a1R takes the top-left cube and pushes "
            "it in at the right end of row 1. ? lists the legal moves.")


def _quixo_hint(board, args):
    return "e.g. a1R"


# ---------------------------------------------------------------------------- Ultimate TTT
def _uttt_new(args):
    from ttt_engine import uttt
    if getattr(args, "board", None):
        try:
            return uttt.Board.from_string(_read_board_file(args.board).strip())
        except ValueError as e:
            raise CLIError(f"bad Ultimate Tic-Tac-Toe board: {e}", EXIT_USAGE) from None
    return uttt.Board()


def _uttt_parse(board, text, args):
    if not text:
        raise MoveError("empty input: type the row and column as 'R, C', each 0-8 (e.g. 4, 5)")
    try:
        m = board.parse_move(text)
        board.copy().push(m)
    except ValueError as e:
        raise MoveError(str(e)) from None
    return m


def _uttt_move_text(board, move, args):
    return f"{move // 9}, {move % 9}"


def _uttt_draw(board, style, last, args):
    cells = board.cells
    forced = board.forced_board
    lw = board.local_winners
    free = forced is None and not board.is_terminal()
    if style.boxes:
        v, top, mid, bot = ("│", "  ┌───────┬───────┬───────┐", "  ├───────┼───────┼───────┤",
                            "  └───────┴───────┴───────┘")
    else:
        v, top, mid, bot = "|", *(["  +-------+-------+-------+"] * 3)
    lines = [style("    0 1 2   3 4 5   6 7 8", "dim"), top]
    for r in range(9):
        row = [style(str(r), "dim") + " " + v]
        for c in range(9):
            b = (r // 3) * 3 + c // 3
            x = cells[9 * r + c]
            if x:
                ch = _paint_mark(style, "XO"[x - 1], highlight=(9 * r + c == last))
            elif lw[b] is not None:
                ch = style(" ", "dim")             # closed local board
            elif forced is not None and b == forced:
                ch = style("*", "bold", "green")  # where the side to move must play
            else:
                ch = style(".", "dim") if not free else style(".", "green")
            row.append(" " + ch)
            if c % 3 == 2:
                row.append(" " + v)
        lines.append("".join(row))
        if r % 3 == 2:
            lines.append(mid if r < 8 else bot)
    parts = []
    for who in ("X", "O", "draw"):
        bs = [str(b) for b in range(9) if lw[b] == who]
        if bs:
            parts.append(("drawn" if who == "draw" else f"{who} won") + " " + ",".join(bs))
    if parts:
        lines.append("local boards: " + "; ".join(parts))
    if not board.is_terminal():
        if forced is not None:
            r0, c0 = (forced // 3) * 3, (forced % 3) * 3
            lines.append(f"{board.to_move} must play in board {forced} (rows {r0}-{r0 + 2}, "
                         f"columns {c0}-{c0 + 2}, cells marked *)")
        else:
            lines.append(f"{board.to_move} may play in any open board")
    return "\n".join(lines)


def _uttt_legend(args, style):
    return ("Type moves as 'R, C': the row and column 0-8 of the 9x9 grid (e.g. 4, 5). A move "
            "in cell (r, c)\nof a local board sends your opponent to local board (r, c); "
            "* marks where you must play.\n? lists the legal moves, q quits.")


def _uttt_hint(board, args):
    return "R, C"


def _uttt_engine(name, help_text, candidates):
    def build(args, side_index, console):
        for path in candidates:
            try:
                cls = _import(path, name)
            except CLIError:
                continue
            kw = _kwargs_for(cls, seed=_engine_seed(args, side_index), time=args.time,
                             iterations=args.simulations, simulations=args.simulations)
            try:
                return cls(**kw)
            except (ValueError, TypeError) as e:
                raise CLIError(f"cannot build the {name} engine: {e}", EXIT_USAGE) from None
        raise CLIError(f"the Ultimate Tic-Tac-Toe {name} engine is not available in this "
                       f"build (none of {', '.join(candidates)})")
    return EngineSpec(name, help_text, build)


# ---------------------------------------------------------------------------- game table
def _quixo_values(args, console):
    """Seed 004's state values for the greedy engine: loaded from the cache (or
    --model), else collected from random games (stage B) and saved."""
    from ttt_engine import quixo
    n = _quixo_new(args).size
    path = args.model or os.path.join(cache_dir(), f"quixo-states-{n}x{n}.json")
    games = args.train_episodes or 100_000
    if os.path.exists(path) and not args.retrain:
        try:
            table = quixo.load_values(path)
            console.say(f"Loaded Quixo state values from {path} ({len(table):,} states).")
            return table
        except (ValueError, OSError) as e:
            console.say(f"The state-value file {path} cannot be used: {e}")
            if not console.yes_no("Collect new values and overwrite it?", default=True):
                raise CLIError("no usable Quixo state values (use --retrain, or --model "
                               "PATH)") from None
    else:
        if not args.retrain:
            console.say(f"No saved Quixo state values yet ({path}).")
    console.say(f"Scoring the states of {games:,} random games (seed 004 stage B); "
                "this happens once.")
    t0 = time.perf_counter()
    try:
        table, _res = quixo.collect_values(games, size=n, seed=args.seed,
                                          progress=sys.stderr.isatty())
        quixo.save_values(table, path)
    except OSError as e:
        raise CLIError(f"cannot save the state values to {path}: {e.strerror or e}") from None
    console.say(f"Collected {len(table):,} states in {time.perf_counter() - t0:.1f} s; saved to "
                f"{path} (the next run loads it at once).")
    return table


def _quixo_greedy_engine():
    def build(args, side_index, console):
        try:
            from ttt_engine.quixo import GreedyValueAgent
        except ImportError:
            raise CLIError("the Quixo greedy value engine is not available in this build "
                           "(ttt_engine.quixo is missing)") from None
        values = _quixo_values(args, console)
        seed = _engine_seed(args, side_index)
        try:
            return GreedyValueAgent(values, epsilon=0.0, exact_terminal=True,
                                    seed=seed if seed is not None else random.getrandbits(63))
        except (ValueError, TypeError) as e:
            raise CLIError(f"cannot build the greedy value engine: {e}", EXIT_USAGE) from None
    return EngineSpec("greedy", "seed 004's state-value agent, played greedily (values from "
                      "random games, collected on first use and cached)", build)


GAMES = {}


def register_game(spec):
    """Add (or replace) a game adapter."""
    GAMES[spec.key] = spec
    return spec


register_game(GameSpec(
    key="ttt", title="Tic-Tac-Toe", sides=("X", "O"), module="ttt_engine.ttt",
    new_board=_ttt_new, parse_move=_ttt_parse, move_text=_ttt_move_text, draw=_ttt_draw,
    legend=_ttt_legend, prompt_hint=_ttt_hint,
    engines={e.name: e for e in (_q_engine(), _ttt_perfect(), _mcts_engine(),
                                 _random_engine())},
    default_opponent="perfect",
))

register_game(GameSpec(
    key="uttt", title="Ultimate Tic-Tac-Toe", sides=("X", "O"), module="ttt_engine.uttt",
    new_board=_uttt_new, parse_move=_uttt_parse, move_text=_uttt_move_text, draw=_uttt_draw,
    legend=_uttt_legend, prompt_hint=_uttt_hint,
    engines={e.name: e for e in (
        _mcts_engine(),
        _uttt_engine("qtree", "seed 003's tree Q-learning (--time or --simulations per move)",
                     ("ttt_engine.tree_agents.TreeQAgent",)),
        _uttt_engine("sarsa", "seed 003's Sarsa on the tree (--time or --simulations per move)",
                     ("ttt_engine.tree_agents.SarsaAgent",)),
        _random_engine())},
    default_opponent="mcts",
))

register_game(GameSpec(
    key="clobber", title="Clobber", sides=("B", "W"), module="ttt_engine.clobber",
    new_board=_clobber_new, parse_move=_clobber_parse, move_text=_clobber_move_text,
    draw=_clobber_draw, legend=_clobber_legend, prompt_hint=_clobber_hint,
    engines={e.name: e for e in (_alphabeta_engine("clobber", "alphabeta", default_depth=3),
                                 _alphabeta_engine("clobber", "minimax", default_depth=3),
                                 _mcts_engine(), _random_engine())},
    default_opponent="alphabeta",
))

register_game(GameSpec(
    key="quixo", title="Quixo", sides=("X", "O"), module="ttt_engine._core.quixo",
    new_board=_quixo_new, parse_move=_quixo_parse, move_text=_quixo_move_text,
    draw=_quixo_draw, legend=_quixo_legend, prompt_hint=_quixo_hint,
    engines={e.name: e for e in (_quixo_greedy_engine(), _mcts_engine(),
                                 _alphabeta_engine("quixo", "alphabeta", default_depth=3),
                                 _random_engine())},
    default_opponent="mcts",
))


# ---------------------------------------------------------------------------- play
def _agent_move(agent, board):
    fn = getattr(agent, "select_move", None) or getattr(agent, "best_move")
    return fn(board.copy())


def _engine_stats(agent):
    for attr in ("last_result", "stats", "last_stats", "last"):
        val = getattr(agent, attr, None)
        if val is not None and not callable(val):
            return val
    return None


def _exact_score_text(score):
    """PerfectAgent's win-distance score (1e9 - plies for a win) in words."""
    if score == 0:
        return "draw"
    plies = int(round(1e9 - abs(score)))
    return f"{'win' if score > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"


def _num(v):
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.3g}"
    return str(v)


def _format_stats(stats, elapsed):
    """One line of engine statistics: MCTS (simulations, rate, nodes, value of the
    chosen move) or search (value, depth, nodes, nodes/s), then the time."""
    parts = []
    if isinstance(stats, dict) and "simulations" in stats:
        parts.append(f"{_num(stats['simulations'])} simulations")
        if stats.get("simulations_per_s"):
            parts.append(f"{_num(stats['simulations_per_s'])}/s")
        if "nodes_used" in stats:
            parts.append(f"{_num(stats['nodes_used'])} nodes")
        best = stats.get("best_move")
        for ch in stats.get("children") or ():
            if ch.get("move") == best:
                parts.append(f"value {ch['mean']:+.3f} ({_num(ch['visits'])} visits)")
        if stats.get("reused"):
            parts.append(f"reused {_num(stats.get('reused_visits', 0))} visits")
    elif stats is not None and (hasattr(stats, "nodes") or
                                (isinstance(stats, dict) and "nodes" in stats)):
        get = stats.get if isinstance(stats, dict) else (lambda k: getattr(stats, k, None))
        value, seconds = get("value"), get("time") or get("seconds") or 0
        if value is not None:
            parts.append(f"value {value:+.4g}" + (" (exact)" if get("exact") else ""))
        if get("heuristic") is not None and isinstance(get("heuristic"), str):
            parts.append(f"heuristic {get('heuristic')}")
        if get("depth"):
            parts.append(f"depth {get('depth')}")
        parts.append(f"{_num(get('nodes'))} nodes")
        if seconds > 0:
            parts.append(f"{_num(get('nodes') / seconds)} nodes/s")
    elif isinstance(stats, dict) and "exact" in stats:
        parts.append(f"exact value: {stats['exact']}")
    elif isinstance(stats, dict):
        for k, v in stats.items():
            if not isinstance(v, (list, tuple, dict)):
                parts.append(f"{k} {_num(v)}")
    parts.append(f"{elapsed * 1000:.1f} ms")
    return ", ".join(parts)


def _result_line(winner, player_names, style):
    """``player_names``: symbol -> display name."""
    if winner == "draw":
        return style("Draw.", "bold", "yellow")
    if winner is None:
        return "Game not finished."
    return style(f"{winner} wins: {player_names[winner]}.", "bold", "green")


class _Players:
    """Who plays each side in one game: None for the human, else an agent."""

    def __init__(self, agents, names):
        self.agents = agents      # symbol -> agent or None
        self.names = names        # symbol -> display name


def _show_board(console, game, board, last, args):
    console.say(game.draw(board, console.style, last, args))


def play_one_game(console, game, args, players, delay=0.0):
    """Play one game; return the winner symbol (or "draw")."""
    board = game.new_board(args)
    style = console.style
    last = None
    for agent in players.agents.values():
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset()
    console.say()
    _show_board(console, game, board, last, args)
    while not board.is_terminal():
        side = board.to_move
        agent = players.agents[side]
        if agent is None:
            move = _ask_human_move(console, game, board, args, side)
        else:
            t0 = time.perf_counter()
            move = _agent_move(agent, board)
            elapsed = time.perf_counter() - t0
            text = game.move_text(board, move, args)
            line = f"{players.names[side]} ({side}) plays {style(text, 'bold')}"
            if args.verbose:
                stats = _engine_stats(agent)
                if stats is None and hasattr(agent, "move_scores"):
                    stats = {"exact": _exact_score_text(agent.move_scores(board)[move])}
                elif stats is None and hasattr(agent, "q_values"):
                    try:
                        stats = {"Q": float(agent.q_values(board)[move])}
                    except (TypeError, ValueError, IndexError, KeyError):
                        stats = None
                line += f"  [{_format_stats(stats, elapsed)}]"
            console.say(line)
            if delay:
                time.sleep(delay)
        try:
            board.push(move)
        except ValueError as e:  # an engine returned an illegal move: a bug, say it plainly
            raise CLIError(f"{players.names[side]} returned an illegal move: {e}") from None
        last = move
        console.say()
        _show_board(console, game, board, last, args)
    console.say(_result_line(board.winner, players.names, style))
    return board.winner


def _ask_human_move(console, game, board, args, side):
    hint = game.prompt_hint(board, args)
    while True:
        text = console.ask(f"Your move ({side}) [{hint}]: ")
        if text in ("?", "h", "help"):
            texts = [game.move_text(board, m, args) for m in board.legal_moves]
            legal = ("; " if any("," in t for t in texts) else ", ").join(texts)
            console.say(game.legend(args, console.style))
            console.say(f"Legal moves: {legal}")
            continue
        try:
            return game.parse_move(board, text, args)
        except MoveError as e:
            console.say(console.style(f"Not a legal move: {e}", "red"))


def _resolve_engine(game, name, what="--opponent"):
    if name not in game.engines:
        raise CLIError(f"{what} {name!r} is not an engine of {game.title}; choose from "
                       f"{', '.join(game.engines)}", EXIT_USAGE)
    return game.engines[name]


def cmd_play(args, console):
    game = GAMES[args.game]
    game.check_available()
    opp_name = args.opponent or game.default_opponent
    opp_spec = _resolve_engine(game, opp_name)
    watch_spec = _resolve_engine(game, args.watch, "--watch") if args.watch else None
    first, second = game.sides
    if args.side is not None:
        args.side = args.side.upper()
    if args.side is not None and args.side not in game.sides:
        raise CLIError(f"--side must be one of {', '.join(game.sides)} for {game.title}; "
                       f"got {args.side!r}", EXIT_USAGE)
    # which symbol is "you" (or the watched engine) in the first game
    you = args.side
    if args.first is not None:
        wanted = first if args.first in ("you", "alternate") else second
        if you is not None and you != wanted:
            raise CLIError(f"--side {you} contradicts --first {args.first} "
                           f"({first} always moves first in {game.title})", EXIT_USAGE)
        you = wanted
    you = you or first
    alternate = args.first == "alternate"

    if getattr(args, "board", None) == "-":
        raise CLIError("--board - cannot be used with play: the moves are read from stdin; "
                       "give a file", EXIT_USAGE)
    game.new_board(args)          # a bad --size/--board fails here, before anything is shown
    watch = watch_spec is not None
    if not watch:
        console.say(console.style(f"{game.title}: you against the {opp_name} engine.", "bold"))
        console.say(game.legend(args, console.style))
    cache = {}

    def agent_for(spec, symbol):
        key = (spec.name, symbol)
        if key not in cache:
            cache[key] = spec.build(args, game.sides.index(symbol), console)
        return cache[key]

    score = {"you": 0, "them": 0, "draw": 0}
    you_label = f"{args.watch} (watched)" if watch else "you"
    them_label = opp_name if not watch or args.watch != opp_name else f"{opp_name} (opponent)"
    games_played = 0
    while True:
        them = second if you == first else first
        agents = {you: agent_for(watch_spec, you) if watch else None,
                  them: agent_for(opp_spec, them)}
        names = {you: you_label, them: them_label}
        if watch:
            console.say(f"\n{names[first]} ({first}) against {names[second]} ({second}).")
        winner = play_one_game(console, game, args, _Players(agents, names),
                               delay=args.delay if watch else 0.0)
        games_played += 1
        if winner == "draw":
            score["draw"] += 1
        elif winner == you:
            score["you"] += 1
        else:
            score["them"] += 1
        console.say(f"Score: {you_label} {score['you']}, {them_label} {score['them']}, "
                    f"draws {score['draw']}")
        if args.games is not None:
            if games_played >= args.games:
                return EXIT_OK
        elif not console.yes_no("Play again?"):
            console.say("Bye.")
            return EXIT_OK
        if alternate:
            you = them


# ---------------------------------------------------------------------------- train
def _history_last(history):
    if not history:
        return None
    last = history[-1]
    if isinstance(last, dict):
        return last
    if hasattr(last, "_asdict"):
        return last._asdict()
    if hasattr(last, "__dict__"):
        return vars(last)
    return None


def _table(rows, header=None):
    """Plain aligned text table (first column left, others right)."""
    all_rows = ([header] if header else []) + rows
    widths = [max(len(str(r[i])) for r in all_rows) for i in range(len(all_rows[0]))]
    out = []
    for n, r in enumerate(all_rows):
        cells = [str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i])
                 for i, c in enumerate(r)]
        out.append("  ".join(cells).rstrip())
        if header and n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _wdl(result):
    """(wins, draws, losses) from an evaluate()/play_match() result of any reasonable shape."""
    if isinstance(result, dict):
        keys = [("wins", "draws", "losses"), ("win", "draw", "loss"), ("w", "d", "l")]
        for k in keys:
            if all(x in result for x in k):
                return tuple(int(result[x]) for x in k)
    for k in (("wins", "draws", "losses"),):
        if all(hasattr(result, x) for x in k):
            return tuple(int(getattr(result, x)) for x in k)
    if isinstance(result, (tuple, list)) and len(result) >= 3:
        return tuple(int(x) for x in result[:3])
    raise CLIError(f"cannot read wins/draws/losses from {result!r}")


def _pct(n, total):
    return f"{100.0 * n / total:.2f}%" if total else "-"


def _trained_side(agent, requested=None):
    """"X"/"O" for a model that learned one side against random, None for both sides."""
    side = getattr(agent, "side", None) or requested
    mode = getattr(agent, "mode", None) or (getattr(agent, "hyperparameters", None) or {}).get("mode")
    if mode not in (None, "random") or side not in ("X", "O"):
        return None
    return side


def _exact_rows(ttt_engine, agent, side):
    """Exact quality (issue 4's oracle) when this build has it: optimal-move share,
    exact W/D/L against a uniformly random player, worst case against any player."""
    rows = []
    optimality = getattr(ttt_engine, "optimality", None)
    exact_vs_random = getattr(ttt_engine, "exact_vs_random", None)
    worst_case = getattr(ttt_engine, "worst_case", None)
    if optimality is not None:
        o = optimality(agent)
        rows.append(["optimal moves (all positions, exact)",
                     f"{o.optimal:,}/{o.positions:,} = {_pct(o.optimal, o.positions)}"])
    for sd in (("X", "O") if side is None else (side,)):
        if exact_vs_random is not None:
            e = exact_vs_random(agent, side=sd)
            rows.append([f"as {sd} vs random, exact W/D/L",
                         f"{e.win:.2%} / {e.draw:.2%} / {e.loss:.2%}"])
        if worst_case is not None:
            w = worst_case(agent, side=sd)
            rows.append([f"as {sd}, worst case vs any player", w.outcome])
    return rows


def cmd_train(args, console):
    import ttt_engine
    train = _import("ttt_engine.train", "the Q-learning trainer")
    plot_history = getattr(ttt_engine, "plot_history", None)
    if args.plot and plot_history is None:
        console.say("note: --plot needs ttt_engine.plot_history (learning curves, issue 4), "
                    "which is not in this build; the model is trained and saved without a plot.")
    options = dict(episodes=args.episodes, alpha=args.alpha, gamma=args.gamma,
                   epsilon=args.epsilon, epsilon_decay=args.epsilon_decay,
                   epsilon_min=args.epsilon_min, side=args.side, mode=args.mode,
                   curriculum_fraction=args.curriculum_fraction,
                   curriculum_epsilon=args.curriculum_epsilon, alpha_decay=args.alpha_decay,
                   alpha_min=args.alpha_min, shaping=args.shaping or None,
                   symmetry=args.symmetry or None, seed=args.seed)
    accepted = _kwargs_for(train, **options)
    unsupported = [k for k, v in options.items() if v is not None and k not in accepted]
    if unsupported:
        opts = ", ".join("--" + k.replace("_", "-") for k in unsupported)
        raise CLIError(f"this build's train() does not support {opts}", EXIT_USAGE)
    if "progress" in inspect.signature(train).parameters:
        accepted["progress"] = not args.quiet
    if args.plot and plot_history is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise CLIError('--plot needs matplotlib: pip install "ttt_engine[plot]" '
                           "(nothing was trained)", EXIT_USAGE) from None
    out = args.out or default_model_path(args.side or "O")
    agent, dt = _train_and_save(train, accepted, out)
    episodes = getattr(agent, "episodes", None)
    if episodes is None:
        last = _history_last(getattr(agent, "history", None)) or {}
        episodes = last.get("episodes", args.episodes)
    rows = [["model file", out], ["training time", f"{dt:.2f} s"]]
    if episodes:
        rows.append(["episodes", f"{int(episodes):,}"])
        if dt > 0:
            rows.append(["episodes/s (wall clock)", f"{int(episodes) / dt:,.0f}"])
    last = _history_last(getattr(agent, "history", None)) or {}
    for key in ("epsilon", "alpha"):
        if key in last:
            rows.append([f"final {key}", f"{last[key]:.4g}"])
    if all(k in last for k in ("wins", "draws", "losses")):
        n = last["wins"] + last["draws"] + last["losses"]
        rows.append(["last chunk W/D/L (training)",
                     " / ".join(_pct(last[k], n) for k in ("wins", "draws", "losses"))])
    rows += _exact_rows(ttt_engine, agent, _trained_side(agent, args.side))
    console.say(_table(rows, ["summary", "value"]))
    if args.eval_games:
        evaluate = getattr(ttt_engine, "evaluate", None)
        if evaluate is not None:
            trained = _trained_side(agent, args.side)
            sides = ("X", "O") if trained is None else (trained,)
            erows = []
            for side in sides:
                kw = _kwargs_for(evaluate, games=args.eval_games, side=side,
                                 opponent="random", seed=args.seed)
                w, d, l = _wdl(evaluate(agent, **kw))
                n = w + d + l
                erows.append([f"greedy as {side} vs random", f"{n:,}", _pct(w, n), _pct(d, n),
                              _pct(l, n)])
            console.say()
            console.say(_table(erows, ["evaluation", "games", "wins", "draws", "losses"]))
    if args.plot:
        if plot_history is None:
            console.say(f"No plot written to {args.plot}: ttt_engine.plot_history is missing.")
            return EXIT_ERROR
        try:
            plot_history(agent.history, args.plot)
        except (ImportError, RuntimeError, ValueError, OSError) as e:
            raise CLIError(f"cannot write the plot {args.plot}: {e}") from None
        console.say(f"Learning curves written to {args.plot}")
    return EXIT_OK


# ---------------------------------------------------------------------------- eval
def _play_games(game, args, agent_a, agent_b, n, a_side):
    """Games where agent_a plays ``a_side``: (wins, draws, losses) for agent_a."""
    w = d = l = 0
    for _ in range(n):
        board = game.new_board(args)
        agents = {a_side: agent_a,
                  (game.sides[1] if a_side == game.sides[0] else game.sides[0]): agent_b}
        for ag in (agent_a, agent_b):
            reset = getattr(ag, "reset", None)
            if callable(reset):
                reset()
        while not board.is_terminal():
            board.push(_agent_move(agents[board.to_move], board))
        if board.winner == "draw":
            d += 1
        elif board.winner == a_side:
            w += 1
        else:
            l += 1
    return w, d, l


def cmd_eval(args, console):
    game = GAMES[args.game]
    game.check_available()
    if args.model and args.engine:
        raise CLIError("give either --model or --engine, not both", EXIT_USAGE)
    side = args.side if args.side.lower() == "both" else args.side.upper()
    sides = list(game.sides) if side.lower() == "both" else [side]
    for s in sides:
        if s not in game.sides:
            raise CLIError(f"--side must be one of {', '.join(game.sides)} or both", EXIT_USAGE)
    opp_spec = _resolve_engine(game, args.against, "--against")
    rows = []
    tot = [0, 0, 0]
    t0 = time.perf_counter()
    for side in sides:
        side_index = game.sides.index(side)
        if args.model:
            if game.key != "ttt":
                raise CLIError("--model is for Tic-Tac-Toe Q-learning models", EXIT_USAGE)
            QAgent = _import("ttt_engine.QAgent", "the Q-learning engine")
            if not os.path.exists(args.model):
                raise CLIError(f"no model file at {args.model}")
            try:
                agent = QAgent.load(args.model)
            except Exception as e:  # noqa: BLE001
                raise CLIError(f"the model file {args.model} cannot be used: {e}") from None
            name = f"model {os.path.basename(args.model)}"
        else:
            eng = args.engine or game.default_opponent
            agent = _resolve_engine(game, eng, "--engine").build(args, side_index, console)
            name = eng
        opp = opp_spec.build(args, 1 - side_index, console)
        w, d, l = _play_games(game, args, agent, opp, args.games, side)
        n = w + d + l
        tot = [tot[0] + w, tot[1] + d, tot[2] + l]
        rows.append([f"{name} as {side}", f"{n:,}", f"{w:,}", f"{d:,}", f"{l:,}",
                     _pct(w, n), _pct(d, n), _pct(l, n)])
    if len(sides) > 1:
        n = sum(tot)
        rows.append(["total", f"{n:,}", f"{tot[0]:,}", f"{tot[1]:,}", f"{tot[2]:,}",
                     _pct(tot[0], n), _pct(tot[1], n), _pct(tot[2], n)])
    console.say(f"{game.title}: against {args.against}, {time.perf_counter() - t0:.2f} s")
    console.say(_table(rows, ["player", "games", "W", "D", "L", "win%", "draw%", "loss%"]))
    return EXIT_OK


# ---------------------------------------------------------------------------- clobber / quixo
#: Subcommands handed over whole to the game helpers' own parsers.
DELEGATED = ("clobber", "quixo")


# ---------------------------------------------------------------------------- parser
def _nonneg_int(text):
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not f.is_integer():
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        v = int(f)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {v}")
    return v


def _pos_int(text):
    v = _nonneg_int(text)
    if v == 0:
        raise argparse.ArgumentTypeError("must be >= 1, got 0")
    return v


def _pos_float(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return v


def _nonneg_float(text):
    v = _real(text)
    if not 0 <= v < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a non-negative number, got {text}")
    return v


def _real(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    return v


def _engine_help():
    lines = []
    for g in GAMES.values():
        lines.append(f"  {g.key} ({g.title}; default {g.default_opponent}):")
        for e in g.engines.values():
            lines.extend(textwrap.wrap(e.help, 79, initial_indent=f"    {e.name:10}",
                                       subsequent_indent=" " * 14))
    return "\n".join(lines)


def _add_common(p):
    p.add_argument("--game", choices=list(GAMES), default="ttt",
                   help="which game (default: ttt)")
    p.add_argument("--seed", type=_nonneg_int, default=None,
                   help="seed for the engines (same seed, same games)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colours and box drawing: auto = only on a terminal without NO_COLOR")


def _add_engine_options(p):
    g = p.add_argument_group("engine options")
    g.add_argument("--time", type=_pos_float, metavar="SECONDS",
                   help="thinking time per move (mcts, alphabeta)")
    g.add_argument("--simulations", type=_pos_int, metavar="N",
                   help="MCTS simulations per move (default 20000 when --time is not given)")
    g.add_argument("--depth", type=_pos_int, metavar="D", help="search depth (alphabeta, minimax)")
    g.add_argument("--heuristic", metavar="NAME",
                   help="Clobber evaluation: adaptive (default), adaptive-leaf, 1/2/3 (the "
                        "mover's seed heuristic), pieces, mobility, own_moves, safe, "
                        "neg_opp_moves, centre or a seed name B1..W3")
    g.add_argument("--model", metavar="PATH",
                   help="Q-learning model file (default: the cache, see below)")
    g.add_argument("--train-episodes", type=_pos_int, metavar="N", default=None,
                   help="episodes when the q engine has to train a model (default: train()'s)")
    g.add_argument("--retrain", action="store_true",
                   help="train a new Q-learning model even if one is saved")


CACHE_HELP = textwrap.fill(f"The q engine keeps its model in ${CACHE_ENV} if set, else in "
              "$XDG_CACHE_HOME/ttt_engine, else in ~/.cache/ttt_engine; the first run trains "
              "and saves it, later runs load it at once.", 79)


def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Game-AI engine: play, train and evaluate Tic-Tac-Toe, Ultimate "
                    "Tic-Tac-Toe, Clobber and Quixo engines from the console.",
        epilog="Run '%(prog)s COMMAND --help' for the options of a command. "
               "Exit status: 0 ok (also q and Ctrl-D), 1 error, 2 bad usage, 130 Ctrl-C.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    fmt = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser(
        "play", formatter_class=fmt,
        help="play against an engine, or watch two engines",
        description="Play a game against an engine in the console, or watch two engines.\n\n"
                    "Tic-Tac-Toe cells are numbered 1-9 like a phone keypad (7 8 9 is the "
                    "bottom row);\n--zero-based uses 0-8 as in the old seed-000 program. The "
                    "board is drawn after\nevery move with the numbers of the free cells. "
                    "At the prompt: a move, ? for the\nlegal moves, q to quit. Ctrl-D ends "
                    "(status 0), Ctrl-C interrupts (status 130).",
        epilog="engines per game:\n" + _engine_help() + "\n\n" + CACHE_HELP + "\n\nexamples:\n"
               f"  {PROG} play                          you (X) against the perfect engine\n"
               f"  {PROG} play --opponent q --side O    the Q-learning engine moves first\n"
               f"  {PROG} play --opponent mcts --time 0.5 --verbose\n"
               f"  {PROG} play --watch random --opponent perfect --games 3")
    _add_common(p)
    p.add_argument("--opponent", metavar="ENGINE",
                   help="the engine you play against (see the list below)")
    p.add_argument("--watch", metavar="ENGINE",
                   help="engine vs engine: ENGINE plays your side against --opponent")
    p.add_argument("--side", metavar="SIDE",
                   help="your side (ttt/uttt/quixo: X or O; X moves first); default: first")
    p.add_argument("--first", choices=("you", "engine", "alternate"),
                   help="who moves first; 'alternate' swaps sides after each game")
    p.add_argument("--games", type=_pos_int, metavar="N",
                   help="play N games and stop (no 'play again?' question)")
    p.add_argument("--delay", type=_nonneg_float, default=0.0, metavar="SECONDS",
                   help="pause after each engine move when watching (default 0)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="show the engine's statistics (simulations, nodes, value, time)")
    p.add_argument("--zero-based", action="store_true",
                   help="Tic-Tac-Toe: number cells 0-8 instead of 1-9")
    p.add_argument("--size", metavar="SIZE",
                   help="board size: Clobber ROWSxCOLS (default 6x5, up to 8x8), "
                        "Quixo 3, 4 or 5 (default 5)")
    p.add_argument("--board", metavar="FILE",
                   help="start position from a file: Clobber rows of B, W, _; Quixo the "
                        "25-character string; UTTT Board.to_string() (81 cells, ':', forced "
                        "board or *)")
    _add_engine_options(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "train", formatter_class=fmt,
        help="train a Tic-Tac-Toe Q-learning model",
        description="Train a Tic-Tac-Toe Q-learning model with a progress bar, save it and "
                    "print a summary\ntable (and its greedy results against a random player).",
        epilog=CACHE_HELP + "\n\nexamples:\n"
               f"  {PROG} train --episodes 10000000 --plot curves.png\n"
               f"  {PROG} train --mode random --side X --episodes 2000000 --out x.npz --seed 1")
    p.add_argument("--episodes", type=_nonneg_int, metavar="N",
                   help="training episodes (default: train()'s default)")
    p.add_argument("--alpha", type=_real, help="learning rate in (0, 1] (default 0.1)")
    p.add_argument("--gamma", type=_real, help="discount in [0, 1] (default 0.9)")
    p.add_argument("--epsilon", type=_real, help="initial exploration rate in [0, 1]")
    p.add_argument("--epsilon-decay", type=_real, metavar="DECAY",
                   help="epsilon <- max(epsilon_min, epsilon * DECAY) after each episode")
    p.add_argument("--epsilon-min", type=_real, metavar="EPS", help="floor of epsilon")
    p.add_argument("--side", choices=("X", "O", "random"),
                   help="mode random: the side the agent learns against a random opponent")
    p.add_argument("--mode", choices=("random", "self-play", "curriculum"),
                   help="random: against a random player; self-play: one table for both "
                        "sides; curriculum (the default): seed 001's random-then-self-play")
    p.add_argument("--curriculum-fraction", type=_real, metavar="F",
                   help="curriculum: share of episodes against random first (default 0.2)")
    p.add_argument("--curriculum-epsilon", type=_real, metavar="EPS",
                   help="curriculum: epsilon reset for the self-play phase (default 0.6)")
    p.add_argument("--alpha-decay", type=_real, metavar="DECAY",
                   help="learning-rate decay per episode")
    p.add_argument("--alpha-min", type=_real, metavar="A", help="floor of the learning rate")
    p.add_argument("--shaping", action="store_true",
                   help="seed 000 reward shaping (-0.8 for leaving an immediate win)")
    p.add_argument("--symmetry", action="store_true",
                   help="learn over the 8 rotations/reflections of the board")
    p.add_argument("--seed", type=_nonneg_int, help="seed (same seed, same Q table)")
    p.add_argument("--out", metavar="PATH", help="model file to write (default: the cache)")
    p.add_argument("--plot", metavar="PNG", help="write the learning curves to PNG")
    p.add_argument("--eval-games", type=_nonneg_int, default=100_000, metavar="N",
                   help="sampled games vs random for the summary, on each side the model "
                        "plays (0 skips; default 100000)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_train, game="ttt")

    p = sub.add_parser(
        "eval", formatter_class=fmt,
        help="evaluate a saved model or an engine: W/D/L table",
        description="Play a saved Q-learning model (--model) or an engine (--engine) against "
                    "another\nengine (--against) and print wins/draws/losses.",
        epilog="engines per game:\n" + _engine_help() + "\n\nexamples:\n"
               f"  {PROG} eval --model ~/.cache/ttt_engine/ttt-q.npz --against perfect\n"
               f"  {PROG} eval --engine mcts --simulations 2000 --against random --games 200")
    _add_common(p)
    p.add_argument("--engine", metavar="ENGINE", help="engine to evaluate")
    p.add_argument("--against", metavar="ENGINE", default="random",
                   help="opponent engine (default random)")
    p.add_argument("--games", type=_pos_int, default=1000, metavar="N",
                   help="games per side (default 1000)")
    p.add_argument("--side", default="both", metavar="SIDE",
                   help="side of the evaluated player: X, O or both (default)")
    p.add_argument("--zero-based", action="store_true", help=argparse.SUPPRESS)
    _add_engine_options(p)
    p.set_defaults(func=cmd_eval, verbose=False)

    sub.add_parser(
        "clobber", add_help=False,
        help="seed 002's Clobber modes (basic / extended) on a board file or stdin; "
             f"'{PROG} clobber --help' for its options")
    sub.add_parser(
        "quixo", add_help=False,
        help=f"seed 004's Quixo stages A/B/C; '{PROG} quixo --help' for its options")
    return parser


def _version():
    try:
        from ttt_engine import __version__
        return __version__
    except ImportError:
        return "unknown"


def _delegate(command, rest):
    """``clobber`` / ``quixo``: the game helpers' own command lines (their argparse
    parsers, so ``--help`` is theirs and complete)."""
    if command == "clobber":
        if rest[:1] == ["solve"]:
            from ttt_engine import clobber_solve
            return clobber_solve.main(rest[1:], prog=f"{PROG} clobber solve")
        try:
            from ttt_engine import clobber_play
        except ImportError:
            raise CLIError("the Clobber modes are not in this build "
                           "(ttt_engine.clobber_play is missing)") from None
        return clobber_play.main(rest, prog=f"{PROG} clobber")
    try:
        from ttt_engine import quixo
    except ImportError:
        raise CLIError("the Quixo stages are not in this build "
                       "(ttt_engine.quixo is missing)") from None
    return quixo.main(rest, prog=f"{PROG} quixo")


def main(argv=None):
    """Entry point of ``ttt-engine`` / ``python -m ttt_engine``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in DELEGATED:
        return _guarded(lambda: _delegate(argv[0], argv[1:]), Console(Style(sys.stdout)))
    parser = build_parser()
    args = parser.parse_args(argv)
    style = Style(sys.stdout, getattr(args, "color", "auto"))
    console = Console(style)
    return _guarded(lambda: args.func(args, console), console)


def _guarded(run, console):
    """Run a command with the exit-status conventions (q/Ctrl-D 0, Ctrl-C 130,
    CLIError one line), never a traceback for those."""
    try:
        return run() or EXIT_OK
    except Quit:
        console.say("Bye.")
        return EXIT_OK
    except EndOfInput:
        console.say("\nEnd of input: bye.")
        return EXIT_OK
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except CLIError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr, flush=True)
        return e.code
    except ValueError as e:     # a library's input check on a value we passed through
        print(f"{PROG}: error: {e}", file=sys.stderr, flush=True)
        return EXIT_ERROR
    except BrokenPipeError:
        # stdout closed early (e.g. piped into head): exit quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
