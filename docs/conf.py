"""Sphinx configuration of the documentation site (docs/README: ``python -m sphinx``...).

Sphinx with MyST reads the Markdown pages as they are on the repository; autodoc writes
the API reference from the docstrings of the installed (or in-place built) package; the
Furo theme needs no fonts or scripts from the internet, so the built site reads offline.
Build: ``pip install ".[docs]"`` then ``python docs/build.py`` (strict: every warning,
a broken link or a reference to a missing name, fails the build).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# a source checkout built in place (python setup.py build_ext --inplace) documents itself;
# an installed package is found as usual when python/ holds no build
if os.path.exists(os.path.join(HERE, "..", "python", "ttt_engine", "_core", "games", "list.txt")):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))

project = "ttt_engine"
author = "the ttt_engine developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# the docstrings are NumPy style or plain prose: "Returns: the table of ..." is no type
napoleon_google_docstring = False
# names from other libraries that docstrings and signatures mention, which this site
# does not document (no intersphinx: the build reads nothing from the internet)
nitpick_ignore_regex = [
    ("py:.*", r"(np|numpy|typing|collections|concurrent|threading|multiprocessing|jax|optax"
              r"|gymnasium|pettingzoo|starlette|uvicorn|distributed|matplotlib|tqdm|dataclasses"
              r"|pathlib|os|io|re|enum|abc)\..*"),
    ("py:class", r"(Callable|Iterable|Iterator|Sequence|Mapping|Any|Optional|Union|"
                 r"ndarray|Path|PathLike|callable|optional|array-like|function|object)"),
]

html_theme = "furo"
html_title = "ttt_engine"
html_static_path = []
pygments_style = "sphinx"


# ---------------------------------------------------------------- the API reference
# One page per public module (no part of its dotted name starts with "_"), written at
# each build from the package itself, so a new module is never missing from the site;
# autodoc then documents every name of the module's ``__all__`` from its docstring.
REFERENCE = os.path.join(HERE, "reference", "api")


def public_modules():
    """The dotted names of the package's public modules, sorted."""
    import importlib
    import pkgutil

    import ttt_engine
    names = ["ttt_engine"]
    for info in pkgutil.walk_packages(ttt_engine.__path__, "ttt_engine."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts):
            continue
        importlib.import_module(info.name)
        names.append(info.name)
    return sorted(names)


def _write_reference(app):
    os.makedirs(REFERENCE, exist_ok=True)
    wanted = {}
    for name in public_modules():
        wanted[name + ".md"] = (f"# `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n"
                                f"   :members:\n   :undoc-members:\n```\n")
    for old in os.listdir(REFERENCE):
        if old not in wanted:
            os.remove(os.path.join(REFERENCE, old))
    for file, text in wanted.items():
        path = os.path.join(REFERENCE, file)
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


def setup(app):
    app.connect("builder-inited", _write_reference)
