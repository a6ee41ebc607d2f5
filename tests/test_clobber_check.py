"""The compiled certificate checker against the plain-Python reference: same
verdicts on real certificates, on every single-byte corruption of a small
one, and on hand-built records that break each rule."""
import json
import zlib

import pytest

from ttt_engine import clobber as C
from ttt_engine.clobber.cert import certificate_bytes, write_certificate
from ttt_engine.clobber.check_reference import CertificateError, check_certificate, main
from ttt_engine.clobber.settle import Solver
from ttt_engine._core.solvers.clobber import check as K

SIZES = [(r, c) for r in (1, 2, 3) for c in (1, 2, 3, 4) if r * c > 1] + [(4, 4)]
KNOWN = {(1, 2): "WIN", (2, 3): "LOSS", (3, 3): "WIN", (3, 4): "LOSS", (4, 4): "WIN"}


def _verdict(path, pure):
    try:
        return "ok", check_certificate(path, pure=pure)
    except CertificateError as e:
        return "bad", str(e)


def _write(path, header, data):
    path.write_bytes(json.dumps(header).encode() + b"\n" + zlib.compress(data))
    return path


def _mask(x):
    return x.to_bytes(8, "little")


@pytest.mark.parametrize("size", SIZES)
def test_both_checkers_accept_solver_certificates(tmp_path, size):
    path = tmp_path / "c.cert"
    write_certificate(path, C.Board(*size), Solver(16))
    fast, pure = check_certificate(path), check_certificate(path, pure=True)
    assert fast == pure                      # same records and brute-forced counts
    claim = json.loads(path.read_bytes().split(b"\n", 1)[0])["claim"].upper()
    assert f"{claim} for B confirmed" in fast
    if size in KNOWN:
        assert KNOWN[size] in fast


def test_every_single_byte_corruption_same_verdict(tmp_path):
    header, data, _ = certificate_bytes(C.Board(2, 3), Solver(16))
    assert b"Z" in data or b"O" in data      # brute-forced records are exercised
    path = tmp_path / "x.cert"
    seen = {"ok": 0, "bad": 0}
    variants = []
    for i in range(len(data)):
        for v in {data[i] ^ 1, data[i] ^ 0x80, ord("R"), ord("O"), ord("A"), ord("M"), 0}:
            if v != data[i]:
                variants.append(data[:i] + bytes([v]) + data[i + 1:])
    variants += [data[:n] for n in range(len(data))] + [data + b"A", data + b"\0"]
    for d in variants:
        _write(path, header, d)
        a, b = _verdict(path, False), _verdict(path, True)
        assert a[0] == b[0], (d, a, b)
        if a[0] == "ok":
            assert a[1] == b[1]
        seen[a[0]] += 1
    assert seen["bad"] > len(data) and seen["ok"] >= 1   # the unchanged M-after-M cases and equivalents


def _replay_both(header, d):
    """(compiled, reference) verdicts on the record bytes ``d``: None or a message."""
    from ttt_engine.clobber.check_reference import Checker
    claim = header["claim"] == "win"
    it = iter([d])
    err, records, _ = K.check_records(header["own"], header["opp"], claim, lambda: next(it, b""))
    ch = Checker(d)
    try:
        ch.prove(header["own"], header["opp"], claim)
        ref = None if ch.pos == len(d) else "trailing"
    except CertificateError as e:
        ref = str(e)
    if err is None and ref is None:
        assert records == ch.records
    return err, ref


