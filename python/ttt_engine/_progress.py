"""Progress of long solves: the ``progress=`` argument every game's ``solve`` takes.

``progress=False`` (the default): nothing.  ``progress=True``: one line on
stderr, rewritten in place on a terminal (about twice a second) and written
as a new line every :data:`LOG_EVERY` seconds elsewhere (a log), with a last
line when the solve ends.  A callable: called with a :class:`SolveProgress`
at most every :data:`EVERY` seconds while the search runs, at the points the
solver passes anyway (the end of an iteration, a bound proven), and once at
the end (``done`` True); what it raises stops the solve and is raised by it.

The compiled searches call back from their interrupt poll, which already
reads the clock about once a millisecond: between two reports a search pays
one comparison every poll, and takes the GIL only for the report itself.
"""
from __future__ import annotations

import shutil
import sys
import time
from dataclasses import dataclass

__all__ = ["EVERY", "LOG_EVERY", "SolveProgress", "reporter", "Reporter"]

#: Seconds between two reports of a running search to a ``progress`` callable.
EVERY = 0.5
#: Seconds between two lines of ``progress=True`` when stderr is not a terminal.
LOG_EVERY = 10.0


def count(n):
    """``n`` in at most four digits and a unit: 950, 12.3k, 4.56M, 1.23G."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            v = n / size
            return f"{v:.3g}{unit}" if v < 100 else f"{v:.0f}{unit}"
    return f"{n:.0f}"


def clock(seconds):
    """``seconds`` as m:ss, or h:mm:ss from an hour."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


def fit(line):
    """``line`` cut to the terminal's width: a line longer than the terminal
    would wrap, and rewriting it in place would then leave its start behind."""
    width = shutil.get_terminal_size((100, 24)).columns - 1
    return line if len(line) <= width else line[:width - 3] + "..."


@dataclass(frozen=True)
class SolveProgress:
    """Where a solve stands.

    - nodes: positions searched so far (every thread's);
    - seconds: wall time since the solve began;
    - stage: what is being searched (``"solving"``, ``"best move"``,
      ``"column 4"``, ``"depth 7"``, ...);
    - low, high: the score is known to lie in [low, high] (Connect Four's
      exact score; None where the solver has no such bounds);
    - probe: the search under way tests whether the score is above it (None
      where there is none);
    - done: True for the last report, when the solve has ended.
    """
    nodes: int
    seconds: float
    stage: str = ""
    low: object = None
    high: object = None
    probe: object = None
    done: bool = False

    @property
    def nodes_per_second(self):
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def __str__(self):
        parts = [f"{count(self.nodes)} nodes", f"{count(self.nodes_per_second)}/s",
                 clock(self.seconds)]
        if self.stage:
            parts.append(self.stage)
        if self.low is not None and self.low == self.high:
            parts.append(f"score {self.low:+d}")
        elif self.low is not None:
            parts.append(f"score in [{self.low:+d}, {self.high:+d}]")
            if self.probe is not None and not self.done:
                parts.append(f"testing > {self.probe:+d}")
        if self.done:
            parts.append("done")
        return " | ".join(parts)


class Reporter:
    """A solve's reports: ``report(nodes, stage=..., ...)`` while it runs,
    ``finish(nodes)`` at its end; both hand a :class:`SolveProgress` to the
    user's callable or draw the line of ``progress=True``."""

    def __init__(self, show, where, stream=None):
        self.show = show
        self.where = where
        self.stream = stream
        self.start = time.perf_counter()
        self.last_line = None
        self.last = None

    def report(self, nodes, stage="", low=None, high=None, probe=None, done=False):
        """Hand on the solve's state (``SolveProgress``'s fields)."""
        self.last = SolveProgress(int(nodes), time.perf_counter() - self.start, stage,
                                  low, high, probe, done)
        if self.show is True:
            self._draw(self.last)
        else:
            self.show(self.last)

    def finish(self, nodes, stage="", low=None, high=None):
        """The last report, once the solve has ended."""
        if self.last is not None and nodes is None:
            nodes = self.last.nodes
        self.report(nodes or 0, stage, low, high, None, True)

    def close(self):
        """End the line on a terminal if the solve stopped before its last
        report (Ctrl-C, an error)."""
        if self.show is True and self.last is not None and not self.last.done:
            out = self.stream or sys.stderr
            if getattr(out, "isatty", lambda: False)():
                out.write("\n")
                out.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def compiled(self, nodes, low, high, probe, stage):
        """The callback of the compiled Connect Four search."""
        self.report(nodes, stage, low, high, probe)

    def _draw(self, p):
        out = self.stream or sys.stderr
        tty = getattr(out, "isatty", lambda: False)()
        now = time.perf_counter()
        line = f"{self.where}: {p}"
        if tty:
            out.write("\r" + fit(line) + "\x1b[K" + ("\n" if p.done else ""))
        elif p.done or self.last_line is None or now - self.last_line >= LOG_EVERY:
            out.write(line + "\n")
            self.last_line = now
        out.flush()


