"""Generate the Connect Four opening book: every unfinished position with at
most N discs (mirror-canonical) scored exactly by the solver.  Resumable and
atomic (the same command resumes from the side file OUT.progress.npz; the book
is written only when complete); Ctrl-C or a kill saves the progress.

    python bench/connect4_book.py --plies 5 --out python/ttt_engine/data/connect4_book.bin
    nohup taskset -c 1 nice -n 5 python bench/connect4_book.py --plies 8 \\
        --out /work/c4_book/connect4_book_8.bin > /work/c4_book/book8.log 2>&1 &

The same as ``ttt-engine connect4 book --plies N --out FILE``.
"""
import sys

from ttt_engine.cli import run_standalone

if __name__ == "__main__":
    sys.exit(run_standalone("connect4", ["book", *sys.argv[1:]],
                            prog="python bench/connect4_book.py"))
