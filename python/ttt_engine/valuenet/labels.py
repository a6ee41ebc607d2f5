"""Labelled positions for value-network training.

Games are played by a search engine (the game's strongest MCTS settings,
``Game.best_mcts``, else MCTS-Solver with the decisive playouts where the game
has them), after an
opening of random plies (``opening`` plies at most; each game draws its number
uniformly from 0 to ``opening``, so early positions are diverse).  The same
search that picks each move labels its position: the value, for the side to
move, of the search's root (the visit-weighted mean of the root moves' values,
in [-1, 1]), or the exact value where the search proved it (MCTS-Solver's
proof, the game's exact endgame solve).  A simulation budget makes a game
depend on its seed only: game ``i`` of a run is seeded from the run's seed and
``i``, so the same run gives the same labels whatever the chunking or the
number of workers.

A run is a folder: ``run.json`` (its settings) and chunk files
``chunk-00000.npz`` of ``games_per_chunk`` games each, written atomically as
each finishes; running the same command again resumes (the finished chunks are
kept), more ``games`` extend a run.  A chunk holds:

- ``game_index`` (int64 [G]), ``moves`` (int32, every game's moves one after
  the other) and ``offsets`` (int64 [G+1]): the games, replayable from the start;
- per position: ``position_game`` (int32, index into the chunk's games),
  ``position_ply`` (int32), ``features`` (uint8 [N, F], dense 0/1),
  ``labels`` (float32 [N]), ``exact`` (bool [N]), ``off_line`` (bool [N]:
  a position off the played line, ``branch`` random plies at most from the
  position of its ply; after the game's own positions);
- ``seconds`` (float64): the time the chunk took.
"""
from __future__ import annotations

import json
import os
import re
import time

import numpy as np

from ttt_engine import _util
from ttt_engine._parallel import _splitmix64
from ttt_engine.engines import NETWORK_MCTS

__all__ = ["LabelRun", "label_game", "label", "load_positions", "search_settings", "RUN_FILE"]

RUN_FILE = "run.json"
_CHUNK = re.compile(r"chunk-([0-9]{5,})\.npz")
#: the settings that make a run: an existing folder must match them to be resumed
IDENTITY = ("game", "options", "simulations", "seed", "opening", "games_per_chunk", "network",
            "search", "features", "branch")
#: settings a run made before they existed reads with these values
DEFAULTS = {"branch": 0, "network": None}


def search_settings(game_key):
    """The labelling search's MCTS settings for a game: its strongest MCTS
    (``Game.best_mcts``: MCTS-Solver with its best playouts and, where it has
    one, the exact endgame solve), else MCTS-Solver with the game's decisive
    playouts where it has them."""
    from ttt_engine import games
    game = games.get(game_key)
    if game.best_mcts:
        return dict(game.best_mcts)
    board = game.new_board()
    return {"solver": True, "playout": "decisive" if "decisive" in board.PLAYOUTS else "random"}


def network_identity(path, game_key):
    """``{"path", "sha256"}`` of a network file of game ``game_key`` (loaded
    once to check it: another game's or a damaged file is its clear error)."""
    import hashlib
    from ttt_engine import valuenet
    path = os.path.abspath(os.fspath(path))
    valuenet.load(path, game_key)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"path": path, "sha256": digest}


_networks = {}


def _labelling_network(network, game_key):
    """The compiled network of a run's ``network`` setting, read once per
    process; a file that changed since the run began is refused."""
    key = (network["path"], network["sha256"])
    if key not in _networks:
        from ttt_engine.search.common import _compiled_value_net
        if network_identity(network["path"], game_key) != network:
            raise ValueError(f"{network['path']} changed since this labelling run began; "
                             "label with the file the run was started with, or start a new run")
        from ttt_engine import valuenet
        _networks[key] = _compiled_value_net(valuenet.load(network["path"], game_key))
    return _networks[key]


