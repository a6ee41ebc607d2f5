"""Engine-vs-engine round robin on 5x5 Quixo (results go in docs/quixo.md).

    PYTHONPATH=python python bench/quixo_engines.py --games 20 --seed 1

Every pair plays ``--games`` games with alternating first player
(``agents.play_match``, move cap 200 plies = draw).  Engines: random, the
one-ply line-count heuristic, the epsilon-greedy value agent (stage C, values
from ``--train`` random games), depth-limited alpha-beta with the line-count
heuristic (``game_evaluate`` heuristic 0), and MCTS (random playouts).
Prints a markdown table: row engine's W/D/L against the column engine, and
the mean seconds per move.
"""
import argparse
import itertools
import time

from ttt_engine import agents, quixo


class Timed:
    """Wraps an agent and accumulates its thinking time."""

    def __init__(self, agent, name):
        self.agent, self.name, self.seconds, self.moves = agent, name, 0.0, 0

    def reset(self, seed=None):
        r = getattr(self.agent, "reset", None)
        if r is not None:
            try:
                r(seed=seed)
            except TypeError:
                r()

    def select_move(self, board):
        t = time.perf_counter()
        m = self.agent.select_move(board)
        self.seconds += time.perf_counter() - t
        self.moves += 1
        return m


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--train", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--mcts", type=int, nargs="*", default=[1000, 5000])
    p.add_argument("--depths", type=int, nargs="*", default=[2, 3])
    a = p.parse_args()
    table, _ = quixo.collect_values(a.train, seed=a.seed)
    engines = [Timed(quixo.RandomAgent(seed=a.seed), "random"),
               Timed(quixo.HeuristicAgent(seed=a.seed), "heuristic-1ply"),
               Timed(quixo.GreedyValueAgent(table, epsilon=0.1, seed=a.seed), "greedy-values")]
    engines += [Timed(agents.AlphaBetaAgent(depth=d), f"alphabeta-d{d}") for d in a.depths]
    engines += [Timed(agents.MCTSAgent(simulations=s, seed=a.seed), f"mcts-{s}") for s in a.mcts]
    names = [e.name for e in engines]
    score = {}
    t0 = time.perf_counter()
    for x, y in itertools.combinations(range(len(engines)), 2):
        r = agents.play_match(engines[x], engines[y], games=a.games, board_factory=quixo.Board,
                              seed=a.seed + 17 * x + y)
        score[x, y] = (r.wins, r.draws, r.losses, r.capped)
        score[y, x] = (r.losses, r.draws, r.wins, r.capped)
        print(f"  {names[x]} vs {names[y]}: {r}", flush=True)
    print(f"\n{a.games} games per pair, alternating first player, move cap 200; "
          f"total {time.perf_counter() - t0:.0f} s\n")
    print("(cells W/D/L, then how many of the draws ended at the move cap)\n")
    print("| row vs column | " + " | ".join(names) + " | total W/D/L (capped) | s/move |")
    print("|---" * (len(names) + 3) + "|")
    for i, e in enumerate(engines):
        cells, tot = [], [0, 0, 0, 0]
        for j in range(len(engines)):
            if i == j:
                cells.append("-")
                continue
            w, d, l, c = score[i, j]
            tot = [t + x for t, x in zip(tot, (w, d, l, c))]
            cells.append(f"{w}/{d}/{l} ({c})")
        spm = e.seconds / e.moves if e.moves else 0.0
        print(f"| {e.name} | " + " | ".join(cells)
              + f" | {tot[0]}/{tot[1]}/{tot[2]} ({tot[3]}) | {spm:.4f} |")


if __name__ == "__main__":
    main()
