"""Clobber certificates (pytest-benchmark): the compiled writer, and the
compiled checker against the plain-Python reference on the same certificate.

    PYTHONPATH=python python -m pytest bench/bench_clobber_check.py --benchmark-only

``extra_info`` has the records and records per CPU second of the last round.
The 4x5 certificate (about 22k records) is written once per session by the
solver; larger ones (``ttt-engine clobber solve RxC --certificate FILE``)
are timed with ``python -m ttt_engine.clobber.check_reference [--pure] FILE``.
"""
import time

import pytest

from ttt_engine import clobber as C
from ttt_engine.clobber.cert import write_certificate
from ttt_engine.clobber.check_reference import check_certificate
from ttt_engine.clobber.settle import Solver


@pytest.fixture(scope="module")
def cert_4x5(tmp_path_factory):
    path = tmp_path_factory.mktemp("cert") / "4x5.cert"
    write_certificate(path, C.Board(4, 5), Solver(18))
    return path


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_check_4x5(benchmark, cert_4x5, pure):
    info = {}

    def once():
        t0 = time.thread_time()
        rep = check_certificate(cert_4x5, pure=pure)
        info["cpu"] = time.thread_time() - t0
        return rep

    rep = benchmark.pedantic(once, rounds=3 if pure else 20, iterations=1)
    records = int(rep.split("(")[1].split(" records")[0].replace(",", ""))
    benchmark.extra_info.update(records=records, records_per_cpu_s=records / max(info["cpu"], 1e-9))
    assert "WIN" in rep


def test_write_4x5(benchmark):
    """The compiled writer on a solved 4x5 (the solver's table kept between rounds)."""
    solver = Solver(18)
    board = C.Board(4, 5)
    own, opp = board.bitboards
    assert solver.outcome_of(own, opp) is True
    info = {}

    def once():
        t0 = time.thread_time()
        out = solver.write_proof(own, opp, True, lambda data: True)
        info["cpu"] = time.thread_time() - t0
        return out

    records, refs, size = benchmark.pedantic(once, rounds=20, iterations=1)
    benchmark.extra_info.update(records=records, records_per_cpu_s=records / max(info["cpu"], 1e-9))
    assert records > 1000 and refs > 0 and size >= records
