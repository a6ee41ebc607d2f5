"""Tournaments with ratings, and hyperparameter sweeps, on any executor.

- :func:`round_robin`: every pair of agents plays a number of games, colours
  alternating; W-D-L tables (per colour too), scores and Elo ratings (OpenSpiel's
  minorisation-maximisation fit, :mod:`ttt_engine.tournament.ratings`) with
  bootstrap intervals; ``openings=`` plays every pairing from an opening
  suite (:func:`opening_suite`), each opening twice with colours swapped.
- :func:`sweep`: a function over a grid of parameters, several seeded repeats
  each; :func:`qlearning_sweep` is the ready one for Tic-Tac-Toe Q-learning.

Both take any :class:`concurrent.futures.Executor` (default: a local process
pool with one worker per core; a Dask cluster:
``distributed.Client(address).get_executor()``) and an ``out=`` JSON-lines
file that makes them resumable.  See docs/tournament.md.
"""
from ttt_engine.tournament import ratings
from ttt_engine.tournament._runner import ResultsFileError, SerialExecutor, default_executor
from ttt_engine.tournament.round_robin import (
    OPENING_PLIES,
    Entrant,
    TournamentError,
    TournamentResult,
    check_yardstick,
    game_seed,
    opening_suite,
    play_game,
    round_robin,
)
from ttt_engine.tournament.sweep import (
    SweepError,
    SweepResult,
    qlearning_run,
    qlearning_sweep,
    sweep,
)

__all__ = [
    "OPENING_PLIES",
    "Entrant",
    "ResultsFileError",
    "SerialExecutor",
    "SweepError",
    "SweepResult",
    "TournamentError",
    "TournamentResult",
    "check_yardstick",
    "default_executor",
    "game_seed",
    "opening_suite",
    "play_game",
    "qlearning_run",
    "qlearning_sweep",
    "ratings",
    "round_robin",
    "sweep",
]
