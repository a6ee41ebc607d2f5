"""Line input and output with the console conventions: ``q`` quits, end of
input (Ctrl-D) ends, output errors become one line."""
from __future__ import annotations

import sys

from ttt_engine.cli._errors import ECHO_MAX, EndOfInput, Quit
from ttt_engine.cli.style import Style

__all__ = ["Console"]


class Console:
    """Prompts on stdin, text on stdout, styled by ``style``."""

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

    @classmethod
    def for_args(cls, args):
        """The console of a command: stdout, styled by ``--color`` (default auto)."""
        return cls(Style(sys.stdout, getattr(args, "color", None) or "auto"))

    def say(self, text=""):
        print(text, file=self.out, flush=True)

    def ask(self, prompt):
        """One stripped line; ``Quit`` for q/quit/exit, ``EndOfInput`` on Ctrl-D."""
        self.out.flush()
        try:
            line = input(prompt)
        except EOFError:
            raise EndOfInput() from None
        if self.echo:       # cut like every echo of user input
            shown = line if len(line) <= ECHO_MAX else line[:ECHO_MAX] + "..."
            print(shown, file=self.out, flush=True)
        line = line.strip()
        if line.lower() in self.QUIT_WORDS:
            raise Quit()
        return line

    def yes_no(self, prompt, default=False, at_end=None):
        """True or False; ``at_end``: the answer that end of input gives (None:
        ``EndOfInput``), so that a question before any work can read it as "no"."""
        hint = "[Y/n]" if default else "[y/N]"
        while True:
            try:
                answer = self.ask(f"{prompt} {hint} ").lower()
            except EndOfInput:
                if at_end is None:
                    raise
                self.say()
                return at_end
            if not answer:
                return default
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            self.say("Please answer y or n (q quits).")
