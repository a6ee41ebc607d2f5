"""Connect Four test positions of the standard kinds, generated from a seed,
and the per-kind timing of the solver over them.

A kind is fixed by the moves played and the moves left to the end under
perfect play (from the exact score):

    kind           played     left
    end-easy       29..42     < 14
    middle-easy    15..28     < 14
    middle-medium  15..28     14..27
    begin-easy      0..14     < 14
    begin-medium    0..14     14..27
    begin-hard      0..14     >= 28

Positions come from uniformly random games (the number of moves drawn in the
kind's range, 8..14 for the begin kinds, the game not over), solved exactly and
kept when the moves left fall in the kind's range; a set holds no position twice
and no mirror image of another.  Files are in the standard format, one position
a line: ``<moves 1..7> <score>``.

    python bench/connect4_sets.py generate --seed 1 --out bench/data/connect4
    python bench/connect4_sets.py time bench/data/connect4 [--kinds end-easy,...]

``time`` solves every position with the table emptied before each and prints
the mean CPU time, the mean nodes and the rate per kind (and checks every score
against the file).
"""
import argparse
import os
import random
import statistics
import sys

from ttt_engine import connect4
from ttt_engine._core.solvers.connect4 import solve as _solve
from ttt_engine.connect4.solver import _plies_left

#: kind -> (played min, played max, left min, left max), and the set size written
KINDS = {
    "end-easy": (29, 42, 0, 13),
    "middle-easy": (15, 28, 0, 13),
    "middle-medium": (15, 28, 14, 27),
    "begin-easy": (0, 14, 0, 13),
    "begin-medium": (0, 14, 14, 27),
    "begin-hard": (0, 14, 28, 42),
}
SIZES = {"end-easy": 200, "middle-easy": 200, "middle-medium": 50, "begin-easy": 200,
         "begin-medium": 100, "begin-hard": 50}
#: moves played in the random games of the begin kinds: below 8 there are few
#: distinct positions (mirror images aside) and each takes minutes to solve
BEGIN_PLAYED_MIN = 8
#: a candidate of a kind that ends within 28 moves is skipped when its solve
#: takes more nodes than this (such positions are almost never short; the
#: generation would otherwise spend most of its time on them)
CANDIDATE_NODES = 20_000_000
#: the same for the other kinds, a guard against a rare very long solve
LONG_CANDIDATE_NODES = 1_000_000_000
#: the reference solver's published means per position (strong solve)
PUBLISHED_MEAN_S = {"end-easy": 4.6e-6, "middle-easy": 37e-6, "middle-medium": 3.2e-3,
                    "begin-easy": 0.25e-3, "begin-medium": 97e-3, "begin-hard": 5.5}


def random_position(rng, lo, hi):
    """Moves of a uniformly random game of lo..hi moves that is not over (None
    if the random game ended first)."""
    n = rng.randint(lo, hi)
    board = connect4.Board()
    moves = []
    for _ in range(n):
        if board.winner is not None:
            return None
        c = rng.choice(board.legal_moves)
        board.push(c)
        moves.append(c)
    if board.winner is not None:
        return None
    return "".join(str(c + 1) for c in moves)


def position_key(moves):
    """The same for a position and its mirror image, whatever the move order:
    the owners of the discs of each column (first player 0), the smaller of the
    position's and its mirror's."""
    cols = [[] for _ in range(7)]
    for i, c in enumerate(moves):
        cols[int(c) - 1].append(i % 2)
    key = tuple(map(tuple, cols))
    return min(key, key[::-1])


def generate(kind, count, seed, table_mb=256):
    """(``count`` (moves, score) of ``kind`` from ``seed``, candidates skipped
    at the node limit).  No position twice, no mirror image of another."""
    played_lo, played_hi, left_lo, left_hi = KINDS[kind]
    if kind.startswith("begin"):
        played_lo = BEGIN_PLAYED_MIN
    limit = CANDIDATE_NODES if left_hi < 28 else LONG_CANDIDATE_NODES
    rng = random.Random(f"{kind}:{seed}")
    out, seen, skipped = [], set(), 0
    while len(out) < count:
        moves = random_position(rng, played_lo, min(played_hi, 41))
        if moves is None:
            continue
        key = position_key(moves)
        if key in seen:
            continue
        seen.add(key)
        r = connect4.solve(connect4.from_moves(moves), table_mb=table_mb, max_nodes=limit)
        if r.score is None:
            skipped += 1
        elif left_lo <= _plies_left(len(moves), r.score) <= left_hi:
            out.append((moves, r.score))
    return out, skipped


def read_set(path):
    with open(path, encoding="utf-8") as f:
        return [(m, int(s)) for m, s in (line.split() for line in f if line.strip())]


def time_set(positions, table_mb, weak=False):
    """(mean CPU seconds, mean nodes) of the solver's score alone over
    ``positions`` (the table emptied before each), every score checked."""
    boards = [connect4.from_moves(m) for m, _ in positions]
    results = _solve.time_positions(boards, weak, table_mb)
    for (moves, score), (got, _, _) in zip(positions, results):
        want = score if not weak else (score > 0) - (score < 0)
        if got != want:
            sys.exit(f"{moves}: solved {got}, the file says {want}")
    return (statistics.fmean(r[2] for r in results), statistics.fmean(r[1] for r in results))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data", "connect4"))
    g.add_argument("--kinds", default=",".join(KINDS))
    t = sub.add_parser("time")
    t.add_argument("folder", nargs="?",
                   default=os.path.join(os.path.dirname(__file__), "data", "connect4"))
    t.add_argument("--kinds", default=",".join(KINDS))
    t.add_argument("--table-mb", type=int, default=connect4.connect4_solve.DEFAULT_TABLE_MB)
    t.add_argument("--weak", action="store_true")
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    if args.cmd == "generate":
        os.makedirs(args.out, exist_ok=True)
        for kind in kinds:
            rows, skipped = generate(kind, SIZES[kind], args.seed)
            with open(os.path.join(args.out, f"{kind}.txt"), "w", encoding="utf-8") as f:
                f.writelines(f"{m} {s}\n" for m, s in rows)
            print(f"{kind} {len(rows)} positions, {skipped} candidates skipped at the node limit",
                  flush=True)
    else:
        print(f"{'kind':14} {'n':>4} {'mean CPU':>11} {'published':>10} {'mean nodes':>11} "
              f"{'M nodes/s':>9}")
        for kind in kinds:
            rows = read_set(os.path.join(args.folder, f"{kind}.txt"))
            mean_cpu, mean_nodes = time_set(rows, args.table_mb, args.weak)
            print(f"{kind:14} {len(rows):4} {_fmt(mean_cpu):>11} {_fmt(PUBLISHED_MEAN_S[kind]):>10} "
                  f"{mean_nodes:11.0f} {mean_nodes / mean_cpu / 1e6:9.2f}", flush=True)


def _fmt(s):
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


if __name__ == "__main__":
    main()
