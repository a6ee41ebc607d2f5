"""``ttt-engine clobber solve ROWSxCOLS``: settle a Clobber start position.

The search runs first move by first move (in the solver's order); after each
one, and every ``--save-every`` seconds inside one, the valuable part of the
table (every result that cost at least ``--min-work`` nodes, and the whole
small-component database) is written atomically to ``--table`` together with
the first moves proven so far, so an interrupted run (Ctrl-C, ``--time-limit``,
a crash) resumes where it stopped.  ``--certificate`` writes a proof that
``ttt_engine.clobber.check_reference`` confirms with the plain rules only.

Exit status: 0 settled (and its certificate checked), 1 certificate did not
check or an output cannot be written, 3 time limit reached (resumable), 130
interrupted (resumable), 2 bad usage.
"""
import argparse
import io
import json
import os
import sys
import time

import numpy as np

from ttt_engine._util import (atomic_write, check_board, check_bool, check_int,
                              check_seconds)
from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import CLIError
from ttt_engine.cli._files import check_output
from ttt_engine.clobber import TECHNIQUES, Board, Solver, format_move

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_TIME, EXIT_INTERRUPT = 0, 1, 2, 3, 130
FORMAT = "ttt-engine clobber table 1"
OFF_BY_DEFAULT = ("dfpn",)      # measured slower on the boards it settles (docs/clobber.md)
TT_BITS, DB_STONES, MAX_MIN_WORK = (10, 31), (0, 64), 10**18


def parse_size(text):
    """``"6x5"`` -> (6, 5); ``ValueError`` naming the expected form."""
    try:
        r, c = (int(x) for x in str(text).lower().split("x"))
    except ValueError:
        raise ValueError(f"board size must look like ROWSxCOLS (e.g. 6x5), got {text!r}") from None
    if not (1 <= r <= 8 and 1 <= c <= 8):
        raise ValueError(f"board size {r}x{c}: rows and columns must be 1-8")
    return r, c


def save_table(path, solver, meta, min_work):
    """Write the solver's valuable entries and ``meta`` to ``path`` atomically."""
    rows = solver.export_entries(min_work)
    buf = io.BytesIO()
    np.savez(buf, entries=rows, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    data = buf.getvalue()
    atomic_write(path, lambda f: f.write(data), "solver table")
    return len(rows)


def load_table(path, solver):
    """Load a table written by ``save_table`` into ``solver``; returns its meta dict."""
    not_one = (f"{path} is not a Clobber solver table (give another --table, or --fresh "
               "to write a new one over it)")
    try:
        with np.load(path) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                raise ValueError(not_one)
            solver.import_entries(z["entries"])
    except OSError as e:
        raise ValueError(f"cannot read solver table {path}: {e.strerror or e}") from None
    except (KeyError, ValueError, TypeError, json.JSONDecodeError, UnicodeDecodeError):
        # numpy's own words ("pickled data ... allow_pickle") are no help here
        raise ValueError(not_one) from None
    return meta


def solve_board(board, solver, *, table=None, resume=True, time_limit=None, save_every=60.0,
                min_work=1024, report=None, report_every=1.0):
    """Settle ``board`` first move by first move; returns a dict with ``result``
    ("win" / "loss" / "timeout" / "interrupted"), ``winning_move``, ``proven``
    (first move -> outcome for the side to move after it, as notation),
    ``nodes``, ``cpu``, ``wall`` (this run) and the totals over resumed runs.

    ``report(info)`` (optional) is called about every ``report_every`` seconds
    and after each first move with a dict: nodes, depth, max_depth, elapsed,
    proven (count), moves (total), current (move in notation)."""
    check_board(board, Board, "clobber_solve.solve_board")
    resume = check_bool("resume", resume)
    own, opp = board.bitboards
    if board.to_move == "W":
        own, opp = opp, own
    key = f"{board.rows}x{board.cols}:{board.to_move}:{own}:{opp}"
    meta = {"format": FORMAT, "position": key, "proven": {}, "nodes": 0, "cpu": 0.0, "wall": 0.0}
    if table and resume and os.path.exists(table):
        old = load_table(table, solver)
        if old.get("position") == key:
            meta.update(old)
    moves = solver.order_moves(own, opp)
    t0, c0 = time.perf_counter(), time.process_time()
    nodes0 = meta["nodes"]
    state = {"last_save": time.perf_counter(), "current": None}

    run = {"nodes": 0}

    def info(nodes, depth, max_depth):
        return {"nodes": run["nodes"] + nodes, "depth": depth, "max_depth": max_depth,
                "elapsed": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                "proven": len(meta["proven"]), "moves": len(moves), "current": state["current"]}

    def progress(nodes, depth, max_depth):
        if report is not None:
            report(info(nodes, depth, max_depth))
        if table and time.perf_counter() - state["last_save"] >= save_every:
            _save(nodes)

    cpu_before, wall_before = meta["cpu"], meta["wall"]

    def _save(nodes):
        meta["nodes"] = nodes0 + run["nodes"] + nodes
        meta["cpu"] = cpu_before + time.process_time() - c0
        meta["wall"] = wall_before + time.perf_counter() - t0
        save_table(table, solver, meta, min_work)
        state["last_save"] = time.perf_counter()

    deadline = None if time_limit is None else time.perf_counter() + time_limit
    result, winning = None, None
    solver.reset_counters()
    try:
        for m in moves:
            name = format_move(m)
            if name in meta["proven"]:
                if meta["proven"][name] == "loss":
                    result, winning = "win", name
                    break
                continue
            state["current"] = name
            left = None
            if deadline is not None:
                left = deadline - time.perf_counter()
                if left <= 0:
                    result = "timeout"
                    break
            a, b = solver.child(own, opp, m)
            before = solver.nodes
            try:
                r = solver.outcome_of(a, b, time_limit=left, progress=progress,
                                      report_every=report_every)
            finally:        # Ctrl-C too: the nodes searched so far count
                run["nodes"] += solver.nodes - before
                solver.reset_counters()
            if r is None:
                result = "timeout"
                break
            meta["proven"][name] = "win" if r else "loss"
            if report is not None:
                report(info(0, 0, 0))
            if not r:
                result, winning = "win", name
                break
        else:
            result = "loss"
    except KeyboardInterrupt:
        result = "interrupted"
    if table:
        _save(0)
    return {"result": result, "winning_move": winning, "proven": dict(meta["proven"]),
            "nodes": run["nodes"], "cpu": time.process_time() - c0, "wall": time.perf_counter() - t0,
            "total_nodes": nodes0 + run["nodes"], "total_cpu": cpu_before + time.process_time() - c0,
            "total_wall": wall_before + time.perf_counter() - t0}


class _Display:
    """One progress line on stderr (tqdm's status printer when available)."""

    def __init__(self, stream, quiet):
        self.stream = stream
        self.quiet = quiet
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, i):
        self.show(f"{i['proven']}/{i['moves']} first moves proven | move {i['current'] or '-'} | "
                  f"nodes {i['nodes']:,} | depth {i['depth']} (max {i['max_depth']}) | "
                  f"elapsed {i['elapsed']:.0f} s (CPU {i['cpu']:.0f} s)")

    def show(self, line):
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r" + line[:150].ljust(150))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self):
        if self.tty and not self.quiet:
            self.stream.write("\n")


