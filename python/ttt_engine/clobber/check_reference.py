"""Reference checker of Clobber proof certificates (plain Python, no engine code).

This module is the readable reference and the format's specification; the
compiled checker (``src/engine/solvers/clobber/check.pyx``) replays the same
checks.
``check_certificate`` runs the compiled replay of the same checks
(``ttt_engine._core.solvers.clobber.check``, streamed, hundreds of times faster) by
default and this plain-Python ``Checker`` with ``pure=True``; both give the
same verdicts and summaries.

It knows only the rules (a move takes an own stone onto an orthogonally
adjacent opponent stone, which is removed; a player without a move loses) and
three facts of combinatorial game theory about disjunctive sums of
independent components (Berlekamp, Conway, Guy: *Winning Ways*; Siegel:
*Combinatorial Game Theory*):

- G + Z has the outcome of G when Z = 0, i.e. when Z is lost by whoever moves
  first in it (the checker settles that by brute force on Z alone);
- G + (-G) = 0, where -G is G with the colours swapped (here: a component
  whose colour-swapped copy is congruent to another component);
- with the mover as Left: if every component is <= 0 (Left moving first loses
  it) the sum is <= 0 and the mover loses; if every component is >= 0 (Right
  moving first loses it) and one is ``|> 0`` (Left moving first wins it), the
  sum is ``|> 0`` and the mover wins (component outcomes again by brute force).

Positions are two masks from the mover's side, bit ``r * 8 + c``; stones in
one-coloured groups are dropped (they can never move or be taken, since
stones only move onto stones).  The canonical form of a position is the
sorted multiset of its components, each taken in the least of its images
under the 8 symmetries of the square, translated to the corner: positions of
equal canonical form are sums of the same games, so have the same outcome.

Certificate format (``ttt_engine.clobber.cert`` writes it): a header line of
JSON (format, rows, cols, to_move, own, opp, claim), then a zlib stream of
records read in depth-first order; each record proves one claim ("the mover
wins" / "the mover loses") about the current position:

``M m``  win: move ``m`` (one byte, ``(r * 8 + c) * 4 + direction``; directions
         down, up, right, left), then a proof that the mover after it loses;
``A``    loss: for every legal move in ascending order, a proof that the
         mover after it wins;
``R``    the same claim about a position of the same canonical form was
         proven earlier in the stream;
``Z z``  (8-byte mask) the stones ``z`` are whole components whose sum is 0;
         then a proof of the same claim without them;
``N g h`` (two 8-byte masks) component ``h`` is the colour-swapped copy of
         component ``g``; then a proof of the same claim without both;
``O``    the outcome rules above settle the claim (every component at most
         ``MAX_BRUTE`` stones).
"""
import json
import os
import stat
import sys
import time
import zlib

FORMAT = "ttt-engine clobber certificate 2"
MAX_BRUTE = 16          # largest component (or zero set) settled by brute force
_STEP = (8, -8, 1, -1)  # down, up, right, left


def _neighbours(sq):
    r, c = divmod(sq, 8)
    out = []
    if r < 7:
        out.append(sq + 8)
    if r > 0:
        out.append(sq - 8)
    if c < 7:
        out.append(sq + 1)
    if c > 0:
        out.append(sq - 1)
    return out


_NB = [_neighbours(sq) for sq in range(64)]
_NBMASK = [sum(1 << n for n in _NB[sq]) for sq in range(64)]


def _bits(x):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def legal_moves(own, opp):
    """Moves of the mover, ascending: ``sq * 4 + direction`` onto an adjacent opponent stone."""
    out = []
    for sq in _bits(own):
        r, c = divmod(sq, 8)
        for d, step in enumerate(_STEP):
            if d == 0 and r == 7 or d == 1 and r == 0 or d == 2 and c == 7 or d == 3 and c == 0:
                continue
            if (opp >> (sq + step)) & 1:
                out.append(sq * 4 + d)
    return out


def play(own, opp, m):
    """The position after move ``m``, from the new mover's side."""
    sq = m >> 2
    to = sq + _STEP[m & 3]
    return opp & ~(1 << to), (own & ~(1 << sq)) | (1 << to)


_NOT_COL0 = sum(1 << sq for sq in range(64) if sq & 7)
_NOT_COL7 = sum(1 << sq for sq in range(64) if sq & 7 != 7)
_ALL = (1 << 64) - 1


