"""Build script: cythonize every ``src/engine/*.pyx`` into ``ttt_engine.<name>``.

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
MIRROR = os.path.join(MIRROR_ROOT, "ttt_engine")


def _make_mirror():
    os.makedirs(MIRROR_ROOT, exist_ok=True)
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
        f"ttt_engine.{os.path.splitext(os.path.basename(path))[0]}",
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
