"""Engine-vs-engine table for Ultimate Tic-Tac-Toe at equal time per move.

Engines: MCTS (search core, UCT with tree reuse), tree Q-learning and Sarsa
(``ttt_engine.tree_agents``) and the uniformly random agent.  Every
pair plays ``--games`` games, each engine moving first in half of them
(``ttt_engine.agents.play_match`` alternates), every engine getting
``--time`` seconds of wall-clock time per move.  Prints a Markdown table
(row engine's wins-draws-losses against the column engine, and its score
``(W + D/2) / games``) and, with ``--json``, writes all results atomically.

    PYTHONPATH=python python bench/uttt_engines_table.py --time 0.1 --games 20
    PYTHONPATH=python python bench/uttt_engines_table.py --only mcts:random --games 200

The machine's load changes how many simulations fit into a move's time; each
result records the per-engine simulation rates seen in that match.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time

from ttt_engine._util import atomic_write, check_int, check_real, resolve_seed
from ttt_engine.agents import MCTSAgent, RandomAgent, play_match
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent
from ttt_engine.uttt import Board

ENGINES = ("mcts", "treeq", "sarsa", "random", "mcts-ea2")


def make_agent(name, move_time, seed):
    if name == "mcts":
        return MCTSAgent(time=move_time, seed=seed, max_nodes=2_000_000)
    if name == "mcts-ea2":     # search-core MCTS expanding a leaf on its third visit
        agent = MCTSAgent(time=move_time, seed=seed, max_nodes=2_000_000, expand_after=2)
        agent.name = "mcts-ea2"
        return agent
    if name == "treeq":
        return TreeQAgent(time=move_time, seed=seed)
    if name == "sarsa":
        return SarsaAgent(time=move_time, seed=seed)
    if name == "random":
        return RandomAgent(seed=seed)
    raise ValueError(f"unknown engine {name!r}: choose from {', '.join(ENGINES)}")


class _Rate:
    """Wrap an agent to record its simulations per second (time-weighted)."""

    def __init__(self, agent):
        self.agent, self.name = agent, agent.name
        self.sims = 0
        self.seconds = 0.0

    def reset(self, seed=None):
        self.agent.reset(seed=seed)

    def select_move(self, board):
        move = self.agent.select_move(board)
        stats = getattr(self.agent, "stats", None) or getattr(self.agent, "last_stats", None)
        if isinstance(stats, dict) and "simulations" in stats:
            self.sims += stats["simulations"]
            self.seconds += stats["time"]
        return move

    @property
    def rate(self):
        return self.sims / self.seconds if self.seconds else None


def run_pair(a, b, games, move_time, seed):
    ra, rb = _Rate(make_agent(a, move_time, seed)), _Rate(make_agent(b, move_time, seed + 1))
    t0 = time.perf_counter()
    r = play_match(ra, rb, games=games, board_factory=Board, seed=seed)
    return {
        "a": a, "b": b, "games": games, "time_per_move": move_time,
        "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "a_first": list(r.as_first), "a_second": list(r.as_second),
        "score": (r.wins + 0.5 * r.draws) / games if games else None,
        "sims_per_s": {a: ra.rate, b: rb.rate},
        "wall_s": time.perf_counter() - t0,
    }


def markdown(results, engines):
    cell = {}
    for r in results:
        cell[(r["a"], r["b"])] = (r["wins"], r["draws"], r["losses"])
        cell[(r["b"], r["a"])] = (r["losses"], r["draws"], r["wins"])
    lines = ["| row vs column (W-D-L) | " + " | ".join(engines) + " | score |",
             "|---|" + "---|" * (len(engines) + 1)]
    for e in engines:
        row, w, d, n = [], 0, 0, 0
        for f in engines:
            if e == f or (e, f) not in cell:
                row.append("")
                continue
            cw, cd, cl = cell[(e, f)]
            row.append(f"{cw}-{cd}-{cl}")
            w, d, n = w + cw, d + cd, n + cw + cd + cl
        score = f"{(w + d / 2) / n:.2f}" if n else ""
        lines.append(f"| **{e}** | " + " | ".join(row) + f" | {score} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    p.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--engines", default="mcts,treeq,sarsa,random",
                   help="comma-separated subset of " + ",".join(ENGINES))
    p.add_argument("--only", default=None, help="a single pair 'a:b', e.g. mcts:random")
    p.add_argument("--json", default=None, help="write the results to this JSON file")
    args = p.parse_args(argv)
    try:
        move_time = check_real("--time", args.time, low=0, low_open=True, high=60)
        games = check_int("--games", args.games, min=1, max=100_000)
        seed = resolve_seed(args.seed)
        if args.only:
            pair = args.only.split(":")
            if len(pair) != 2:
                raise ValueError(f"--only must look like 'mcts:random', got {args.only!r}")
            pairs, engines = [tuple(pair)], list(dict.fromkeys(pair))
        else:
            engines = [e.strip() for e in args.engines.split(",") if e.strip()]
            pairs = list(itertools.combinations(engines, 2))
        for e in engines:
            if e not in ENGINES:
                raise ValueError(f"unknown engine {e!r}: choose from {', '.join(ENGINES)}")
    except ValueError as exc:
        p.error(str(exc))
    results = []
    for i, (a, b) in enumerate(pairs):
        r = run_pair(a, b, games, move_time, seed + 17 * i)
        results.append(r)
        rates = ", ".join(f"{k} {v:,.0f} sims/s" for k, v in r["sims_per_s"].items() if v)
        print(f"{a} vs {b}: W-D-L {r['wins']}-{r['draws']}-{r['losses']} "
              f"(as first {r['a_first']}, as second {r['a_second']}; {rates}; "
              f"{r['wall_s']:.0f} s)", flush=True)
    print()
    print(f"Ultimate Tic-Tac-Toe, {move_time * 1000:g} ms per move, {games} games per pair "
          "(each side first in half):")
    print(markdown(results, engines))
    if args.json:
        payload = {"time_per_move": move_time, "games": games, "seed": seed,
                   "results": results, "table": markdown(results, engines)}
        atomic_write(args.json, lambda f: f.write(json.dumps(payload, indent=2).encode()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