def _grow(x):
    """``x`` and its orthogonal neighbours on the 8x8 square (shifts that do
    not wrap around the edges)."""
    return x | ((x << 8) & _ALL) | (x >> 8) | ((x << 1) & _NOT_COL0) | ((x >> 1) & _NOT_COL7)


def components(own, opp):
    """4-connected groups of stones: list of masks."""
    occ = own | opp
    out = []
    rest = occ
    while rest:
        comp = rest & -rest
        while True:
            grown = _grow(comp) & occ
            if grown == comp:
                break
            comp = grown
        out.append(comp)
        rest &= ~comp
    return out


def strip_dead(own, opp):
    """Drop groups of one colour."""
    keep = 0
    for comp in components(own, opp):
        if comp & own and comp & opp:
            keep |= comp
    return own & keep, opp & keep


def normalize(own, opp):
    """Translated to the top-left corner (no other symmetry)."""
    occ = own | opp
    if not occ:
        return 0, 0
    rmin = ((occ & -occ).bit_length() - 1) >> 3
    cols = occ
    for k in (32, 16, 8):
        cols |= cols >> k
    cols &= 0xFF
    cmin = (cols & -cols).bit_length() - 1
    shift = rmin * 8 + cmin
    return own >> shift, opp >> shift


def component_key(own, opp, comp):
    """Canonical form of the component ``comp``: the least, over the 8
    symmetries of the square, of its sorted (square, mover's stone) pairs
    after translation to the corner."""
    stones = [(s >> 3, s & 7, (own >> s) & 1) for s in _bits(comp)]
    best = None
    for t in range(8):
        img = []
        for r, c, o in stones:
            if t & 1:
                r, c = c, r
            if t & 2:
                r = -r
            if t & 4:
                c = -c
            img.append((r, c, o))
        rm = min(p[0] for p in img)
        cm = min(p[1] for p in img)
        key = tuple(sorted(((r - rm) * 8 + c - cm, o) for r, c, o in img))
        if best is None or key < best:
            best = key
    return best


def canonical(own, opp):
    """Canonical form of a position with dead stones stripped: the sorted
    tuple of its components' canonical forms."""
    return tuple(sorted(component_key(own, opp, comp) for comp in components(own, opp)))


def is_negative(own, opp, g, h):
    """True if component ``h`` is component ``g`` with colours swapped, up to a
    symmetry of the square and a translation."""
    return g.bit_count() == h.bit_count() and component_key(opp, own, g) == component_key(own, opp, h)


class CertificateError(ValueError):
    """The certificate does not prove its claim."""


