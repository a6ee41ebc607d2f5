"""Build script: cythonize every ``src/engine/*.pyx`` into ``ttt_engine._core.<name>``.

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


os.chdir(HERE)
_make_mirror()

# -O3 but no -march=native: FMA contraction would change Q values between machines.
COMPILE_ARGS = ["-O3", "-fno-strict-aliasing"]
if sys.platform == "win32":  # pragma: no cover - MSVC spelling
    COMPILE_ARGS = ["/O2"]

extensions = [
    Extension(
        f"ttt_engine._core.{os.path.splitext(os.path.basename(path))[0]}",
        [os.path.join(MIRROR, os.path.basename(path))],
        include_dirs=[numpy.get_include()],
        extra_compile_args=COMPILE_ARGS,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for path in sorted(glob.glob(os.path.join(SRC, "*.pyx")))
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
