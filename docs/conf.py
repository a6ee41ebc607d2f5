"""Sphinx configuration of the documentation site (docs/README: ``python -m sphinx``...).

Sphinx with MyST reads the Markdown pages as they are on the repository; autodoc writes
the API reference from the docstrings of the installed (or in-place built) package; the
Furo theme needs no fonts or scripts from the internet, so the built site reads offline.
Build: ``pip install ".[docs]"`` then ``python docs/build.py`` (strict: every warning,
a broken link or a reference to a missing name, fails the build).
"""
import glob
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
# a source checkout built in place (python setup.py build_ext --inplace) documents itself;
# an installed package is found as usual when python/ holds no build
# (the compiled base board is the sign of a build in place: building a wheel leaves the
# game list in python/ too, with no compiled module beside it)
if glob.glob(os.path.join(HERE, "..", "python", "ttt_engine", "_core", "games", "board.*")):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))

project = "ttt_engine"
author = "the ttt_engine developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

autodoc_default_options = {}
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


def _exported(module):
    """The public names ``module`` offers: its ``__all__``, else the names defined in it."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [n for n, o in vars(module).items()
            if not n.startswith("_") and getattr(o, "__module__", None) == module.__name__]


def _defined(obj):
    """True for a class or function (an object with a home); False for data and modules."""
    return (not isinstance(obj, types.ModuleType) and isinstance(getattr(obj, "__qualname__", None), str)
            and isinstance(getattr(obj, "__module__", None), str))


def _key(obj):
    # a class made per game by one factory is one object to document
    return obj.__module__, obj.__qualname__


def reference_homes():
    """``{module: {name: home}}`` for every public module and every name it exports.

    A class or function re-exported by several modules is documented once, on the page of
    its home — the module that defines it if that module is public, else the exporting
    module nearest to its definition — and the other pages link there; data and modules
    are their own home.  ``home`` is the dotted name the reference documents it under.
    """
    import importlib

    modules = {m: importlib.import_module(m) for m in public_modules()}
    exporters = {}
    for m, module in modules.items():
        for n in _exported(module):
            obj = getattr(module, n)
            if _defined(obj):
                exporters.setdefault(_key(obj), []).append(m)

    def home_of(obj):
        candidates = exporters[_key(obj)]
        if obj.__module__ in candidates:
            return obj.__module__
        parts = obj.__module__.split(".")

        def shared(m):
            q = m.split(".")
            k = 0
            while k < min(len(q), len(parts)) and q[k] == parts[k]:
                k += 1
            return k
        return sorted(candidates, key=lambda m: (-shared(m), len(m), m))[0]

    homes = {}
    for m, module in modules.items():
        homes[m] = {}
        for n in _exported(module):
            obj = getattr(module, n)
            if isinstance(obj, types.ModuleType):
                homes[m][n] = obj.__name__
            elif _defined(obj):
                h = home_of(obj)
                homes[m][n] = f"{h}.{n}" if h == m else f"{h}.{obj.__name__}"
            else:
                homes[m][n] = f"{m}.{n}"
    return homes


def _directive(module, name):
    """The autodoc directive that documents ``module.name`` from its docstring."""
    import importlib
    import inspect

    obj = getattr(importlib.import_module(module), name)
    target = f"{module}.{name}"
    if inspect.isclass(obj):
        kind = "autoexception" if issubclass(obj, BaseException) else "autoclass"
        return [f".. {kind}:: {target}", "   :members:", ""]
    if _defined(obj) and callable(obj):
        return [f".. autofunction:: {target}", ""]
    short = len(repr(obj)) <= 60 and isinstance(obj, (int, float, str, bytes, tuple))
    return [f".. autodata:: {target}"] + ([] if short else ["   :no-value:"]) + [""]


def _page(name, homes, modules):
    own = [n for n, h in homes.items() if h == f"{name}.{n}" and h not in modules]
    elsewhere = [(n, h) for n, h in homes.items() if n not in own]
    rst = [f".. automodule:: {name}", ""]
    for n in own:
        rst += _directive(name, n)
    if elsewhere:
        rst += [".. rubric:: Also offered here", ""]
        for n, h in elsewhere:
            role = "mod" if h in modules else "obj"
            rst.append(f"- ``{n}``: :py:{role}:`{h}`")
    return f"# `{name}`\n\n```{{eval-rst}}\n" + "\n".join(rst).rstrip() + "\n```\n"


def _write_reference(app):
    os.makedirs(REFERENCE, exist_ok=True)
    all_homes = reference_homes()
    modules = set(all_homes)
    wanted = {}
    for name, homes in all_homes.items():
        wanted[name + ".md"] = _page(name, homes, modules)
    for old in os.listdir(REFERENCE):
        if old not in wanted:
            os.remove(os.path.join(REFERENCE, old))
    for file, text in wanted.items():
        path = os.path.join(REFERENCE, file)
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


_ALIASES = {}


def _aliases():
    """``{name a docstring may use: the documented name}`` for every re-exported object."""
    if not _ALIASES:
        import importlib

        for m, homes in reference_homes().items():
            module = importlib.import_module(m)
            for n, h in homes.items():
                _ALIASES[f"{m}.{n}"] = h
                obj = getattr(module, n)
                if _defined(obj):
                    _ALIASES[f"{obj.__module__}.{obj.__qualname__}"] = h
    return _ALIASES


def _resolve_alias(app, env, node, contnode):
    """A reference to a re-exported name (``ttt_engine.search.MCTS``) or to its definition
    (``ttt_engine._verbs.SolveResult``) resolves to the page that documents the object;
    also its members (``ttt_engine.search.MCTS.stats``)."""
    if node.get("refdomain") != "py":
        return None
    target, aliases = node["reftarget"], _aliases()
    candidates = [target]
    module = node.get("py:module") or ""
    if node.get("py:class"):
        candidates.append(f"{module}.{node['py:class']}.{target}" if module else
                          f"{node['py:class']}.{target}")
    while module:                      # the module, then the packages above it
        candidates.append(f"{module}.{target}")
        module = module.rpartition(".")[0]
    for name in candidates:
        head, tail = name, ""
        while head:
            if head in aliases and aliases[head] != head:
                new = aliases[head] + tail
                return env.domains["py"].resolve_xref(env, node["refdoc"], app.builder, node["reftype"],
                                                      new, node, contnode)
            head, _, last = head.rpartition(".")
            tail = f".{last}{tail}"
    return None


def _napoleon_for_routines_and_classes(app):
    """NumPy sections are read in the docstrings of functions, classes and modules only: the
    docstring of a property or a constant opens with prose ("Size of the action space: 9"),
    which napoleon would read as "type: description"."""
    import inspect

    from sphinx.ext import napoleon

    listeners = app.events.listeners["autodoc-process-docstring"]
    for listener in list(listeners):
        if listener.handler is napoleon._process_docstring:
            listeners.remove(listener)

            def process(app, what, name, obj, options, lines):
                own = getattr(type(obj), "__doc__", None)
                if what == "data" and own and "\n".join(lines).strip() == inspect.cleandoc(own):
                    lines[:] = []          # a constant has no docstring of its own
                if what not in ("attribute", "property", "data"):
                    napoleon._process_docstring(app, what, name, obj, options, lines)
            app.connect("autodoc-process-docstring", process, priority=listener.priority)


def setup(app):
    app.connect("builder-inited", _napoleon_for_routines_and_classes)
    app.connect("builder-inited", _write_reference)
    app.connect("missing-reference", _resolve_alias)
