"""Value networks (ttt_engine.valuenet): the file and its refusals, the numpy
reference forward pass, every game's features against a reference written here
from the rules (read from the board's text), the symmetries, reproducible and
resumable labelling, and training (loss goes down, resume = uninterrupted run)."""
import json
import os
import random
import re
import sys
import zipfile

import numpy as np
import pytest

from ttt_engine import games
from ttt_engine.cli import main
from ttt_engine.engines import NETWORK_MCTS
from ttt_engine.valuenet import ValueNetwork, features, labels, load
from ttt_engine.valuenet import labels as L

sys.path.insert(0, os.path.dirname(__file__))
import connect4_reference  # noqa: E402
import uttt_reference  # noqa: E402

GAME_KEYS = ["ttt", "uttt", "connect4", "clobber", "quixo"]
SIZES = {"ttt": ({}, "ttt-v1", 19), "uttt": ({}, "uttt-v2", 379),
        "connect4": ({}, "connect4-v2", 183), "clobber": ({"rows": 6, "cols": 5},
                                                          "clobber-6x5-v2", 399),
         "quixo": ({"size": 5}, "quixo-5x5-v1", 51)}


# ------------------------------------------------------------- the reference
def ref_uttt(text):
    """The marks, the boards' results, the forced board, the side to move and
    the threats: tests/uttt_reference.py, from the rules."""
    return uttt_reference.value_features(text)


def _sides(cells, first, second, second_to_move):
    """The features of a plain board: the first player's cells, the second's
    after them, then the second player to move."""
    n = len(cells)
    out = [i for i, ch in enumerate(cells) if ch == first] + \
          [n + i for i, ch in enumerate(cells) if ch == second]
    return sorted(out + [2 * n] * bool(second_to_move))


def ref_ttt(text):
    return _sides(text, "X", "O", text.count("X") > text.count("O"))


def ref_connect4(text):
    """The discs, the threats (and those playable now), the side to move:
    tests/connect4_reference.py, from the rules."""
    return connect4_reference.value_features(text)


