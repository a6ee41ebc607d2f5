"""Shared input validation, seeding and file helpers for the Python layer.

Everything that crosses from Python into Cython is checked here first, so a
typo gives a one-line ``ValueError`` instead of a crash or a silent wrong answer.
"""
from __future__ import annotations

import difflib
import math
import numbers
import os
import secrets
import stat
import tempfile

__all__ = [
    "resolve_seed", "check_int", "check_real", "check_choice", "check_seconds",
    "check_simulations", "check_depth", "RangeError", "check_output_path", "atomic_write",
    "check_board", "describe", "game_title", "game_over", "check_bool", "unknown_options",
    "board_arguments",
]

#: Largest seed (seeds are 64-bit unsigned integers).
SEED_MAX = 2**64 - 1
SEED_RULE = f"must be an integer from 0 to {SEED_MAX:,} (or None for a fresh one)"
#: Largest count a compiled loop takes (int64): the default ``max`` of counts.
INT64_MAX = 2**63 - 1


def resolve_seed(seed):
    """Return a 64-bit seed: ``seed`` itself if given (int >= 0), else a fresh
    random one.  The resolved seed is what models record, so any run can be
    repeated exactly."""
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or \
            not 0 <= int(seed) <= SEED_MAX:
        raise RangeError("seed", SEED_RULE, seed)
    return int(seed)


class RangeError(ValueError):
    """A value outside its range.  ``rule`` is the message without the name
    and the value ("must be in (0, 86400]"), so the console states the very
    rule the library checks."""

    def __init__(self, name, rule, value):
        self.name, self.rule, self.value = name, rule, value
        super().__init__(f"{name} {rule}, got {value!r}")


def _num(x):
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def int_rule(min=None, max=None):
    """The rule ``check_int`` states for the range [min, max]."""
    if min is not None and max is not None:
        return f"must be an integer from {_num(min)} to {_num(max)}"
    if min is not None:
        return f"must be an integer >= {_num(min)}"
    if max is not None:
        return f"must be an integer <= {_num(max)}"
    return "must be an integer"


def real_rule(low=None, high=None, low_open=False, high_open=False):
    """The rule ``check_real`` states for the interval (one phrase per interval)."""
    if low is not None and high is not None:
        return f"must be in {'(' if low_open else '['}{_num(low)}, {_num(high)}" \
               f"{')' if high_open else ']'}"
    if low is not None:
        return f"must be a finite number {'>' if low_open else '>='} {_num(low)}"
    if high is not None:
        return f"must be a finite number {'<' if high_open else '<='} {_num(high)}"
    return "must be a finite number"


