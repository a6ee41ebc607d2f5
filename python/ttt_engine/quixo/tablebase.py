"""Quixo endgame tablebase: the exact value of every position with at most
one blank cube (``ttt-engine quixo tablebase`` builds it; :class:`Tablebase`
reads it).

Cubes never become blank again, so the positions without a blank cube and
those with exactly one are closed under play and are solved backward on their
own (the compiled ``ttt_engine._core.solvers.quixo.tablebase``: index,
passes, threads).  Values are for the side to move: win, draw (endless play:
the package's move cap plays no part here) or loss, with the plies to the end
under optimal play (fastest win, slowest loss).

File (``.tb``, little-endian): the 8 bytes ``MAGIC``, the header's length
(8 bytes) and the header, a JSON object (``game``, ``size``, ``version``,
``positions``, the win/draw/loss counts of each class, the sections' sizes,
``crc32`` of everything after the header); then a table of block offsets
(``uint64``, one more than blocks) and the blocks: one byte a position (0 no
position: a line is on the board; 1 draw; ``2 * d`` a win and ``2 * d + 1`` a
loss in ``d`` plies, ``d`` up to ``DIST_CAP``, which stands for "that many or
more"), deflated in blocks of ``BLOCK`` positions in index order.  The 5x5
table is about 70 MB (the values alone would be 113 MB at 2 bits a position).

A build keeps a checkpoint beside its output (``PATH.ckpt``, written
atomically after each phase and every ``checkpoint_seconds`` between levels);
``resume=True`` continues from it, and it is removed when the file is written.
"""
from __future__ import annotations

import json
import os
import shutil
import struct
import sys
import time
import zlib
from functools import lru_cache

import numpy as np

from ttt_engine import _modelfile, _util, _verbs

__all__ = ["Tablebase", "build", "default_path", "requirements", "installed", "MAGIC", "VERSION",
           "BLOCK", "DIST_CAP"]

MAGIC = b"TTTQXTB\n"
CHECKPOINT_MAGIC = b"TTTQXCK\n"
VERSION = 1
BLOCK = 1 << 16
DIST_CAP = 127
_ARRAYS = ("val", "cnt", "dist0", "dist1", "cur")
_DTYPES = {"val": np.uint8, "cnt": np.uint8, "dist0": np.uint16, "dist1": np.uint8,
           "cur": np.uint64, "nxt": np.uint64}


def default_path(size=5):
    """Where the console keeps the table: ``quixo-tablebase-5x5.tb`` in the
    package's cache folder (``ttt_engine._modelfile.cache_dir``)."""
    return os.path.join(_modelfile.cache_dir(), f"quixo-tablebase-{size}x{size}.tb")


def _rebuild(path, size):
    size_opt = "" if size == 5 else f" --size {size}"
    return f"ttt-engine quixo tablebase{size_opt} --out {path}"


def _compiled():
    from ttt_engine._core.solvers.quixo import tablebase
    return tablebase


def _counts_per_class(size):
    n_cells = size * size
    return 1 << n_cells, n_cells << (n_cells - 1)


def requirements(size=5):
    """``{"memory": bytes, "disk": bytes}`` a build of the ``size`` x ``size``
    table needs (the arrays; the checkpoint plus a bound on the output)."""
    sizes = _compiled().array_sizes(size)
    # the arrays, and the compressed file held before it is written (measured:
    # 70 MB on 5x5, less than the 2-bit values)
    memory = sum(np.dtype(_DTYPES[k]).itemsize * v for k, v in sizes.items()) + sizes["val"]
    checkpoint = sum(np.dtype(_DTYPES[k]).itemsize * sizes[k] for k in _ARRAYS)
    nb, n1 = _counts_per_class(size)
    output = sizes["val"] + (nb + n1) // 2
    return {"memory": memory, "disk": checkpoint + output}


def _available_memory():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gb(x):
    return f"{x / 1e9:.2f} GB" if x >= 1e8 else f"{x / 1e6:.1f} MB"


