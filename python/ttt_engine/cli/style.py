"""Terminal styling: ANSI colours and box drawing, only on a terminal.

Colours are off when stdout is not a terminal, when ``NO_COLOR`` is set (any
value) or ``TERM=dumb``; ``--color always|never`` overrides.  Box drawing needs
a terminal (or ``always``) and a UTF-8 stream.
"""
from __future__ import annotations

import os
import sys

__all__ = ["Style"]


class Style:
    """``style(text, *styles)``: ``text`` with ANSI codes when colours are on;
    ``boxes``: box-drawing characters wanted.  This is the style hook the
    registry's ``Game.draw`` takes."""

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
