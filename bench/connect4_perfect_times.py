"""How long the Connect Four perfect engine takes to move, over random positions.

Positions: ``--positions`` uniformly random games (seeded), each cut at a
uniformly drawn ply (an unfinished position).  For each, the engine's move is
timed (CPU seconds of the process, one thread; with ``--threads 2`` the
move's wall time); the move is checked against
every column's exact score (``connect4.analyse``) where that analysis finishes
within ``--check-cap`` seconds.  A position whose move would take longer than
``--cap`` seconds is not played to the end: it is probed first with the same
solve the engine makes, under that time limit, and counted as over the cap.

    python bench/connect4_perfect_times.py --positions 1000 --seed 1 \\
        [--book PATH | --no-book] [--cap 10] [--threads 1]
        [--out results/connect4_perfect_times.jsonl] [--part I/N]
    python bench/connect4_perfect_times.py --summary PART1.jsonl PART2.jsonl ...

Prints the share of moves within 1 s, and the times by the position's discs.
``--part I/N`` times only every N-th position from the I-th (one process a
core, e.g. ``taskset -c 0 ... --part 1/2`` beside ``taskset -c 1 ... --part
2/2``); ``--summary`` prints the table of the parts' files together.  Each
position's random choices are seeded by ``--seed`` and its index, so a move
does not depend on the split.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time

from ttt_engine import connect4
from ttt_engine.connect4 import book as connect4_book
from ttt_engine.connect4 import perfect as connect4_perfect
from ttt_engine.connect4 import solver as connect4_solve


def random_positions(n, seed):
    """``n`` unfinished boards: a uniformly random game, cut at a uniform ply."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = connect4.Board()
        seen = [b.copy()]
        while not b.is_terminal():
            b.push(rng.choice(b.legal_moves))
            if not b.is_terminal():
                seen.append(b.copy())
        out.append(rng.choice(seen))
    return out


def probe(agent, board, cap):
    """True when the engine's move finishes within ``cap`` seconds (the solve
    it would make, under a time limit); the book's answers always do."""
    book = agent.book
    if book is not None and (book.column_scores(board) is not None
                             or book.best_column(board) is not None):
        return True
    # from an empty table, and the timed move after it from an empty one too
    connect4_solve.forget_table()
    score, _ = agent.solved_move(board, sorted(board.legal_moves), time_limit=cap)
    connect4_solve.forget_table()
    return score is not None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--book", default=None, help="a book file (default: the shipped one)")
    ap.add_argument("--no-book", action="store_true", help="solve every position")
    ap.add_argument("--cap", type=float, default=10.0,
                    help="seconds after which a move is counted as over the cap, not played")
    ap.add_argument("--check-cap", type=float, default=5.0,
                    help="seconds for the analysis that checks a move")
    ap.add_argument("--threads", type=int, default=1,
                    help="the engine's threads (default 1: CPU time of one core; with "
                    "more, the move's wall time is timed)")
    ap.add_argument("--out", default=None, help="JSON lines, one a position")
    ap.add_argument("--part", default=None, help="I/N: every N-th position from the I-th")
    ap.add_argument("--summary", nargs="+", default=None, metavar="JSONL",
                    help="print the table of these result files (no timing)")
    args = ap.parse_args(argv)
    if args.summary:
        rows = []
        for path in args.summary:
            try:
                with open(path) as f:
                    rows += [json.loads(line) for line in f if line.strip()]
            except (OSError, ValueError) as e:
                ap.error(f"{path}: {e}")
        report(rows, f"{len(args.summary)} file(s)", args.cap)
        return 0
    try:
        part = connect4_book.parse_part(args.part) if args.part else (1, 1)
    except ValueError as e:
        ap.error(str(e))
    if args.positions < 1 or args.cap <= 0 or args.check_cap <= 0 or not 1 <= args.threads <= 8:
        ap.error("--positions must be >= 1, --cap and --check-cap > 0, --threads 1-8")
    book = False if args.no_book else args.book
    agent = connect4_perfect.PerfectAgent(book=book, seed=args.seed, threads=args.threads)
    clock = time.process_time if args.threads == 1 else time.perf_counter
    rows = []
    out = open(args.out, "w") if args.out else None
    for i, board in enumerate(random_positions(args.positions, args.seed)):
        if i % part[1] != part[0] - 1:
            continue
        agent.reset(seed=args.seed * 1_000_003 + i)
        row = {"moves": connect4_solve.write_columns(board, board.moves), "discs": board.ply}
        if not probe(agent, board, args.cap):
            row.update(seconds=None, over_cap=True)
        else:
            t0 = clock()
            move = agent.select_move(board)
            row.update(seconds=round(clock() - t0, 4), over_cap=False,
                       move=move, source=agent.last_stats["source"])
            scores = connect4_solve.analyse(board, time_limit=args.check_cap, table_mb=64)
            if None not in scores.values():
                row["optimal"] = scores[move] == max(scores.values())
                if not row["optimal"]:
                    print(f"not optimal: {row}", file=sys.stderr, flush=True)
        rows.append(row)
        if out:
            out.write(json.dumps(row) + "\n")
            out.flush()
        if len(rows) % 100 == 0:
            print(f"{len(rows)} positions", file=sys.stderr, flush=True)
    report(rows, f"seed {args.seed}, threads {args.threads}, book: {agent.book!r}", args.cap)
    return 0


def report(rows, what, cap):
    """The share of moves within 1 s, and the times by the position's discs."""
    within = sum(r["seconds"] is not None and r["seconds"] <= 1.0 for r in rows)
    checked = [r for r in rows if "optimal" in r]
    print(f"{len(rows)} positions ({what}): {within} moves within 1 s "
          f"({within / max(len(rows), 1):.1%}), "
          f"{sum(r['over_cap'] for r in rows)} over the {cap:g}-s cap; "
          f"optimal {sum(r['optimal'] for r in checked)} of {len(checked)} checked")
    print("discs  positions  within 1 s  over cap  median s  max s")
    for lo, hi in ((0, 5), (6, 7), (8, 9), (10, 11), (12, 15), (16, 41)):
        group = [r for r in rows if lo <= r["discs"] <= hi]
        if not group:
            continue
        times = sorted(r["seconds"] for r in group if r["seconds"] is not None)
        med = f"{times[len(times) // 2]:.3f}" if times else "-"
        top = f"{times[-1]:.3f}" if times else "-"
        print(f"{lo:>2}-{hi:<2}  {len(group):>9}  {sum(t <= 1.0 for t in times):>10}  "
              f"{sum(r['over_cap'] for r in group):>8}  {med:>8}  {top:>5}")


if __name__ == "__main__":
    sys.exit(main())
