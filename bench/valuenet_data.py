"""Value-network data from an existing labelling run (a folder of
``ttt-engine valuenet label``), in the same run format, for ``ttt-engine
valuenet train`` (docs/results/valuenet.md):

- ``features SRC DST [--game G]``: the same positions and labels, every
  feature row recomputed for the feature set of this build (positions
  replayed from the chunks' moves; any game, Connect Four by default);
- ``children SRC DST --time T --seed S``: for every position of SRC, one
  uniformly random legal move (seeded by S and the chunk), the child solved
  exactly by the book and the solver within T seconds; the unfinished children
  solved in time are written, each its own one-position game (replayable from
  its moves; ``game_index`` its parent's), ``exact`` and ``off_line`` set.
  Which children are solved within T depends on the machine's speed; a solved
  one's label does not.  Connect Four only.

Both resume: the chunks already in DST are kept.

    PYTHONPATH=python taskset -c 1 python bench/valuenet_data.py children \\
        runs/c4_exact runs/c4_children1 --time 0.3 --seed 1
"""
import argparse
import glob
import json
import os
import time

import numpy as np

from ttt_engine import _util, connect4, games

VALUE = {"win": 1.0, "draw": 0.0, "loss": -1.0}


def _replay(game, moves):
    b = game.new_board()
    for m in moves:
        b.push(int(m))
    return b


def _row(vf, count, board):
    row = np.zeros(count, np.uint8)
    row[vf.active(board)] = 1
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["features", "children"])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--time", type=float, default=0.3, help="children: seconds a solve")
    ap.add_argument("--seed", type=int, default=1, help="children: the moves' seed")
    ap.add_argument("--game", default="connect4", choices=sorted(games.GAMES),
                    help="features: the run's game")
    args = ap.parse_args()
    if args.what == "children" and args.game != "connect4":
        ap.error("children: Connect Four only (its book and solver label them)")
    game = games.get(args.game)
    vf = game.value_features
    count = vf.count(game.new_board())
    with open(os.path.join(args.src, "run.json"), encoding="utf-8") as f:
        run = json.load(f)
    run["features"] = vf.name(game.new_board())
    if args.what == "children":
        run["branch"] = 1
        run["search"] = {"exact": "book and solver", "time_limit": args.time,
                         "branch_seed": args.seed}
    os.makedirs(args.dst, exist_ok=True)
    text = json.dumps(run, indent=1, sort_keys=True).encode()
    _util.atomic_write(os.path.join(args.dst, "run.json"), lambda f: f.write(text), "run file")
    for path in sorted(glob.glob(os.path.join(args.src, "chunk-*.npz"))):
        out = os.path.join(args.dst, os.path.basename(path))
        if os.path.exists(out):
            continue
        t0 = time.perf_counter()
        z = dict(np.load(path))
        lines = [[int(m) for m in z["moves"][z["offsets"][g]:z["offsets"][g] + ply]]
                 for g, ply in zip(z["position_game"], z["position_ply"])]
        if args.what == "features":
            z["features"] = np.array([_row(vf, count, _replay(game, x)) for x in lines],
                                     np.uint8).reshape(-1, count)
        else:
            rng = np.random.default_rng([args.seed, int(os.path.basename(path)[6:-4])])
            kept, rows, labels, parents = [], [], [], []
            for line, g in zip(lines, z["position_game"]):
                b = _replay(game, line)
                legal = b.legal_moves
                m = int(legal[rng.integers(len(legal))])
                b.push(m)
                if b.is_terminal():
                    continue
                r = connect4.solve(b, time_limit=args.time, table_mb=64)
                if r.value in VALUE:
                    kept.append(line + [m])
                    rows.append(_row(vf, count, b))
                    labels.append(VALUE[r.value])
                    parents.append(int(z["game_index"][g]))
            n = len(kept)
            z = dict(game_index=np.array(parents, np.int64),
                     moves=np.array([m for x in kept for m in x], np.int32),
                     offsets=np.cumsum([0] + [len(x) for x in kept]).astype(np.int64),
                     position_game=np.arange(n, dtype=np.int32),
                     position_ply=np.array([len(x) for x in kept], np.int32),
                     features=np.array(rows, np.uint8).reshape(n, count),
                     labels=np.array(labels, np.float32), exact=np.ones(n, bool),
                     off_line=np.ones(n, bool))
        z["seconds"] = np.float64(time.perf_counter() - t0)
        _util.atomic_write(out, lambda f: np.savez(f, **z), "label chunk file")
        print(os.path.basename(path), len(z["labels"]), round(float(z["seconds"]), 1),
              flush=True)


if __name__ == "__main__":
    main()
