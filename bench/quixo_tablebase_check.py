"""The 5x5 Quixo tablebase against an independent forward search (results in
docs/quixo.md, "Endgame tablebase").

    PYTHONPATH=python python bench/quixo_tablebase_check.py PATH [SAMPLES] [DEPTH] [SEED] [DEEP]

Random positions with at most one blank cube and no line (half of them with a
blank); the search (tests/test_quixo_tablebase.py, written from the rules,
nothing from the package's solvers) proves a win or a loss within DEPTH plies
(default 3) with its exact distance.  Every sampled position must agree: the
table's value and distance where the search proves one, else a draw or a
distance beyond DEPTH.  Prints how many were proved, by value.

Then DEEP (default 50) positions for each table value "win in 3", "loss in
4", "win in 5" (found by sampling more positions): the search at that depth
must prove exactly that value and distance (nothing shorter).
"""
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from test_quixo_tablebase import Ref, random_position  # noqa: E402

from ttt_engine.quixo.tablebase import Tablebase  # noqa: E402


def main(path, samples=1500, depth=3, seed=1, deep=50):
    t0 = time.perf_counter()
    table = Tablebase(path, 5)
    ref = Ref(5)
    rng = random.Random(seed)
    proved, unproved, bad = Counter(), Counter(), 0
    for _ in range(samples):
        me, opp, cells = random_position(rng, 5, ref)
        got = table.value_at(me, opp)
        want = ref.proven(cells, depth)
        if want is None:
            unproved[got[0] if got[1] is None or got[1] > depth else "WRONG"] += 1
            bad += got[1] is not None and got[1] <= depth
        else:
            proved[want] += 1
            bad += got != want
    print(f"{samples} random positions, search depth {depth}: {sum(proved.values())} proved "
          f"({dict(sorted(proved.items()))}); not proved: {dict(unproved)}; "
          f"disagreements: {bad}; {time.perf_counter() - t0:.0f} s", flush=True)
    for want in (("win", 3), ("loss", 4), ("win", 5)):
        t0 = time.perf_counter()
        found = tried = wrong = 0
        while found < deep:
            me, opp, cells = random_position(rng, 5, ref)
            tried += 1
            if table.value_at(me, opp) != want:
                continue
            found += 1
            wrong += ref.proven(cells, want[1]) != want
        bad += wrong
        print(f"table says {want[0]} in {want[1]}: {found} positions (of {tried:,} sampled), "
              f"search disagrees on {wrong}; {time.perf_counter() - t0:.0f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    a = sys.argv[1:]
    sys.exit(main(a[0], *(int(x) for x in a[1:])))
