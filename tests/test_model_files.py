"""Model files of every learned agent (one header, no pickle), ttt_engine.load,
and the Quixo value files (binary by default, JSON as an export)."""
import json
import zipfile

import numpy as np
import pytest

from conftest import self_play_moves

import ttt_engine
from ttt_engine import quixo, uttt
from ttt_engine.ttt.qagent import QAgent
from ttt_engine.tree_agents import SarsaAgent, TreeQAgent


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    q = ttt_engine.train(20_000, seed=1, progress=False, metrics_every=0)
    q.save(d / "q.npz")
    TreeQAgent(simulations=200, seed=4, A=0.3, max_nodes=100_000).save(d / "treeq.npz")
    SarsaAgent(time=0.5, seed=5, alpha=0.2, gamma=0.9, max_nodes=100_000).save(d / "sarsa.npz")
    table, _ = quixo.collect_values(400, seed=3)
    quixo.GreedyValueAgent(table, epsilon=0.2, unknown=0.4, seed=6).save(d / "greedy.npz")
    quixo.save_values(table, d / "values.npz")
    quixo.save_values(table, d / "values.json")
    return d, q, table


@pytest.mark.parametrize("cls", [TreeQAgent, SarsaAgent])
def test_tree_learner_files_round_trip(tmp_path, cls):
    a = cls(simulations=300, seed=8, epsilon=0.2, max_nodes=100_000, reuse_depth=1)
    p = tmp_path / "agent.npz"
    a.save(p)
    b = cls.load(p)
    assert b._config() == a._config()
    assert self_play_moves(b, uttt.Board(), 4) == self_play_moves(a, uttt.Board(), 4)
    with zipfile.ZipFile(p) as z:
        assert all(n.endswith(".npy") for n in z.namelist())
    t = cls(time=0.25, seed=1, max_nodes=100_000)         # simulations None survives
    t.save(p)
    back = cls.load(p)
    assert back.simulations is None and back.time == 0.25


def test_greedy_agent_file_round_trip(files):
    d, _, table = files
    g = quixo.GreedyValueAgent.load(d / "greedy.npz")
    assert (g.epsilon, g.unknown, g.exact_terminal, g.seed) == (0.2, 0.4, True, 6)
    for a, b in zip(g.values.to_arrays(), table.to_arrays()):
        assert a.tobytes() == b.tobytes()
    orig = quixo.GreedyValueAgent(table, epsilon=0.2, unknown=0.4, seed=6)
    assert self_play_moves(g, quixo.Board(), 30) == self_play_moves(orig, quixo.Board(), 30)


def test_load_opens_every_kind(files):
    d, q, table = files
    assert isinstance(ttt_engine.load(d / "q.npz"), QAgent)
    assert ttt_engine.load(d / "q.npz").q.tobytes() == q.q.tobytes()
    t = ttt_engine.load(d / "treeq.npz")
    assert isinstance(t, TreeQAgent) and (t.simulations, t.seed, t.A) == (200, 4, 0.3)
    s = ttt_engine.load(d / "sarsa.npz")
    assert isinstance(s, SarsaAgent) and (s.time, s.alpha, s.gamma) == (0.5, 0.2, 0.9)
    assert isinstance(ttt_engine.load(d / "greedy.npz"), quixo.GreedyValueAgent)
    v = ttt_engine.load(d / "values.npz")
    assert isinstance(v, quixo.ValueTable) and len(v) == len(table)


@pytest.mark.parametrize("reader, path, message", [
    (QAgent.load, "treeq.npz", (r"treeq.npz is a TreeQAgent \(any game\) file, not a "
                                r"Tic-Tac-Toe QAgent file")),
    (QAgent.load, "greedy.npz", ("greedy.npz is a Quixo GreedyValueAgent file, not a "
                                 "Tic-Tac-Toe QAgent file")),
    (TreeQAgent.load, "sarsa.npz", r"is a SarsaAgent \(any game\) file, not a TreeQAgent"),
    (SarsaAgent.load, "q.npz", r"is a Tic-Tac-Toe QAgent file, not a SarsaAgent"),
    (quixo.GreedyValueAgent.load, "values.npz", ("is a Quixo value table file, not a Quixo "
                                                 "GreedyValueAgent file")),
    (quixo.load_values, "greedy.npz", "is a Quixo GreedyValueAgent file, not a Quixo value table"),
])
def test_foreign_files_are_refused_naming_both(files, reader, path, message):
    d, _, _ = files
    with pytest.raises(ValueError, match=message):
        reader(d / path)


