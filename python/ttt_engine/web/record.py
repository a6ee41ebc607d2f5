"""Game records: a game as text that the page downloads, pastes and puts in
its address, and that ``ttt-engine play --from`` reads.

A record is a few ``key: value`` lines::

    game: connect4
    moves: 4453

``start:`` (the first position as the game's ``to_string``, written as a JSON
string so that line breaks and spaces survive; read also as it is, unquoted) is there when the game did not
start from a new board, ``options:`` (a JSON object) when its board options
are not the defaults.  The moves are in the game's move-list notation
(``Game.move_list``; else the move texts separated by spaces, each without the
spaces inside it: ``4,5 3,3`` for Ultimate Tic-Tac-Toe).

Pasted text may also be a bare position (the ``to_string`` form) or a bare
move list of a game named beside it.  Bad input is a ``ValueError`` with one
line naming the move or character that is wrong.  Nothing here needs the web
extra.
"""
from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field

from ttt_engine import games

__all__ = ["Record", "read_record", "write_record", "read_moves", "write_moves", "MAX_RECORD"]

#: Longest record read (characters).
MAX_RECORD = 64 * 1024


@dataclass(frozen=True)
class Record:
    """A game: its registry entry, board options, first position (None: a new
    board) and moves (move numbers)."""
    game: object
    options: dict = field(default_factory=dict)
    start: object = None
    moves: tuple = ()
    #: why the move list stopped where it did (``read_record(partial=True)``), else None
    error: str = None

    def first_board(self):
        """A copy of the first position."""
        return self.start.copy() if self.start is not None else \
            self.game.new_board(**self.options)

    def board(self):
        """The position after the moves."""
        b = self.first_board()
        for m in self.moves:
            b.push(m)
        return b


def start_board(game, text, options=None):
    """The first position read from ``text`` (the game's ``to_string``) with the
    board ``options``: the ones the text does not say (UTTT's tiebreak, Quixo's
    max_plies) are read with it, the others (sizes) must be the position's own;
    a one-line ``ValueError`` otherwise (an unknown option, one the position
    contradicts, a text that is not a position)."""
    options = dict(options or {})
    try:
        game._check_options(options)
    except ValueError as e:
        raise ValueError(f"bad board options: {e}") from None
    takes = _read_with(game)
    try:
        board = game.from_string(text, **{k: v for k, v in options.items() if k in takes})
    except (ValueError, TypeError, OverflowError) as e:
        raise ValueError(f"start: not a {game.title} position: {e}") from None
    for k, v in options.items():
        if k not in takes and getattr(board, k) != v:
            raise ValueError(f"board option {k}={json.dumps(v)} contradicts the start position "
                             f"({k}={json.dumps(getattr(board, k))})")
    return board


def _read_with(game):
    """The board options the game's position reader takes."""
    try:
        params = inspect.signature(game.Board.from_string).parameters
    except (TypeError, ValueError):
        return set()
    return set(params) & set(game.options)


def board_options(game, board):
    """The board options of ``board`` (all of the game's, with their values)."""
    return {k: getattr(board, k) for k in game.options}


def _short(text, n=20):
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."


def read_moves(game, board, text, partial=False):
    """The moves of ``text`` (the game's move-list notation, :meth:`ttt_engine.games.Game.read_moves`)
    played from ``board``; a one-line ``ValueError`` naming the first bad move.  With
    ``partial``: ``(moves, error)``, the moves of the longest part of ``text`` that
    reads and the reason the rest does not (None when all of it reads)."""
    try:
        moves = game.read_moves(board, text)
    except ValueError as e:
        if not partial:
            raise
        return _longest_prefix(game, board, text), str(e).splitlines()[0]
    return (moves, None) if partial else moves


#: longest move list searched for its legal beginning (characters)
MAX_PREFIX = 2000


def _longest_prefix(game, board, text):
    """The moves of the longest beginning of ``text`` that reads (the move lists of
    every notation read move by move from the left)."""
    best = []
    if game.move_list is None:
        tokens = text.split()
        for k in range(1, len(tokens) + 1):
            try:
                best = game.read_moves(board, " ".join(tokens[:k]))
            except ValueError:
                break
        return best
    for k in range(1, min(len(text), MAX_PREFIX) + 1):
        try:
            best = game.read_moves(board, text[:k])
        except ValueError:
            continue
    return best


