"""Stage C: greedy value agent vs random as a function of training games.

    PYTHONPATH=python python bench/quixo_training_curve.py --eval 10000

For each number of random training games, the values are collected (stage B,
gamma 0.85) and the epsilon-greedy agent (eps 0.1, unknown 0.5) plays
``--eval`` games against random, alternating sides.  Two variants: the
literal seed (game-ending moves looked up in the table too) and the default
(game-ending moves scored by their result).  Prints a markdown table.
"""
import argparse
import time

from ttt_engine import quixo


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--eval", type=int, default=10_000)
    p.add_argument("--train", type=int, nargs="*", default=[0, 1000, 10_000, 100_000, 1_000_000])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--symmetric", action="store_true",
                   help="merge states over the 8 board symmetries")
    a = p.parse_args()
    print("| training games | states | greedy win % (seed-literal) | greedy win % (default) | train s |")
    print("|---|---|---|---|---|")
    for n in a.train:
        t0 = time.perf_counter()
        table, _ = (quixo.collect_values(n, seed=a.seed, symmetric=a.symmetric) if n
                    else (quixo.ValueTable(16), None))
        dt = time.perf_counter() - t0
        row = []
        for exact in (False, True):
            g = quixo.GreedyValueAgent(table, epsilon=0.1, unknown=0.5, exact_terminal=exact)
            r = quixo.run_games(a.eval, g, quixo.RandomAgent(), seed=a.seed + 1)
            row.append(f"{100.0 * r['a_wins'] / a.eval:.2f} ({r['a_wins']}/{r['b_wins']}/{r['draws']})")
        print(f"| {n:,} | {len(table):,} | {row[0]} | {row[1]} | {dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