def test_load_refuses_what_is_not_a_model_file(tmp_path, files):
    d, _, _ = files
    cases = {
        "text.npz": b"hello, world\n",
        "empty.npz": b"",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match="not a ttt_engine model") as e:
            ttt_engine.load(tmp_path / name)
        assert "\n" not in str(e.value) and name in str(e.value)
    with pytest.raises(ValueError, match="JSON Quixo value table: read it with ttt_engine.quixo.load_values"):
        ttt_engine.load(d / "values.json")
    np.savez(tmp_path / "plain.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="no 'format_version' field"):
        ttt_engine.load(tmp_path / "plain.npz")
    np.savez(tmp_path / "alien.npz", format_version=np.int64(1), kind=np.str_("other.Thing"))
    with pytest.raises(ValueError, match="unknown model kind 'other.Thing'"):
        ttt_engine.load(tmp_path / "alien.npz")
    with pytest.raises(FileNotFoundError):
        ttt_engine.load(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="directory"):
        ttt_engine.load(tmp_path)


def test_settings_file_with_bad_values_is_refused(tmp_path):
    p = tmp_path / "t.npz"
    TreeQAgent(simulations=10, seed=1, max_nodes=10_000).save(p)
    with np.load(p) as z:
        fields = {k: z[k] for k in z.files}
    fields["epsilon"] = np.float64(7.0)
    np.savez(p, **fields)
    with pytest.raises(ValueError, match=r"t.npz: epsilon must be in \[0, 1\]"):
        TreeQAgent.load(p)
    fields["epsilon"] = np.float64(np.nan)
    np.savez(p, **fields)
    with pytest.raises(ValueError, match="'epsilon' is not finite"):
        TreeQAgent.load(p)
    fields["format_version"] = np.int64(9)
    np.savez(p, **fields)
    with pytest.raises(ValueError, match="unsupported model format version 9"):
        TreeQAgent.load(p)


# ------------------------------------------------------------------ Quixo value files
@pytest.mark.parametrize("size, symmetric", [(5, False), (4, True), (3, False)])
def test_binary_value_file_round_trip_is_exact(tmp_path, size, symmetric):
    table, _ = quixo.collect_values(300, size=size, seed=9, symmetric=symmetric)
    p = tmp_path / "v.npz"
    nbytes = quixo.save_values(table, p)
    assert nbytes == p.stat().st_size
    back = quixo.load_values(p)
    assert back.size == size and back.symmetric == symmetric
    for a, b in zip(table.to_arrays(), back.to_arrays()):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert back.to_json_bytes() == table.to_json_bytes()


def test_binary_is_the_default_and_much_smaller(files, tmp_path):
    d, _, table = files
    with open(d / "values.npz", "rb") as f:
        assert f.read(4) == b"PK\x03\x04"
    assert json.loads((d / "values.json").read_text())          # .json keeps the JSON export
    quixo.save_values(table, tmp_path / "values.dat")
    assert (tmp_path / "values.dat").read_bytes()[:4] == b"PK\x03\x04"
    quixo.save_values(table, tmp_path / "export", format="json")
    assert json.loads((tmp_path / "export").read_text())
    binary, text = (d / "values.npz").stat().st_size, (d / "values.json").stat().st_size
    assert binary * 5 < text
    # both load, to the same table
    a, b = quixo.load_values(d / "values.npz"), quixo.load_values(d / "values.json")
    for x, y in zip(a.to_arrays(), b.to_arrays()):
        assert np.array_equal(x, y) if x.dtype != np.float64 else np.allclose(x, y, rtol=1e-15)
    with pytest.raises(ValueError, match="format must be one of"):
        quixo.save_values(table, tmp_path / "x", format="xml")


def test_corrupt_binary_value_files_are_refused(files, tmp_path):
    d, _, _ = files
    with np.load(d / "values.npz") as z:
        fields = {k: z[k] for k in z.files}
    bad = dict(fields, cells=np.full_like(fields["cells"], 255))
    np.savez(tmp_path / "b1.npz", **bad)
    with pytest.raises(ValueError, match="not a 5x5 board code"):
        quixo.load_values(tmp_path / "b1.npz")
    counts = fields["counts"].copy()
    counts[3] = 0
    np.savez(tmp_path / "b2.npz", **dict(fields, counts=counts))
    with pytest.raises(ValueError, match="entry 3 is not a 5x5 state value"):
        quixo.load_values(tmp_path / "b2.npz")
    np.savez(tmp_path / "b3.npz", **dict(fields, sums=fields["sums"][:-1]))
    with pytest.raises(ValueError, match="must have .* entries"):
        quixo.load_values(tmp_path / "b3.npz")
    cells = fields["cells"].copy()
    cells[1] = cells[0]
    np.savez(tmp_path / "b4.npz", **dict(fields, cells=cells))
    with pytest.raises(ValueError, match="entry 1 repeats key"):
        quixo.load_values(tmp_path / "b4.npz")
