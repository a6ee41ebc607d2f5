"""Write proof certificates for Clobber positions from a solver's results.

The format is described in ``ttt_engine.clobber_check`` (which checks it with
the plain rules only).  The writer walks the proof depth-first: at a claimed
win it writes one winning move (the first, in the solver's order, whose
position the solver scores as lost for the opponent) and proves that
position lost; at a claimed loss it proves every reply won.  Before that it
states the reductions it relies on (claw pairs and small components of value
0, pairs of colour-swapped components, the outcome rules for sums of small
components) as records the checker verifies by brute force on the
components.  A position proven once is referred to afterwards.
"""
import json
import zlib

from ttt_engine._util import atomic_write
from ttt_engine.clobber_check import (
    FORMAT,
    MAX_BRUTE,
    components,
    is_negative,
    legal_moves,
    canonical,
    play,
    strip_dead,
)


def _popcount(x):
    return x.bit_count()


def _is_claw(own, opp):
    for one, many in ((own, opp), (opp, own)):
        if one and not one & (one - 1):
            sq = one.bit_length() - 1
            r, c = divmod(sq, 8)
            nb = ((1 << (sq + 8)) if r < 7 else 0) | ((1 << (sq - 8)) if r > 0 else 0) \
                | ((1 << (sq + 1)) if c < 7 else 0) | ((1 << (sq - 1)) if c > 0 else 0)
            if not many & ~nb:
                return True
    return False


class _Writer:
    def __init__(self, solver, db_stones):
        self.solver = solver
        self.db_stones = db_stones
        self.out = bytearray()
        self.memo = (set(), set())
        self.records = 0

    def outcome(self, own, opp):
        r = self.solver.outcome_of(own, opp)
        if r is None:
            raise RuntimeError("solver stopped while writing a certificate")
        return r

    def losing_reply(self, own, opp):
        """A move after which the opponent loses (solver's order, table first)."""
        order = self.solver.order_moves(own, opp)
        for m in order:
            if self.solver.probe(*play(own, opp, m)) is False:
                return m
        for m in order:
            if not self.outcome(*play(own, opp, m)):
                return m
        raise RuntimeError("claimed win has no winning move (solver inconsistency)")

    def reduction(self, own, opp):
        """(record bytes, own', opp') for the first applicable reduction, else None;
        or (b"O", None, None) when the outcome rules settle the position."""
        comps = components(own, opp)
        claws = [c for c in comps if _is_claw(own & c, opp & c)]
        if len(claws) >= 2:
            z = claws[0] | claws[1]
            return b"Z" + z.to_bytes(8, "little"), own & ~z, opp & ~z
        if len(comps) < 2:
            return None
        small = [c for c in comps if _popcount(c) <= self.db_stones]
        bits = {}
        for c in small:
            lw = self.outcome(own & c, opp & c)
            rw = self.outcome(opp & c, own & c)
            bits[c] = (lw, rw)
            if not lw and not rw:
                return b"Z" + c.to_bytes(8, "little"), own & ~c, opp & ~c
        for i, g in enumerate(comps):
            for h in comps[i + 1:]:
                if (_popcount(own & g) == _popcount(opp & h) and _popcount(opp & g) == _popcount(own & h)
                        and is_negative(own, opp, g, h)):
                    z = g | h
                    return b"N" + g.to_bytes(8, "little") + h.to_bytes(8, "little"), own & ~z, opp & ~z
        if len(small) == len(comps):
            le = all(not bits[c][0] for c in comps)
            ge = all(not bits[c][1] for c in comps)
            gt = any(bits[c][0] for c in comps)
            if le or (ge and gt):
                return b"O", None, None
        return None

    def run(self, own, opp, claim):
        # explicit stack of (own, opp, claim) to prove, or ("done", claim, key)
        stack = [(own, opp, claim)]
        while stack:
            item = stack.pop()
            if item[0] == "done":
                self.memo[item[1]].add(item[2])
                continue
            own, opp, claim = item
            own, opp = strip_dead(own, opp)
            key = canonical(own, opp)
            self.records += 1
            if key in self.memo[claim]:
                self.out += b"R"
                continue
            stack.append(("done", claim, key))
            red = self.reduction(own, opp)
            if red is not None:
                rec, a, b = red
                self.out += rec
                if rec != b"O":
                    stack.append((a, b, claim))
                continue
            if claim:
                m = self.losing_reply(own, opp)
                self.out += b"M" + bytes([m])
                stack.append((*play(own, opp, m), False))
            else:
                self.out += b"A"
                for m in reversed(legal_moves(own, opp)):
                    stack.append((*play(own, opp, m), True))


def certificate_bytes(board, solver, db_stones=None):
    """(header dict, record bytes, records) proving the value of ``board``."""
    own, opp = board.bitboards
    if board.to_move == "W":
        own, opp = opp, own
    claim = solver.outcome_of(own, opp)
    if claim is None:
        raise RuntimeError("solver stopped")
    ds = solver.settings["db_stones"] if db_stones is None else db_stones
    w = _Writer(solver, min(ds, MAX_BRUTE))
    w.run(own, opp, claim)
    header = {"format": FORMAT, "rows": board.rows, "cols": board.cols, "to_move": board.to_move,
              "own": own, "opp": opp, "claim": "win" if claim else "loss"}
    return header, bytes(w.out), w.records


def write_certificate(path, board, solver, db_stones=None):
    """Write a certificate for ``board`` to ``path`` (atomically); returns the record count."""
    header, data, n = certificate_bytes(board, solver, db_stones)
    blob = json.dumps(header).encode() + b"\n" + zlib.compress(data, 9)
    atomic_write(path, lambda f: f.write(blob))
    return n