def write_moves(game, board, moves):
    """``moves`` from ``board`` as :func:`read_moves` reads them."""
    return game.write_moves(board, moves)


def write_record(game, moves=(), *, start=None, options=None):
    """The record of a game (see the module docstring)."""
    options = {k: v for k, v in (options or {}).items() if game.options.get(k) != v}
    first = start.copy() if start is not None else game.new_board(**options)
    lines = [f"game: {game.key}"]
    if options and start is None:
        lines.append(f"options: {json.dumps(options, sort_keys=True)}")
    if start is not None:
        lines.append(f"start: {json.dumps(start.to_string())}")
    lines.append(f"moves: {write_moves(game, first, moves)}")
    return "\n".join(lines) + "\n"


def _fields(text):
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or key not in ("game", "options", "start", "moves", "pos"):
            raise ValueError(f"record line {n} ({_short(line)}) is not 'game:', 'options:', "
                             "'start:', 'moves:' or 'pos:'")
        if key in out:
            raise ValueError(f"record line {n}: a second '{key}:'")
        out[key] = value.strip()
    return out


def _json(key, value, kind):
    try:
        v = json.loads(value)
    except (ValueError, RecursionError):
        v = None
    if not isinstance(v, kind):
        raise ValueError(f"{key}: must be a JSON {'object' if kind is dict else 'string'}, "
                         f"got {_short(value)}")
    return v


def read_record(text, game=None, options=None, partial=False):
    """A :class:`Record` from ``text``: a record, or (with ``game``, a registry
    key or entry) a bare position or move list of that game.  One-line
    ``ValueError`` for bad input.  ``partial``: a record whose moves stop at a bad
    one keeps the moves before it, with the reason in ``error``."""
    if not isinstance(text, str):
        raise ValueError("a record must be text")
    if len(text) > MAX_RECORD:
        raise ValueError(f"the record is too long ({len(text):,} characters; at most "
                         f"{MAX_RECORD:,})")
    if isinstance(game, str):
        game = games.get(game)
    if text.lstrip().lower().startswith("game:"):
        f = _fields(text)
        game = games.get(f["game"])
        opts = _json("options", f["options"], dict) if "options" in f else {}
        start = None
        if "start" in f:
            raw = f["start"]                        # a JSON string, or the text as it is
            try:
                text = _json("start", raw, str) if raw.startswith('"') else raw
            except ValueError as e:
                raise ValueError(f"start: not a {game.title} position: {e}") from None
            start = start_board(game, text, opts)
        else:
            try:
                game.new_board(**opts)
            except (ValueError, TypeError) as e:
                raise ValueError(f"options: {e}") from None
        board = start.copy() if start is not None else game.new_board(**opts)
        if start is not None:
            opts = board_options(game, start)
        text = f["moves"] if "moves" in f else f.get("pos", "")
        if partial:
            moves, error = read_moves(game, board, text, partial=True)
            return Record(game, opts, start, tuple(moves), error)
        return Record(game, opts, start, tuple(read_moves(game, board, text)))
    if game is None:
        raise ValueError("name the game: a record starts with a 'game:' line")
    opts = dict(options or {})
    try:
        game._check_options(opts)
    except ValueError as e:
        raise ValueError(f"bad board options: {e}") from None
    stripped = text.strip()
    if not stripped:
        return Record(game, opts)
    try:
        # a bare position has the size it is written with; the options the
        # text cannot say are the ones given
        start = game.from_string(text, **{k: v for k, v in opts.items()
                                          if k in _read_with(game)})
    except (ValueError, TypeError) as e:
        position_error = str(e).splitlines()[0] if str(e) else "not a position"
    else:
        return Record(game, board_options(game, start), start, ())
    board = game.new_board(**opts)
    try:
        return Record(game, opts, None, tuple(read_moves(game, board, stripped)))
    except ValueError as e:
        raise ValueError(f"neither a move list ({e}) nor a position ({position_error})") \
            from None