class Checker:
    """Replays a certificate; ``wins`` memoises brute-force outcomes."""

    def __init__(self, data):
        self.data = data
        self.pos = 0
        self.proven = (set(), set())       # claims False / True, canonical forms
        self.brute_memo = {}
        self.records = 0

    def _byte(self):
        if self.pos >= len(self.data):
            raise CertificateError("certificate ends early")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def _mask(self):
        if self.pos + 8 > len(self.data):
            raise CertificateError("certificate ends early")
        v = int.from_bytes(self.data[self.pos:self.pos + 8], "little")
        self.pos += 8
        return v

    def wins(self, own, opp):
        """Brute force: does the mover win (own, opp)?  Plain memoised negamax."""
        own, opp = strip_dead(own, opp)
        key = normalize(own, opp)
        r = self.brute_memo.get(key)
        if r is None:
            r = any(not self.wins(*play(own, opp, m)) for m in legal_moves(own, opp))
            self.brute_memo[key] = r
        return r

    def prove(self, own, opp, claim):
        """Read records proving ``claim`` (True: the mover wins) about (own, opp)."""
        stack = [(own, opp, claim, None)]
        # explicit stack: (own, opp, claim, post) where post marks the key to record
        while stack:
            own, opp, claim, done = stack.pop()
            if done is not None:
                self.proven[claim].add(done)
                continue
            own, opp = strip_dead(own, opp)
            key = canonical(own, opp)
            tag = self._byte()
            self.records += 1
            if tag == ord("R"):
                if key not in self.proven[claim]:
                    raise CertificateError(f"reference to an unproven position {key} ({claim})")
                continue
            stack.append((0, 0, claim, key))
            if tag == ord("M"):
                m = self._byte()
                if not claim:
                    raise CertificateError("a move record where a loss is claimed")
                if m not in legal_moves(own, opp):
                    raise CertificateError(f"illegal move {m} in {key}")
                stack.append((*play(own, opp, m), False, None))
            elif tag == ord("A"):
                if claim:
                    raise CertificateError("an all-moves record where a win is claimed")
                for m in reversed(legal_moves(own, opp)):
                    stack.append((*play(own, opp, m), True, None))
            elif tag == ord("Z"):
                z = self._mask()
                self._check_union(own, opp, z)
                zo, zp = own & z, opp & z
                if z.bit_count() > 2 * MAX_BRUTE:
                    raise CertificateError("zero set too large to check")
                if self.wins(zo, zp) or self.wins(zp, zo):
                    raise CertificateError(f"stones {z:#x} are not a zero game")
                stack.append((own & ~z, opp & ~z, claim, None))
            elif tag == ord("N"):
                g, h = self._mask(), self._mask()
                comps = components(own, opp)
                if g not in comps or h not in comps or g == h:
                    raise CertificateError("negative pair is not two components")
                if not is_negative(own, opp, g, h):
                    raise CertificateError("components are not colour-swapped copies")
                stack.append((own & ~(g | h), opp & ~(g | h), claim, None))
            elif tag == ord("O"):
                comps = components(own, opp)
                le = ge = True
                gt = False
                for comp in comps:
                    if comp.bit_count() > MAX_BRUTE:
                        raise CertificateError("outcome rule on a component too large to check")
                    lw = self.wins(own & comp, opp & comp)
                    rw = self.wins(opp & comp, own & comp)
                    le = le and not lw
                    ge = ge and not rw
                    gt = gt or lw
                if claim and not (ge and gt):
                    raise CertificateError("outcome rule does not give a win")
                if not claim and not le:
                    raise CertificateError("outcome rule does not give a loss")
            else:
                raise CertificateError(f"unknown record tag {tag!r}")

    @staticmethod
    def _check_union(own, opp, z):
        comps = components(own, opp)
        rest = z
        for comp in comps:
            if comp & z:
                if comp & z != comp:
                    raise CertificateError("zero set cuts a component")
                rest &= ~comp
        if rest:
            raise CertificateError("zero set holds squares without stones")


def _open_certificate(path):
    """(header dict, binary file positioned at the record stream)."""
    f = open(path, "rb")
    try:
        head = f.readline()
        try:
            header = json.loads(head.decode())
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise CertificateError(f"{path}: not a certificate (bad header)") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            fmt = header.get("format") if isinstance(header, dict) else header
            if isinstance(fmt, str) and fmt.startswith(FORMAT[:-1]):
                raise CertificateError(f"{path}: {fmt!r}, this checker reads {FORMAT!r}; "
                                       f"write it again with the current solver")
            raise CertificateError(f"{path}: not a Clobber certificate ({fmt!r})")
    except BaseException:
        f.close()
        raise
    return header, f


def read_certificate(path):
    """(header dict, record bytes) of a certificate file."""
    header, f = _open_certificate(path)
    with f:
        body = f.read()
    try:
        return header, zlib.decompress(body)
    except zlib.error as e:
        raise CertificateError(f"{path}: corrupt record stream: {e}") from None


class _ChunkReader:
    """Decompresses the record stream piece by piece for the compiled checker
    (``chunk`` output bytes at a time); reports compressed bytes read to
    ``progress(done, total)`` (total None if unknown), about once a second."""

    def __init__(self, path, f, progress=None, chunk=1 << 20):
        self.path, self.f, self.progress, self.chunk = path, f, progress, chunk
        self.d = zlib.decompressobj()
        st = os.fstat(f.fileno())
        self.total = st.st_size - f.tell() if stat.S_ISREG(st.st_mode) else None
        self.done = 0
        self.shown = 0.0

    def __call__(self):
        try:
            while True:
                if self.d.unconsumed_tail:
                    out = self.d.decompress(self.d.unconsumed_tail, self.chunk)
                elif self.d.eof:
                    self._report(0)
                    return b""          # bytes after the zlib stream are ignored, as zlib.decompress does
                else:
                    raw = self.f.read(1 << 20)
                    self._report(len(raw))
                    if not raw:
                        raise CertificateError(f"{self.path}: corrupt record stream: "
                                               "incomplete or truncated stream")
                    out = self.d.decompress(raw, self.chunk)
                if out:
                    return out
        except zlib.error as e:
            raise CertificateError(f"{self.path}: corrupt record stream: {e}") from None

    def _report(self, n):
        self.done += n
        now = time.monotonic()
        if self.progress is not None and (now - self.shown >= 1.0 or not n):
            self.shown = now
            self.progress(self.done, self.total)


