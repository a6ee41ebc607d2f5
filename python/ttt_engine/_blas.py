"""One BLAS thread for small matrix products.

numpy's OpenBLAS splits even a 64x256 product over every core; on a busy or
shared machine the threads then wait for each other and a network evaluation
becomes ten to twenty times slower than on one thread.  :func:`one_thread`
runs a block with OpenBLAS limited to one thread and restores the previous
setting afterwards (a no-op where numpy does not use OpenBLAS, or where its
library cannot be found: then the products simply run as numpy runs them).
"""
from __future__ import annotations

import contextlib
import ctypes
import sys
import threading

__all__ = ["one_thread"]

_SYMBOLS = (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
            ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
            ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
            ("openblas_get_num_threads", "openblas_set_num_threads"))
_CONTROLS = None


def _controls():
    """[(get, set)] of the OpenBLAS libraries loaded in this process."""
    global _CONTROLS
    if _CONTROLS is not None:
        return _CONTROLS
    import numpy  # noqa: F401  (loads numpy's BLAS)
    found = []
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/self/maps") as f:
                paths = sorted({line.split()[-1] for line in f
                                if "openblas" in line.lower() and "/" in line})
        except OSError:
            paths = []
        for path in paths:
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for get_name, set_name in _SYMBOLS:
                if hasattr(lib, get_name) and hasattr(lib, set_name):
                    get, set_ = getattr(lib, get_name), getattr(lib, set_name)
                    get.restype, get.argtypes = ctypes.c_int, []
                    set_.restype, set_.argtypes = None, [ctypes.c_int]
                    found.append((get, set_))
                    break
    _CONTROLS = found
    return found


_LOCK = threading.Lock()
_USERS = 0          # blocks inside one_thread() now, over every thread
_RESTORE = []       # (set, previous count) to apply when the last block leaves


@contextlib.contextmanager
def one_thread():
    """Run the block with numpy's OpenBLAS on one thread.

    The setting is process-wide, so blocks in several threads share it: the
    first to enter sets one thread, the last to leave restores the previous
    count (a block never runs with the count another thread restored)."""
    global _USERS, _RESTORE
    controls = _controls()
    with _LOCK:
        if _USERS == 0:
            _RESTORE = []
            for get, set_ in controls:
                n = get()
                if n != 1:
                    set_(1)
                    _RESTORE.append((set_, n))
        _USERS += 1
    try:
        yield
    finally:
        with _LOCK:
            _USERS -= 1
            if _USERS == 0:
                for set_, n in _RESTORE:
                    set_(n)
                _RESTORE = []
