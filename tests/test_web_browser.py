"""The web page in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium; .ci/run installs them).  Skipped, with
the reason, where no browser is installed.

Set ``TTT_ENGINE_SCREENSHOTS=DIR`` to keep the screenshots (docs/web.md uses them).
"""
import os
import shutil
import threading
import time

import pytest

from ttt_engine import games
from ttt_engine.agents import MCTSAgent

CHROMEDRIVER = os.environ.get("SE_CHROMEDRIVER") or shutil.which("chromedriver") or \
    "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMEDRIVER) and os.path.exists(CHROMIUM)),
    reason="no headless browser: install Debian's chromium and chromium-driver "
           "(apt-get install -y chromium chromium-driver, as .ci/run does)")

MAX_TIME = 5.0


@pytest.fixture(scope="module")
def url():
    from ttt_engine.web.server import bind, make_server, url_of
    sock = bind("127.0.0.1", 0)
    server = make_server(sock, {"max_time": MAX_TIME})
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    yield url_of(sock)
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM
    d = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    yield d
    d.quit()


@pytest.fixture
def page(driver, url):
    driver.get(url)
    idle(driver)
    return driver


def idle(d, timeout=60):
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(d, timeout).until(
        lambda d: d.execute_script("return document.body.dataset.ready === '1' && "
                                   "document.body.dataset.busy === '0'"))


def body(d, key):
    return d.execute_script(f"return document.body.dataset.{key} || ''")


def css(d, sel):
    from selenium.webdriver.common.by import By
    return d.find_element(By.CSS_SELECTOR, sel)


def all_css(d, sel):
    from selenium.webdriver.common.by import By
    return d.find_elements(By.CSS_SELECTOR, sel)


def choose(d, sel, value):
    from selenium.webdriver.support.ui import Select
    Select(css(d, sel)).select_by_value(value)
    idle(d)


def set_budget(d, box, budget, value):
    box_input = css(d, f"{box} .budgets input[data-budget='{budget}']")
    box_input.clear()
    box_input.send_keys(str(value))


def shot(d, name, tmp_path):
    folder = os.environ.get("TTT_ENGINE_SCREENSHOTS") or str(tmp_path)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    d.save_screenshot(path)
    assert os.path.getsize(path) > 1000


def play_by_clicking(d, max_clicks=100):
    """Click the first enabled cell until the game is over; the number of clicks."""
    clicks = 0
    while body(d, "winner") == "":
        cells = [c for c in all_css(d, "#cells button") if c.is_enabled()]
        assert cells, "no clickable cell on a live board with the human to move"
        cells[0].click()
        clicks += 1
        idle(d)
        assert css(d, "#error").get_attribute("hidden") is not None, css(d, "#error").text
        assert clicks <= max_clicks
    return clicks


def test_tic_tac_toe_against_the_perfect_engine_by_clicking(page, tmp_path):
    assert css(page, "#engine").get_attribute("value") == "perfect"
    clicks = play_by_clicking(page)
    assert body(page, "winner") in ("draw", "O")      # never a win for the clicker (X)
    assert clicks >= 3
    items = all_css(page, "#movelist li")
    assert len(items) == int(body(page, "ply")) and items[0].text
    assert "Draw" in css(page, "#status").text or "O wins" in css(page, "#status").text
    shot(page, "web-ttt.png", tmp_path)
    # the move list goes back to any position
    items[1].click()
    idle(page)
    assert body(page, "ply") == "2" and body(page, "winner") == ""


def test_uttt_game_to_the_end_against_mcts(page):
    choose(page, "#game", "uttt")
    set_budget(page, "#engine-a", "simulations", 200)
    play_by_clicking(page)
    assert body(page, "winner") in ("X", "O", "draw")
    plies = int(body(page, "ply"))
    assert plies >= 17 and len(all_css(page, "#movelist li")) == plies


def test_quixo_move_by_clicking_a_cube_then_a_direction(page, tmp_path):
    choose(page, "#game", "quixo")
    set_budget(page, "#engine-a", "simulations", 300)
    css(page, "#cells button[data-r='0'][data-c='0']").click()
    dirs = all_css(page, "#dirs button")
    assert sorted(b.get_attribute("data-dir") for b in dirs) == ["B", "R"]
    shot(page, "web-quixo-pick.png", tmp_path)
    css(page, "#dirs button[data-dir='R']").click()
    idle(page)
    texts = [li.text for li in all_css(page, "#movelist li")]
    assert texts[0] == "a1R" and len(texts) == 2       # the engine answered
    assert css(page, "#an-table tbody tr.best")        # with its search shown


def test_analysis_view_shows_the_visits_of_the_same_seeded_search(page, tmp_path):
    css(page, "#cells button[data-r='1'][data-c='1']").click()     # X in the centre
    idle(page)
    moves = page.execute_script("return S.moves.slice(0, S.cursor)")
    assert moves[0] == 4 and len(moves) == 2                        # perfect replied
    choose(page, "#an-engine", "mcts")
    set_budget(page, "#engine-an", "simulations", 3000)
    css(page, "#seed").send_keys("7")
    css(page, "#analyse").click()
    idle(page)
    assert body(page, "analysis") == "done"
    rows = all_css(page, "#an-table tbody tr")
    shown = {int(r.get_attribute("data-move")): int(r.find_element(
        "css selector", "td.visits").text.replace(",", "")) for r in rows}
    board = games.get("ttt").new_board()
    for m in moves:
        board.push(m)
    agent = MCTSAgent(simulations=3000, seed=7)
    best = agent.select_move(board)
    assert shown == {c["move"]: c["visits"] for c in agent.last_stats["children"]}
    assert int(css(page, "#an-table tbody tr.best").get_attribute("data-move")) == best
    assert css(page, "#an-board svg") and css(page, "#evalbar").get_attribute("data-evaluation")
    shot(page, "web-analysis.png", tmp_path)
    # a bad typed move: one line on the page, nothing played
    css(page, "#move-text").send_keys("12\n")
    idle(page)
    err = css(page, "#error")
    assert err.is_displayed() and "out of range" in err.text
    assert page.execute_script("return S.moves.length") == 2
