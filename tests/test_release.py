"""The source archive (sdist) carries every source a build needs, and nothing a build makes.

The archive is built from a copy of the files git knows (tracked, or new and not
ignored), into which build output is planted first: a ``.c`` beside every
``.pyx``, the headers setup.py renders from the ``*.tp`` templates, compiled
modules, the copied game list, a ``build/`` folder.  The archive must hold
every source of the compiled layer (``src/engine``: ``.pyx``, hand-written
``.pxd``, templates, the game list and contract), the whole Python package
(stubs, shipped networks, the web page), and nothing else but the metadata
the sdist writes.  The whole release (a wheel built from the archive, installed
with no compiler) is scripts/release.sh, run by hand: docs/release.md.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: the files outside src/engine and python/ttt_engine that a build from the archive reads
TOP = {"setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "LICENSE"}
#: what the sdist itself writes: its metadata
SDIST_METADATA = ("PKG-INFO", "setup.cfg", "python/ttt_engine.egg-info/")


def _known_files():
    """The repository's files as they would be committed: tracked, or new and not ignored."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout of the project")
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True).stdout.decode()
    return sorted({p for p in out.split("\0") if p and (ROOT / p).is_file()})


def _plant_build_output(tree):
    """What a build leaves in a working tree (see .gitignore), as setup.py names it."""
    made = []

    def plant(rel, data=b"build output\n"):
        path = tree / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        made.append(rel)

    engine = tree / "src" / "engine"
    games = [line.split("#")[0].split()[0] for line in
             (engine / "games" / "list.txt").read_text().splitlines() if line.split("#")[0].split()]
    for pyx in sorted(engine.rglob("*.pyx")):
        rel = pyx.relative_to(tree).with_suffix("")
        plant(f"{rel}.c")
        plant(f"{rel}.html")                                     # Cython's annotated listing
        module = pyx.relative_to(engine).with_suffix("")
        plant(f"python/ttt_engine/_core/{module}{sysconfig.get_config_var('EXT_SUFFIX')}")
    for template in sorted(engine.rglob("*.tp")):
        name = template.name[:-len(".tp")]
        if template.parent.name == "template":                 # one per game
            for game in games:
                plant(f"src/engine/games/{game}/{name}")
        else:
            plant(str(template.relative_to(tree))[:-len(".tp")])
    plant("python/ttt_engine/_core/games/list.txt")
    plant("build/cython/ttt_engine/__init__.pxd")
    plant("build/temp.linux-x86_64-cpython-311/engine.o")
    plant("python/ttt_engine/__pycache__/network.cpython-311.pyc")
    return made


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """``(names in the archive, files copied, build output planted, PKG-INFO, build log)``."""
    known = _known_files()
    tree = tmp_path_factory.mktemp("tree")
    for rel in known:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, tree / rel)
    planted = _plant_build_output(tree)
    out = tmp_path_factory.mktemp("dist")
    if importlib.util.find_spec("build") is not None:
        cmd = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out)]
    else:           # the [test] extra installs build; a bare setuptools still makes the archive
        cmd = [sys.executable, "setup.py", "sdist", "--dist-dir", str(out)]
    env = dict(os.environ, PYTHONWARNINGS="default")
    run = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, timeout=600, env=env)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-4000:]
    (archive,) = glob.glob(str(out / "*.tar.gz"))
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        top = {m.name.split("/")[0] for m in members}
        assert len(top) == 1 and next(iter(top)).startswith("ttt_engine-"), top
        names = {m.name.split("/", 1)[1] for m in members}
        pkg_info = tar.extractfile(f"{top.pop()}/PKG-INFO").read().decode()
    return names, set(known), planted, pkg_info, log


def test_every_source_a_build_needs_is_in_the_archive(sdist):
    names, known, _, _, _ = sdist
    needed = {p for p in known if p.startswith(("src/engine/", "python/ttt_engine/"))} | TOP
    assert not needed - names, f"missing from the sdist: {sorted(needed - names)}"
    # the inputs of the generated interface and of the registry, named once more
    for rel in ("src/engine/games/list.txt", "src/engine/games/contract.py",
                "src/engine/games/template/contract.pxd.tp", "src/engine/algorithms/game.pxd.tp",
                "python/ttt_engine/networks/uttt.npz", "python/ttt_engine/web/static/index.html",
                "python/ttt_engine/_core/games/ttt/board.pyi", "python/ttt_engine/py.typed"):
        assert rel in names, rel
    assert any(n.endswith(".pyx") for n in names) and any(n.endswith(".pxd") for n in names)


