"""Per-game adapters of the console: board, typed moves, drawing, legend, engines."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Callable

from ttt_engine.cli._errors import EXIT_USAGE, CLIError, MoveError, shorten
from ttt_engine.cli import _engines as E
from ttt_engine.cli._files import board_error, read_board_text


@dataclass
class GameSpec:
    """Everything the console needs to know about one game."""
    key: str
    title: str
    sides: tuple                   # symbols in move order, e.g. ("X", "O")
    new_board: Callable            # (args) -> board
    parse_move: Callable           # (board, text, args) -> move; MoveError(reason)
    move_text: Callable            # (board, move, args) -> str, as the user would type it
    draw: Callable                 # (board, style, last_move, args) -> str
    legend: Callable               # (args, style) -> str
    prompt_hint: Callable          # (board, args) -> short hint for the prompt
    engines: dict = field(default_factory=dict)
    default_opponent: str = "random"


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


def _ttt_draw(board, style, last, args):
    base = _ttt_base(args)
    cells = board.cells
    shown = []
    for i in range(9):
        if cells[i]:
            shown.append(style.mark("XO"[cells[i] - 1], highlight=(i == last)))
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
                shown.append(style.mark(ch, highlight=(highlight == (r, c))))
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


# ---------------------------------------------------------------------------- Clobber
def _clobber_new(args):
    from ttt_engine import clobber
    if getattr(args, "board", None):
        text = read_board_text(args.board)
        try:
            return clobber.Board.from_string(text)
        except ValueError as e:
            raise board_error(args.board, text, e) from None
    rows, cols = _parse_size(getattr(args, "size", None), (6, 5))
    try:
        return clobber.Board(rows, cols)
    except ValueError as e:
        raise CLIError(f"bad Clobber board: {e}", EXIT_USAGE) from None


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
def _quixo_new(args):
    from ttt_engine import quixo
    if getattr(args, "board", None):
        text = read_board_text(args.board)
        try:
            return quixo.Board.from_string(text.rstrip("\n"))
        except ValueError as e:
            raise board_error(args.board, text, e) from None
    n, m = _parse_size(getattr(args, "size", None), (5, 5))
    if n != m or not 3 <= n <= 5:
        raise CLIError(f"--size: Quixo boards are 3x3, 4x4 or 5x5 (--size 3, 4 or 5), "
                       f"got {n}x{m}", EXIT_USAGE)
    return quixo.Board(n)


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
        text = read_board_text(args.board)
        try:
            return uttt.Board.from_string(text.strip())
        except ValueError as e:
            raise board_error(args.board, text, e, len(text) - len(text.lstrip())) from None
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
                ch = style.mark("XO"[x - 1], highlight=(9 * r + c == last))
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



def _quixo_size(args):
    return _quixo_new(args).size


def _engines(*specs):
    return {e.name: e for e in specs}


GAMES = {g.key: g for g in (
    GameSpec(key="ttt", title="Tic-Tac-Toe", sides=("X", "O"),
             new_board=_ttt_new, parse_move=_ttt_parse, move_text=_ttt_move_text,
             draw=_ttt_draw, legend=_ttt_legend, prompt_hint=_ttt_hint,
             engines=_engines(E.q_engine(), E.perfect_engine(), E.mcts_engine(),
                              E.random_engine()),
             default_opponent="perfect"),
    GameSpec(key="uttt", title="Ultimate Tic-Tac-Toe", sides=("X", "O"),
             new_board=_uttt_new, parse_move=_uttt_parse, move_text=_uttt_move_text,
             draw=_uttt_draw, legend=_uttt_legend, prompt_hint=_uttt_hint,
             engines=_engines(
                 E.mcts_engine(),
                 E.tree_engine("qtree", "TreeQAgent", "seed 003's tree Q-learning (--time or "
                               "--simulations per move)"),
                 E.tree_engine("sarsa", "SarsaAgent", "seed 003's Sarsa on the tree (--time "
                               "or --simulations per move)"),
                 E.random_engine()),
             default_opponent="mcts"),
    GameSpec(key="clobber", title="Clobber", sides=("B", "W"),
             new_board=_clobber_new, parse_move=_clobber_parse, move_text=_clobber_move_text,
             draw=_clobber_draw, legend=_clobber_legend, prompt_hint=_clobber_hint,
             engines=_engines(E.clobber_engine("alphabeta"), E.clobber_engine("minimax"),
                              E.mcts_engine(), E.random_engine()),
             default_opponent="alphabeta"),
    GameSpec(key="quixo", title="Quixo", sides=("X", "O"),
             new_board=_quixo_new, parse_move=_quixo_parse, move_text=_quixo_move_text,
             draw=_quixo_draw, legend=_quixo_legend, prompt_hint=_quixo_hint,
             engines=_engines(E.quixo_greedy_engine(_quixo_size), E.mcts_engine(),
                              E.alphabeta_engine(), E.random_engine()),
             default_opponent="mcts"),
)}


def engine_help():
    """The engines of every game, for ``--help``."""
    lines = []
    for g in GAMES.values():
        lines.append(f"  {g.key} ({g.title}; default {g.default_opponent}):")
        for e in g.engines.values():
            lines.extend(textwrap.wrap(e.help, 79, initial_indent=f"    {e.name:10}",
                                       subsequent_indent=" " * 14))
    return "\n".join(lines)


def resolve_engine(game, name, what="--opponent"):
    """The engine ``name`` of ``game``; a usage error listing its engines otherwise."""
    if name not in game.engines:
        raise CLIError(f"{what} {shorten(name)} is not an engine of {game.title}; choose from "
                       f"{', '.join(game.engines)}", EXIT_USAGE)
    return game.engines[name]