def ref_clobber(text, to_move):
    """Contacts: each stone with its count of orthogonal enemies, each adjacent
    pair holding a stone of each side (left or upper cell first), W to move."""
    grid = [r.split() for r in text.split("\n")]
    rows, cols = len(grid), len(grid[0])
    n = rows * cols
    enemy = {"B": "W", "W": "B"}
    out = []
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] in enemy:
                k = sum(0 <= r + dr < rows and 0 <= c + dc < cols
                        and grid[r + dr][c + dc] == enemy[grid[r][c]]
                        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
                out.append((5 * "BW".index(grid[r][c]) + k) * n + cols * r + c)
    pairs = [((r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)] + \
            [((r, c), (r + 1, c)) for r in range(rows - 1) for c in range(cols)]
    for e, ((r1, c1), (r2, c2)) in enumerate(pairs):
        first, second = grid[r1][c1], grid[r2][c2]
        if first in enemy and second == enemy[first]:
            out.append(10 * n + 2 * e + (first == "W"))
    if to_move == "W":
        out.append(10 * n + 2 * len(pairs))
    return sorted(out)


def ref_quixo(text, to_move):
    return _sides(text, "X", "O", to_move == "O")


def reference(key, board):
    text = board.to_string()
    if key in ("clobber", "quixo"):
        return {"clobber": ref_clobber, "quixo": ref_quixo}[key](text, board.to_move)
    return {"ttt": ref_ttt, "uttt": ref_uttt, "connect4": ref_connect4}[key](text)


def random_positions(key, n, seed, **options):
    rng = random.Random(seed)
    game = games.get(key)
    out = []
    for _ in range(n):
        b = game.new_board(**options)
        for _ in range(rng.randrange(0, 120)):
            if b.is_terminal():
                break
            b.push(rng.choice(b.legal_moves))
        out.append(b)
    return out


# ------------------------------------------------------------- features
@pytest.mark.parametrize("key", GAME_KEYS)
def test_every_game_declares_its_feature_set(key):
    options, name, count = SIZES[key]
    g = games.get(key)
    b = g.new_board(**options)
    vf = g.value_features
    assert vf.name(b) == name and vf.count(b) == count
    assert vf.options(name) == options
    assert vf.options(re.sub(r"v(\d+)$", lambda m: f"v{int(m.group(1)) + 1}", name)) is None
    assert ValueNetwork.random(key, hidden=8, **options).num_features == count


@pytest.mark.parametrize("key", GAME_KEYS)
def test_features_equal_the_reference_on_random_positions(key):
    options = {"clobber": {"rows": 4, "cols": 5}, "quixo": {"size": 4}}.get(key, {})
    for b in random_positions(key, 40, 7, **options):
        got = features(b)
        assert got.dtype == np.int32
        assert list(got) == reference(key, b), b.to_string()


def test_uttt_hand_made_position_won_drawn_and_forced_boards():
    cells = ["."] * 81
    for c in (0, 1, 2):                      # board 0: X's top row
        cells[c] = "X"
    for c in (30, 40, 50):                   # board 4: O's diagonal
        cells[c] = "O"
    for k, ch in enumerate("XOXXOOOXX"):     # board 8: full, no line
        cells[9 * (6 + k // 3) + 6 + k % 3] = ch
    b = games.get("uttt").from_string("".join(cells) + ":1")
    assert b.to_move == "O" and b.forced_board == 1
    got = list(features(b))
    assert 162 + 0 in got and 171 + 4 in got and 180 + 8 in got and 189 + 1 in got
    assert 198 in got
    assert got == ref_uttt(b.to_string())
    free = games.get("uttt").from_string("".join(cells) + ":*")
    assert not [f for f in features(free) if 189 <= f < 198]


def test_uttt_hand_made_threats_local_and_big():
    """Threats read by hand: X two in a row in board 1 (its third cell open);
    in board 4 O's top row is blocked by X, its left column open; X has won
    boards 0 and 2, so the open board 1 completes X's top big-board line, and
    no board completes one of O's."""
    cells = ["."] * 81
    for c in (0, 1, 2, 6, 7, 8):             # boards 0 and 2: X's top rows
        cells[c] = "X"
    cells[3], cells[4] = "X", "X"            # board 1: X on its cells 0 and 1
    for c in (30, 31, 39, 45, 57, 68, 76, 80):   # O: board 4 cells 0, 1 and 3, ...
        cells[c] = "O"
    cells[32] = "X"                          # ... whose cell 2 X has taken
    b = games.get("uttt").from_string("".join(cells) + ":*")
    got = set(features(b).tolist())
    assert {f - 199 for f in got if 199 <= f < 280} == {5}     # board 1's cell 2
    assert {f - 280 for f in got if 280 <= f < 361} == {48}    # board 4's cell 6
    assert {f - 361 for f in got if f >= 361} == {1}           # X's big line 0-1-2
    assert sorted(got) == ref_uttt(b.to_string())


def test_hand_made_positions_of_the_other_games():
    b = games.get("ttt").from_string("XO.......")
    assert list(features(b)) == [0, 10]                       # X to move: no 18
    c4 = games.get("connect4").from_string("......./......./......./......./......./X.....O")
    assert list(features(c4)) == [35, 42 + 41]                # bottom row, X on a, O on g
    # X's three across the bottom: its threat on d (bottom row, playable now) and
    # O's three up column g: its threat on g's fourth cell (playable now)
    c4 = games.get("connect4").from_string("......./......./......./......O/......O/XXX...O")
    assert list(features(c4)) == [35, 36, 37, 42 + 27, 42 + 34, 42 + 41, 84 + 38,
                                  126 + 20, 168 + 3, 175 + 6]
    # X's three on the second row: a threat on a (playable now) and on e (not yet)
    c4 = games.get("connect4").from_string("......./......./......./......./.XXX.../OOOX...")
    assert [f for f in features(c4) if f >= 84] == [84 + 28, 84 + 32, 168 + 0, 182]
    cl = games.get("clobber").Board.from_string("B W\nW _", to_move="W")
    # B on 0 with 2 enemies, W on 1 and 2 with one each; B-W on the edges 0-1
    # (horizontal 0) and 0-2 (vertical 2, after the 2 horizontal ones); W to move
    assert list(features(cl)) == [2 * 4 + 0, 6 * 4 + 1, 6 * 4 + 2, 40 + 0, 40 + 4, 48]
    q = games.get("quixo").Board.from_string(" O XXO                 X ", to_move="X")
    assert list(features(q)) == [3, 4, 23, 25 + 1, 25 + 5]


# ------------------------------------------------------------- symmetries
def _maps(rows, cols, square):
    n = rows - 1
    m = [lambda r, c: (r, c), lambda r, c: (r, cols - 1 - c), lambda r, c: (rows - 1 - r, c),
         lambda r, c: (rows - 1 - r, cols - 1 - c)]
    if square:
        m += [lambda r, c: (c, r), lambda r, c: (c, n - r), lambda r, c: (n - c, r),
              lambda r, c: (n - c, n - r)]
    return m


def _images(key, board):
    """Feature lists of the board's images under the game's symmetries, built
    by moving the marks of its text."""
    text = board.to_string()
    g = games.get(key)
    out = []
    if key in ("ttt", "uttt"):
        size = 3 if key == "ttt" else 9
        cells, _, forced = text.partition(":")
        for f, big in zip(_maps(size, size, True), _maps(3, 3, True)):
            new = ["."] * (size * size)
            for i, ch in enumerate(cells):
                r, c = f(*divmod(i, size))
                new[size * r + c] = ch
            t = "".join(new)
            if key == "uttt":       # the forced board moves as the big board does
                if forced != "*":
                    r, c = big(*divmod(int(forced), 3))
                    forced_image = str(3 * r + c)
                t += ":" + (forced_image if forced != "*" else "*")
            out.append(sorted(reference(key, _Text(t, board.to_move))))
    elif key == "connect4":
        rows = text.split("/")
        out = [ref_connect4(text), ref_connect4("/".join(r[::-1] for r in rows))]
    else:
        rows, cols = board.rows, board.cols
        grid = [r.split() for r in text.split("\n")] if key == "clobber" else \
            [list(text[i * cols:(i + 1) * cols]) for i in range(rows)]
        for f in _maps(rows, cols, rows == cols):
            new = [[None] * cols for _ in range(rows)]
            for r in range(rows):
                for c in range(cols):
                    rr, cc = f(r, c)
                    new[rr][cc] = grid[r][c]
            t = "\n".join(" ".join(r) for r in new) if key == "clobber" else \
                "".join("".join(r) for r in new)
            out.append(reference(key, _Text(t, board.to_move)))
    assert g is not None
    return out


class _Text:
    def __init__(self, text, to_move):
        self.text, self.to_move = text, to_move

    def to_string(self):
        return self.text


@pytest.mark.parametrize("key", GAME_KEYS)
def test_symmetries_map_features_to_the_features_of_the_image(key):
    options = {"clobber": {"rows": 3, "cols": 4}, "quixo": {"size": 4}}.get(key, {})
    g = games.get(key)
    for b in random_positions(key, 15, 3, **options):
        perms = g.value_features.symmetries(b)
        assert list(perms[0]) == list(range(perms.shape[1]))
        assert all(sorted(p) == list(range(perms.shape[1])) for p in perms)
        mapped = sorted(tuple(sorted(p[features(b)])) for p in perms)
        assert mapped == sorted(tuple(x) for x in _images(key, b))


@pytest.mark.parametrize("key", GAME_KEYS)
def test_symmetries_are_the_ones_the_game_declares(key, monkeypatch):
    """The features' symmetries come from the game's one declaration (its entry's
    ``symmetries``, which self-play reads too): as many as it gives, and none beyond
    the identity when the game declares none."""
    import dataclasses

    from ttt_engine import _registry, _symmetry
    from ttt_engine.selfplay import symmetries
    g = games.get(key)
    b = random_positions(key, 1, 2, **SIZES[key][0])[0]
    declared = symmetries(key, b.observation_shape, b.num_actions)
    assert len(g.value_features.symmetries(b)) == len(declared) > 1
    entries = _registry.GAMES._entries          # the loaded entries (g is among them)
    monkeypatch.setitem(entries, key, dataclasses.replace(g, symmetries=None))
    assert g.value_features.symmetries(b).tolist() == [list(range(g.value_features.count(b)))]
    monkeypatch.setitem(entries, key, dataclasses.replace(g, symmetries=_symmetry.identity))
    assert len(g.value_features.symmetries(b)) == 1


# ------------------------------------------------------------- the file
def _dense_value(net, active):
    x = np.zeros(net.num_features)
    x[active] = 1
    h = np.clip(x @ net.w1.astype(np.float64) + net.b1, 0, 1)
    return float(np.tanh(h @ net.w2.astype(np.float64) + float(net.b2)))


@pytest.mark.parametrize("key", GAME_KEYS)
def test_reference_value_and_round_trip(key, tmp_path):
    options = SIZES[key][0]
    net = ValueNetwork.random(key, hidden=32, seed=5, **options)
    path = tmp_path / "v.npz"
    net.save(path)
    back = load(path)
    assert back.game == key and back.features == net.features and back.meta == net.meta
    values = []
    for b in random_positions(key, 10, 1, **options):
        v = back.value(b)
        assert v == net.value(b)
        assert abs(v - _dense_value(net, reference(key, b))) < 1e-5
        values.append(v)
    assert max(values) - min(values) > 1e-3          # the hidden units are not all clipped
    with np.load(path) as z:                           # plain numpy reads it
        assert str(z["kind"]) == "value_network" and int(z["version"]) == 1
        assert json.loads(str(z["meta"])) == net.meta


def _write(path, **changes):
    net = ValueNetwork.random("uttt", hidden=8, seed=1)
    fields = dict(kind=np.str_("value_network"), version=np.int64(1), game=np.str_("uttt"),
                  features=np.str_("uttt-v2"), w1=net.w1, b1=net.b1, w2=net.w2,
                  b2=np.float32(0.1), meta=np.str_("{}"))
    fields.update(changes)
    fields = {k: v for k, v in fields.items() if v is not None}
    np.savez(path, **fields)
    return path


@pytest.mark.parametrize("changes, message", [
    (dict(kind=np.str_("ttt_engine.Network")), r"is a 'ttt_engine.Network' file, not a value"),
    (dict(version=np.int64(2)), r"version 2; this ttt_engine reads version 1"),
    (dict(game=np.str_("chess")), r"game 'chess' is not a game of this ttt_engine"),
    (dict(features=np.str_("uttt-v3")), r"feature set 'uttt-v3' is not one of Ultimate"),
    # a file of the feature set before the threats: refused, both sets named
    (dict(features=np.str_("uttt-v1"), w1=np.zeros((199, 8), np.float32)),
     r"feature set 'uttt-v1' is not one of Ultimate Tic-Tac-Toe's \(e.g. uttt-v2\)"),
    (dict(game=np.str_("connect4"), features=np.str_("connect4-v2")),
     r"w1 has 379 feature rows but the feature set connect4-v2 has 183"),
    # a file of the feature set before the threats: refused, both sets named
    (dict(game=np.str_("connect4"), features=np.str_("connect4-v1"),
          w1=np.zeros((85, 8), np.float32)),
     r"feature set 'connect4-v1' is not one of Connect Four's \(e.g. connect4-v2\)"),
    (dict(w1=np.zeros((379, 8))), r"'w1' must be float32, got float64"),
    (dict(b1=np.zeros(9, np.float32)), r"b1 must have shape \(8,\)"),
    (dict(b2=np.zeros(1, np.float32)), r"b2 must have shape \(\)"),
    (dict(w1=np.full((379, 8), np.nan, np.float32)), r"w1 holds NaN or infinite"),
    (dict(w2=np.full(8, np.inf, np.float32)), r"w2 holds NaN or infinite"),
    (dict(meta=None), r"without field\(s\) meta"),
    (dict(meta=np.str_("{oops")), r"'meta' is not JSON"),
    (dict(meta=np.str_("[1]")), r"'meta' must be a JSON object"),
])
def test_every_refusal_is_one_line(tmp_path, changes, message):
    path = _write(tmp_path / "bad.npz", **changes)
    with pytest.raises(ValueError, match=message) as e:
        load(path)
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_another_game_damaged_and_other_files_are_refused(tmp_path):
    path = _write(tmp_path / "ok.npz")
    assert load(path, game="uttt").hidden == 8
    with pytest.raises(ValueError, match=r"is a value network for Ultimate Tic-Tac-Toe, not for "
                                         r"Connect Four"):
        load(path, game="connect4")
    data = path.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match="not a readable ttt_engine model"):
        load(cut)
    text = tmp_path / "t.npz"
    text.write_text("hello")
    with pytest.raises(ValueError, match="not a zip archive"):
        load(text)
    assert zipfile.is_zipfile(path)
    net = load(path)
    with pytest.raises(ValueError, match="for Ultimate Tic-Tac-Toe, not Connect Four"):
        net.value(games.get("connect4").new_board())
    small = ValueNetwork.random("clobber", hidden=4, rows=6, cols=5)
    with pytest.raises(ValueError, match="clobber-6x5-v2; the board's is clobber-5x5-v2"):
        small.value(games.get("clobber").new_board(rows=5, cols=5))


def test_save_is_atomic_and_refuses_a_folder(tmp_path):
    net = ValueNetwork.random("ttt", hidden=4)
    net.save(tmp_path / "a.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["a.npz"]
    with pytest.raises(OSError):
        net.save(tmp_path)


# ------------------------------------------------------------- labelling
def test_labelling_is_reproducible_and_independent_of_chunking(tmp_path):
    a = L.label_game("uttt", {}, 300, 11, 8)
    assert a == L.label_game("uttt", {}, 300, 11, 8)
    moves, values, exact, branches = a
    assert branches == []
    assert len(moves) == len(values) == len(exact) and all(-1 <= v <= 1 for v in values)
    assert L.label_game("uttt", {}, 300, 12, 8)[0] != moves
    L.label(tmp_path / "one", "ttt", 4, 300, seed=3, games_per_chunk=4, progress=False)
    L.label(tmp_path / "two", "ttt", 4, 300, seed=3, games_per_chunk=1, progress=False)
    x1, y1, e1, g1, _ = L.load_positions(tmp_path / "one")
    x2, y2, e2, g2, _ = L.load_positions(tmp_path / "two")
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2) and np.array_equal(g1, g2)
    # every position's features are those of the game's replay
    with np.load(tmp_path / "one" / "chunk-00000.npz") as z:
        moves, offsets, ply = z["moves"], z["offsets"], z["position_ply"]
        game = z["position_game"]
        for i in range(len(ply)):
            b = games.get("ttt").new_board()
            for m in moves[offsets[game[i]]:offsets[game[i]] + ply[i]]:
                b.push(int(m))
            assert list(np.flatnonzero(z["features"][i])) == ref_ttt(b.to_string())


def test_branch_labels_positions_off_the_played_line(tmp_path):
    """``branch``: each played position also gives one position 1..branch
    random plies off the line, labelled by the same search; the chunk keeps
    them after the game's own positions, flagged ``off_line``, with the
    features of a board reached that way."""
    moves, values, exact, branches = L.label_game("ttt", {}, 300, 5, 0, branch=2)
    assert branches and len(branches) <= len(moves)
    for ply, off, value, proven in branches:
        line = games.get("ttt").new_board()
        for m in moves[:ply]:
            line.push(m)
        assert 1 <= len(off.moves) - ply <= 2 and off.moves[:ply] == line.moves
        assert -1 <= value <= 1 and not off.is_terminal()
    out = tmp_path / "b"
    L.label(out, "ttt", 3, 300, seed=3, games_per_chunk=3, progress=False, branch=2)
    with np.load(out / "chunk-00000.npz") as z:
        off, game = z["off_line"], z["position_game"]
        assert (~off).sum() == len(z["moves"]) and off.any()
        for j in range(3):                  # each game's own positions, then its branches
            mine = off[game == j]
            assert not mine[:(~mine).sum()].any()
    # a run keeps its branch setting: another one is refused, the same resumes
    with pytest.raises(ValueError, match="branch=2"):
        L.label(out, "ttt", 3, 300, seed=3, games_per_chunk=3, progress=False)
    assert L.label(out, "ttt", 6, 300, seed=3, games_per_chunk=3, progress=False,
                   branch=2) == 2


def test_labelling_on_worker_processes_gives_the_same_labels(tmp_path):
    L.label(tmp_path / "serial", "ttt", 4, 200, seed=5, games_per_chunk=2, progress=False)
    L.label(tmp_path / "pool", "ttt", 4, 200, seed=5, games_per_chunk=1, workers=2,
            progress=False)
    a, b = L.load_positions(tmp_path / "serial"), L.load_positions(tmp_path / "pool")
    assert all(np.array_equal(p, q) for p, q in zip(a[:4], b[:4]))


def test_labels_are_exact_where_the_game_ends():
    for seed in range(20):                 # random games until one is won
        moves, values, exact, _ = L.label_game("ttt", {}, 2000, seed, 9)
        b = games.get("ttt").new_board()
        for m in moves:
            b.push(m)
        if b.winner != "draw":
            break
    assert b.winner in ("X", "O")
    assert exact[-1] and values[-1] == 1.0          # the winning move was proven


def test_labelling_resumes_and_refuses_another_run(tmp_path):
    out = tmp_path / "run"
    L.label(out, "ttt", 6, 200, seed=1, games_per_chunk=2, progress=False)
    first = (out / "chunk-00001.npz").read_bytes()
    os.unlink(out / "chunk-00001.npz")
    assert L.label(out, "ttt", 6, 200, seed=1, games_per_chunk=2, progress=False) == 3
    with np.load(out / "chunk-00001.npz") as a, np.load(__import__("io").BytesIO(first)) as b:
        assert all(np.array_equal(a[k], b[k]) for k in a.files if k != "seconds")
    with pytest.raises(ValueError, match="simulations=200, not 300.*--force"):
        L.label(out, "ttt", 6, 300, seed=1, games_per_chunk=2, progress=False)
    assert L.label(out, "ttt", 2, 300, seed=1, games_per_chunk=2, force=True,
                   progress=False) == 1


def test_labelling_with_a_network_is_the_next_round(tmp_path):
    """``network``: the positions are labelled by the search with that value
    network (TTT's, fitted to every exact value: the empty board's label is
    its value, a draw, where a playout search's is not); the run records the
    file's identity and refuses to resume once the file changed."""
    shipped = os.path.join(os.path.dirname(L.__file__), "..", "networks", "ttt_value.npz")
    net_file = tmp_path / "ttt_value.npz"
    net_file.write_bytes(open(shipped, "rb").read())
    ident = L.network_identity(net_file, "ttt")
    moves, values, exact, _ = L.label_game("ttt", {}, 30, 4, 0, search=NETWORK_MCTS,
                                           network=ident)
    assert abs(values[0]) < 0.1
    assert L.label_game("ttt", {}, 30, 4, 0, search=NETWORK_MCTS,
                        network=ident) == (moves, values, exact, [])
    assert abs(L.label_game("ttt", {}, 30, 4, 0)[1][0]) > 0.1      # playouts
    out = tmp_path / "run"
    assert L.label(out, "ttt", 4, 30, seed=1, games_per_chunk=2, progress=False,
                   network=net_file) == 2
    settings = L.read_settings(out)
    assert settings["network"] == ident and settings["search"] == NETWORK_MCTS
    with pytest.raises(ValueError, match="network=.*, not None"):
        L.label(out, "ttt", 6, 30, seed=1, games_per_chunk=2, progress=False)
    net_file.write_bytes(open(shipped, "rb").read() + b"\0")     # another file now
    with pytest.raises(ValueError, match="network="):
        L.label(out, "ttt", 6, 30, seed=1, games_per_chunk=2, progress=False,
                network=net_file)
    other = os.path.join(os.path.dirname(shipped), "uttt_value.npz")
    with pytest.raises(ValueError, match="not for Tic-Tac-Toe"):
        L.label(tmp_path / "x", "ttt", 2, 30, progress=False, network=other)


# ------------------------------------------------------------- training
@pytest.fixture(scope="module")
def ttt_labels(tmp_path_factory):
    out = tmp_path_factory.mktemp("lab") / "ttt"
    L.label(out, "ttt", 60, 400, seed=2, games_per_chunk=20, progress=False)
    return out


def test_training_lowers_the_loss(ttt_labels, tmp_path):
    pytest.importorskip("jax")
    from ttt_engine.valuenet import fit
    net, history = fit.train(ttt_labels, tmp_path / "n.npz", hidden=32, passes=10,
                             batch_size=32, learning_rate=1e-2, seed=1, holdout=0.2,
                             progress=False)
    x, y, _, game_ids, _ = L.load_positions(ttt_labels)
    train = ~fit.held_out(game_ids, 0.2)
    zero = float(np.mean(y[train] ** 2))           # the loss of the value 0 everywhere
    assert history[-1]["train_mse"] < 0.8 * history[0]["train_mse"]
    assert history[-1]["train_mse"] < 0.8 * zero
    values = net.values(x[train])
    assert abs(float(np.mean((values - y[train]) ** 2)) - history[-1]["train_mse"]) < 0.05
    assert load(tmp_path / "n.npz").meta["history"] == history
    with pytest.raises(ValueError, match="exists; pass --force"):
        fit.train(ttt_labels, tmp_path / "n.npz", passes=1, progress=False)


def test_an_interrupted_training_resumes_to_the_same_network(ttt_labels, tmp_path):
    pytest.importorskip("jax")
    from ttt_engine.valuenet import fit
    kw = dict(hidden=16, passes=4, batch_size=32, seed=4, progress=False)
    whole, _ = fit.train(ttt_labels, tmp_path / "whole.npz", **kw)

    def stop_after_two(text):
        if text.startswith("pass 2:"):
            raise KeyboardInterrupt

    out = tmp_path / "cut.npz"
    with pytest.raises(KeyboardInterrupt):
        fit.train(ttt_labels, out, log=stop_after_two, **kw)
    assert not out.exists() and os.path.exists(fit.checkpoint_path(out))
    with pytest.raises(ValueError, match="passes=4, not 5"):
        fit.train(ttt_labels, out, resume=True, **dict(kw, passes=5))
    resumed, history = fit.train(ttt_labels, out, resume=True, **kw)
    assert [h["pass"] for h in history] == [1, 2, 3, 4]
    assert np.allclose(resumed.w1, whole.w1, atol=1e-6)
    assert np.allclose(resumed.w2, whole.w2, atol=1e-6)


def test_console_commands(tmp_path, capsys):
    pytest.importorskip("jax")
    out = str(tmp_path / "lab")
    assert main(["valuenet", "label", "--game", "ttt", "--out", out, "--games", "4",
                 "--simulations", "200", "--quiet"]) == 0
    assert main(["valuenet", "label", "--game", "ttt", "--out", out, "--games", "4",
                 "--simulations", "300", "--quiet"]) == 2
    assert "not 300" in capsys.readouterr().err
    net = str(tmp_path / "v.npz")
    args = ["valuenet", "train", "--data", out, "--out", net, "--passes", "1", "--hidden", "8",
            "--quiet"]
    assert main(args) == 0
    assert main(args) == 2
    assert "--force" in capsys.readouterr().err
    assert main(args + ["--force"]) == 0
    assert main(["valuenet", "train", "--data", str(tmp_path / "none"), "--out", net]) == 2


@pytest.mark.parametrize("key,size", [("clobber", "3x3"), ("quixo", "3"), ("uttt", None)])
def test_console_labels_every_game(tmp_path, capsys, key, size):
    """The console's labelling runs for every game, whatever its labelling
    search's settings (Clobber's name no playout policy)."""
    out = str(tmp_path / key)
    args = ["valuenet", "label", "--game", key, "--out", out, "--games", "1",
            "--simulations", "20", "--games-per-chunk", "1"]
    assert main(args + (["--size", size] if size else [])) == 0
    assert f"Labelling {games.get(key).title}" in capsys.readouterr().out
    assert len(labels.load_positions(out)[1]) > 0


@pytest.mark.parametrize("key", sorted(SIZES))
def test_the_shipped_value_networks_load_and_tell_the_side_to_move(key):
    path = os.path.join(os.path.dirname(games.__file__), "networks", f"{key}_value.npz")
    net = load(path, game=key)
    assert net.features == SIZES[key][1] and net.hidden >= 64
    assert net.meta["positions"] > 4_000 and net.meta["history"]
    b = games.get(key).new_board()
    if key == "connect4":
        # fitted to exact labels: the start is the first player's win (Allis, 1988)
        assert net.value(b) > 0.5
    else:
        assert -0.5 < net.value(b) < 0.5             # the start is open
