"""The documentation site (docs/build.py, docs/conf.py): it builds in strict mode (any
warning fails), its API reference documents every public name, its guide pages stay short,
and a build without the ``[docs]`` extra says so in one line.

The build takes a minute or two (autodoc imports every public module); it runs once for
the whole file.
"""
import importlib
import os
import pkgutil
import posixpath
import re
import subprocess
import sys
import textwrap
import types

import pytest

import ttt_engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the folder holding the ttt_engine under test (installed in CI, python/ when built in place)
PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))
DOCS = os.path.join(ROOT, "docs")
BUILD = os.path.join(DOCS, "build.py")
#: the longest a guide page may be (the experiment records go to docs/results/)
GUIDE_LINES = 400


def _env():
    env = dict(os.environ)
    # the package under test: installed in CI, the in-place build when developing
    env["PYTHONPATH"] = os.pathsep.join([PYDIR, env.get("PYTHONPATH", "")])
    return env


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, BUILD, "--out", str(out)], cwd=ROOT, env=_env(),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"the strict docs build failed (exit {proc.returncode}):\n"
                    f"{proc.stdout}\n{proc.stderr}", pytrace=False)
    return out


def _inventory(site):
    from sphinx.util.inventory import InventoryFile

    with open(os.path.join(site, "objects.inv"), "rb") as f:
        inv = InventoryFile.load(f, "", posixpath.join)
    return {kind: set(names) for kind, names in inv.items()}


def public_modules():
    names = ["ttt_engine"]
    for info in pkgutil.walk_packages(ttt_engine.__path__, "ttt_engine."):
        if not any(p.startswith("_") for p in info.name.split(".")[1:]):
            names.append(info.name)
    return sorted(names)


def test_site_builds_strictly_with_home_and_search(site):
    for page in ("index.html", "search.html", "searchindex.js", "api.html",
                 "tutorials/rl-tic-tac-toe.html", "results/index.html"):
        assert os.path.exists(os.path.join(site, page)), page
    home = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    # offline: no script, style sheet or font fetched from the internet
    assert not re.search(r"""(src|href)=["']https?://[^"']+\.(js|css|woff2?)""", home)


def test_every_public_name_is_in_the_reference(site):
    inv = _inventory(site)
    everything = set().union(*inv.values())
    missing = []
    for m in public_modules():
        if m not in inv.get("py:module", set()):
            missing.append(m)
        module = importlib.import_module(m)
        for n in getattr(module, "__all__", ()):
            obj = getattr(module, n)
            names = {f"{m}.{n}"}
            if isinstance(obj, types.ModuleType):
                names = {obj.__name__}
            elif isinstance(getattr(obj, "__qualname__", None), str):
                # documented once, on its home page, which records where it is defined
                names.add(f"{obj.__module__}.{obj.__qualname__}")
            if not names & everything:
                missing.append(f"{m}.{n}")
    assert not missing, f"not in the API reference: {missing}"


def test_the_reference_has_a_page_per_public_module(site):
    pages = {f[:-len(".html")] for f in os.listdir(os.path.join(site, "reference", "api"))
             if f.endswith(".html")}
    assert pages == set(public_modules())


def results_pages():
    """The pages the Results section lists from outside docs/results/ (``../page``)."""
    text = open(os.path.join(DOCS, "results", "index.md"), encoding="utf-8").read()
    return {os.path.join("docs", m + ".md") for m in re.findall(r"^\.\./([\w/-]+)$", text, re.M)}


def guide_pages():
    """docs/**/*.md but the lab notes (docs/results/ and the pages it lists) and the
    generated reference."""
    out = []
    for folder, dirs, files in os.walk(DOCS):
        rel = os.path.relpath(folder, DOCS).split(os.sep)
        if rel[0] in ("results", "_build") or rel[:2] == ["reference", "api"]:
            continue
        out += [os.path.relpath(os.path.join(folder, f), ROOT) for f in files if f.endswith(".md")]
    return sorted(set(out) - results_pages())


@pytest.mark.parametrize("page", guide_pages())
def test_guide_pages_are_short(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        lines = f.read().count("\n")
    assert lines <= GUIDE_LINES, (f"{page} has {lines} lines (at most {GUIDE_LINES}): move the "
                                  f"experiment records to docs/results/")


def test_build_without_the_docs_extra_says_so_in_one_line():
    code = textwrap.dedent(f"""
        import runpy, sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("sphinx", "myst_parser", "furo"):
                    raise ImportError(f"No module named {{name!r}}", name=name)

        sys.meta_path.insert(0, Block())
        sys.argv = ["docs/build.py", "--out", {os.devnull!r}]
        runpy.run_path({BUILD!r}, run_name="__main__")
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(),
                          capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "[docs]" in lines[0] and "error" in lines[0]
    assert "Traceback" not in proc.stderr


def test_api_overview_lists_every_game_of_the_registry():
    from ttt_engine import games

    text = open(os.path.join(DOCS, "api.md"), encoding="utf-8").read()
    headers = [line for line in text.splitlines() if line.startswith(("| verb |", "| function |"))]
    assert headers, "docs/api.md has no games x verbs table"
    for line in headers:
        columns = [c.strip() for c in line.strip("|").split("|")][1:]
        assert columns == list(games.GAMES), (line, list(games.GAMES))
