"""``ttt-engine serve``: its options, its one-line errors, loopback only, and
Ctrl-C stopping it within a second while a long search runs."""
import json
import re
import socket
import threading
import time

import httpx
from conftest import interrupt

from ttt_engine.cli import main


def test_serve_help_names_loopback_and_the_extra(capsys):
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "127.0.0.1" in out and "[web]" in out and "--open" in out and "--max-time" in out


def test_serve_bad_options_are_one_line_usage_errors(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be an integer from 0 to 65,535" in err
    assert main(["serve", "--max-time", "0"]) == 2
    assert "in (0, 3600]" in capsys.readouterr().err


def test_serve_takes_a_host_and_plain_decimal_ports_and_workers(capsys):
    for args in (["--host="], ["--host", " "], ["--port", "8790.0"], ["--port", "8.791e3"],
                 ["--port", "8_792"], ["--port", "\u0668\u0667\u0669\u0663"],
                 ["--workers", "1e1"], ["--workers", "2.0"]):
        assert main(["serve", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and args[0].split("=")[0] in err, (args, err)


def test_serve_network_files_are_checked_before_the_server_starts(tmp_path, capsys):
    """``--network``: a missing file, one that is no network, or two files of the
    same game are one line each, and no server starts."""
    from ttt_engine.network import Network
    assert main(["serve", "--port", "0", "--network", str(tmp_path / "none.npz")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--network" in err and "none.npz" in err
    text = tmp_path / "notes.npz"
    text.write_text("not a network\n")
    assert main(["serve", "--port", "0", "--network", str(text)]) == 2
    assert "not a ttt_engine model" in capsys.readouterr().err
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for i, path in enumerate((a, b)):
        Network.init("ttt", hidden=(8,), seed=i).save(path)
    assert main(["serve", "--port", "0", "--network", str(a), "--network", str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "both networks of the same game" in err


def test_two_networks_of_one_game_are_named_as_typed(tmp_path, monkeypatch, capsys):
    """The line names both files as they were given, not one of them made absolute."""
    from ttt_engine.network import Network
    monkeypatch.chdir(tmp_path)
    for i, name in enumerate(("a.npz", "b.npz")):
        Network.init("ttt", hidden=(8,), seed=i).save(name)
    assert main(["serve", "--port", "0", "--network", "a.npz", "--network", "b.npz"]) == 2
    err = capsys.readouterr().err
    assert "--network: a.npz and b.npz are both networks of the same game" in err, err
    assert str(tmp_path) not in err


def test_a_port_in_use_is_one_line(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"port {port} on 127.0.0.1 is in use" in err


def test_ctrl_c_during_a_long_search_stops_the_server_within_a_second(spawn_cli):
    child = spawn_cli(["serve", "--port", "0", "--max-time", "120"])
    child.expect(r"on (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)")
    url = child.match.group(1)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
    assert httpx.get(url + "api/games").status_code == 200
    done = []

    def long_search():            # two minutes of MCTS, unless stopped
        try:
            httpx.post(url + "api/analyse", timeout=150,
                       content=json.dumps({"game": "uttt", "engine": "mcts",
                                           "budgets": {"time": 110}, "stream": True}),
                       headers={"Content-Type": "application/json"})
        except httpx.HTTPError:
            pass
        done.append(True)
    t = threading.Thread(target=long_search, daemon=True)
    t.start()
    time.sleep(1.0)
    # another request is answered while the search runs (off the event loop)
    r = httpx.post(url + "api/position", content=json.dumps({"game": "ttt"}),
                   headers={"Content-Type": "application/json"}, timeout=5)
    assert r.status_code == 200
    out, elapsed = interrupt(child, timeout=5)
    assert child.exitstatus == 130 and "Traceback" not in out
    assert elapsed < 1.0