DESCRIPTION = ("Exact solver for the Clobber start position (first-player win or loss), "
               "resumable, with a checkable certificate.")


def build_parser(prog):
    """The solver's own argument parser (``python -m ttt_engine.clobber.settle``)."""
    return configure(argparse.ArgumentParser(prog=prog, description=DESCRIPTION, allow_abbrev=False))


def configure(p):
    """Add the solver's arguments to parser ``p`` (also the console's
    ``ttt-engine clobber solve``)."""
    p.add_argument("size", help="board ROWSxCOLS, e.g. 6x5 (1-8 each)")
    p.add_argument("--first", choices=("B", "W"), default="B", help="side to move (default B)")
    p.add_argument("--table", type=O.path,
                   help="file keeping proven subpositions (default clobber-ROWSxCOLS.table.npz; "
                   "'none' for no file)")
    p.add_argument("--fresh", action="store_true", help="ignore an existing table file")
    p.add_argument("--time-limit", type=O.seconds(), metavar="SECONDS",
                   help="stop after this many seconds (resume later)")
    p.add_argument("--save-every", type=O.seconds(), default=60.0, metavar="SECONDS",
                   help="seconds between table saves (default 60)")
    p.add_argument("--min-work", type=O.count(0, MAX_MIN_WORK), default=1024, metavar="N",
                   help="save results that cost at least this many nodes (default 1024)")
    p.add_argument("--tt-bits", type=O.count(*TT_BITS), default=24, metavar="N",
                   help="table of 2**N entries, 24 bytes each (default 24)")
    p.add_argument("--db-stones", type=O.count(*DB_STONES), default=8, metavar="N",
                   help="components up to N stones go to the database")
    for t in TECHNIQUES:
        if t in OFF_BY_DEFAULT:
            p.add_argument(f"--{t}", action="store_true", help=f"switch {t} on")
        else:
            p.add_argument(f"--no-{t}", action="store_true", help=f"switch {t} off")
    p.add_argument("--certificate", type=O.path,
                   help="write a proof certificate to this file and check it")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    return p


def table_path(table, rows, cols):
    """The table file of ``--table`` (None: no file, for ``none``); the
    default is named after the board."""
    if table is None:
        return f"clobber-{rows}x{cols}.table.npz"
    if not table.strip():
        raise ValueError("--table must be a file name or 'none', got ''")
    return None if table == "none" else table


def main(argv=None, prog="ttt-engine clobber solve"):
    """Command-line entry point; returns the exit status."""
    return run(build_parser(prog).parse_args(argv), prog)


def run(args, prog="ttt-engine clobber solve"):
    """Solve the position ``args`` (from :func:`configure`'s parser) names;
    returns the exit status (an error is one line ``prog: error: ...``)."""
    try:
        return solve_command(args)
    except CLIError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return e.code


