"""The Q-learning training driver behind :func:`ttt_engine.train`.

The whole run happens in a few calls of ``QTrainer.run_recorded`` (one per
phase, and one per 256 history records), each running without the GIL and
writing the per-chunk history records, exact metrics included, in C.  The
training thread therefore needs the GIL only a handful of times per run (and
for its interrupt checks), so a busy Python thread next to it barely slows it
down.  The progress bar is drawn by a small watcher thread reading the
trainer's episode counter (``QTrainer.progress``), not by the training loop.
"""
from __future__ import annotations

import threading

import numpy as np

from ttt_engine._core.learning.ttt import qlearning as _ql

__all__ = ["CounterBar", "run_training"]

_REPORT_KEYS = ("optimality", "optimality_reached_x", "optimality_reached_o",
                "exact_win_x", "exact_draw_x", "exact_loss_x",
                "exact_win_o", "exact_draw_o", "exact_loss_o")
_ROWS = 256          # history records per C call


class CounterBar:
    """Drive a tqdm-like ``bar`` from ``read()`` (a counter that another thread
    advances) every ``interval`` seconds in a watcher thread; a context manager.
    ``bar=None`` does nothing."""

    def __init__(self, bar, read, interval=0.2):
        self.bar, self.read, self.interval = bar, read, interval
        self._shown = read() if bar is not None else 0
        self._stop = threading.Event()
        self._thread = None

    def sync(self):
        """Bring the bar up to the counter now (call from any thread)."""
        if self.bar is None:
            return
        now = self.read()
        if now > self._shown:
            self.bar.update(now - self._shown)
            self._shown = now

    def _watch(self):
        while not self._stop.wait(self.interval):
            self.sync()

    def __enter__(self):
        if self.bar is not None and not getattr(self.bar, "disable", False):
            self._thread = threading.Thread(target=self._watch, daemon=True,
                                            name="ttt_engine-progress")
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sync()
        return False


def _append_rows(agent, records, rows, base, self_play):
    for r in records[:rows]:
        rec = {"episodes": base + int(r[0]), "wins": int(r[1]), "draws": int(r[2]),
               "losses": int(r[3]), "cut": int(r[4]), "epsilon": float(r[5]),
               "alpha": float(r[6]), "self_play": self_play}
        if r[7]:
            rec.update(zip(_REPORT_KEYS, map(float, r[8:])))
        agent.history.append(rec)


def run_training(trainer, agent, episodes, n_random, chunk, metrics_every, h, symmetry, bar):
    """Run ``episodes`` episodes (the first ``n_random`` against random, the rest
    self-play; see :func:`ttt_engine.train`) on ``trainer``, appending the
    history records to ``agent.history`` and updating ``agent.episodes`` and
    ``agent.q`` (curriculum tie-break, symmetric rows) even when interrupted."""
    start = agent.episodes
    records = np.zeros((_ROWS, _ql.RECORD_COLUMNS))
    done = 0
    nchunks = 0
    q_random = None
    tiebreak = h["curriculum_tiebreak"]
    counter = CounterBar(bar, lambda: trainer.progress)
    try:
        with counter:
            for phase_end in (n_random, episodes):
                if done >= phase_end:
                    continue
                if done >= n_random and trainer.mode == 0:   # curriculum: on to self-play
                    trainer.mode = 1
                    trainer.epsilon = h["curriculum_epsilon"]
                    if tiebreak > 0:
                        q_random = agent.q.copy()
                    if bar is not None:
                        counter.sync()
                        bar.set_description("self-play")
                while done < phase_end:
                    base = start + done
                    try:
                        ran, rows = trainer.run_recorded(
                            phase_end - done, chunk, nchunks, metrics_every,
                            phase_end == episodes, records, q_random, tiebreak, symmetry)
                    except KeyboardInterrupt:
                        ran, rows = trainer.last_done, trainer.last_rows
                        _append_rows(agent, records, rows, base, trainer.mode)
                        done += ran
                        raise
                    _append_rows(agent, records, rows, base, trainer.mode)
                    done += ran
                    nchunks += rows
    finally:
        if q_random is not None:
            agent.q += tiebreak * q_random
        if symmetry:
            _ql.expand_symmetric(agent.q)
        agent.episodes = start + done
