# cython: language_level=3
"""Exact measures of a greedy Tic-Tac-Toe Q table, callable without the GIL
(the training loop records learning curves with them; see ttt_oracle.pyx)."""

cdef enum:
    ORACLE_REPORT_SIZE = 9

cdef void oracle_report(const double* Q, double* out) noexcept nogil
