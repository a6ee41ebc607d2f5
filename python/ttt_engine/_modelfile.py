"""Model files: one container for every learned agent, and ``ttt_engine.load``.

A model file is an ``.npz`` archive (a zip of ``.npy`` arrays, never a pickle)
written atomically (:func:`ttt_engine._util.atomic_write`).  Its header is two
fields: ``kind`` (which agent: see :data:`KINDS`) and ``format_version`` (the
version of that kind's fields).  Readers check the header first, so a file of
another kind is refused with a message naming both ("m.npz is a Quixo
GreedyValueAgent file, not a Tic-Tac-Toe QAgent file").  Field lists: see
docs/agents.md.
"""
from __future__ import annotations

import importlib
import inspect
import math
import os
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np

from ttt_engine import _registry, _util

__all__ = ["KINDS", "ModelKind", "GENERIC_KINDS", "load", "kind_of", "write", "read", "save_settings", "load_settings",
           "CACHE_ENV", "cache_dir", "model_path", "values_path"]

#: the environment variable naming the folder of the learned engines' files
CACHE_ENV = "TTT_ENGINE_CACHE_DIR"


def cache_dir():
    """Where the console and the web view keep the learned engines' files:
    ``$TTT_ENGINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttt_engine``, else
    ``~/.cache/ttt_engine``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return os.path.abspath(os.path.expanduser(override))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ttt_engine")


#: how to mend a damaged install (a shipped file missing or unreadable)
REINSTALL = "reinstall the package (pip install --force-reinstall ttt_engine)"


def read_once(cache, lock, key, path, load):
    """``load(path)`` read once per process for ``(key, path)``, and again only
    when the file changes on disk (its mtime and size): ``cache`` maps ``(key,
    path) -> (stamp, object)`` under ``lock``; every caller shares the one
    object.  ``OSError`` / ``ValueError`` of the read pass through."""
    st = os.stat(path)
    stamp = (st.st_mtime_ns, st.st_size)
    with lock:
        hit = cache.get((key, path))
        if hit is None or hit[0] != stamp:
            hit = (stamp, load(path))
            cache[key, path] = hit
        return hit[1]


def model_path(game_key, engine="q"):
    """The cache file of a learned engine's model (``ttt-q.npz``: the model
    ``play --opponent q`` loads and ``train`` writes by default)."""
    return os.path.join(cache_dir(), f"{game_key}-{engine}.npz")


def values_path(game_key, tag=None):
    """The cache file of a game's state values (``quixo-states-5x5.npz``):
    ``tag`` says which of the game's tables (its ``value_tables.tag`` of the
    board, e.g. ``"5x5"``; an int ``n`` stands for ``"nxn"``), None the only one."""
    if isinstance(tag, int) and not isinstance(tag, bool):
        tag = f"{tag}x{tag}"
    suffix = f"-{tag}" if tag else ""
    return os.path.join(cache_dir(), f"{game_key}-states{suffix}.npz")

@dataclass(frozen=True)
class ModelKind:
    """One kind of model file: ``what`` it is (in messages), its ``reader``
    (``"module:attribute"`` of ``f(path) -> object``), the ``version`` of its
    fields; ``legacy_field``: a file without the ``kind`` field (written before it
    existed) that has this field is of this kind; ``json_reader``: the function
    that reads the kind's JSON export (named when a JSON file is given instead)."""
    what: str
    reader: str
    version: int = 1
    legacy_field: str = None
    json_reader: str = None


#: the kinds of every game: kind -> :class:`ModelKind`
GENERIC_KINDS = {
    "ttt_engine.TreeQAgent": ModelKind("TreeQAgent (any game)",
                                       "ttt_engine.tree_agents:TreeQAgent.load"),
    "ttt_engine.SarsaAgent": ModelKind("SarsaAgent (any game)",
                                       "ttt_engine.tree_agents:SarsaAgent.load"),
    "ttt_engine.Network": ModelKind("policy-value Network (any game)",
                                    "ttt_engine.network:Network.load"),
    "ttt_engine.AlphaZeroCheckpoint": ModelKind("AlphaZero training checkpoint (any game)",
                                                "ttt_engine.alphazero:load_checkpoint"),
}


class _Kinds(_registry.LiveView):
    """kind -> :class:`ModelKind`: :data:`GENERIC_KINDS` and the kinds each game
    declares (its entry's ``model_kinds``), read from the registry when used."""

    def _items(self):
        out = dict(GENERIC_KINDS)
        for game in _registry.GAMES.values():
            out.update(game.model_kinds)
        return out


#: every kind of model file this library reads and writes: kind -> :class:`ModelKind`
KINDS = _Kinds()
_ZIP_MAGIC = b"PK\x03\x04"


def _describe(kind):
    return KINDS[kind].what if kind in KINDS else f"{kind!r}"


def write(path, kind, arrays, *, compress=True):
    """Write ``arrays`` (name -> numpy value) with the header of ``kind``,
    atomically; returns the size of the file in bytes."""
    _util.check_output_path(path, "model file")
    fields = {"format_version": np.int64(KINDS[kind].version), "kind": np.str_(kind)}
    fields.update(arrays)
    save = np.savez_compressed if compress else np.savez
    _util.atomic_write(path, lambda f: save(f, **fields), "model file")
    return os.path.getsize(path)


