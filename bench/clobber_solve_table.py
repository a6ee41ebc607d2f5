"""Solve every standard Clobber start position r x c (r <= c; c x r is the same
game) within a time budget per board; prints a Markdown table row per board.

    PYTHONPATH=python python bench/clobber_solve_table.py [seconds=60] [tt_bits=24] [cert_dir]

Each row of boards stops at its first board that does not finish in time.
With ``cert_dir``, every settled board's proof certificate is written there
(``RxC.cert``) and checked by ``ttt_engine.clobber.check_reference``; the table gains
the record count, file size and the write / check seconds.
"""
import os
import sys
import time

from ttt_engine import clobber as C


def _certify(board, solver, cert_dir):
    from ttt_engine.clobber.cert import write_certificate
    from ttt_engine.clobber.check_reference import check_certificate
    path = os.path.join(cert_dir, f"{board.rows}x{board.cols}.cert")
    t0 = time.perf_counter()
    n = write_certificate(path, board, solver)
    t1 = time.perf_counter()
    rep = check_certificate(path)
    t2 = time.perf_counter()
    if "confirmed" not in rep:
        raise RuntimeError(f"{path}: {rep}")
    return f" {n:,} | {os.path.getsize(path):,} | {t1 - t0:.1f} | {t2 - t1:.1f} |"


def main(budget=60.0, tt_bits=24, cert_dir=None):
    head = "| board | to move (B) | winner | nodes | table hits | CPU s | wall s |"
    rule = "|---|---|---|---:|---:|---:|---:|"
    if cert_dir:
        os.makedirs(cert_dir, exist_ok=True)
        head += " certificate records | bytes | write s | check s |"
        rule += "---:|---:|---:|---:|"
    print(head)
    print(rule)
    solver = C.Solver(tt_bits)
    for r in range(1, 9):
        for c in range(r, 9):
            solver.clear()
            t0 = time.thread_time()
            res = solver.solve(C.Board(r, c), time_limit=budget)
            cpu = time.thread_time() - t0
            if res.win is None:
                print(f"| {r}x{c} | not solved in {budget:g} s | | >{res.nodes:,} | | {cpu:.1f} | "
                      f">{budget:g} |", flush=True)
                break
            row = (f"| {r}x{c} | {'win' if res.win else 'loss'} | {res.winner} | {res.nodes:,} | "
                   f"{res.tt_hits:,} | {cpu:.3f} | {res.seconds:.3f} |")
            if cert_dir:
                row += _certify(C.Board(r, c), solver, cert_dir)
            print(row, flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 60.0,
         int(sys.argv[2]) if len(sys.argv) > 2 else 24,
         sys.argv[3] if len(sys.argv) > 3 else None)