def _root_value(stats):
    """``(value, exact)`` of a finished MCTS search, for the side to move."""
    if stats.get("root_proven"):
        return float(stats["root_proven"]), True
    if stats.get("endgame") is not None:
        return float(stats["endgame"]), True
    children = stats["children"]
    visits = sum(c["visits"] for c in children)
    if visits == 0:
        return 0.0, False
    return sum(c["visits"] * c["mean"] for c in children) / visits, False


def label_game(game_key, options, simulations, seed, opening, search=None, max_nodes=None,
               branch=0, network=None):
    """Play one game and label its positions: ``(moves, labels, exact,
    branches)``: the moves from the start, and for the position before each
    move its value for the side to move and whether that value is exact.  With
    ``branch`` > 0, each position also gives one position 1 to ``branch``
    uniformly random plies off the played line, labelled by the same search
    (``branches``: ``(ply, board, label, exact)`` for each that is not over):
    a search's leaves lie mostly off the line good play takes, after moves
    that good play would not make, and a network trained only on the played
    line does not know them.  ``network`` (``network_identity``'s): the
    search scores its leaves with that value network (an iterated round)."""
    from ttt_engine import games
    from ttt_engine.search import MCTS
    game = games.get(game_key)
    board = game.new_board(**options)
    rng = np.random.default_rng(seed)
    random_plies = int(rng.integers(0, opening + 1))
    settings = dict(search or search_settings(game_key))
    if network is not None:
        settings["value_network"] = _labelling_network(network, game_key)
    if max_nodes is None:
        max_nodes = max(50_000, 2 * simulations)
    mcts = MCTS(seed=int(rng.integers(0, 1 << 63)), max_nodes=max_nodes, **settings)
    moves, labels, exact, branches = [], [], [], []
    while not board.is_terminal():
        if branch:
            off = board.copy()
            for _ in range(int(rng.integers(1, branch + 1))):
                if off.is_terminal():
                    break
                legal = off.legal_moves
                off.push(legal[int(rng.integers(0, len(legal)))])
            if not off.is_terminal():
                mcts.search(off, simulations=simulations)
                branches.append((len(moves), off, *_root_value(mcts.stats)))
        move = mcts.search(board, simulations=simulations)
        value, proven = _root_value(mcts.stats)
        labels.append(value)
        exact.append(proven)
        if len(moves) < random_plies:
            legal = board.legal_moves
            move = legal[int(rng.integers(0, len(legal)))]
        board.push(move)
        moves.append(int(move))
    return moves, labels, exact, branches


def game_seed(seed, i):
    """The seed of game ``i`` of a run seeded with ``seed`` (as
    ``_parallel.split_seeds`` derives its parts' seeds)."""
    return _splitmix64(seed ^ _splitmix64(i + 1))


def _label_chunk(task):
    """One chunk's arrays (run in a worker): ``task = (settings, chunk)``."""
    from ttt_engine import games
    settings, chunk = task
    start = time.perf_counter()
    key, options = settings["game"], settings["options"]
    game = games.get(key)
    vf = game.value_features
    count = int(vf.count(game.new_board(**options)))
    per = settings["games_per_chunk"]
    first = chunk * per
    seeds = [game_seed(settings["seed"], i) for i in range(first, first + per)]
    game_index, all_moves, offsets = [], [], [0]
    pos_game, pos_ply, labels, exact, feats, off_line = [], [], [], [], [], []

    def row_of(board):
        row = np.zeros(count, dtype=np.uint8)
        row[vf.active(board)] = 1
        return row

    for j, seed in enumerate(seeds):
        moves, values, proven, branches = label_game(
            key, options, settings["simulations"], seed, settings["opening"],
            settings["search"], branch=settings.get("branch", 0),
            network=settings.get("network"))
        board = game.new_board(**options)
        for move in moves:
            feats.append(row_of(board))
            board.push(move)
        game_index.append(first + j)
        all_moves += moves
        offsets.append(len(all_moves))
        pos_game += [j] * len(moves)
        pos_ply += range(len(moves))
        labels += values
        exact += proven
        off_line += [False] * len(moves)
        for ply, off, value, exact_off in branches:      # after the game's own positions
            feats.append(row_of(off))
            pos_game.append(j)
            pos_ply.append(ply)
            labels.append(value)
            exact.append(exact_off)
            off_line.append(True)
    return dict(game_index=np.array(game_index, dtype=np.int64),
                moves=np.array(all_moves, dtype=np.int32),
                offsets=np.array(offsets, dtype=np.int64),
                position_game=np.array(pos_game, dtype=np.int32),
                position_ply=np.array(pos_ply, dtype=np.int32),
                features=np.array(feats, dtype=np.uint8).reshape(-1, count),
                labels=np.array(labels, dtype=np.float32),
                exact=np.array(exact, dtype=bool),
                off_line=np.array(off_line, dtype=bool),
                seconds=np.float64(time.perf_counter() - start))


