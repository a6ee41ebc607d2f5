"""Files the console reads and writes: board files read with a bounded size,
output paths checked before any work, write errors as one line."""
from __future__ import annotations

import os
import re
import sys
import tempfile

from ttt_engine import _util
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_USAGE, CLIError

__all__ = ["BOARD_FILE_MAX", "read_board_text", "board_error", "check_output", "save"]

#: Largest board file read (a real one is well under 1 KiB).
BOARD_FILE_MAX = 64 * 1024


def _reason(e):
    return e.strerror or str(e) or type(e).__name__


def read_board_text(path):
    """The text of a board file (``-``: stdin), reading at most ``BOARD_FILE_MAX``
    bytes: a larger, binary or non-UTF-8 file is "not a board file"."""
    what = "standard input" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read(BOARD_FILE_MAX + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(BOARD_FILE_MAX + 1)
    except OSError as e:
        raise CLIError(f"cannot read the board file {what}: {_reason(e)}", EXIT_ERROR) from None
    if len(data) > BOARD_FILE_MAX:
        raise CLIError(f"{what} is not a board file (more than {BOARD_FILE_MAX // 1024} KiB)",
                       EXIT_USAGE)
    if b"\0" in data:
        raise CLIError(f"{what} is not a board file (binary data)", EXIT_USAGE)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CLIError(f"{what} is not a board file (not UTF-8 text)", EXIT_USAGE) from None


def _line_column(text, offset):
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def board_error(path, text, error, offset=0):
    """A board's ``ValueError`` on ``text`` (read from ``path``) as a usage
    ``CLIError`` naming the file, the line and the column (``offset``: where
    the text given to the board starts in the file's ``text``)."""
    what = "standard input" if path == "-" else path
    msg = str(error)
    if msg.startswith("<string>: "):           # already "line L, column C: ..."
        msg = msg[len("<string>: "):]
    m = re.search(r" at position (\d+)", msg)
    if m:                                       # a character offset into the text
        line, col = _line_column(text, offset + int(m.group(1)))
        msg = f"line {line}, column {col}: " + msg[:m.start()] + msg[m.end():]
    msg = re.sub(r" in '[^']*'", "", msg)      # the boards echo the whole text
    return CLIError(f"{what} is not a valid board: {msg}", EXIT_USAGE)


def check_output(path, what, create_folder=None, force=None):
    """Check, before any work, that ``path`` can be written; return it.

    ``force``: the command's ``--force`` (the one overwrite rule: an output file
    that exists is refused, exit 2, unless ``--force`` is given); None for an
    output the command reads back on purpose (a resumable results file, a cache).

    The library's own rule (:func:`ttt_engine._util.check_output_path`, the
    one every ``save`` applies): an existing path must be a regular file (a
    folder, FIFO or device is a usage error, exit 2) and the folder must exist
    (exit 1).  Only with ``create_folder`` (a console, for the default model
    path in the cache) is a missing folder created, and the console says so."""
    path = os.path.expanduser(os.fspath(path))
    folder = os.path.dirname(os.path.abspath(path))
    if create_folder is not None and not os.path.lexists(folder):
        try:
            os.makedirs(folder)
        except OSError as e:
            raise CLIError(f"cannot create the folder {folder} for the {what}: {_reason(e)}",
                           EXIT_ERROR) from None
        create_folder.say(f"Created the folder {folder}.")
    if force is False and os.path.isfile(path):
        raise CLIError(f"the {what} {path} exists: --force replaces it", EXIT_USAGE)
    try:
        target = _util.check_output_path(path, what)
    except (FileNotFoundError, NotADirectoryError) as e:
        raise CLIError(str(e), EXIT_ERROR) from None
    except OSError as e:                            # a folder, FIFO, device, socket
        raise CLIError(str(e), EXIT_USAGE if e.errno is None else EXIT_ERROR) from None
    try:
        fd, probe = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(target)),
                                     prefix=".ttt-engine-check-")
    except OSError as e:
        raise CLIError(f"cannot write the {what} {path}: {_reason(e)}", EXIT_ERROR) from None
    os.close(fd)
    os.unlink(probe)
    return path


def save(write, path, what):
    """``write(path)``, with an ``OSError`` as one line naming the file."""
    try:
        return write(path)
    except OSError as e:
        msg = str(e) if str(e).startswith("cannot write") else \
            f"cannot write the {what} {path}: {_reason(e)}"
        raise CLIError(msg, EXIT_ERROR) from None


def check_plot(path, what="trained", force=None):
    """The checked output path of a ``--plot`` file, with matplotlib present
    (checked before any work: nothing was ``what`` when this fails)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CLIError('--plot needs matplotlib: pip install "ttt_engine[plot]" '
                       f"(nothing was {what})", EXIT_USAGE) from None
    return check_output(path, "plot", force=force)
