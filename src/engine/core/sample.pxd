# cython: language_level=3, cdivision=True
"""Continuous distributions drawn from the seeded generator (rng.pxd), without
the GIL: a uniform on the open interval, the standard normal and Gamma(a, 1)
(Dirichlet noise is a vector of Gammas, normalised).  Kept apart from rng.pxd
so that a change here recompiles only the modules that sample."""
from libc.math cimport sqrt, log, pow
from ttt_engine._core.core.rng cimport rng_t, rng_next, rng_uniform


cdef inline double sample_uniform_open(rng_t* r) noexcept nogil:
    """Uniform in (0, 1): safe under log."""
    return (<double>(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0)


cdef inline double sample_normal(rng_t* r) noexcept nogil:
    """Standard normal (Marsaglia's polar method)."""
    cdef double u, v, s
    while True:
        u = 2.0 * rng_uniform(r) - 1.0
        v = 2.0 * rng_uniform(r) - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * sqrt(-2.0 * log(s) / s)


cdef inline double sample_gamma(rng_t* r, double a) noexcept nogil:
    """Gamma(a, 1), a > 0 (Marsaglia and Tsang; a < 1 through
    Gamma(a + 1) * U**(1/a), U drawn after the Gamma(a + 1))."""
    cdef double d, c, x, v, u, scale = 1.0
    if a < 1.0:
        d = a + 1.0 - 1.0 / 3.0
    else:
        d = a - 1.0 / 3.0
    c = 1.0 / sqrt(9.0 * d)
    while True:
        x = sample_normal(r)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = sample_uniform_open(r)
        if u < 1.0 - 0.0331 * x * x * x * x:
            break
        if log(u) < 0.5 * x * x + d * (1.0 - v + log(v)):
            break
    if a < 1.0:
        scale = pow(sample_uniform_open(r), 1.0 / a)
    return d * v * scale