class LabelRun:
    """A labelling run's folder (see the module docstring)."""

    def __init__(self, out, settings):
        self.out = os.fspath(out)
        self.settings = dict(settings)

    @property
    def run_file(self):
        return os.path.join(self.out, RUN_FILE)

    def chunk_path(self, chunk):
        return os.path.join(self.out, f"chunk-{chunk:05d}.npz")

    def done(self):
        """The chunks already on disk."""
        if not os.path.isdir(self.out):
            return set()
        return {int(m.group(1)) for m in map(_CHUNK.fullmatch, os.listdir(self.out)) if m}

    def prepare(self, force=False):
        """Create the folder, or check that an existing one is this run's
        (``force``: start over, deleting its chunks); returns the chunks done."""
        if os.path.exists(self.out) and not os.path.isdir(self.out):
            raise ValueError(f"{self.out}: exists and is not a folder (a labelling run is a "
                             "folder of chunk files)")
        os.makedirs(self.out, exist_ok=True)
        if os.path.exists(self.run_file) and not force:
            old = read_settings(self.out)
            diff = [k for k in IDENTITY if old.get(k) != self.settings.get(k)]
            if diff:
                k = diff[0]
                raise ValueError(f"{self.out} holds a labelling run with {k}={old.get(k)!r}, "
                                 f"not {self.settings.get(k)!r}; run with the same settings to "
                                 "resume it, or pass --force to start over")
        elif force:
            for chunk in self.done():
                os.unlink(self.chunk_path(chunk))
        elif self.done():
            raise ValueError(f"{self.out} holds chunk files but no {RUN_FILE}: not a labelling "
                             "run of this ttt_engine; pass --force to start over")
        text = json.dumps(self.settings, indent=1, sort_keys=True)
        _util.atomic_write(self.run_file, lambda f: f.write(text.encode()), "run settings file")
        return self.done()

    def write_chunk(self, chunk, arrays):
        _util.atomic_write(self.chunk_path(chunk), lambda f: np.savez(f, **arrays),
                           "label chunk file")


def read_settings(out):
    """The settings of the labelling run in the folder ``out``."""
    path = os.path.join(os.fspath(out), RUN_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            settings = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"{out}: not a labelling run (no {RUN_FILE})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not readable as a labelling run's settings ({e})") from None
    if isinstance(settings, dict):
        settings = {**DEFAULTS, **settings}
    if not isinstance(settings, dict) or not all(k in settings for k in IDENTITY):
        raise ValueError(f"{path}: not a labelling run's settings (fields missing)")
    return settings


def run_settings(game_key, simulations, seed=0, opening=None, games_per_chunk=8, options=None,
                 search=None, branch=0, network=None):
    """The settings of a labelling run, checked (see :func:`label`)."""
    from ttt_engine import games
    game = games.get(game_key)
    if game.value_features is None:
        raise ValueError(f"{game.title} declares no value-network features")
    options = dict(options or {})
    board = game.new_board(**options)
    simulations = _util.check_int("simulations", simulations, min=1, max=1 << 30)
    opening = (2 * game.opening_plies if opening is None
               else _util.check_int("opening", opening, min=0, max=1000))
    return {"game": game.key, "options": options, "simulations": simulations,
            "seed": int(_util.resolve_seed(seed)), "opening": opening,
            "games_per_chunk": _util.check_int("games_per_chunk", games_per_chunk, min=1,
                                               max=1 << 20),
            "search": dict(search or (NETWORK_MCTS if network is not None
                                      else search_settings(game.key))),
            "features": game.value_features.name(board),
            "branch": _util.check_int("branch", branch, min=0, max=1000),
            "network": None if network is None else network_identity(network, game.key)}


