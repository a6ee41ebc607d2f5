"""The yardstick table of a game's agents, networks among them: how often
each keeps the game-theoretic value and plays an optimal move, on the critical
positions beside a random mover's exact expectation, by phase, on the game's
shipped suite (ttt_engine.yardstick; every registry engine of every game:
bench/yardstick_report.py).

    python bench/yardstick_table.py --game connect4 \\
        --agents perfect,random,alphabeta,mcts,best --time 0.1 \\
        --out results/yardstick_connect4.jsonl
    python bench/yardstick_table.py --game connect4 --network c4.npz \\
        --agents policy,az:100,az:800

An agent is a registry engine (``mcts``, ``alphabeta``, ...; ``--time`` seconds
a move where it searches, else its default budget), ``policy`` (the network's
policy alone) or ``az:N`` (PUCT guided by the network at N simulations).  Each
agent's row is appended to ``--out`` as it finishes (an agent already in the
file is not played again), then the table is printed in Markdown.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ttt_engine import games, yardstick
from ttt_engine.agents import AZAgent, PolicyAgent

SEARCHERS = ("mcts", "best", "alphabeta")
#: the engines that also take a simulation budget
SIMULATORS = ("mcts", "best")


def make(game, spec, network, budget, seed, simulations=None):
    """The agent that ``spec`` names (see the module's help)."""
    g = games.get(game)
    if spec == "policy":
        return PolicyAgent(network)
    if spec.startswith("az:"):
        sims = int(spec[3:])
        a = AZAgent(network, simulations=sims, seed=seed)
        a.name = f"az({sims} simulations)"
        return a
    if spec not in g.engines:
        raise SystemExit(f"yardstick_table.py: unknown agent {spec!r}; the engines of "
                         f"{g.title}: {', '.join(g.engines)}, or policy, az:N")
    kw = {"seed": seed}
    if spec in SIMULATORS and simulations is not None:
        kw["simulations"] = simulations
    elif spec in SEARCHERS and budget is not None:
        kw["time"] = budget
    a = g.make_agent(spec, **kw)
    a.name = spec + (f" ({budget} s)" if "time" in kw else
                     f" ({simulations} simulations)" if "simulations" in kw else "")
    return a


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="connect4")
    ap.add_argument("--agents", default="perfect,random,alphabeta,mcts,best")
    ap.add_argument("--network", default=None, help="network of policy / az:N")
    ap.add_argument("--time", type=float, default=0.1,
                    help="seconds a move of the searching engines")
    ap.add_argument("--simulations", type=int, default=None,
                    help="simulations a move of mcts and best instead of --time "
                         "(a budget a busy machine does not change)")
    ap.add_argument("--sample", type=int, default=None, help="only that many positions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="JSON lines, one agent a line (resumable)")
    args = ap.parse_args(argv)
    if args.network is not None and not os.path.isfile(args.network):
        ap.error(f"--network: no such file: {args.network}")
    done = {}
    if args.out and os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                d = json.loads(line)
                done[d["spec"]] = d
    rows = []
    for spec in args.agents.split(","):
        if spec in done:
            rows.append(done[spec])
            continue
        agent = make(args.game, spec, args.network, args.time, args.seed, args.simulations)
        r = yardstick.yardstick(agent, game=args.game, sample=args.sample, seed=args.seed,
                                progress=True)
        print(r, file=sys.stderr)
        d = dict(r.to_dict(), spec=spec, network=args.network, time=args.time,
                 simulations=args.simulations, sample=args.sample)
        rows.append(d)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(d) + "\n")
    print(yardstick.Result.TABLE_HEAD)
    for d in rows:
        print(yardstick.Result.from_dict(d, args.game).row())
    return 0


if __name__ == "__main__":
    sys.exit(main())
