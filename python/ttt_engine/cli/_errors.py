"""Errors and exit codes shared by every command of the console tool.

Exit status, the same in every command and game:

- 0: done (also ``q`` at a prompt and end of input);
- 1: the work could not be done: a file that is missing or cannot be read or
  written, an output that is closed or full, a Dask scheduler that cannot be reached;
- 2: bad usage: an option, an argument or the contents of an input file the
  user gave is not valid (one line saying what is expected: a model or network
  file that is not one, or of another game, is such an input); an output
  file that exists (``--force`` replaces it); a command or
  option that needs an extra which is not installed;
- 130: interrupted by Ctrl-C.
"""
from __future__ import annotations

__all__ = ["EXIT_OK", "EXIT_ERROR", "EXIT_USAGE", "EXIT_INTERRUPTED", "PROG",
           "CLIError", "Quit", "EndOfInput", "MoveError", "shorten"]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

PROG = "ttt-engine"

#: Longest piece of user input echoed back in a message.
ECHO_MAX = 40


class CLIError(Exception):
    """A user-facing error: printed as one line ``ttt-engine: error: ...``,
    exit status ``code``."""

    def __init__(self, message, code=EXIT_ERROR):
        super().__init__(message)
        self.code = code


class Quit(Exception):
    """The user typed ``q``."""


class EndOfInput(Exception):
    """Ctrl-D / end of the input stream."""


class MoveError(ValueError):
    """A typed move that is not legal; the message is the one-line reason."""


def shorten(text, limit=ECHO_MAX):
    """``repr`` of user input, cut to ``limit`` characters (``...`` marks the cut)."""
    text = str(text)
    if len(text) > limit:
        return repr(text[:limit]) + "..."
    return repr(text)