def solve_command(args):
    """:func:`run` for the console: an error raises ``CLIError`` (exit 2 bad
    usage, 1 an output that cannot be written), before any search."""
    try:
        rows, cols = parse_size(args.size)
        tt_bits = check_int("--tt-bits", args.tt_bits, min=TT_BITS[0], max=TT_BITS[1])
        db_stones = check_int("--db-stones", args.db_stones, min=DB_STONES[0], max=DB_STONES[1])
        tl = check_seconds("--time-limit", args.time_limit, allow_none=True)
        save_every = check_seconds("--save-every", args.save_every)
        min_work = check_int("--min-work", args.min_work, min=0, max=MAX_MIN_WORK)
        table = table_path(args.table, rows, cols)
        # where the results go is checked before the search, which may take hours
        for path, what in ((table, "solver table"), (args.certificate, "certificate")):
            if path is not None:
                check_output(path, what)
        if (table is not None and args.certificate is not None
                and os.path.abspath(table) == os.path.abspath(args.certificate)):
            raise ValueError(f"--table and --certificate name the same file ({table}): "
                             "the certificate would overwrite the table")
    except (ValueError, TypeError) as e:
        raise CLIError(str(e), EXIT_USAGE) from None
    board = Board(rows, cols)
    if args.first == "W":
        board = Board.from_bitboards(rows, cols, *board.bitboards, to_move="W")
    solver = Solver(tt_bits, 22)
    solver.configure(db_stones=db_stones, **{t: getattr(args, t) if t in OFF_BY_DEFAULT
                                             else not getattr(args, f"no_{t}") for t in TECHNIQUES})
    display = _Display(sys.stderr, args.quiet)
    try:
        out = solve_board(board, solver, table=table, resume=not args.fresh, time_limit=tl,
                          save_every=save_every, min_work=min_work, report=display)
    except ValueError as e:
        display.done()
        raise CLIError(str(e), EXIT_USAGE) from None
    display.done()
    mover, other = board.to_move, "W" if board.to_move == "B" else "B"
    stats = (f"{out['total_nodes']:,} nodes, CPU {out['total_cpu']:.1f} s, wall {out['total_wall']:.1f} s"
             + (f" (this run: {out['nodes']:,} nodes, CPU {out['cpu']:.1f} s)" if out["total_nodes"] != out["nodes"] else ""))
    if out["result"] == "win":
        print(f"{rows}x{cols}, {mover} to move: WIN for {mover} ({out['winning_move']}); {stats}")
    elif out["result"] == "loss":
        print(f"{rows}x{cols}, {mover} to move: LOSS for {mover} ({other} wins; all "
              f"{len(out['proven'])} first moves refuted); {stats}")
    else:
        print(f"{rows}x{cols}: not settled ({out['result']}); {len(out['proven'])} first moves proven; "
              f"{stats}" + (f"; resume with the same command (table {table})" if table else ""))
        return EXIT_TIME if out["result"] == "timeout" else EXIT_INTERRUPT
    if args.certificate:
        return _certify(args, board, solver, display)
    return EXIT_OK


def _certify(args, board, solver, display):
    """Write the certificate of a solved board (progress on stderr) and check it."""
    from ttt_engine.clobber.cert import write_certificate
    from ttt_engine.clobber.check_reference import CertificateError, check_certificate
    t0 = time.perf_counter()
    nodes0 = solver.nodes

    def progress(records, size, nodes):
        display.show(f"certificate: {records:,} records | {size:,} bytes before compression | "
                     f"nodes searched again {nodes - nodes0:,} | elapsed {time.perf_counter() - t0:.0f} s")
    try:
        n = write_certificate(args.certificate, board, solver, progress=progress)
    except KeyboardInterrupt:
        display.done()
        print(f"certificate not written (interrupted); {args.certificate} left as it was")
        return EXIT_INTERRUPT
    display.done()
    print(f"certificate: {args.certificate}, {n:,} records, {os.path.getsize(args.certificate):,} bytes, "
          f"{time.perf_counter() - t0:.1f} s ({solver.nodes - nodes0:,} nodes searched again)")
    t = time.perf_counter()
    try:
        rep = check_certificate(args.certificate, progress=not display.quiet)
    except CertificateError as e:       # a solver or writer bug: say so, keep the file for study
        print(f"certificate {args.certificate} does NOT check: {e}")
        return EXIT_INVALID
    except MemoryError as e:
        print(f"certificate {args.certificate} NOT CHECKED: {e}")
        return EXIT_INVALID
    except KeyboardInterrupt:
        print(f"check of {args.certificate} interrupted (the file is kept; "
              f"python -m ttt_engine.clobber.check_reference {args.certificate} checks it)")
        return EXIT_INTERRUPT
    print(f"checked: {rep}; {time.perf_counter() - t:.1f} s")
    return EXIT_OK


if __name__ == "__main__":      # pragma: no cover
    sys.exit(main(prog="python -m ttt_engine.clobber.settle"))
