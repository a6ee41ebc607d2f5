"""Quixo 5x5: ``best`` reading the endgame tablebase against ``best`` searching
alone, both at the same simulation budget, sides alternating, the 200-ply cap.

The table is read from the cache folder (``TTT_ENGINE_CACHE_DIR``); with none
there both search, which is the control.  Prints the match (W/D/L of the
table reader, and how many draws the cap ended) and the games' lengths::

    TTT_ENGINE_CACHE_DIR=/tmp/tb taskset -c 1 python bench/quixo_best_table_match.py --games 100
"""
import argparse

from ttt_engine import games, quixo
from ttt_engine.agents import play_match


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--simulations", type=int, default=1000)
    p.add_argument("--seed", type=int, default=5)
    a = p.parse_args()
    g = games.get("quixo")
    reader = g.make_agent("best", simulations=a.simulations, seed=1)
    search = g.make_agent("best", simulations=a.simulations, seed=2)
    search.tablebase = False
    reader.name, search.name = "best+table", "best"
    r = play_match(reader, search, games=a.games, seed=a.seed, board_factory=quixo.Board)
    print(f"{reader.name} against {search.name}, {a.simulations} simulations: {r}")
    print("plies:", sorted(p for _, _, p in r.games))


if __name__ == "__main__":
    main()