def _open(path):
    """All arrays of the model file ``path`` (``ValueError`` if it is not one)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"model file {path!r} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory, not a ttt_engine model (.npz) file")
    # An .npz is a zip archive; anything else would reach numpy's pickle
    # branch, whose message advises unpickling: say plainly what it is instead.
    with open(path, "rb") as f:
        head = f.read(4)
    if head != _ZIP_MAGIC:
        what = "an empty file" if not head else f"a file starting with {head!r}"
        hint = ""
        if head[:1] == b"{":
            hint = "".join(f" (a JSON {k.what}: read it with {k.json_reader})"
                           for k in KINDS.values() if k.json_reader)
        raise ValueError(f"{path}: not a ttt_engine model (.npz) file: it is {what}, "
                         f"not a zip archive written by ttt_engine{hint}")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as e:
        raise ValueError(f"{path}: not a readable ttt_engine model (.npz) file: "
                         f"{type(e).__name__}: {e}") from None


def _kind(path, raw):
    if "kind" not in raw:
        return None
    k = raw["kind"]
    if k.shape != () or k.dtype.kind != "U":
        raise ValueError(f"{path}: field 'kind' must be a string, got dtype {k.dtype} "
                         f"shape {k.shape}")
    return str(k.item())


def read(path, kind, *, legacy=False):
    """The arrays of a ``kind`` model file, header checked: ``ValueError`` if
    the file is not a model file, is another kind (naming both), or has a
    version this library does not read.  ``legacy``: a file without ``kind``
    (written before the field existed) is taken as ``kind``."""
    path = os.fspath(path)
    raw = _open(path)
    if not isinstance(raw, dict) or "format_version" not in raw:
        raise ValueError(f"{path}: not a ttt_engine model file (no 'format_version' field)")
    found = _kind(path, raw)
    if found is None and not legacy:
        raise ValueError(f"{path}: not a ttt_engine model file (no 'kind' field), "
                         f"not a {_describe(kind)} file")
    if found is not None and found != kind:
        raise ValueError(f"{path} is a {_describe(found)} file, not a {_describe(kind)} file")
    try:
        version = int(raw["format_version"])
    except (TypeError, ValueError):
        raise ValueError(f"{path}: format_version is not an integer: "
                         f"{raw['format_version']!r}") from None
    if version != KINDS[kind].version:
        raise ValueError(f"{path}: unsupported model format version {version} "
                         f"(this ttt_engine reads version {KINDS[kind].version})")
    return raw


def kind_of(path):
    """The ``kind`` of a model file (``ValueError`` if it is not one)."""
    path = os.fspath(path)
    raw = _open(path)
    if "format_version" not in raw:
        raise ValueError(f"{path}: not a ttt_engine model file (no 'format_version' field)")
    found = _kind(path, raw)
    if found is None:
        for kind, k in KINDS.items():       # a file from before the 'kind' field
            if k.legacy_field is not None and k.legacy_field in raw:
                return kind
        raise ValueError(f"{path}: not a ttt_engine model file (no 'kind' field)")
    if found not in KINDS:
        raise ValueError(f"{path}: unknown model kind {found!r} (this ttt_engine reads: "
                         f"{', '.join(_describe(k) for k in KINDS)})")
    return found


def load(path):
    """Open any model file this library writes and return what it holds:
    a ``QAgent``, ``TreeQAgent``, ``SarsaAgent``, Quixo ``GreedyValueAgent``,
    Quixo ``ValueTable``, ``Network`` (policy-value network) or AlphaZero
    training ``Checkpoint``.  A file that is not a ttt_engine model file (not a
    zip archive, no header, an unknown kind) is a one-line ``ValueError``;
    a missing file a ``FileNotFoundError``."""
    kind = kind_of(path)
    module, attr = KINDS[kind].reader.split(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj(path)


def scalar(path, raw, key, kinds):
    """Field ``key`` as a Python scalar of one of the numpy dtype ``kinds``."""
    if key not in raw:
        raise ValueError(f"{path}: missing field(s): {key}")
    a = raw[key]
    if a.shape != () or a.dtype.kind not in kinds:
        raise ValueError(f"{path}: field {key!r} must be a scalar of kind {kinds!r}, "
                         f"got dtype {a.dtype} shape {a.shape}")
    return a.item()


# ------------------------------------------------------------ settings-only agents
def _settings_kind(cls):
    return f"ttt_engine.{cls.__name__}"


def save_settings(agent, path):
    """Write an agent whose whole state is its constructor keywords
    (``agent._config()``: numbers, booleans, None) as a model file."""
    arrays = {}
    for key, value in agent._config().items():
        if value is None:
            continue                           # absent field = None
        if isinstance(value, bool):
            arrays[key] = np.bool_(value)
        elif isinstance(value, int):
            arrays[key] = np.uint64(value) if key == "seed" else np.int64(value)
        else:
            arrays[key] = np.float64(value)
    return write(path, _settings_kind(type(agent)), arrays)


def load_settings(cls, path):
    """Read a file of :func:`save_settings` into a new ``cls``; the constructor
    validates every value (``ValueError`` prefixed with the path)."""
    path = os.fspath(path)
    raw = read(path, _settings_kind(cls))
    keys = [k for k in inspect.signature(cls).parameters if k not in ("iterations", "depth")]
    config = {}
    for key in keys:
        if key in raw:
            v = scalar(path, raw, key, "biuf")
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"{path}: field {key!r} is not finite: {v}")
            config[key] = v
        else:
            config[key] = None
    if config.get("seed") is None:
        raise ValueError(f"{path}: missing field(s): seed")
    try:
        return cls(**config)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
