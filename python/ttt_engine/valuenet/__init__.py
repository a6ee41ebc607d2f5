"""Value networks: a small network whose first layer is an accumulator of sparse
binary features, trained by regression on the values of short searches.

- :class:`ValueNetwork` (:mod:`.network`): the file, ``random``, the numpy
  reference ``value(board)``; :func:`load`; :func:`shipped`, the game's
  shipped network compiled for the searches (the ``valuenet`` engines);
- :func:`features`: a board's active features, as its game declares them
  (``Game.value_features``);
- :mod:`.labels`: positions from games of a search engine, each labelled with
  the value of a short search (resumable chunks on disk, local processes or a
  Dask cluster);
- :mod:`.fit`: the regression (JAX + optax, the ``[nn]`` extra), with symmetry
  augmentation, passes per position and checkpoints.

Console: ``ttt-engine valuenet label|train`` (``python -m ttt_engine.valuenet``).
"""
__all__ = ["KIND", "VERSION", "ValueNetwork", "feature_set", "features", "load", "shipped",
           "shipped_path"]


def __getattr__(name):
    # loaded on first use: a game's registry entry imports its feature module from
    # this package, and a game that never meets a network should not load the file code
    if name in __all__:
        from ttt_engine.valuenet import network
        return getattr(network, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
