#!/usr/bin/env python
"""Where were UTTT games decided?  Replay the games of a match file
(``bench/vs_openspiel_mcts.py --out``) and solve every position with at most
``--max-empty`` empty cells in the open local boards by alpha-beta
(``--time-limit`` seconds each); report, for our side, each move that threw a
proven win away (a win before the move, not after it) or a proven draw (a
loss after it).

    python bench/exact_walk.py results/strength_runs/uttt-distilled951-vs-openspiel-seed2026.jsonl
    python bench/exact_walk.py a.jsonl b.jsonl --max-empty 32 --time-limit 2 --all

By default only the games we did not win are replayed (``--all``: every
game).  Each reported move gives the ply, the empty cells, the move played
and a winning (or drawing) move the solve found.  The last line sums them.
"""
from __future__ import annotations

import argparse
import json
import sys


def read_games(path):
    """The finished games of a match file (its header line skipped)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
            if "game" not in row:
                continue
            if not {"moves", "ours", "result"} <= row.keys() or row["ours"] not in ("X", "O"):
                raise ValueError(f"{path}:{number}: not a game of bench/vs_openspiel_mcts.py")
            out.append(row)
    return out


def walk(moves, ours, max_empty, time_limit):
    """``[(ply, empties, kind, played, better)]``: our moves that lost a proven
    win (kind "win") or a proven draw (kind "draw")."""
    from ttt_engine import uttt
    from ttt_engine.search import alphabeta, endgame_empty_cells
    board = uttt.Board()
    first = ours == "X"
    values = []                     # exact value for the side to move, or None
    for move in moves:
        value = best = None
        empties = endgame_empty_cells(board)
        if empties <= max_empty:
            r = alphabeta(board, time_limit=time_limit)
            if r.exact:
                value, best = r.outcome, r.best_move
        values.append((value, best, empties))
        board.push(move)
    values.append((None, None, 0))
    found = []
    for ply, move in enumerate(moves):
        if (ply % 2 == 0) != first:
            continue                # the opponent's move
        before, best, empties = values[ply]
        after = values[ply + 1][0]
        if ply + 1 == len(moves):
            after = -1 if board.winner == ("X" if first else "O") else (
                0 if board.winner == "draw" else 1)
        if before is None or after is None:
            continue
        if before == 1 and -after < 1:
            found.append((ply, empties, "win", move, best))
        elif before == 0 and -after < 0:
            found.append((ply, empties, "draw", move, best))
    return found


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="match files of bench/vs_openspiel_mcts.py")
    p.add_argument("--max-empty", type=int, default=36,
                   help="solve positions with at most this many empty cells (default 36)")
    p.add_argument("--time-limit", type=float, default=1.0,
                   help="seconds per solve (default 1; unsolved positions are skipped)")
    p.add_argument("--all", action="store_true", help="replay won games too")
    args = p.parse_args(argv)
    if not 0 <= args.max_empty <= 81:
        p.error(f"--max-empty must be in 0..81, got {args.max_empty}")
    if not args.time_limit > 0:
        p.error(f"--time-limit must be > 0, got {args.time_limit}")
    try:
        matches = [(path, read_games(path)) for path in args.files]
    except (OSError, ValueError) as exc:
        print(f"exact_walk: {exc}", file=sys.stderr)
        return 2
    totals = {"win": 0, "draw": 0}
    replayed = 0
    for path, rows in matches:
        for row in rows:
            if row["result"] == "win" and not args.all:
                continue
            replayed += 1
            for ply, empties, kind, played, better in walk(row["moves"], row["ours"],
                                                           args.max_empty, args.time_limit):
                totals[kind] += 1
                print(f"{path} game {row['game']} ({row['ours']}, {row['result']}): ply {ply}, "
                      f"{empties} empty: a proven {kind} lost by {played} ({better} keeps it)",
                      flush=True)
    print(f"{replayed} games replayed: {totals['win']} proven wins and {totals['draw']} proven "
          f"draws thrown away by our moves (positions with <= {args.max_empty} empty cells "
          f"solved within {args.time_limit:g} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