def check_int(name, value, *, min=None, max=None, allow_none=False):
    """``value`` as an int within [min, max]; a ``ValueError`` (:class:`RangeError`)
    naming ``name`` and stating the whole range otherwise."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        # accept integral floats such as 1e6 written by users
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise RangeError(name, int_rule(min, max), value)
    value = int(value)
    if (min is not None and value < min) or (max is not None and value > max):
        raise RangeError(name, int_rule(min, max), value)
    return value


def check_real(name, value, *, low=None, high=None, low_open=False, high_open=False,
               allow_none=False):
    """``value`` as a finite float in the given interval; a ``ValueError``
    (:class:`RangeError`) stating the interval otherwise (the same message
    for NaN, infinities and values outside it).

    ``check_real("alpha", a, low=0, high=1, low_open=True)`` checks a in (0, 1].
    """
    if value is None and allow_none:
        return None
    rule = real_rule(low, high, low_open, high_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise RangeError(name, rule.replace("must be in", "must be a number in"), value)
    value = float(value)
    lo_bad = low is not None and not (value > low if low_open else value >= low)
    hi_bad = high is not None and not (value < high if high_open else value <= high)
    if not math.isfinite(value) or lo_bad or hi_bad:
        raise RangeError(name, rule, value)
    return value


#: Longest time budget or limit any engine, search or solve takes (one day), in seconds.
MAX_SECONDS = 86_400.0
#: Deepest search an agent or the console is asked for, in plies (also perft's limit).
MAX_DEPTH = 64
#: Most simulations one search takes.
MAX_SIMULATIONS = 10**12
SECONDS_RULE = f"must be a number of seconds in (0, {MAX_SECONDS:g}]"


def check_seconds(name, value, *, allow_none=False):
    """A time budget or limit in seconds: a number in (0, :data:`MAX_SECONDS`],
    the one rule of every engine, search, solve and console option."""
    if value is None and allow_none:
        return None
    try:
        return check_real(name, value, low=0, low_open=True, high=MAX_SECONDS)
    except RangeError:
        raise RangeError(name, SECONDS_RULE, value) from None


def check_depth(name, value, *, allow_none=False):
    """A search depth budget: an integer from 1 to :data:`MAX_DEPTH` plies."""
    return check_int(name, value, min=1, max=MAX_DEPTH, allow_none=allow_none)


def check_simulations(name, value, *, allow_none=False):
    """A simulation budget: an integer from 1 to :data:`MAX_SIMULATIONS`."""
    return check_int(name, value, min=1, max=MAX_SIMULATIONS, allow_none=allow_none)


def game_title(obj):
    """The title of the game ``obj`` is a board of (a board class also: a game's
    ``Board`` says its ``TITLE``), else None."""
    cls = obj if isinstance(obj, type) else type(obj)
    title = getattr(cls, "TITLE", None)
    return title if isinstance(title, str) and callable(getattr(cls, "push", None)) else None


def describe(obj):
    """``obj`` for a message: "an Ultimate Tic-Tac-Toe board", "a Clobber board",
    else its type and value ("int 5")."""
    title = game_title(obj)
    if title is not None:
        return f"{'an' if title[0] in 'AEIOU' else 'a'} {title} board"
    text = repr(obj)
    return f"{type(obj).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def check_board(board, cls, who):
    """``board`` if it is a ``cls`` (a game's Board); else a ``ValueError``
    naming the games: "QAgent plays Tic-Tac-Toe, got an Ultimate Tic-Tac-Toe board"."""
    if not isinstance(board, cls):
        raise ValueError(f"{who} plays {game_title(cls)}, got {describe(board)}")
    return board


def game_over(winner):
    """The result in the one game-over message of every game:
    "the game is over ({game_over(w)})" reads "(X won)" or "(draw)"."""
    return "draw" if winner == "draw" else f"{winner} won"


def takes_keyword(fn, name):
    """Can ``fn`` be called with the keyword ``name`` (named, or ``**kwargs``)?
    False where its signature cannot be read (a builtin)."""
    import inspect
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def check_bool(name, value):
    """``value`` as a bool if it is True or False (numpy's bools too); a
    ``ValueError`` otherwise, so "no", 0 or 2 are not read as a choice."""
    kind = type(value)
    if kind is bool or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {value!r}")


def unknown_options(what, bad, valid, label="valid"):
    """The one ``ValueError`` for unknown keywords ``bad`` of ``what``: it lists
    the ``valid`` ones and guesses the one meant (``difflib``): "the Ultimate
    Tic-Tac-Toe mcts engine has no option 'simulatons'; valid: simulations,
    time, seed; did you mean 'simulations'?"."""
    valid = list(valid)
    text = (f"{what} has no option {', '.join(map(repr, bad))}; "
            f"{label}: {', '.join(valid) or 'none'}")
    guesses = [g for b in bad for g in difflib.get_close_matches(str(b), valid, n=1)]
    if guesses:
        text += f"; did you mean {' or '.join(map(repr, dict.fromkeys(guesses)))}?"
    return ValueError(text)


def board_arguments(what, args, kwargs, defaults):
    """The options of a board constructor ``what`` ("quixo.Board") called with
    ``args`` and ``kwargs``: ``defaults`` (an ordered dict of its options)
    updated from them.  An unknown keyword is the registry's refusal
    (:func:`unknown_options`); a surplus positional argument is refused too,
    pointing a text at ``from_string`` (a position is read, not constructed)."""
    if not args and not kwargs:
        return dict(defaults)
    names = list(defaults)
    if len(args) > len(names):
        extra = args[len(names)]
        hint = (f"; read a position with {what}.from_string({extra!r})"
                if isinstance(extra, str) else "")
        if not names:
            raise ValueError(f"{what}() takes no arguments, got {describe(extra)}{hint}")
        raise ValueError(f"{what}() takes at most {len(names)} argument(s) ({', '.join(names)}), "
                         f"got {len(args)}{hint}")
    out = dict(defaults)
    out.update(zip(names, args))
    bad = sorted(set(kwargs) - set(names))
    if bad:
        raise unknown_options(what, bad, names, "valid options")
    twice = sorted(set(kwargs) & set(names[:len(args)]))
    if twice:
        raise ValueError(f"{what}() got {twice[0]} twice (by position and by keyword)")
    out.update(kwargs)
    return out


def check_choice(name, value, choices):
    """``value`` if it is one of ``choices``; ``ValueError`` listing them otherwise."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def _kind_of(mode):
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def _shown(path):
    return os.fsdecode(path)


def _path_arg(path, what):
    if isinstance(path, bool) or not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"the {what} path must be a str or os.PathLike, "
                        f"got {type(path).__name__}: {path!r}")
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path:
        raise ValueError(f"the {what} path is empty")
    if "\0" in path:
        raise ValueError(f"the {what} path {path!r} contains a NUL character")
    return path


def _refusal(kind, path, what):
    """The ``OSError`` of an existing ``path`` that is not a regular file."""
    if kind == "a folder":
        return IsADirectoryError(f"cannot write the {what} {path}: it is a folder; "
                                 "give a file name")
    return OSError(f"cannot write the {what} {path}: it is {kind}, not a regular file "
                   "(left untouched)")


def _check_existing(path, shown, what):
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as e:
        raise type(e)(f"cannot write the {what} {shown}: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):
        raise _refusal(_kind_of(mode), shown, what)


def check_output_path(path, what="file"):
    """Check that the package may write the file ``path`` (before any work):
    returns the path to replace (``path`` itself, or the file a symbolic link
    at ``path`` points to, so the link is kept).

    Refused, with a one-line error naming ``path``: a non-path argument
    (``TypeError``), an empty path (``ValueError``), an existing path that is
    not a regular file -- a folder (``IsADirectoryError``), a FIFO, a device,
    a socket (``OSError``; left untouched) -- and a missing or non-folder
    parent (``FileNotFoundError`` / ``NotADirectoryError``: folders are never
    created)."""
    path = _path_arg(path, what)
    target = os.path.realpath(path) if os.path.islink(path) else path
    _check_existing(target, path, what)
    folder = os.path.dirname(os.path.abspath(target))
    try:
        mode = os.stat(folder).st_mode
    except FileNotFoundError:
        shown = folder if target != path else (os.path.dirname(path) or folder)
        raise FileNotFoundError(f"cannot write the {what} {path}: the folder {shown} "
                                "does not exist; create it first") from None
    except OSError as e:
        raise type(e)(f"cannot write the {what} {path}: {e.strerror or e}") from None
    if not stat.S_ISDIR(mode):
        raise NotADirectoryError(f"cannot write the {what} {path}: {folder} is not a folder")
    return target


def atomic_write(path, write, what="file"):
    """Write the file ``path`` atomically: the one writer of every file the
    package saves (models, value tables, certificates, solver tables, results,
    plots).

    ``path`` is checked first (:func:`check_output_path`: only a regular file
    is ever replaced, the folder must exist); ``write(fileobj)`` then fills a
    temporary file in the same folder, which replaces ``path`` in one rename,
    so a crash never leaves a half-written file where a good one was.  Every
    ``OSError`` is one line naming ``path`` (never the temporary file)."""
    target = check_output_path(path, what)
    shown = _path_arg(path, what)
    directory = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-",
                                   suffix=os.path.basename(target)[:64])
    except OSError as e:
        raise type(e)(f"cannot write the {what} {shown}: {e.strerror or e}") from None
    try:
        # mkstemp creates the file 0600; give it the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        _check_existing(target, shown, what)      # nothing but a file replaced, even now
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and e.errno is not None:    # the system's, not ours
            raise type(e)(f"cannot write the {what} {shown}: {e.strerror or e}") from None
        raise