def label(out, game_key, games, simulations, *, seed=0, opening=None, games_per_chunk=8,
          options=None, search=None, executor=None, workers=1, force=False, time_limit=None,
          progress=True, log=None, branch=0, network=None):
    """Label positions of ``games`` games into the run folder ``out`` (resuming
    it: the chunks on disk are kept); ``time_limit`` seconds: submit no new chunk
    after it.  ``search``: the labelling MCTS's keywords (default
    :func:`search_settings`); the next round of an iterated training passes the
    settings of a search that uses the previous round's network.  ``executor``: any ``concurrent.futures`` executor (a Dask
    cluster's), else ``workers`` local processes (1: in this process).
    ``log(text)``: a line per finished chunk.  ``branch``: also label, from
    each position, one position up to that many random plies off the played
    line (see :func:`label_game`).  ``network``: a value network file of the
    game whose search (the ``valuenet`` engines', ``engines.NETWORK_MCTS``,
    unless ``search`` says otherwise) labels the positions: the next round of
    an iterated training.  Returns the number of chunks on disk."""
    from ttt_engine.tournament._runner import run_tasks
    settings = run_settings(game_key, simulations, seed, opening, games_per_chunk, options,
                            search, branch, network)
    games = _util.check_int("games", games, min=1, max=1 << 40)
    run = LabelRun(out, settings)
    done = run.prepare(force=force)
    chunks = -(-games // settings["games_per_chunk"])
    todo = [c for c in range(chunks) if c not in done]
    start = time.perf_counter()
    errors = []

    def tasks():
        for c in todo:
            if time_limit is not None and time.perf_counter() - start > time_limit:
                return
            yield (settings, c)

    def on_result(task, arrays):
        run.write_chunk(task[1], arrays)
        if log is not None:
            log(f"chunk {task[1]}: {len(arrays['labels'])} positions in "
                f"{float(arrays['seconds']):.1f} s ({time.perf_counter() - start:.0f} s elapsed)")

    def on_error(task, message):
        errors.append(f"chunk {task[1]}: {message}")

    if time_limit is None:
        run_tasks(executor, _label_chunk, list(tasks()), on_result, on_error,
                  desc=f"labelling {game_key}", progress=progress, workers=workers)
    else:               # a deadline: submit in small waves, checking the clock between them
        pending = list(tasks())
        wave = max(1, workers or 1) * 2
        while pending and time.perf_counter() - start <= time_limit:
            batch, pending = pending[:wave], pending[wave:]
            run_tasks(executor, _label_chunk, batch, on_result, on_error,
                      desc=f"labelling {game_key}", progress=progress, workers=workers)
    if errors:
        raise RuntimeError(f"{len(errors)} chunk(s) failed; the others are saved: {errors[0]}")
    return len(run.done())


def load_positions(out):
    """Every position of the run folder ``out``: ``(features uint8 [N, F],
    labels float32 [N], exact bool [N], game float [N] of global game indices)``."""
    settings = read_settings(out)
    run = LabelRun(out, settings)
    feats, labels, exact, game_ids = [], [], [], []
    for c in sorted(run.done()):
        path = run.chunk_path(c)
        try:
            with np.load(path, allow_pickle=False) as z:
                feats.append(z["features"])
                labels.append(z["labels"])
                exact.append(z["exact"])
                game_ids.append(z["game_index"][z["position_game"]])
        except (OSError, ValueError, KeyError, EOFError) as e:
            raise ValueError(f"{path}: not a readable label chunk ({type(e).__name__}: {e})") \
                from None
    if not feats:
        raise ValueError(f"{out}: the labelling run has no finished chunk yet")
    return (np.concatenate(feats), np.concatenate(labels), np.concatenate(exact),
            np.concatenate(game_ids), settings)
