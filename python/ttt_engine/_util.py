"""Shared input validation, seeding and file helpers for the Python layer.

Everything that crosses from Python into Cython is checked here first, so a
typo gives a one-line ``ValueError`` instead of a crash or a silent wrong answer.
"""
from __future__ import annotations

import math
import numbers
import os
import secrets
import tempfile

__all__ = [
    "resolve_seed", "check_int", "check_real", "check_choice", "atomic_write",
]

_SEED_MAX = 2**64 - 1
#: Largest count a compiled loop takes (int64): the default ``max`` of counts.
INT64_MAX = 2**63 - 1


def resolve_seed(seed):
    """Return a 64-bit seed: ``seed`` itself if given (int >= 0), else a fresh
    random one.  The resolved seed is what models record, so any run can be
    repeated exactly."""
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    seed = int(seed)
    if not 0 <= seed <= _SEED_MAX:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed


def check_int(name, value, *, min=None, max=None, allow_none=False):
    """``value`` as an int within [min, max]; ``ValueError`` naming ``name`` otherwise."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        # accept integral floats such as 1e6 written by users
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if min is not None and value < min:
        raise ValueError(f"{name} must be >= {min}, got {value}")
    if max is not None and value > max:
        raise ValueError(f"{name} must be <= {max}, got {value}")
    return value


def check_real(name, value, *, low=None, high=None, low_open=False, high_open=False,
               allow_none=False):
    """``value`` as a finite float in the given interval; ``ValueError`` otherwise.

    ``check_real("alpha", a, low=0, high=1, low_open=True)`` checks a in (0, 1].
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    lo_bad = low is not None and (value <= low if low_open else value < low)
    hi_bad = high is not None and (value >= high if high_open else value > high)
    if lo_bad or hi_bad:
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be in {lb}{lo}, {hi}{hb}, got {value}")
    return value


def check_choice(name, value, choices):
    """``value`` if it is one of ``choices``; ``ValueError`` listing them otherwise."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def atomic_write(path, write):
    """Write a file atomically: ``write(fileobj)`` fills a temporary file in the
    same directory, which then replaces ``path`` in one rename.  A crash never
    leaves a half-written file where a good one was."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        # mkstemp creates the file 0600; give it the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