def _check_room(path, size):
    need = requirements(size)
    mem = _available_memory()
    if mem is not None and mem < need["memory"]:
        raise MemoryError(f"the {size}x{size} Quixo tablebase needs {_gb(need['memory'])} of "
                          f"memory, {_gb(mem)} is available")
    folder = os.path.dirname(os.path.abspath(path))
    free = shutil.disk_usage(folder).free
    if free < need["disk"]:
        raise OSError(f"the {size}x{size} Quixo tablebase needs {_gb(need['disk'])} of disk in "
                      f"{folder} (checkpoint and output), {_gb(free)} is free")
    return need


# ---------------------------------------------------------------------------- checkpoints
def _write_checkpoint(path, state, arrays):
    head = json.dumps(dict(state, game="quixo", version=VERSION)).encode()

    def write(f):
        f.write(CHECKPOINT_MAGIC + struct.pack("<Q", len(head)) + head)
        for name in _ARRAYS:
            f.write(memoryview(arrays[name]).cast("B"))
    _util.atomic_write(path, write, "tablebase checkpoint")


def _read_checkpoint(path, size, arrays):
    """Fill ``arrays`` from the checkpoint; returns its state."""
    what = f"the tablebase checkpoint {path}"
    try:
        with open(path, "rb") as f:
            if f.read(8) != CHECKPOINT_MAGIC:
                raise ValueError(f"{what} is not a Quixo tablebase checkpoint")
            (hlen,) = struct.unpack("<Q", f.read(8))
            state = json.loads(f.read(hlen).decode())
            if state.get("game") != "quixo" or state.get("size") != size \
                    or state.get("version") != VERSION:
                raise ValueError(f"{what} is of another build ({state.get('game')} "
                                 f"{state.get('size')}x{state.get('size')}, version "
                                 f"{state.get('version')}); remove it to start again")
            for name in _ARRAYS:
                view = memoryview(arrays[name]).cast("B")
                if f.readinto(view) != len(view):
                    raise ValueError(f"{what} is truncated; remove it to start again")
    except (OSError, struct.error, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {what}: {getattr(e, 'strerror', None) or e}") from None
    return state


# ---------------------------------------------------------------------------- progress
class _Progress:
    """Lines on ``out``: the pass, how much of it is done, its time left and
    the time so far; rewritten in place on a terminal, every ``every`` seconds
    elsewhere (a log)."""

    def __init__(self, out, start):
        self.out = out
        self.start = start
        self.tty = bool(out is not None and getattr(out, "isatty", lambda: False)())
        self.every = 0.5 if self.tty else 30.0
        self.last = 0.0
        self.label = ""
        self.pass_start = start

    def begin(self, label):
        self.label = label
        self.pass_start = time.monotonic()

    def __call__(self, fraction):
        now = time.monotonic()
        if self.out is None or now - self.last < self.every:
            return
        self.last = now
        spent = now - self.pass_start
        left = spent * (1 - fraction) / fraction if fraction > 0.01 else None
        left_text = f", about {_hms(left)} left in it" if left is not None else ""
        line = f"{self.label}: {fraction:.0%}{left_text}; {_hms(now - self.start)} so far"
        self.out.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
        self.out.flush()

    def say(self, text):
        if self.out is not None:
            self.out.write(("\r\x1b[K" if self.tty else "") + text + "\n")
            self.out.flush()


def _hms(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# ---------------------------------------------------------------------------- build
def build(path=None, *, size=5, resume=False, threads=2, progress=True,
          checkpoint_seconds=600.0, out=None):
    """Build the tablebase of the ``size`` x ``size`` board into ``path``
    (default :func:`default_path`); returns the file's header (a dict).

    The memory and the disk it needs are checked first (``MemoryError`` /
    ``OSError``, one line with the sizes).  ``threads`` share every pass.
    Ctrl-C (``KeyboardInterrupt``) keeps the last checkpoint (``path +
    ".ckpt"``); ``resume=True`` continues from it.  Progress lines go to
    ``out`` (default stderr) unless ``progress`` is false."""
    tb = _compiled()
    size = _util.check_int("size", size, min=3, max=5)
    threads = _util.check_int("threads", threads, min=1, max=64)
    path = os.path.abspath(os.path.expanduser(os.fspath(path or default_path(size))))
    _util.check_output_path(path, "tablebase file")
    ckpt = path + ".ckpt"
    if resume and not os.path.isfile(ckpt):
        raise ValueError(f"nothing to resume: no checkpoint {ckpt} (build without --resume)")
    if not resume and os.path.exists(ckpt):
        raise ValueError(f"a checkpoint of an earlier build is at {ckpt}: continue it with "
                         "--resume, or remove it to start again")
    _check_room(path, size)
    arrays = {k: np.zeros(v, _DTYPES[k]) for k, v in tb.array_sizes(size).items()}
    state = {"size": size, "stage": "init0", "t": 1, "maxd0": 0, "seconds": 0.0,
             "levels0": 0, "levels1": 0}
    if resume:
        state = _read_checkpoint(ckpt, size, arrays)
    builder = tb.Builder(size, arrays["val"], arrays["cnt"], arrays["dist0"], arrays["dist1"],
                         arrays["cur"], arrays["nxt"])
    t0 = time.monotonic() - state["seconds"]
    report = _Progress((out or sys.stderr) if progress else None, t0)
    last_save = [time.monotonic()]

    def save(force=False):
        if force or time.monotonic() - last_save[0] >= checkpoint_seconds:
            state["seconds"] = time.monotonic() - t0
            arrays["cur"] = builder.frontier
            _write_checkpoint(ckpt, state, arrays)
            last_save[0] = time.monotonic()

    def run(kind, label, t=0, noblank=True):
        report.begin(label)
        return builder.run(kind, t, threads, report, noblank)

    if resume:
        report.say(f"resuming the {size}x{size} tablebase from {ckpt} "
                   f"({state['stage']}, level {state['t']}, {_hms(state['seconds'])} spent)")
    # the no-blank class, then the one-blank class: a first pass, then levels
    # until one resolves nothing (a one-blank level t also resolves no-blank
    # positions up to the no-blank class's longest distance, maxd0)
    for c, label, first, level, following in ((0, "no blank cube", tb.INIT0, tb.LEVEL0, "init1"),
                                              (1, "one blank cube", tb.INIT1, tb.LEVEL1, "done")):
        if state["stage"] == f"init{c}":
            run(first, f"{label}: first pass")
            state.update(stage=f"level{c}", t=1)
            save(force=True)
        while state["stage"] == f"level{c}":
            t = state["t"]
            w, lo = run(level, f"{label}: level {t}", t, noblank=c == 0 or t <= state["maxd0"])
            if c == 1:
                builder.swap()
            state["t"] = t + 1
            if w + lo == 0 and t >= state["maxd0"]:
                state.update({"stage": following, f"levels{c}": t})
                if c == 0:
                    state["maxd0"] = t
                    save(force=True)
            else:
                save()
    state["seconds"] = time.monotonic() - t0
    report.say(f"solved in {_hms(state['seconds'])}; writing {path}")
    header = _write_table(path, size, arrays, state, threads)
    if os.path.exists(ckpt):
        os.remove(ckpt)
    return header


def _class_counts(val_bytes):
    """win/loss/draw/none counts of packed 2-bit values (whole bytes)."""
    hist = np.zeros(256, np.int64)
    for s in range(0, len(val_bytes), 1 << 22):     # bincount widens to int64: in pieces
        hist += np.bincount(val_bytes[s:s + (1 << 22)], minlength=256)
    codes = np.arange(256)
    out = {}
    for code, name in enumerate(("draws", "wins", "losses", "none")):
        per_byte = sum(((codes >> (2 * k)) & 3) == code for k in range(4))
        out[name] = int(hist @ per_byte)
    return out


def _block_codes(arrays, nb, start, end):
    """The file's byte of each position ``start .. end - 1`` (``start`` a
    multiple of 4)."""
    packed = arrays["val"][start // 4:(end + 3) // 4]
    val = np.stack([(packed >> (2 * k)) & 3 for k in range(4)], 1).reshape(-1)[:end - start]
    dist = np.empty(end - start, np.int32)
    if start < nb:
        dist[:min(end, nb) - start] = arrays["dist0"][start:min(end, nb)]
    if end > nb:
        dist[max(start, nb) - start:] = arrays["dist1"][max(start, nb) - nb:end - nb]
    code = 2 * np.minimum(dist, DIST_CAP) + (val == 2)
    code[val == 0] = 1
    code[val == 3] = 0
    return code.astype(np.uint8).tobytes()


def _write_table(path, size, arrays, state, threads=1):
    from concurrent.futures import ThreadPoolExecutor
    nb, n1 = _counts_per_class(size)
    total = nb + n1
    val = arrays["val"]
    # the classes' boundary 2**N is a multiple of 4 positions (a whole byte)
    counts = {"no_blank": _class_counts(val[:nb // 4]),
              "one_blank": _class_counts(val[nb // 4:])}
    pad = val.size * 4 - total          # unused slots of the last byte read as draws
    counts["one_blank"]["draws"] -= pad

    def block(start):
        return zlib.compress(_block_codes(arrays, nb, start, min(start + BLOCK, total)), 6)
    with ThreadPoolExecutor(max(1, threads)) as pool:
        blocks = list(pool.map(block, range(0, total, BLOCK)))
    offsets = np.zeros(len(blocks) + 1, np.uint64)
    offsets[1:] = np.cumsum([len(b) for b in blocks])
    crc = zlib.crc32(offsets.tobytes())
    for b in blocks:
        crc = zlib.crc32(b, crc)
    header = {"game": "quixo", "size": size, "version": VERSION, "positions": total,
              "classes": counts, "levels": {"no_blank": state["levels0"],
                                            "one_blank": state["levels1"]},
              "seconds": round(state["seconds"], 1), "block": BLOCK, "dist_cap": DIST_CAP,
              "index_bytes": int(offsets.nbytes), "data_bytes": int(offsets[-1]),
              "crc32": crc}
    head = json.dumps(header).encode()

    def write(f):
        f.write(MAGIC + struct.pack("<Q", len(head)) + head)
        f.write(offsets.tobytes())
        for b in blocks:
            f.write(b)
    _util.atomic_write(path, write, "tablebase file")
    return header


# ---------------------------------------------------------------------------- reading
class Tablebase:
    """A built tablebase file (:func:`build`).

    ``Tablebase(path=None, size=5, verify=True)``: ``path`` defaults to
    :func:`default_path`; ``verify`` checks the checksum (reads the file
    once).  A missing, truncated, damaged, other-game or future-version file
    is refused with a ``ValueError`` of one line naming the file and the
    command that rebuilds it."""

    def __init__(self, path=None, size=5, verify=True):
        size = _util.check_int("size", size, min=3, max=5)
        path = os.path.abspath(os.path.expanduser(os.fspath(path or default_path(size))))
        self.path = path
        fix = f"build it with: {_rebuild(path, size)}"
        try:
            with open(path, "rb") as f:
                if f.read(8) != MAGIC:
                    raise ValueError(f"{path} is not a Quixo tablebase file; {fix}")
                raw = f.read(8)
                if len(raw) < 8:
                    raise ValueError(f"{path} is truncated; {fix}")
                (hlen,) = struct.unpack("<Q", raw)
                if hlen > 1 << 20:
                    raise ValueError(f"{path} has a damaged header; {fix}")
                text = f.read(hlen)
            header = json.loads(text.decode())
        except FileNotFoundError:
            raise ValueError(f"no Quixo tablebase at {path}: {fix}") from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ValueError(f"{path} has a damaged header; {fix}") from None
        except OSError as e:
            raise ValueError(f"cannot read the tablebase {path}: {e.strerror or e}") from None
        if not isinstance(header, dict):
            raise ValueError(f"{path} has a damaged header; {fix}")
        if header.get("game") != "quixo":
            raise ValueError(f"{path} is a tablebase of {header.get('game')!r}, not of Quixo; "
                             f"{fix}")
        version = header.get("version")
        if not isinstance(version, int) or version > VERSION or version < 1:
            raise ValueError(f"{path} is tablebase format version {version}, this ttt_engine "
                             f"reads version {VERSION}; {fix}")
        if header.get("size") != size:
            raise ValueError(f"{path} is the {header.get('size')}x{header.get('size')} table, "
                             f"not {size}x{size}; {fix}")
        nb, n1 = _counts_per_class(size)
        self.size = size
        self.header = header
        self._nb = nb
        self._total = nb + n1
        try:
            ibytes = int(header["index_bytes"])
            dbytes = int(header["data_bytes"])
            self._block = int(header["block"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path} has a damaged header; {fix}") from None
        base = 16 + hlen
        want = base + ibytes + dbytes
        have = os.path.getsize(path)
        nblocks = (self._total + self._block - 1) // max(self._block, 1)
        if self._block < 1 or ibytes != 8 * (nblocks + 1) or have != want:
            raise ValueError(f"{path} is truncated ({have:,} bytes, {want:,} expected); {fix}")
        self._index = np.fromfile(path, np.uint64, nblocks + 1, offset=base)
        self._data_base = base + ibytes
        if int(self._index[-1]) != dbytes or np.any(np.diff(self._index.astype(np.int64)) < 0):
            raise ValueError(f"{path} has a damaged block table; {fix}")
        if verify and self._crc(base) != header.get("crc32"):
            raise ValueError(f"{path} is damaged (checksum mismatch); {fix}")
        self._block_cache = lru_cache(maxsize=64)(self._read_block)

    def _crc(self, base):
        crc = 0
        with open(self.path, "rb") as f:
            f.seek(base)
            while True:
                chunk = f.read(1 << 22)
                if not chunk:
                    return crc
                crc = zlib.crc32(chunk, crc)

    def _read_block(self, b):
        lo, hi = int(self._index[b]), int(self._index[b + 1])
        with open(self.path, "rb") as f:
            f.seek(self._data_base + lo)
            data = f.read(hi - lo)
        try:
            out = zlib.decompress(data)
        except zlib.error:
            out = b""
        if len(out) != min(self._block, self._total - b * self._block):
            raise ValueError(f"{self.path} is damaged (block {b}); build it again with: "
                             f"{_rebuild(self.path, self.size)}")
        return out

    @property
    def counts(self):
        """Win/draw/loss/none counts of each class (``"no_blank"``, ``"one_blank"``)."""
        return self.header["classes"]

    def index(self, me, opp):
        """Position index of masks ``me`` (side to move) and ``opp``; -1 when
        the board has more than one blank cube."""
        return _compiled().position_index(self.size, me, opp)

    def value_at(self, me, opp):
        """``(value, plies or None)`` of the position (side to move's ``me``);
        None when it has more than one blank cube; ``value`` is None when a
        line is on the board (no position)."""
        i = self.index(me, opp)
        if i < 0:
            return None
        code = self._block_cache(i // self._block)[i % self._block]
        if code < 2:
            return (None, None) if code == 0 else ("draw", None)
        d = code >> 1
        return ("loss" if code & 1 else "win", None if d >= DIST_CAP else d)

    def _check(self, board, who):
        size = getattr(board, "size", None)
        if not hasattr(board, "bitboards") or size is None:
            raise ValueError(f"{who} takes a Quixo board, got {type(board).__name__}")
        if size != self.size:
            raise ValueError(f"{who}: the table is for {self.size}x{self.size}, the board "
                             f"is {size}x{size}")
        if board.is_terminal():
            raise ValueError(f"{who}: the game is over ({board.winner} won)"
                             if board.winner != "draw" else f"{who}: the game is over (draw)")

    @staticmethod
    def _masks(board):
        x, o = board.bitboards
        return (x, o) if board.to_move == "X" else (o, x)

    def probe(self, board):
        """``(value, plies or None)`` for the side to move of ``board``
        (``"win"``, ``"draw"``, ``"loss"``; plies to the end under optimal
        play, None for a draw or from ``DIST_CAP`` plies on), or None when the board has more
        than one blank cube.  ``ValueError`` for a finished game or another size."""
        self._check(board, "Tablebase.probe")
        return self.value_at(*self._masks(board))

    def move_outcomes(self, board):
        """``{move: (value, plies or None)}`` for every legal move, from the
        MOVER's side (a move that wins at once is ``("win", 1)``), or None
        when the board has more than one blank cube."""
        self._check(board, "Tablebase.move_outcomes")
        if self.probe(board) is None:
            return None
        me = board.to_move
        out = {}
        for m, child in _verbs.children(board):
            if child.is_terminal():
                out[m] = ("win", 1) if child.winner == me else ("loss", 1)
                continue
            v, d = self.value_at(*self._masks(child))
            flip = {"win": "loss", "loss": "win", "draw": "draw"}[v]
            out[m] = (flip, None if d is None else d + 1)
        return out

    def best_moves(self, board):
        """The legal moves that keep the value of ``board`` (None when it has
        more than one blank cube): among winning moves the fastest, among
        losing ones the slowest, where the distances are known."""
        outcomes = self.move_outcomes(board)
        if outcomes is None:
            return None
        rank = {"win": 2, "draw": 1, "loss": 0}
        top = max(rank[v] for v, _ in outcomes.values())
        moves = [m for m, (v, _) in outcomes.items() if rank[v] == top]
        known = [outcomes[m][1] for m in moves if outcomes[m][1] is not None]
        if top != 1 and known:
            pick = min(known) if top == 2 else max(known)
            exact = [m for m in moves if outcomes[m][1] == pick]
            if top == 2 or len(known) == len(moves):
                moves = exact
        return moves

    def move_values(self, board):
        """``{move: score}`` scored as :func:`ttt_engine.search.move_values`
        scores (a win in ``p`` plies ``WIN_SCORE - p``; a distance beyond the
        table's cap counts as its cap), or None beyond one blank cube."""
        from ttt_engine.search import WIN_SCORE
        outcomes = self.move_outcomes(board)
        if outcomes is None:
            return None
        score = {}
        for m, (v, d) in outcomes.items():
            plies = d if d is not None else DIST_CAP + 1
            score[m] = 0.0 if v == "draw" else (
                WIN_SCORE - plies if v == "win" else -(WIN_SCORE - plies))
        return score


_opened = {}


def installed(size=5):
    """The table at :func:`default_path` opened once per process (its
    checksum not checked again), or None when there is none."""
    path = default_path(size)
    key = (path, size)
    if key not in _opened:
        if not os.path.isfile(path):
            return None
        _opened[key] = Tablebase(path, size, verify=False)
    return _opened[key]


# ---------------------------------------------------------------------------- console
def configure_cli(sub):
    """Add ``tablebase`` to the ``ttt-engine quixo`` subcommands ``sub``."""
    from ttt_engine.cli import _options as O
    t = sub.add_parser("tablebase", help="build the endgame tablebase (at most one blank cube)",
                       description="Solve every Quixo position with at most one blank cube "
                       "backward and write the table that quixo.solve and the perfect engine read.")
    t.add_argument("--out", help="the table file (default: quixo-tablebase-5x5.tb in the cache "
                   "folder)")
    t.add_argument("--resume", action="store_true",
                   help="continue an interrupted build from its checkpoint (OUT.ckpt)")
    t.add_argument("--threads", type=O.count(1, 64), default=2, help="threads (default 2)")
    t.add_argument("--size", type=int, choices=(3, 4, 5), default=5,
                   help="board size (default 5; 3 and 4 for checks)")
    t.add_argument("--no-progress", action="store_true")
    return t


def run_cli(args):
    """``ttt-engine quixo tablebase``: build, then say the counts and the file."""
    from ttt_engine.cli._errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CLIError
    from ttt_engine.cli import _files

    class _Say:
        @staticmethod
        def say(text):
            print(text, flush=True)
    path = _files.check_output(args.out or default_path(args.size), "tablebase file",
                               create_folder=None if args.out else _Say)
    if args.resume and not os.path.isfile(path + ".ckpt"):
        raise CLIError(f"nothing to resume: no checkpoint {path}.ckpt (build without "
                       "--resume)", EXIT_USAGE)
    try:
        need = requirements(args.size)
        if not args.no_progress:
            print(f"{args.size}x{args.size} Quixo tablebase -> {path} (needs "
                  f"{_gb(need['memory'])} of memory, {_gb(need['disk'])} of disk)", flush=True)
        header = build(path, size=args.size, resume=args.resume, threads=args.threads,
                       progress=not args.no_progress)
    except KeyboardInterrupt:
        ckpt = path + ".ckpt"
        if os.path.isfile(ckpt):
            sys.stderr.write(f"\ninterrupted: the finished part is kept in {ckpt}; continue "
                             f"with: {_rebuild(path, args.size)} --resume\n")
        raise
    except ValueError as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    except (OSError, MemoryError) as e:
        raise CLIError(str(e), EXIT_ERROR) from None
    for key, title in (("no_blank", "no blank cube"), ("one_blank", "one blank cube")):
        c = header["classes"][key]
        print(f"{title}: {c['wins']:,} wins, {c['draws']:,} draws, {c['losses']:,} losses "
              f"for the side to move ({c['none']:,} boards with a line); "
              f"{header['levels'][key]} levels")
    print(f"{header['seconds']:.1f} s; {os.path.getsize(path):,} bytes in {path}")
    return EXIT_OK


# ---------------------------------------------------------------------------- engines
def solve_result(board):
    """``quixo.solve``'s result for a 5x5 board from the installed table
    (:func:`installed`), or None when there is no table or the board has more
    than one blank cube: the value, a move that keeps it, the plies to the end."""
    table = installed(board.size) if board.size == 5 else None
    if table is None:
        return None
    t0 = time.perf_counter()
    got = table.probe(board)
    if got is None:
        return None
    best = table.best_moves(board)
    return _verbs.make_result(board, got[0], best[0] if best else None, got[1], 0,
                              time.perf_counter() - t0)


def solved_move_values(board):
    """``{move: score}`` of a 5x5 board from the installed table, or None."""
    table = installed(board.size) if board.size == 5 else None
    return None if table is None else table.move_values(board)


def position_score(board):
    """The exact score of ``board`` for its side to move from the installed
    5x5 table (:func:`installed`), scored as ``search.move_values`` scores (a
    win in ``p`` plies ``WIN_SCORE - p``, 0 a draw, a loss ``-(WIN_SCORE -
    p)``; a distance beyond the table's cap counts as its cap), or None: no
    table installed, another size, a finished game or more than one blank cube.
    The game's ``table_value`` (what ``best`` reads before it searches)."""
    if board.size != 5 or board.is_terminal():
        return None
    table = installed(5)
    got = None if table is None else table.value_at(*table._masks(board))
    if got is None or got[0] is None:
        return None
    from ttt_engine.search import WIN_SCORE
    value, plies = got
    plies = DIST_CAP + 1 if plies is None else plies
    return 0.0 if value == "draw" else float(WIN_SCORE - plies if value == "win"
                                             else -(WIN_SCORE - plies))
