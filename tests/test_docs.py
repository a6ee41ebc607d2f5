"""Every ``python`` code block of README.md and docs/**/*.md runs as written.

The conventions (also stated in README.md, "Developing"):

- A block fenced as ```` ```python ```` runs; the blocks of one file run in
  order in one namespace, in a fresh temporary folder (files the examples
  write land there).  Blocks fenced as ``sh``, ``console`` or with no
  language are shell sessions or printed output, never Python: they are not
  run here (docs/cli.md's sessions are rerun by ``docs/cli_examples.py``,
  see tests/test_cli_docs.py), and the runner fails if such a block looks
  like Python code.
- ``# -> SHOWN`` at the end of an expression line: the value's ``repr`` must
  read ``SHOWN``, where ``...`` stands for any text (doctest's ELLIPSIS); for
  a ``print(...)`` line the printed lines, joined with `` / ``.
- ``# SomeError: message`` (or ``# raises SomeError``; the colon or the word
  ``raises`` marks it, so "# ValueError on illegal moves" stays a remark) at the end of a line:
  the line must raise that exception, with a message that starts with
  ``message`` (``...`` again stands for any text).
- ``<!-- docs-test: skip REASON -->`` on the line before a block skips it;
  :data:`SKIPPED` lists every skipped block, so the list stays short and
  visible.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import doctest
import io
import os
import re
import sys
import tokenize
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ["README.md"] + sorted(
    os.path.relpath(os.path.join(folder, f), ROOT)
    for folder, dirs, files in os.walk(os.path.join(ROOT, "docs"))
    if "_build" not in os.path.relpath(folder, ROOT).split(os.sep)
    for f in files if f.endswith(".md"))
#: (file, first line of the block) of every block skipped with the marker, and why
SKIPPED = {
    ("docs/tournament.md", "from distributed import Client"): "needs a running Dask scheduler",
}
_FENCE = re.compile(r"^```(\w*)\s*$")
_SKIP = re.compile(r"<!--\s*docs-test:\s*skip\b(.*?)-->")
_RAISES = re.compile(r"^(?:raises\s+(?P<a>[A-Z]\w*)(?::\s*(?P<m1>.*))?"
                     r"|(?P<b>[A-Z]\w*(?:Error|Exception|Interrupt|Exit)):\s*(?P<m2>.*))$")
_LOOKS_LIKE_PYTHON = re.compile(r"^(>>> |import \w|from \w+(\.\w+)* import )", re.M)


def blocks(path):
    """``[(language, first line number, code, skip reason or None)]`` of ``path``."""
    out, lines = [], open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        skip = _SKIP.search(lines[i - 1]) if i else None
        start = i + 1
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            i += 1
        out.append((m.group(1), start + 1, "\n".join(lines[start:i]),
                    skip.group(1).strip() if skip else None))
        i += 1
    return out


def _comments(code):
    """line number -> the text of the comment ending that line."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string[1:].strip()
    return found


def _matches(shown, got):
    checker = doctest.OutputChecker()
    return checker.check_output(shown + "\n", got + "\n",
                                doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)


def run_block(code, namespace, where):
    """Run one block statement by statement, checking ``# ->`` values and
    ``# SomeError`` lines."""
    tree = ast.parse(code)
    comments = _comments(code)
    statements = tree.body
    for k, stmt in enumerate(statements):
        last_on_line = k + 1 == len(statements) or statements[k + 1].lineno > stmt.end_lineno
        note = comments.get(stmt.end_lineno, "") if last_on_line else ""
        line = f"{where} (block line {stmt.lineno})"
        raises = _RAISES.match(note)
        if raises:
            name = raises.group("a") or raises.group("b")
            exc = getattr(builtins, name, None)
            assert exc is not None, f"{line}: unknown exception {name}"
            with pytest.raises(exc) as info:
                exec(compile(ast.Module([stmt], []), where, "exec"), namespace)
            shown = (raises.group("m1") or raises.group("m2") or "").strip()
            if shown:
                assert _matches(shown + "...", str(info.value)), \
                    f"{line}: the message is {str(info.value)!r}, the docs show {shown!r}"
            continue
        if note.startswith("->"):
            shown = note[2:].strip()
            assert isinstance(stmt, ast.Expr), f"{line}: '# ->' needs an expression"
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                value = eval(compile(ast.Expression(stmt.value), where, "eval"), namespace)
            is_print = isinstance(stmt.value, ast.Call) and getattr(
                stmt.value.func, "id", None) == "print"
            got = " / ".join(x.rstrip() for x in out.getvalue().strip("\n").split("\n")) \
                if is_print else repr(value)
            assert _matches(shown, got), f"{line}: got {got!r}, the docs show {shown!r}"
            continue
        exec(compile(ast.Module([stmt], []), where, "exec"), namespace)


@pytest.mark.parametrize("path", FILES)
def test_every_python_block_runs_as_written(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pytest.importorskip("matplotlib")
    module = types.ModuleType("__docs__")        # so functions defined in a block pickle
    monkeypatch.setitem(sys.modules, "__docs__", module)
    namespace = module.__dict__
    ran = 0
    for lang, line, code, skip in blocks(path):
        if lang != "python":
            assert not _LOOKS_LIKE_PYTHON.search(code), \
                f"{path}:{line}: a block that looks like Python is fenced as {lang or 'plain'!r}"
            continue
        first = code.strip().split("\n")[0]
        if skip is not None:
            key = (path, next(k[1] for k in SKIPPED if k[0] == path and first.startswith(k[1])))
            assert skip and key in SKIPPED, f"{path}:{line}: skip needs a reason listed in SKIPPED"
            continue
        run_block(code, namespace, f"{path}:{line}")
        ran += 1
    assert ran or not any(lang == "python" for lang, *_ in blocks(path))


def test_the_runner_sees_wrong_values_and_missing_errors():
    ns = {}
    run_block("x = [1, 2]\nx  # -> [1, 2]\nlen(x)  # -> 2\nx.index(5)  # ValueError: 5 is not",
              ns, "t")
    with pytest.raises(AssertionError, match="the docs show"):
        run_block("x  # -> [1, 3]", ns, "t")
    with pytest.raises(pytest.fail.Exception):
        run_block("x.index(1)  # ValueError: no", ns, "t")
    with pytest.raises(AssertionError, match="the message is"):
        run_block("x.index(7)  # ValueError: 5 is not", ns, "t")
    run_block("x.index(1)  # ValueError on bad values: a remark, not a check", ns, "t")
    with pytest.raises(pytest.fail.Exception):
        run_block("x.index(1)  # raises ValueError", ns, "t")
    run_block("print('a\\nb')  # -> a / b\nstr(x) + '...'  # -> '[1, ...'", ns, "t")


def test_skips_are_few_and_each_has_a_reason():
    marked = [(p, c.strip().split("\n")[0]) for p in FILES for lang, _, c, s in blocks(p)
              if s is not None]
    assert len(marked) == len(SKIPPED) <= 3
    for p, first in marked:
        assert any(p == k[0] and first.startswith(k[1]) for k in SKIPPED)
