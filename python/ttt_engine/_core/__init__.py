"""Compiled implementation modules (Cython); the public API is re-exported by
the modules of ``ttt_engine`` itself."""
