#!/usr/bin/env python
"""The console examples of docs/cli.md and docs/cli-sessions.md, generated from real runs.

    python docs/cli_examples.py            # run every example, rewrite its block in its page
    python docs/cli_examples.py --check    # run them and compare with the pages (exit 1 if
                                           # an example drifted); tests/test_cli_docs.py runs this

Each example is a fenced block after a ``<!-- example: NAME -->`` line.  The
block shows the command as a user types it and what the tool prints (stdout and
stderr in the order they appear; a progress bar in its final state).  Timings
and rates differ from run to run; ``--check`` compares everything else exactly
(moves, counts, values, table rows and labels, messages), with figures followed
by a time unit or ``/s`` masked and runs of spaces collapsed.  The commands run
with ``python -m ttt_engine`` on the ttt_engine that this Python imports, in a
fresh temporary folder with a fresh cache folder (shown as
``~/.cache/ttt_engine``).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
#: the pages that hold examples (each example in one of them)
DOCS = [os.path.join(HERE, "cli.md"), os.path.join(HERE, "cli-sessions.md")]
CACHE_SHOWN = "~/.cache/ttt_engine"

#: name -> (the command as shown, argv after ``ttt-engine``, stdin or None)
EXAMPLES = {
    "play-ttt": (
        "printf '5\\n5\\nx\\n1\\n8\\nn\\n' | ttt-engine play --opponent perfect --seed 7 --verbose",
        ["play", "--opponent", "perfect", "--seed", "7", "--verbose"], "5\n5\nx\n1\n8\nn\n"),
    "play-q-first": (
        "printf 'q\\n' | ttt-engine play --opponent q --side O --train-episodes 2000000 --seed 1",
        ["play", "--opponent", "q", "--side", "O", "--train-episodes", "2000000", "--seed", "1"],
        "q\n"),
    "play-q-second": (
        "printf 'q\\n' | ttt-engine play --opponent q --side O",
        ["play", "--opponent", "q", "--side", "O"], "q\n"),
    "play-uttt": (
        "printf '4, 4\\nq\\n' | ttt-engine play --game uttt --opponent mcts --seed 3 --verbose",
        ["play", "--game", "uttt", "--opponent", "mcts", "--seed", "3", "--verbose"],
        "4, 4\nq\n"),
    "play-clobber": (
        "printf 'b1-b2\\n?\\nq\\n' | ttt-engine play --game clobber --size 4x4 --seed 2",
        ["play", "--game", "clobber", "--size", "4x4", "--seed", "2"], "b1-b2\n?\nq\n"),
    "train": (
        "ttt-engine train --episodes 2000000 --eval-games 20000 --out d.npz --seed 1 "
        "--plot curves.png",
        ["train", "--episodes", "2000000", "--eval-games", "20000", "--out", "d.npz", "--seed",
         "1", "--plot", "curves.png"], None),
    "eval": (
        "ttt-engine eval --engine mcts --simulations 2000 --against perfect --games 50 --seed 1",
        ["eval", "--engine", "mcts", "--simulations", "2000", "--against", "perfect", "--games",
         "50", "--seed", "1"], None),
    "errors": (None, None, None),      # several short commands, see ERRORS
}

#: the "errors" example: (command as shown, argv)
ERRORS = [
    ("ttt-engine play --games 1e20", ["play", "--games", "1e20"]),
    ("ttt-engine play --game quixo --opponent mcts --depth 3",
     ["play", "--game", "quixo", "--opponent", "mcts", "--depth", "3"]),
    ("ttt-engine clobber basic /dev/zero", ["clobber", "basic", "/dev/zero"]),
    ("ttt-engine train --out no/such/folder/m.npz", ["train", "--out", "no/such/folder/m.npz"]),
]


def _env(cache):
    import ttt_engine
    pydir = os.path.dirname(os.path.dirname(os.path.abspath(ttt_engine.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = pydir + os.pathsep + env.get("PYTHONPATH", "")
    env["TTT_ENGINE_CACHE_DIR"] = cache
    env["PYTHONUNBUFFERED"] = "1"          # stdout and stderr in the order they are written
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "80"
    for key in ("XDG_CACHE_HOME", "TTT_ENGINE_DEBUG"):
        env.pop(key, None)
    return env


def _run(argv, stdin, cwd, env):
    r = subprocess.run([sys.executable, "-m", "ttt_engine", *argv], input=stdin, cwd=cwd,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    lines = [line.rsplit("\r", 1)[-1] for line in r.stdout.split("\n")]   # bars: final state
    text = "\n".join(lines).rstrip("\n")
    text = text.replace(env["TTT_ENGINE_CACHE_DIR"], CACHE_SHOWN)
    return text.replace(os.path.join(cwd, ""), ""), r.returncode     # paths as typed


def generate():
    """{name: block text} from real runs (the q examples share one cache)."""
    blocks = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(os.path.join(tmp, "cache"))
        for name, (shown, argv, stdin) in EXAMPLES.items():
            if name == "errors":
                parts = []
                for shown_e, argv_e in ERRORS:
                    out, code = _run(argv_e, None, tmp, env)
                    parts.append(f"$ {shown_e}\n{out}\n$ echo $?\n{code}")
                blocks[name] = "\n".join(parts)
                continue
            out, code = _run(argv, stdin, tmp, env)
            if code:
                raise SystemExit(f"cli_examples: {name} exited {code}:\n{out}")
            blocks[name] = f"$ {shown}\n{out}"
    return blocks


_BLOCK = re.compile(r"(<!-- example: ([\w-]+) -->\n```\n)(.*?)\n?```", re.S)


def mask(text):
    """``text`` without what differs between runs: times, rates, alignment."""
    text = re.sub(r"\d\d:\d\d<\d\d:\d\d", "T", text)                       # tqdm times
    text = re.sub(r"[\d.,]+ ?[kM]?(ep|it|games)?/s\b", "R/s", text)         # rates
    text = re.sub(r"\d[\d,]*(\.\d+)? ?(s|ms|µs)\b", "T", text)              # durations
    text = re.sub(r"\(wall clock\)\s+[\d,]+", "(wall clock) R", text)
    text = re.sub(r"[-─]{3,}", "---", text)                                 # table rules
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the pages instead of rewriting them")
    args = ap.parse_args(argv)
    docs = {}
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            docs[path] = f.read()
    found = [m.group(2) for doc in docs.values() for m in _BLOCK.finditer(doc)]
    missing = sorted(set(EXAMPLES) - set(found))
    unknown = sorted(set(found) - set(EXAMPLES))
    twice = sorted({name for name in found if found.count(name) > 1})
    if missing or unknown or twice:
        print(f"cli_examples: the pages lack {missing} / have unknown {unknown} / "
              f"twice {twice}", file=sys.stderr)
        return 1
    blocks = generate()
    if args.check:
        drifted = [(path, m.group(2)) for path, doc in docs.items() for m in _BLOCK.finditer(doc)
                   if mask(m.group(3)) != mask(blocks[m.group(2)])]
        for path, name in drifted:
            print(f"cli_examples: the example {name!r} of docs/{os.path.basename(path)} differs "
                  f"from a real run:\n{blocks[name]}\n", file=sys.stderr)
        if drifted:
            print("cli_examples: run `python docs/cli_examples.py` to regenerate them",
                  file=sys.stderr)
        return 1 if drifted else 0
    for path, doc in docs.items():
        new = _BLOCK.sub(lambda m: m.group(1) + blocks[m.group(2)] + "\n```", doc)
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    print(f"cli_examples: {len(blocks)} examples written to {', '.join(DOCS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
