"""Build script: cythonize every ``src/engine/**/*.pyx`` into ``ttt_engine._core.<dotted path>``
(``src/engine/games/ttt/board.pyx`` -> ``ttt_engine._core.games.ttt.board``).

First the game interface is generated: every ``*.tp`` template under
``src/engine`` is rendered with Cython's Tempita over the game list
``src/engine/games/list.txt`` (scikit-learn generates its per-type code the
same way); a file is rewritten only when its text changes, so an unchanged
interface does not force a rebuild.

Cython finds a module's ``.pxd`` (and resolves ``cimport ttt_engine.x``) from
the directory layout, so the sources must appear to it as a package called
``ttt_engine``.  The fixed repository layout keeps them in ``src/engine``;
we therefore point Cython at ``build/cython/ttt_engine``, a directory symlink
to ``src/engine`` created here (build output, never committed).
"""
import glob
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join("src", "engine")
MIRROR_ROOT = os.path.join("build", "cython")
MIRROR_PACKAGE = os.path.join(MIRROR_ROOT, "ttt_engine")
MIRROR = os.path.join(MIRROR_PACKAGE, "_core")


def _make_mirror():
    if os.path.islink(MIRROR_PACKAGE):      # layout of older builds: the package itself a link
        os.remove(MIRROR_PACKAGE)
    os.makedirs(MIRROR_PACKAGE, exist_ok=True)
    open(os.path.join(MIRROR_PACKAGE, "__init__.pxd"), "a").close()
    target = os.path.join(HERE, SRC)
    if os.path.islink(MIRROR) and os.path.realpath(MIRROR) == os.path.realpath(target):
        return
    if os.path.lexists(MIRROR):
        os.remove(MIRROR)
    os.symlink(target, MIRROR, target_is_directory=True)


class _Game:
    """One line of the game list: its folder name and state struct."""

    def __init__(self, name, state, first):
        self.name = name
        self.State = state
        self.Board = state[:-len("State")] + "Board" if state.endswith("State") else state + "Board"
        self.branch = "if" if first else "elif"


def _read_game_list(path):
    games = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 2:
                sys.exit(f"{path}:{number}: expected '<folder> <StateStruct>', got {line.strip()!r}")
            games.append(_Game(fields[0], fields[1], not games))
    return games


def _generate():
    """Render every ``src/engine/**/*.tp`` next to itself, without the ``.tp``."""
    from Cython.Tempita import Template
    games = _read_game_list(os.path.join(SRC, "games", "list.txt"))
    for template in sorted(glob.glob(os.path.join(SRC, "**", "*.tp"), recursive=True)):
        with open(template, encoding="utf-8") as f:
            text = Template(f.read(), name=template).substitute(games=games)
        target = template[:-len(".tp")]
        if os.path.exists(target):
            with open(target, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)


os.chdir(HERE)
_make_mirror()
_generate()

# -O3 but no -march=native: FMA contraction would change Q values between machines.
COMPILE_ARGS = ["-O3", "-fno-strict-aliasing"]
if sys.platform == "win32":  # pragma: no cover - MSVC spelling
    COMPILE_ARGS = ["/O2"]

def _module(path):
    """``src/engine/a/b.pyx`` -> ``ttt_engine._core.a.b``."""
    rel = os.path.splitext(os.path.relpath(path, SRC))[0]
    return "ttt_engine._core." + rel.replace(os.sep, ".")


def _output_dir(module):
    """``build_ext --inplace`` writes ``python/ttt_engine/_core/<folders>/`` but
    does not create it (the folders are namespace packages, no ``__init__.py``)."""
    os.makedirs(os.path.join("python", *module.split(".")[:-1]), exist_ok=True)
    return module


extensions = [
    Extension(
        _output_dir(_module(path)),
        [os.path.join(MIRROR, os.path.relpath(path, SRC))],
        include_dirs=[numpy.get_include()],
        extra_compile_args=COMPILE_ARGS,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for path in sorted(glob.glob(os.path.join(SRC, "**", "*.pyx"), recursive=True))
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=[MIRROR_ROOT],
        language_level=3,
        annotate=bool(os.environ.get("TTT_ENGINE_ANNOTATE")),
        compiler_directives={"embedsignature": True},
        nthreads=int(os.environ.get("TTT_ENGINE_BUILD_JOBS", "0")),
    ),
)