def test_corruptions_of_a_larger_proof_same_verdict():
    """3x4 (a loss with Z, N and O records): each byte replaced by one value
    (cycling through bit flips and other tags), both checkers agree."""
    header, data, _ = certificate_bytes(C.Board(3, 4), Solver(16))
    assert all(t in data for t in b"MARZNO")
    kinds = set()
    values = (lambda x: x ^ 1, lambda x: ord("R"), lambda x: x ^ 0x80, lambda x: ord("O"),
              lambda x: ord("A"), lambda x: 0, lambda x: x ^ 4)
    for i in range(0, len(data), 2):
        v = values[i // 2 % len(values)](data[i])
        err, ref = _replay_both(header, data[:i] + bytes([v]) + data[i + 1:])
        assert (err is None) == (ref is None), (i, v, err, ref)
        kinds.add(err and err.split(" (record")[0].split(" 0x")[0].rstrip("0123456789 "))
    assert {None, "reference to an unproven position", "negative pair is not two components",
            "zero set cuts a component", "outcome rule does not give a win", "illegal move",
            "unknown record tag"} <= kinds


def test_compressed_stream_corruptions_same_verdict(tmp_path):
    header, data, _ = certificate_bytes(C.Board(3, 4), Solver(16))
    blob = json.dumps(header).encode() + b"\n"
    z = zlib.compress(data)
    path = tmp_path / "x.cert"
    rejected = 0
    for i in list(range(0, len(z), 7)) + [len(z) - 1]:
        for v in (z[i] ^ 0x10, z[i] ^ 0xFF):
            path.write_bytes(blob + z[:i] + bytes([v]) + z[i + 1:])
            a, b = _verdict(path, False), _verdict(path, True)
            assert a[0] == b[0]
            rejected += a[0] == "bad"
    for n in (0, 1, len(z) // 2, len(z) - 1):
        path.write_bytes(blob + z[:n])
        assert _verdict(path, False)[0] == _verdict(path, True)[0] == "bad"
    path.write_bytes(blob + z + b"junk")       # bytes after the zlib stream are ignored by both
    assert _verdict(path, False)[0] == _verdict(path, True)[0] == "ok"
    assert rejected > 0


# Hand-built positions (bit r * 8 + c, mover's stones ``own``):
# two "BW" rows: * + * = 0, the mover loses.
STARS = dict(own=(1 << 0) | (1 << 16), opp=(1 << 1) | (1 << 17), rows=3, cols=2)
ROW0, ROW2 = 0b11, 0b11 << 16


def _cert(tmp_path, records, own, opp, claim, rows, cols):
    header = {"format": "ttt-engine clobber certificate 2", "rows": rows, "cols": cols,
              "to_move": "B", "own": own, "opp": opp, "claim": claim}
    return _write(tmp_path / "h.cert", header, records)


def _both(path):
    a, b = _verdict(path, False), _verdict(path, True)
    assert a[0] == b[0], (a, b)
    return a


def _checkers(rows, cols):
    """A full checkerboard (one component) of rows x cols."""
    sq = [r * 8 + c for r in range(rows) for c in range(cols)]
    return dict(own=sum(1 << q for q in sq if (q // 8 + q % 8) % 2 == 0),
                opp=sum(1 << q for q in sq if (q // 8 + q % 8) % 2 == 1), rows=rows, cols=cols)


RULE_CASES = [
    (b"O", _checkers(3, 6), "win", "component too large"),                     # 18 stones
    (b"Z" + _mask(_checkers(6, 6)["own"] | _checkers(6, 6)["opp"]) + b"A",
     _checkers(6, 6), "loss", "zero set too large"),                           # 36 stones

    # (records, position, claim, expected fragment of the compiled message or None when valid)
    (b"M\x02A", dict(own=1, opp=2, rows=1, cols=2), "win", None),
    (b"M\x03A", dict(own=1, opp=2, rows=1, cols=2), "win", "illegal move"),
    (b"M\x02A", dict(own=1, opp=2, rows=1, cols=2), "loss", "loss is claimed"),
    (b"A", dict(own=1, opp=2, rows=1, cols=2), "win", "win is claimed"),
    (b"M\x02", dict(own=1, opp=2, rows=1, cols=2), "win", "ends early"),
    (b"M\x02AA", dict(own=1, opp=2, rows=1, cols=2), "win", "trailing"),
    (b"X", dict(own=1, opp=2, rows=1, cols=2), "win", "unknown record tag"),
    (b"R", dict(own=1, opp=2, rows=1, cols=2), "win", "unproven"),
    # "BBW": Left wins moving first, Right loses moving first: >= 0 and |> 0
    (b"O", dict(own=0b011, opp=0b100, rows=1, cols=3), "win", None),
    (b"O", dict(own=0b011, opp=0b100, rows=1, cols=3), "loss", "does not give a loss"),
    (b"O", dict(own=1, opp=2, rows=1, cols=2), "win", "does not give a win"),     # * is fuzzy
    # * + * = 0: zero set, negative pair, and a reference to a proven position
    (b"Z" + _mask(ROW0 | ROW2) + b"A", STARS, "loss", None),
    (b"Z" + _mask(ROW0) + b"A", STARS, "loss", "not a zero game"),
    (b"Z" + _mask(1) + b"A", STARS, "loss", "cuts a component"),
    (b"Z" + _mask(ROW0 | ROW2 | 1 << 8) + b"A", STARS, "loss", "without stones"),
    (b"Z" + _mask(ROW0 | ROW2), STARS, "loss", "ends early"),
    (b"N" + _mask(ROW0) + _mask(ROW2) + b"A", STARS, "loss", None),
    (b"N" + _mask(ROW0) + _mask(ROW0) + b"A", STARS, "loss", "not two components"),
    (b"N" + _mask(ROW0) + _mask(0b1) + b"A", STARS, "loss", "not two components"),
    (b"AM\x47AR", STARS, "loss", None),
    (b"AM\x47AM\x07A", STARS, "loss", None),
    (b"ARR", STARS, "loss", "unproven"),
    (b"AM\x47RR", STARS, "loss", "unproven"),     # the empty position is not proven yet
    # "BBW" + "BBW" (rows 0 and 2): not colour-swapped copies
    (b"N" + _mask(0b111) + _mask(0b111 << 16) + b"O",
     dict(own=0b011 | 0b011 << 16, opp=0b100 | 0b100 << 16, rows=3, cols=3), "win",
     "not colour-swapped"),
]


@pytest.mark.parametrize("records,pos,claim,expect", RULE_CASES)
def test_each_rule_same_verdict(tmp_path, records, pos, claim, expect):
    verdict, msg = _both(_cert(tmp_path, records, claim=claim, **pos))
    if expect is None:
        assert verdict == "ok", msg
        assert claim.upper() in msg
    else:
        assert verdict == "bad" and expect in msg


def test_header_position_must_fit(tmp_path):
    for pos in (dict(own=1, opp=1 << 2, rows=1, cols=2), dict(own=1, opp=1, rows=1, cols=2),
                dict(own=-1, opp=2, rows=1, cols=2), dict(own=1, opp=2, rows=9, cols=2)):
        assert _both(_cert(tmp_path, b"M\x02A", claim="win", **pos))[0] == "bad"


def test_chunk_boundaries_anywhere(tmp_path):
    """A stream handed over one byte at a time (masks split across chunks)."""
    header, data, _ = certificate_bytes(C.Board(3, 4), Solver(16))
    chunks = iter([data[i:i + 1] for i in range(len(data))])
    err, records, brute = K.check_records(header["own"], header["opp"], header["claim"] == "win",
                                          lambda: next(chunks, b""))
    assert err is None
    path = _write(tmp_path / "c.cert", header, data)
    assert f"({records:,} records, {brute:,} positions" in check_certificate(path, pure=True)


def test_tables_grow_and_memory_limit_is_a_clear_error():
    header, data, _ = certificate_bytes(C.Board(3, 4), Solver(16))
    args = (header["own"], header["opp"], header["claim"] == "win")
    ref = K.check_records(*args, iter([data, b""]).__next__)
    assert ref[0] is None
    # tiny tables that must be rehashed many times give the same result
    assert K.check_records(*args, iter([data, b""]).__next__, _table_bits=(2, 2)) == ref
    with pytest.raises(MemoryError, match="out of memory after"):       # brute-force memo full
        K.check_records(*args, iter([data, b""]).__next__, max_memory=0, _table_bits=(4, 4))
    # proven set full: 256 shards of 4 slots (the first shard to fill stops it)
    header, data, _ = certificate_bytes(C.Board(4, 5), Solver(18))
    args = (header["own"], header["opp"], header["claim"] == "win")
    with pytest.raises(MemoryError, match=r"\(\d+ proven positions") as e:
        K.check_records(*args, iter([data, b""]).__next__, max_memory=0, _table_bits=(2, 14))
    assert int(str(e.value).split("(")[1].split(" proven")[0]) < 256 * 4
    assert K.check_records(*args, iter([data, b""]).__next__, _table_bits=(2, 2))[0] is None


def test_reader_exception_propagates():
    def reader():
        raise OSError("disk gone")
    with pytest.raises(OSError, match="disk gone"):
        K.check_records(1, 2, True, reader)


def test_progress_callback_and_cli(tmp_path, capsys):
    path = tmp_path / "c.cert"
    write_certificate(path, C.Board(3, 4), Solver(16))
    calls = []
    assert "LOSS" in check_certificate(path, progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1] == path.stat().st_size - len(
        path.read_bytes().split(b"\n", 1)[0]) - 1
    assert main([str(path), "--quiet"]) == 0
    assert main(["--pure", "--quiet", str(path)]) == 0
    bad = tmp_path / "bad.cert"
    header, data = json.loads(path.read_bytes().split(b"\n", 1)[0]), b"R"
    _write(bad, header, data)
    assert main(["--quiet", str(bad), str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "confirmed" in out
    assert main(["--quiet", "--max-memory", "0", str(path)]) == 0      # 3x4 fits the first tables
    with pytest.raises(SystemExit):
        main(["--max-memory", "-1", str(path)])


def test_brute_force_and_canonical_form_agree_with_reference():
    from ttt_engine.clobber import check_reference as P
    import random
    rng = random.Random(7)
    ref = P.Checker(b"")
    classes = {}
    for _ in range(400):
        own = opp = 0
        for sq in (r * 8 + c for r in range(4) for c in range(4)):
            x = rng.random()
            own |= (x < 0.4) << sq
            opp |= (0.4 <= x < 0.8) << sq
        assert K.brute_wins(own, opp) == ref.wins(own, opp)
        classes.setdefault(P.canonical(*P.strip_dead(own, opp)), set()).add(K.canonical_key(own, opp))
    assert all(len(v) == 1 for v in classes.values())
    assert len({next(iter(v)) for v in classes.values()}) == len(classes)


def test_ctrl_c_stops_the_compiled_replay():
    """A zero set G + (-G) of 32 stones (G a 2x8 checkerboard) takes far too
    long to brute-force: SIGINT stops the nogil loop within a fraction of a second."""
    import os
    import signal
    import threading
    import time
    g = sum(1 << (r * 8 + c) for r in range(2) for c in range(8) if (r + c) % 2 == 0)
    h = sum(1 << (r * 8 + c) for r in range(2) for c in range(8) if (r + c) % 2 == 1)
    own, opp = g | (h << 24), h | (g << 24)        # rows 3-4: the colour-swapped copy
    chunks = iter([b"Z" + (own | opp).to_bytes(8, "little")])
    calls = []

    def reader():
        calls.append(1)
        return next(chunks, b"")
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            K.check_records(own, opp, False, reader)
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert len(calls) == 1 and stopped - t0 < 1.5


def test_older_format_and_foreign_files_are_named(tmp_path):
    p = tmp_path / "old.cert"
    header = {"format": "ttt-engine clobber certificate 1", "rows": 1, "cols": 2, "to_move": "B",
              "own": 1, "opp": 2, "claim": "win"}
    p.write_bytes(json.dumps(header).encode() + b"\n" + zlib.compress(b"M\x02A"))
    with pytest.raises(CertificateError, match="write it again"):
        check_certificate(p)
    p.write_bytes(b'{"format": "something else"}\n')
    with pytest.raises(CertificateError, match="not a Clobber certificate"):
        check_certificate(p)