class _Silent:
    """The reporter of ``progress=False``: takes every report, shows none."""

    def report(self, *args, **kw):
        pass

    finish = close = report
    compiled = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def reporter(progress, where, stream=None):
    """The reporter of a ``progress`` argument of ``where`` (a name such as
    ``"connect4.solve"``), a context manager: one that shows nothing for
    False or None (its ``compiled`` None), a :class:`Reporter` for True (the
    line on stderr, or ``stream``) or for a callable; anything else is a
    one-line ``ValueError``."""
    if progress is None or progress is False:
        return _Silent()
    if progress is True or (callable(progress) and not isinstance(progress, type)):
        return Reporter(progress, where, stream)
    raise ValueError("progress must be True (a line on stderr), False or a callable "
                     f"taking a SolveProgress, got {progress!r}")


class WorkLine:
    """The line of a long job of ``total`` units (a book's positions): done of
    total, the time so far, the time left at the pace so far, and what the
    unit under way is doing; rewritten in place on a terminal (at most every
    :data:`EVERY` seconds), a new line every ``log_every`` seconds elsewhere
    (a log).  ``done`` units and ``seconds`` of earlier runs (a resumed job)
    give the pace until this run has finished a unit of its own."""

    def __init__(self, label, total, stream=None, done=0, seconds=0.0, log_every=30.0):
        self.label, self.total, self.stream = label, total, stream
        self.first_done, self.earlier = done, seconds
        self.log_every = log_every
        self.start = time.perf_counter()
        self.shown = None
        self.open = False            # a terminal line waits for its end

    def _out(self):
        return self.stream or sys.stderr

    def _tty(self):
        return getattr(self._out(), "isatty", lambda: False)()

    def left(self, done):
        """Seconds left at the pace of this run (else of the earlier runs), None
        before any unit is timed."""
        ran = done - self.first_done
        if ran > 0:
            return (time.perf_counter() - self.start) / ran * (self.total - done)
        if self.first_done and self.earlier > 0:
            return self.earlier / self.first_done * (self.total - done)
        return None

    def text(self, done, detail=""):
        spent = self.earlier + time.perf_counter() - self.start
        left = self.left(done)
        pace = ("done" if done >= self.total else
                "time left: known once one is done" if left is None
                else f"about {clock(left)} left")
        pct = 100.0 * done / self.total if self.total else 100.0
        line = f"{self.label}: {done:,}/{self.total:,} ({pct:.1f}%), {clock(spent)}, {pace}"
        return f"{line} | {detail}" if detail else line

    def update(self, done, detail="", force=False):
        """Show the line if one is due (``force``: now)."""
        now = time.perf_counter()
        due = self.shown is None or now - self.shown >= (EVERY if self._tty() else self.log_every)
        if not (due or force):
            return
        self.shown = now
        out = self._out()
        if self._tty():
            out.write("\r" + fit(self.text(done, detail)) + "\x1b[K")
            self.open = True
        else:
            out.write(self.text(done, detail) + "\n")
        out.flush()

    def say(self, text):
        """A line of its own (the terminal's progress line ended first)."""
        out = self._out()
        out.write(("\n" if self.open else "") + text + "\n")
        self.open = False
        out.flush()
