"""Make a game's yardstick suite: positions from uniformly random games and
from a strong engine's self-play with a little randomness, spread over the
opening, middle and end (by plies played), every legal move scored exactly by
the game's perfect engine (ttt_engine.yardstick.build_suite).

    python bench/yardstick_suite.py --game connect4 --seed 1 \\
        --out python/ttt_engine/data/yardstick_connect4.npz

The shipped Connect Four suite (1,650 positions, 45 minutes on a shared core,
155 opening positions replaced by the cap; 32 KB):
    python bench/yardstick_suite.py --game connect4 --seed 1 \
        --per-phase 150,750,750 --cap 5 --out python/ttt_engine/data/yardstick_connect4.npz
(bounds 14, 27: thirds of the longest of 200 random games; alphabeta depth 6,
15% random moves, the defaults).
"""
import argparse

from ttt_engine import yardstick


def _numbers(ap, option, text, count):
    """``count`` whole numbers >= 0 written ``a,b,...``; else a one-line usage error."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        values = ()
    if len(values) != count or min(values) < 0:
        ap.error(f"{option} takes {count} whole numbers separated by commas (e.g. "
                 f"{','.join(['100'] * count)}), got {text!r}")
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-phase", default="150,750,750",
                    help="positions in the opening, middle and end")
    ap.add_argument("--bounds", default=None,
                    help="plies where the middle and the end begin (default: thirds of the "
                         "longest random game)")
    ap.add_argument("--strong", default="alphabeta", help="the strong engine")
    ap.add_argument("--depth", type=int, default=6, help="its depth (None: its default)")
    ap.add_argument("--epsilon", type=float, default=0.15, help="its share of random moves")
    ap.add_argument("--cap", type=float, default=None,
                    help="seconds a position may take to score (CPU; slower ones are replaced)")
    args = ap.parse_args()
    per_phase = _numbers(ap, "--per-phase", args.per_phase, 3)
    bounds = _numbers(ap, "--bounds", args.bounds, 2) if args.bounds else None
    suite = yardstick.build_suite(args.game, per_phase=per_phase, seed=args.seed,
                                  strong=args.strong, strong_budget={"depth": args.depth},
                                  epsilon=args.epsilon, bounds=bounds, cap=args.cap)
    yardstick.save(suite, args.out)
    print(f"wrote {args.out}: {len(suite):,} positions, bounds {suite.bounds}, {suite.info}")


if __name__ == "__main__":
    main()
