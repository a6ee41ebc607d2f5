"""Make a game's yardstick suite with the game's own source (its registry
entry's ``yardstick_source``; ttt_engine.yardstick.build), and write it
(default: the shipped file, python/ttt_engine/data/yardstick_<key>.npz).

    nohup taskset -c 1 python bench/yardstick_suite.py --game uttt > /tmp/ys_uttt.log 2>&1 &

``--reweight``: instead, weight the suite already in ``--out`` (or shipped)
towards its critical positions (Connect Four's: yardstick.compose).  The
same as ``ttt-engine yardstick --game G --build``.
"""
import argparse
import sys

from ttt_engine import games, yardstick


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", required=True, choices=list(games.GAMES))
    ap.add_argument("--out", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reweight", action="store_true")
    args = ap.parse_args(argv)
    out = args.out or yardstick.suite_path(args.game)
    if args.reweight:
        from ttt_engine._yardstick_build import compose
        old = yardstick.load(out, args.game)
        found = [(old.lines[i], old.scores[i], old.sources[i],
                  old.variant[i] if old.variant else 0) for i in range(len(old))]
        suite = compose(args.game, found, size=len(found), seed=args.seed, bounds=old.bounds,
                        options=old.options,
                        sources=old.info.get("sources", ("random games", "strong engine")),
                        info=dict(old.info, reweighted=0.65))
    else:
        suite = yardstick.build(args.game, seed=args.seed, checkpoint=f"{out}.partial.json")
    yardstick.save(suite, out)
    exp = suite.random_expectation(critical=True)["all"]
    print(f"wrote {out}: {len(suite):,} positions, {sum(suite.critical):,} critical "
          f"({100 * suite.critical_share:.1f}%), bounds {suite.bounds}; a random mover on the "
          f"critical ones keeps {100 * exp[0]:.1f}% / optimal {100 * exp[1]:.1f}%; {suite.info}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
