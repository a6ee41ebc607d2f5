"""Write proof certificates for Clobber positions from a solver's results.

The format is described in ``ttt_engine.clobber.check_reference``, which checks it with
the plain rules only.  The records come from ``Solver.write_proof`` (compiled):
it walks the proof depth-first; at a claimed win it writes one winning move
and proves the position after it lost, at a claimed loss it proves every
reply won; before that it states the reductions it relies on (claw pairs and
small components of value 0, pairs of colour-swapped components, the outcome
rules for sums of small components), which the checker verifies by brute
force on the components.  A position proven once (up to its canonical form)
is referred to afterwards.
"""
import json
import zlib

from ttt_engine._util import atomic_write, check_output_path
from ttt_engine.clobber.check_reference import FORMAT, MAX_BRUTE


def _start(board, solver, db_stones):
    """(header, own, opp, claim, small) for the board's side to move."""
    own, opp = board.bitboards
    if board.to_move == "W":
        own, opp = opp, own
    claim = solver.outcome_of(own, opp)
    if claim is None:
        raise RuntimeError("solver stopped")
    ds = solver.settings["db_stones"] if db_stones is None else db_stones
    header = {"format": FORMAT, "rows": board.rows, "cols": board.cols, "to_move": board.to_move,
              "own": own, "opp": opp, "claim": "win" if claim else "loss"}
    return header, own, opp, claim, min(ds, MAX_BRUTE)


def certificate_bytes(board, solver, db_stones=None):
    """(header dict, record bytes, records) proving the value of ``board``."""
    header, own, opp, claim, small = _start(board, solver, db_stones)
    parts = []

    def sink(data):
        parts.append(data)
        return True
    records, _, _ = solver.write_proof(own, opp, claim, sink, small=small)
    return header, b"".join(parts), records


def write_certificate(path, board, solver, db_stones=None, progress=None, level=6):
    """Write a certificate for ``board`` to ``path`` (atomically: a failed or
    interrupted write leaves no file); returns the record count.
    ``progress(records, bytes, nodes)`` is called about once a second."""
    check_output_path(path, "certificate")
    header, own, opp, claim, small = _start(board, solver, db_stones)
    out = {}

    def body(f):
        f.write(json.dumps(header).encode() + b"\n")
        z = zlib.compressobj(level)
        failure = []

        def sink(data):
            try:
                f.write(z.compress(data))
            except OSError as e:          # disk full etc.: stop the writer, re-raise below
                failure.append(e)
                return False
            return True
        try:
            out["n"] = solver.write_proof(own, opp, claim, sink, small=small, progress=progress)[0]
        except RuntimeError:
            if failure:
                raise failure[0] from None
            raise
        f.write(z.flush())
    atomic_write(path, body, "certificate")
    return out["n"]
