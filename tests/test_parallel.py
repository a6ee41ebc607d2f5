"""The shared parallel helpers: process pools that never fork a threaded process,
and numpy's BLAS pinned to one thread around the network's products."""
import os
import sys
import threading

import numpy as np
import pytest

from ttt_engine import _parallel
from ttt_engine._parallel import one_blas_thread, process_context, process_pool


def loaded(module):
    """Run in a pool worker: whether ``module`` is imported there."""
    return module in sys.modules


def square_plus_seed(x, seed):
    return x * x + np.random.default_rng(seed).integers(1000)


def test_pool_workers_start_clean_not_forked():
    method = process_context().get_start_method()
    assert method == ("forkserver" if sys.platform.startswith("linux") else "spawn")
    # a fork would inherit this process's modules; a clean worker imports only what it needs
    import colorsys  # noqa: F401  (a module nothing in a worker imports)
    with process_pool(2) as pool:
        assert pool.submit(loaded, "colorsys").result() is False
        assert pool.submit(loaded, "ttt_engine._parallel").result() is True


def test_pool_results_match_serial():
    args = [(x, s) for x, s in zip(range(6), range(10, 16))]
    with process_pool(2) as pool:
        got = list(pool.map(square_plus_seed, *zip(*args)))
    assert got == [square_plus_seed(x, s) for x, s in args]


def test_default_executor_is_the_shared_pool():
    from ttt_engine.tournament import SerialExecutor, default_executor
    assert isinstance(default_executor(1), SerialExecutor)
    ex = default_executor(2)
    try:
        assert ex._mp_context.get_start_method() == process_context().get_start_method()
    finally:
        ex.shutdown()


def _blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    counts = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
              if lib["user_api"] == "blas"]
    if not counts:
        pytest.skip("numpy's BLAS has no thread control threadpoolctl knows")
    return counts


@pytest.fixture
def two_blas_threads():
    """numpy's BLAS on two threads for the test (one thread would hide a missed
    restore), set as one_blas_thread sets it: from any thread, then let go."""
    _blas_threads()
    libraries = _parallel._blas()
    before = [lib.num_threads for lib in libraries]

    def set_all(counts):
        for lib, n in zip(libraries, counts):
            lib.set_num_threads(n)
        _parallel._release_openblas()

    set_all([2] * len(libraries))
    assert set(_blas_threads()) == {2}
    yield
    set_all(before)


def test_one_blas_thread_sets_and_restores(two_blas_threads):
    with one_blas_thread():
        assert set(_blas_threads()) == {1}
        with one_blas_thread():
            assert set(_blas_threads()) == {1}
        assert set(_blas_threads()) == {1}
    assert set(_blas_threads()) == {2}
    with pytest.raises(KeyError):
        with one_blas_thread():
            raise KeyError("x")
    assert set(_blas_threads()) == {2} and _parallel._blas_users == 0


def test_blocks_in_two_threads_share_one_setting(two_blas_threads):
    """The first block enters in one thread, the last to leave is in another:
    no block runs with a count restored by the other, and the count comes back."""
    a_in, b_in, a_out, b_out = (threading.Event() for _ in range(4))
    seen = {}

    def first():
        with one_blas_thread():
            a_in.set()
            b_in.wait(10)
        a_out.set()
        b_out.wait(10)          # alive until the other thread has restored the count

    def second():
        a_in.wait(10)
        with one_blas_thread():
            b_in.set()
            a_out.wait(10)
            seen["inside"] = _blas_threads()
        seen["after"] = _blas_threads()
        b_out.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen == {"inside": [1] * len(seen["inside"]), "after": [2] * len(seen["after"])}
    # and the thread that entered first can set it again
    with one_blas_thread():
        assert set(_blas_threads()) == {1}
    assert set(_blas_threads()) == {2}


def test_a_script_without_the_main_guard_is_told_why_its_pool_broke(tmp_path):
    """Pool workers import the main script; one that starts a tournament at its top
    level makes every worker start one too, and they die: the error says why."""
    import subprocess
    script = tmp_path / "no_guard.py"
    script.write_text("from ttt_engine.tournament import round_robin\n"
                      "round_robin('ttt', ['random', 'perfect'], 2, seed=1, workers=2, "
                      "progress=False)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path, env=env)
    assert out.returncode == 1
    # the standard library's resource tracker may add a warning about the dead workers'
    # semaphores after the error, so the error is looked for, not taken as the last line
    said = [line for line in out.stderr.splitlines() if "ended abruptly" in line]
    assert said, out.stderr[-2000:]
    assert all("a worker process ended abruptly" in line
               and '`if __name__ == "__main__":`' in line for line in said)


def test_work_the_workers_cannot_import_is_refused_at_once(monkeypatch):
    """A function of a module made in memory (as a notebook's or the docs runner's) cannot
    reach a clean worker: the sweep says so before starting, and runs with workers=1."""
    import types

    from ttt_engine._parallel import check_importable
    from ttt_engine.tournament import sweep
    module = types.ModuleType("in_memory")
    monkeypatch.setitem(sys.modules, "in_memory", module)
    exec("def run(x, seed):\n    return {'y': x + seed % 3}\n", module.__dict__)
    with pytest.raises(ValueError, match=r"in_memory\.run cannot go to worker processes: .*"
                       r"its module 'in_memory' is not a file; .*workers=1"):
        sweep(module.run, {"x": [1, 2]}, 1, seed=1, workers=2, progress=False)
    assert len(sweep(module.run, {"x": [1, 2]}, 1, seed=1, workers=1, progress=False).rows) == 2
    check_importable((square_plus_seed, [loaded, np.int64(3)]))     # importable: no error
    with pytest.raises(ValueError, match="in_memory.run"):
        check_importable({"deep": [(1, module.run)]})
