"""Quixo value files (binary by default, JSON as an export) and the greedy agent's file.

Binary value file (``.npz``, a model file of kind ``ttt_engine.quixo.ValueTable``,
see :mod:`ttt_engine._modelfile`): ``size`` (3, 4 or 5), ``symmetric`` (bool),
``states`` (int), ``cells`` (uint8 ``[states, B]``: each key as a base-3 number
over the cells, cell ``r * n + c`` the digit of weight ``3**(r*n+c)``, digit 0
blank, 1 a cube of the player who moved into the state, 2 the opponent's;
little-endian in ``B`` bytes, 5 for 5x5, stored uncompressed), ``sums``
(float64 sum of scores) and ``counts`` (uint32), both deflated; insertion
order.  About 5.5 bytes a state on 5x5 (JSON: about 47).

The greedy agent's file (kind ``ttt_engine.quixo.GreedyValueAgent``) holds
the same table fields plus ``epsilon``, ``unknown``, ``exact_terminal`` and
``seed``.
"""
from __future__ import annotations

import os
import zipfile

import numpy as np

from ttt_engine import _modelfile, _util
from ttt_engine._core.learning.quixo.values import ValueTable

__all__ = ["save_values", "load_values", "estimate_bytes", "save_greedy", "load_greedy",
           "VALUES_KIND", "GREEDY_KIND"]

VALUES_KIND = "ttt_engine.quixo.ValueTable"
GREEDY_KIND = "ttt_engine.quixo.GreedyValueAgent"
_FORMATS = ("binary", "json")
#: bytes per state of each format on 5x5 (measured on 100,000 random games)
BYTES_PER_STATE = {"binary": 5.5, "json": 47.1}


def _decode_keys(cells, size, path):
    if cells.dtype != np.uint8:
        raise ValueError(f"{path}: cells must be a uint8 array, got dtype {cells.dtype}")
    try:
        keys, bad = ValueTable.keys_from_base3(cells, size)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    if bad >= 0:
        raise ValueError(f"{path}: state {bad} is not a {size}x{size} board code")
    return keys


def _table_arrays(table):
    _keys, sums, counts = table.to_arrays()
    return {"size": np.int64(table.size), "symmetric": np.bool_(table.symmetric),
            "states": np.int64(len(sums)), "cells": table.to_base3(),
            "sums": sums, "counts": counts}


def _write_npz(path, kind, arrays):
    """Like :func:`_modelfile.write`, with the key cells stored (they do not
    compress) and the rest deflated."""
    fields = {"format_version": np.int64(_modelfile.KINDS[kind].version),
              "kind": np.str_(kind)}
    fields.update(arrays)

    def write(f):
        with zipfile.ZipFile(f, "w", allowZip64=True) as z:
            for name, value in fields.items():
                how = zipfile.ZIP_STORED if name == "cells" else zipfile.ZIP_DEFLATED
                info = zipfile.ZipInfo(name + ".npy")
                info.compress_type = how
                with z.open(info, "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)
    _util.atomic_write(path, write, "state-value file")
    return os.path.getsize(path)


def _table_from(path, raw, symmetric=None):
    def f(key, kinds):
        return _modelfile.scalar(path, raw, key, kinds)
    size = f("size", "iu")
    if size not in (3, 4, 5):
        raise ValueError(f"{path}: size must be 3, 4 or 5, got {size}")
    states = f("states", "iu")
    sym = bool(f("symmetric", "b")) if symmetric is None else bool(symmetric)
    missing = [k for k in ("cells", "sums", "counts") if k not in raw]
    if missing:
        raise ValueError(f"{path}: missing field(s): {', '.join(missing)}")
    sums, counts = raw["sums"], raw["counts"]
    if sums.dtype != np.float64 or counts.dtype != np.uint32 or sums.shape != (states,) \
            or counts.shape != (states,) or len(raw["cells"]) != states:
        raise ValueError(f"{path}: sums (float64), counts (uint32) and cells must have "
                         f"{states} entries, got {sums.dtype} {sums.shape}, {counts.dtype} "
                         f"{counts.shape}, {len(raw['cells'])} cells")
    keys = _decode_keys(raw["cells"], size, path)
    try:
        return ValueTable.from_arrays(keys, sums, counts, size, sym)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def estimate_bytes(states, format="binary"):
    """Approximate size in bytes of a value file of ``states`` 5x5 states."""
    return int(states * BYTES_PER_STATE[_util.check_choice("format", format, _FORMATS)])


def save_values(table, path, format=None):
    """Write ``table`` to ``path`` atomically; returns the bytes written.
    ``format``: ``"binary"`` (the compact ``.npz`` of this module) or ``"json"``
    (``{"<board>": [average, count]}``); None: JSON if ``path``
    ends in ``.json``, else binary."""
    if not isinstance(table, ValueTable):
        raise ValueError(f"expected a ValueTable, got {type(table).__name__}")
    _util.check_output_path(path, "state-value file")
    if format is None:
        format = "json" if os.fspath(path).lower().endswith(".json") else "binary"
    _util.check_choice("format", format, _FORMATS)
    if format == "json":
        data = table.to_json_bytes()
        _util.atomic_write(path, lambda f: f.write(data), "state-value file")
        return len(data)
    return _write_npz(path, VALUES_KIND, _table_arrays(table))


def load_values(path, symmetric=False):
    """Read a value file, binary or JSON (told apart by content, not by name)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"no such file: {path}")
    with open(path, "rb") as f:
        head = f.read(4)
    if head == b"PK\x03\x04":
        raw = _modelfile.read(path, VALUES_KIND)
        table = _table_from(path, raw, symmetric=True if symmetric else None)
        return table
    with open(path, "rb") as f:
        data = f.read()
    try:
        return ValueTable.from_json_bytes(data, symmetric=bool(symmetric))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def save_greedy(agent, path):
    """:meth:`ttt_engine.quixo.GreedyValueAgent.save`."""
    arrays = _table_arrays(agent.values)
    arrays.update(epsilon=np.float64(agent.epsilon), unknown=np.float64(agent.unknown),
                  exact_terminal=np.bool_(agent.exact_terminal), seed=np.uint64(agent.seed))
    return _write_npz(path, GREEDY_KIND, arrays)


def load_greedy(cls, path):
    """:meth:`ttt_engine.quixo.GreedyValueAgent.load`: a ``cls`` (the agent class)."""
    path = os.fspath(path)
    raw = _modelfile.read(path, GREEDY_KIND)
    table = _table_from(path, raw)
    def f(key, kinds):
        return _modelfile.scalar(path, raw, key, kinds)
    try:
        return cls(table, epsilon=f("epsilon", "f"), unknown=f("unknown", "f"),
                   exact_terminal=bool(f("exact_terminal", "b")), seed=int(f("seed", "u")))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
