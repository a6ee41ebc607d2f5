"""Build script: cythonize every ``src/engine/**/*.pyx`` into ``ttt_engine._core.<dotted path>``
(``src/engine/games/ttt/board.pyx`` -> ``ttt_engine._core.games.ttt.board``).

First the game interface is generated: every ``*.tp`` template under
``src/engine`` is rendered with Cython's Tempita over the game list
``src/engine/games/list.txt`` and the contract ``src/engine/games/contract.py``
(scikit-learn generates its per-type code the same way); a file is rewritten
only when its text changes, so an unchanged interface does not force a rebuild.

Cython finds a module's ``.pxd`` (and resolves ``cimport ttt_engine.x``) from
the directory layout, so the sources must appear to it as a package called
``ttt_engine``.  The fixed repository layout keeps them in ``src/engine``;
we therefore point Cython at ``build/cython/ttt_engine``, a directory symlink
to ``src/engine`` created here (build output, never committed).

Making the source archive (``sdist``) or reading the metadata (``egg_info``,
``dist_info``) compiles and generates nothing: MANIFEST.in lists the sources,
and the build from the archive renders and compiles them (docs/release.md).
"""
import glob
import os
import re
import runpy
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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
    """One line of the game list: its folder name and state struct, which
    contract functions its own headers define (``own``), whether its
    features are stones (``stones``) and whether it numbers its feature set
    (``feature_version``; else version 1)."""

    def __init__(self, name, state, first, contract):
        self.name = name
        self.State = state
        self.Board = state[:-len("State")] + "Board" if state.endswith("State") else state + "Board"
        self.branch = "if" if first else "elif"
        folder = os.path.join(SRC, "games", name)
        text = {}
        for header in ("rules", "actions", "features"):
            path = os.path.join(folder, header + ".pxd")
            text[header] = ""
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    text[header] = f.read()
        defined = rf"^cdef inline [\w ]+?\b{re.escape(name)}_(\w+)\("
        self.own = set(re.findall(defined, text["rules"] + text["actions"], re.M))
        # the value network's features: the game's stones (core/features.pxd reads
        # them), or its own three feature functions
        features = re.findall(defined, text["features"], re.M)
        self.stones = "feature_stones" in features
        self.feature_version = "feature_version" in features
        # the arguments each contract function passes on: its parameter names
        self.args = {fn: ", ".join(p.split()[-1].lstrip("*") for p in params.split(",") if p.strip())
                     for _, _, fn, params, _, _ in contract}
        for header, _, fn, _, default, _ in contract:
            if default is None and fn not in self.own:
                sys.exit(f"games/{name}/{header}.pxd: the game contract needs {name}_{fn} "
                         "(see src/engine/games/contract.py)")


def _read_game_list(path, contract):
    games = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 2:
                sys.exit(f"{path}:{number}: expected '<folder> <StateStruct>', got {line.strip()!r}")
            games.append(_Game(fields[0], fields[1], not games, contract))
    return games


def _write_if_changed(target, text):
    if os.path.exists(target):
        with open(target, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)


def _generate():
    """Render the templates: ``games/template/<name>.tp`` once per game into
    ``games/<game>/<name>``; every other ``src/engine/**/*.tp`` next to itself,
    without the ``.tp``."""
    from Cython.Tempita import Template
    contract = runpy.run_path(os.path.join(SRC, "games", "contract.py"))["CONTRACT"]
    games = _read_game_list(os.path.join(SRC, "games", "list.txt"), contract)
    # the Python registry (ttt_engine.games) reads the same list, installed beside the
    # compiled game modules: one list of games for both halves
    with open(os.path.join(SRC, "games", "list.txt"), encoding="utf-8") as f:
        listed = f.read()
    os.makedirs(os.path.join("python", "ttt_engine", "_core", "games"), exist_ok=True)
    _write_if_changed(os.path.join("python", "ttt_engine", "_core", "games", "list.txt"), listed)
    per_game = os.path.join(SRC, "games", "template")
    for template in sorted(glob.glob(os.path.join(SRC, "**", "*.tp"), recursive=True)):
        with open(template, encoding="utf-8") as f:
            source = Template(f.read(), name=template)
        name = os.path.basename(template)[:-len(".tp")]
        if os.path.dirname(template) == per_game:
            for game in games:
                text = source.substitute(games=games, game=game, contract=contract)
                _write_if_changed(os.path.join(SRC, "games", game.name, name), text)
        else:
            text = source.substitute(games=games, contract=contract)
            _write_if_changed(template[:-len(".tp")], text)


# -O3 but no -march=native: FMA contraction would change Q values between machines.
COMPILE_ARGS = ["-O3", "-fno-strict-aliasing"]
if sys.platform == "win32":  # pragma: no cover - MSVC spelling
    COMPILE_ARGS = ["/O2"]

#: the commands that only list or package the sources
SOURCES_ONLY = {"sdist", "egg_info", "dist_info"}
#: the commands that build, even when one of the above comes with them
BUILDS = {"build", "build_ext", "build_py", "bdist", "bdist_wheel", "bdist_egg", "install",
          "develop", "editable_wheel"}


def _module(path):
    """``src/engine/a/b.pyx`` -> ``ttt_engine._core.a.b``."""
    rel = os.path.splitext(os.path.relpath(path, SRC))[0]
    return "ttt_engine._core." + rel.replace(os.sep, ".")


def _output_dir(module):
    """``build_ext --inplace`` writes ``python/ttt_engine/_core/<folders>/`` but
    does not create it (the folders are namespace packages, no ``__init__.py``)."""
    os.makedirs(os.path.join("python", *module.split(".")[:-1]), exist_ok=True)
    return module


def _jobs():
    """``TTT_ENGINE_BUILD_JOBS``: modules cythonized and compiled at a time (0 or 1:
    serial); default two where the machine has two cores (a wheel build of every
    module, serial, is most of an install's time)."""
    default = min(2, os.cpu_count() or 1)
    return int(os.environ.get("TTT_ENGINE_BUILD_JOBS", str(default)))


class _BuildExt(build_ext):
    """``build_ext`` that compiles ``TTT_ENGINE_BUILD_JOBS`` modules at a time when
    no ``-j`` is given (a wheel build passes none)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel and _jobs() > 1:
            self.parallel = _jobs()


def _extensions():
    """Render the templates and cythonize every ``.pyx``: the compiled modules."""
    import numpy
    from Cython.Build import cythonize
    _make_mirror()
    _generate()
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
    return cythonize(
        extensions,
        include_path=[MIRROR_ROOT],
        language_level=3,
        annotate=bool(os.environ.get("TTT_ENGINE_ANNOTATE")),
        compiler_directives={"embedsignature": True},
        nthreads=_jobs() if _jobs() > 1 else 0,
    )


os.chdir(HERE)
_arguments = set(sys.argv[1:])
_sources_only = bool(_arguments & SOURCES_ONLY) and not _arguments & BUILDS
setup(ext_modules=[] if _sources_only else _extensions(), cmdclass={"build_ext": _BuildExt})
