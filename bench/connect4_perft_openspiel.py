"""Connect Four perft: this engine against OpenSpiel's ``connect_four``, an
independent implementation (the numbers in tests/test_connect4.py and
docs/connect4.md come from this script).

    pip install open_spiel            # or: pip install ".[compare]"
    PYTHONPATH=python python bench/connect4_perft_openspiel.py            # depths 1..8
    PYTHONPATH=python python bench/connect4_perft_openspiel.py --depth 6

Perft counts the move sequences of exactly ``depth`` plies; a game that ends
earlier counts as one leaf (the engine's convention, applied to OpenSpiel's
tree here too).  Positions are given as move sequences (columns 0..6), played on our board and
converted to OpenSpiel's state by ``ttt_engine.openspiel``.  OpenSpiel's tree is
walked from Python (a copy per move: its connect_four has no undo): depth 8
takes a few seconds there.  Exit status 1 if any
count differs, 3 if OpenSpiel is not installed.
"""
import argparse
import sys
import time

from ttt_engine import connect4

#: (name, move sequence) of the positions counted
POSITIONS = [
    ("start", []),
    ("mid8", [3, 3, 2, 4, 2, 2, 4, 1]),
    ("mid16", [1, 4, 4, 1, 2, 4, 3, 5, 4, 0, 4, 0, 6, 3, 2, 4]),
]


def openspiel_perft(state, depth):
    """Leaf count of OpenSpiel's tree (a finished game is one leaf)."""
    if depth == 0 or state.is_terminal():
        return 1
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    return sum(openspiel_perft(state.child(a), depth - 1) for a in actions)


def engine_board(moves):
    b = connect4.Board()
    for m in moves:
        b.push(m)
    return b


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=8, help="deepest perft (default 8)")
    args = ap.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed: pip install open_spiel (or '.[compare]')",
              file=sys.stderr)
        return 3
    from ttt_engine import openspiel
    bad = 0
    for name, moves in POSITIONS:
        board = engine_board(moves)
        print(f"{name}: {board.to_string()}")
        for d in range(1, args.depth + 1):
            t0 = time.perf_counter()
            ours = connect4.perft(board, d)
            t1 = time.perf_counter()
            theirs = openspiel_perft(openspiel.to_openspiel(board), d)
            t2 = time.perf_counter()
            same = "agree" if ours == theirs else "DIFFER"
            bad += ours != theirs
            print(f"  perft {d}: engine {ours:>12,} ({t1 - t0:7.3f} s)   "
                  f"OpenSpiel {theirs:>12,} ({t2 - t1:7.2f} s)   {same}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