def _tqdm_progress(path):
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr, and its closer."""
    from tqdm import tqdm
    bar = tqdm(desc=str(path), unit="B", unit_scale=True, unit_divisor=1024, leave=False)

    def progress(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()
    return progress, bar.close


def _check_position(path, header):
    own, opp, claim = int(header["own"]), int(header["opp"]), header["claim"]
    if claim not in ("win", "loss"):
        raise CertificateError(f"unknown claim {claim!r}")
    rows, cols = int(header["rows"]), int(header["cols"])
    full = sum(1 << (8 * r + c) for r in range(rows) for c in range(cols))
    if not (1 <= rows <= 8 and 1 <= cols <= 8) or own < 0 or opp < 0 or own & opp \
            or (own | opp) & ~full:
        raise CertificateError("position does not fit the board")
    return own, opp, claim, rows, cols


def check_certificate(path, pure=False, progress=None, max_memory=None):
    """Check a certificate file; returns a one-line summary, raises
    ``CertificateError`` if it does not prove its claim.

    ``pure=False`` replays it with the compiled checker
    (``ttt_engine._core.solvers.clobber.check``: streamed, fingerprinted memo of
    proven positions), ``pure=True`` with the plain-Python ``Checker`` here
    (whole stream in memory, exact memo).  ``progress``: None, True (a tqdm
    bar on stderr) or a callable ``progress(bytes_read, total_bytes)`` on the
    compressed file, called about once a second (compiled checker only).
    ``max_memory``: bytes the compiled checker's tables may use (None: 85% of
    the physical memory); beyond it the check raises ``MemoryError``."""
    header, f = _open_certificate(path)
    with f:
        own, opp, claim, rows, cols = _check_position(path, header)
        if pure:
            try:
                data = zlib.decompress(f.read())
            except zlib.error as e:
                raise CertificateError(f"{path}: corrupt record stream: {e}") from None
            ch = Checker(data)
            ch.prove(own, opp, claim == "win")
            if ch.pos != len(data):
                raise CertificateError("trailing records after the proof")
            records, brute = ch.records, len(ch.brute_memo)
        else:
            from ttt_engine._core.solvers.clobber.check import check_records
            close = None
            if progress is True:
                progress, close = _tqdm_progress(path)
            try:
                err, records, brute = check_records(own, opp, claim == "win",
                                                    _ChunkReader(path, f, progress or None),
                                                    max_memory=max_memory)
            finally:
                if close is not None:
                    close()
            if err is not None:
                raise CertificateError(err)
    mover = header["to_move"]
    return (f"{rows}x{cols}, {mover} to move: {claim.upper()} for {mover} confirmed "
            f"({records:,} records, {brute:,} positions brute-forced)")


def main(argv=None):
    """``python -m ttt_engine.clobber.check_reference [--pure] [--quiet] CERT...``: exit 0
    if all are valid (compiled checker unless ``--pure``)."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m ttt_engine.clobber.check_reference", allow_abbrev=False,
                                 description="Check Clobber proof certificates.")
    ap.add_argument("certs", nargs="+", metavar="CERT")
    ap.add_argument("--pure", action="store_true", help="use the plain-Python reference checker")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--max-memory", type=float, metavar="GB",
                    help="memory for the compiled checker's tables (default: 85%% of RAM)")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if args.max_memory is not None and not args.max_memory >= 0:
        ap.error("--max-memory must be >= 0")
    bad = 0
    for path in args.certs:
        t0 = time.monotonic()
        try:
            rep = check_certificate(path, pure=args.pure, progress=not args.quiet or None,
                                    max_memory=None if args.max_memory is None
                                    else int(args.max_memory * 2**30))
            print(f"{path}: {rep} in {time.monotonic() - t0:.1f} s")
        except (CertificateError, OSError, KeyError, TypeError, ValueError) as e:
            print(f"{path}: INVALID: {e}")
            bad += 1
        except MemoryError as e:
            print(f"{path}: NOT CHECKED: {e}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":      # pragma: no cover
    sys.exit(main())