def test_the_archive_holds_no_build_output(sdist):
    names, known, planted, _, _ = sdist
    extra = {n for n in names if n not in known and not n.startswith(SDIST_METADATA)}
    assert not extra, f"not sources: {sorted(extra)}"
    assert not set(planted) & names
    assert not [n for n in names if n.endswith((".c", ".so", ".pyd", ".o", ".pyc"))]


def test_the_license_is_an_spdx_expression(sdist):
    _, _, _, pkg_info, log = sdist
    assert "License-Expression: MIT" in pkg_info.splitlines()
    assert "License-File: LICENSE" in pkg_info.splitlines()
    assert "project.license" not in log and "License classifiers are deprecated" not in log


def test_the_summary_names_every_game(sdist):
    """The one line a package index shows names every game of the registry."""
    from ttt_engine import games
    _, _, _, pkg_info, _ = sdist
    (summary,) = [line[len("Summary: "):] for line in pkg_info.splitlines()
                  if line.startswith("Summary: ")]
    missing = [g.title for g in games.GAMES.values() if g.title not in summary]
    assert not missing, f"the summary ({summary!r}) does not name {missing}"


def _package_data_patterns():
    try:
        import tomllib
    except ImportError:                     # Python 3.10
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11)")
    with open(ROOT / "pyproject.toml", "rb") as f:
        config = tomllib.load(f)["tool"]["setuptools"]
    return config["package-data"]["ttt_engine"]


def _package_files():
    """The tracked files of the Python package that are not modules: what runtime reads
    from the package (networks, the opening book, the yardstick suite, the web page)
    and the typing files."""
    prefix = "python/ttt_engine/"
    return [p[len(prefix):] for p in _known_files()
            if p.startswith(prefix) and not p.endswith(".py")]


def test_every_package_data_file_goes_into_the_wheel():
    """``include-package-data`` is off, so a file reaches the wheel only through a
    ``[tool.setuptools.package-data]`` pattern (matched as setuptools does: a glob
    from the package folder, ``**`` recursive); the sdist test above does not see a
    file that MANIFEST.in ships but no pattern matches."""
    package = ROOT / "python" / "ttt_engine"
    matched = set()
    for pattern in _package_data_patterns():
        matched.update(pathlib.Path(p).relative_to(package).as_posix()
                       for p in glob.glob(str(package / pattern), recursive=True))
    missing = sorted(set(_package_files()) - matched)
    assert not missing, f"in no package-data pattern of pyproject.toml: {missing}"
    for rel in ("networks/uttt.npz", "data/connect4_book.bin", "web/static/index.html",
                "py.typed", "_core/games/ttt/board.pyi"):
        assert rel in matched, rel


def test_the_installed_package_holds_its_data():
    """The ttt_engine under test, when installed (as CI does), has every data file."""
    import ttt_engine
    installed = pathlib.Path(ttt_engine.__file__).resolve().parent
    if installed == (ROOT / "python" / "ttt_engine").resolve():
        pytest.skip("the package under test is the source tree (an in-place build)")
    missing = [rel for rel in _package_files() if not (installed / rel).is_file()]
    assert not missing, f"not in the installed package {installed}: {missing}"


def test_the_extras_are_the_readme_s():
    """README.md's set-up section names every extra, and ``[test]`` carries the others'
    packages but the benchmarks' own (pgx, mctx, pygame), as it says."""
    import re
    try:
        import tomllib
    except ImportError:                     # Python 3.10
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11)")
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Optional extras:"):].split("\n\n")[0]
    assert set(re.findall(r"`\[(\w+)\]`", paragraph)) == set(extras)

    def names(requirements):
        return {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower() for r in requirements}

    others = set().union(*(names(r) for key, r in extras.items() if key != "test"))
    lacking = others - names(extras["test"])
    assert lacking == {"pgx", "mctx", "pygame"}
    said = paragraph[paragraph.index("`[test]`"):]
    assert all(name in said for name in lacking), said
