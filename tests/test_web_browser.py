"""The web page in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium; .ci/run installs them).  Skipped, with
the reason, where no browser is installed.

Set ``TTT_ENGINE_SCREENSHOTS=DIR`` to keep the screenshots (docs/web.md uses them).
"""
import os
import shutil
import threading
import time

import httpx

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

MAX_TIME = 30.0          # long enough that a test sees a search still running on a loaded machine


@pytest.fixture(scope="module")
def url():
    from ttt_engine.web.server import bind, make_server, url_of
    sock = bind("127.0.0.1", 0)
    server = make_server(sock, {"max_time": MAX_TIME, "workers": 2})
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    yield url_of(sock)
    server.stopping.set()                   # as Ctrl-C does: open streams end first
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


# ---------------------------------------------------------------------------- analysis board
def searches(url):
    """The server's count of running searches."""
    return httpx.get(url + "api/status", timeout=5).json()["searches"]


def wait_for(predicate, timeout, step=0.02):
    """Seconds until ``predicate()`` held (None if it never did within ``timeout``)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if predicate():
            return time.monotonic() - t0
        time.sleep(step)
    return None


def open_record(d, url, fragment):
    d.get("about:blank")
    d.get(url + "#" + fragment)
    idle(d)


def engine_on(d, engine, seconds=None):
    choose(d, "#an-engine", engine)
    if seconds is not None:
        set_budget(d, "#engine-an", "time", seconds)
    css(d, "#engine-on").click()


def test_engine_on_updates_live_and_stops_when_switched_off(page, url):
    choose(page, "#game", "uttt")
    engine_on(page, "mcts", 2)
    # several updates arrive while the 2-s search runs, each saying how far it got
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 2, 2.5) is not None
    assert "mcts" in css(page, "#an-title").text
    stats = css(page, "#an-stats").text
    assert "simulations" in stats and "sims/s" in stats and stats.endswith(" s")
    assert css(page, "#evaltext").text.startswith(("X ", "O "))
    assert wait_for(lambda: body(page, "live") == "done", 4) is not None
    assert int(body(page, "updates")) >= 4
    lines = page.execute_script(
        "return [...document.querySelectorAll('#an-lines li')].map((li) => li.textContent)")
    assert len(lines) == 3                               # MCTS multi-PV: the top three moves'
    assert float(css(page, "#an-stats").text.split(" · ")[-1][:-2]) >= 1.9
    assert wait_for(lambda: searches(url) == 0, 1.0) is not None
    # a long search, switched off: it stops on the server
    set_budget(page, "#engine-an", "time", MAX_TIME)
    css(page, "#engine-on").click()
    css(page, "#engine-on").click()
    assert wait_for(lambda: searches(url) == 1, 3) is not None
    css(page, "#engine-on").click()
    assert wait_for(lambda: searches(url) == 0, 1.0) is not None


def test_engine_follows_the_position_and_the_arrow_keys(page, url, tmp_path):
    from selenium.webdriver.common.keys import Keys
    open_record(page, url, "game=connect4&moves=4453")
    assert body(page, "ply") == "4"
    engine_on(page, "alphabeta")                         # depth by depth, within the time cap
    assert wait_for(lambda: body(page, "updates") not in ("", "0"), 5) is not None
    lines = page.execute_script(
        "return [...document.querySelectorAll('#an-lines li')].map((li) => li.textContent)")
    assert len(lines) >= 2 and all(len(li.split()) >= 3 for li in lines)      # multi-PV
    shot(page, "web-live.png", tmp_path)
    keys = css(page, "body")
    keys.send_keys(Keys.ARROW_LEFT)
    idle(page)
    assert body(page, "ply") == "3"
    assert wait_for(lambda: body(page, "updates") not in ("", "0"), 5) is not None
    assert "depth" in css(page, "#an-stats").text
    keys.send_keys(Keys.HOME)
    idle(page)
    assert body(page, "ply") == "0"
    keys.send_keys(Keys.END)
    idle(page)
    assert body(page, "ply") == "4"
    assert page.execute_script("return S.allTexts") == ["4", "4", "5", "3"]
    # one search at a time: each new position stopped the one before
    assert wait_for(lambda: searches(url) <= 1, 1.0) is not None
    css(page, "#engine-on").click()
    assert wait_for(lambda: searches(url) == 0, 1.0) is not None


def test_a_search_stops_when_the_page_goes_away(page, url):
    choose(page, "#game", "uttt")
    engine_on(page, "mcts", MAX_TIME)
    assert wait_for(lambda: searches(url) == 1, 3) is not None
    page.get("about:blank")
    assert wait_for(lambda: searches(url) == 0, 1.0) is not None


def test_an_exported_game_reimports_to_the_same_position(page, url):
    open_record(page, url, "game=connect4&moves=4453")
    record = css(page, "#download").get_attribute("data-record")
    assert record == "game: connect4\nmoves: 4453\n"
    assert "moves=4453" in page.current_url
    svg = css(page, "#board svg").get_attribute("outerHTML")
    css(page, "#new").click()
    idle(page)
    assert body(page, "ply") == "0"
    css(page, "#records summary").click()
    css(page, "#record-text").send_keys(record)
    css(page, "#load-record").click()
    idle(page)
    assert body(page, "ply") == "4"
    assert css(page, "#board svg").get_attribute("outerHTML") == svg
    # a bad move list: the board stays, one line names the character
    text = css(page, "#record-text")
    text.clear()
    text.send_keys("44538")
    css(page, "#load-record").click()
    idle(page)
    assert "move 5 '8' of '44538'" in css(page, "#error").text and body(page, "ply") == "4"
    # a bad address: the start position and that line
    open_record(page, url, "game=connect4&moves=4458")
    assert body(page, "ply") == "0" and "move 4 '8'" in css(page, "#error").text
    # a position pasted (Tic-Tac-Toe's to_string) and the game's own move list
    open_record(page, url, "game=ttt&start=XX.OO....")
    assert body(page, "ply") == "0" and "X to move" in css(page, "#status").text
    assert len([c for c in all_css(page, "#cells button") if c.is_enabled()]) == 5


def test_review_marks_an_exact_blunder(page, url, tmp_path):
    # X: 5, 1 (O: 2, 9); 3 throws away the win (4 or 7 wins)
    open_record(page, url, "game=ttt&moves=5+2+1+9+3")
    assert body(page, "ply") == "5"
    css(page, "#review").click()
    idle(page)
    assert body(page, "review") == "done"
    items = all_css(page, "#movelist li")
    assert "blunder" in items[1].get_attribute("class")          # 2: O threw away the draw
    assert "threw away the draw" in items[1].get_attribute("title")
    assert "blunder" in items[4].get_attribute("class") and items[4].text == "3??"
    assert "threw away the win (X wins in 3 → draw)" in items[4].get_attribute("title")
    assert not items[0].get_attribute("class").strip("current ").strip()
    assert int(css(page, "#graph").get_attribute("data-points")) == 6
    # a point of the graph jumps to its move
    css(page, "#graph circle[data-ply='2']").click()
    idle(page)
    assert body(page, "ply") == "2"
    shot(page, "web-review.png", tmp_path)


def test_flip_board_and_a_phone_sized_window(page, url, tmp_path):
    css(page, "#flip-board").click()
    assert "flipped" in css(page, "#board-wrap").get_attribute("class")
    # the board turns for 0.2 s: a click during the turn can land on another element
    wait_for(lambda: page.execute_script(
        "return document.getElementById('board-wrap').getAnimations().length === 0"), 10)
    css(page, "#cells button[data-r='0'][data-c='0']").click()     # still cell 1
    idle(page)
    assert all_css(page, "#movelist li")[0].text == "1"
    page.set_window_size(375, 800)
    try:
        page.get(url)
        idle(page)
        width = page.execute_script("return document.documentElement.scrollWidth")
        assert width <= 375, f"the page is {width} px wide in a 375-px window"
        board = css(page, "#board svg").size["width"]
        assert 250 <= board <= 375
        shot(page, "web-phone.png", tmp_path)
    finally:
        page.set_window_size(1280, 1000)


def test_favicon_and_legend(page, url):
    r = httpx.get(url + "favicon.ico", timeout=5)
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    choose(page, "#game", "uttt")
    legend = css(page, "#legend").text
    assert "*" not in legend and "Dots mark the legal moves" in legend
    assert all_css(page, "#cells button.legal")


def test_lines_include_a_winning_move_of_one_ply(page, url):
    # X to move wins at once with 3: that line is one move long, and it is the best
    open_record(page, url, "game=ttt&moves=1+4+2+5")
    engine_on(page, "perfect")
    assert wait_for(lambda: body(page, "live") == "done", 5) is not None
    lines = page.execute_script(
        "return [...document.querySelectorAll('#an-lines li')].map((li) => li.textContent)")
    assert lines[0].split() == ["win", "in", "1", "3"]
    assert len(lines) == 3
    css(page, "#engine-on").click()


def test_switching_the_game_with_the_engine_on(page, url):
    open_record(page, url, "game=uttt&moves=4,4+3,3")
    engine_on(page, "mcts", MAX_TIME)
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 1, 3) is not None
    choose(page, "#game", "connect4")
    # the engine follows the new game's first position, not the old game's moves
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 2, 3) is not None
    assert css(page, "#error").get_attribute("hidden") is not None, css(page, "#error").text
    assert body(page, "ply") == "0" and body(page, "live") == "running"
    assert css(page, "#an-board svg") and css(page, "#an-best").text.startswith("Best: ")
    assert page.execute_script("return Object.keys(S.evals)") == ["0"]
    css(page, "#engine-on").click()
    assert wait_for(lambda: searches(url) == 0, 1.0) is not None


def test_a_record_of_another_game_loaded_while_the_engine_runs(page, url):
    open_record(page, url, "game=uttt&moves=4,4+3,3")
    engine_on(page, "mcts", MAX_TIME)
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 1, 3) is not None
    # a slow answer for the new position: the old search's updates keep coming meanwhile
    page.execute_script("""const f = window.fetch; window.fetch = async (p, i) => {
        if (p === '/api/position') await new Promise((r) => setTimeout(r, 1000));
        return f(p, i); };""")
    page.execute_script("location.hash = 'game=connect4&moves=4453'")
    time.sleep(0.2)
    idle(page)
    assert body(page, "ply") == "4"
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 1, 3) is not None
    # no point of the UTTT search on the Connect Four graph
    assert page.execute_script("return Object.keys(S.evals)") == ["4"]
    css(page, "#engine-on").click()


def shown_lines(d):
    return d.execute_script(
        "return [...document.querySelectorAll('#an-lines li')].map((li) => li.textContent)")


def test_the_engine_view_never_shows_the_previous_position(page, url):
    from selenium.webdriver.common.keys import Keys
    open_record(page, url, "game=connect4&moves=4453")
    engine_on(page, "mcts", MAX_TIME)
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 1, 3) is not None
    assert shown_lines(page)
    # the new position's search answers late: until then, nothing of the old one is shown
    page.execute_script("""const f = window.fetch; window.fetch = async (p, i) => {
        if (p === '/api/analyse') await new Promise((r) => setTimeout(r, 1500));
        return f(p, i); };""")
    css(page, "body").send_keys(Keys.ARROW_LEFT)
    idle(page)
    assert body(page, "ply") == "3"
    assert shown_lines(page) == [] and css(page, "#an-best").text == ""
    assert not css(page, "#an-view").is_displayed()
    assert wait_for(lambda: int(body(page, "updates") or 0) >= 1, 4) is not None
    assert shown_lines(page) and css(page, "#an-title").text.endswith(" for O (searching...)")
    # switched off: the view of the stopped search goes, not left "searching"
    css(page, "#engine-on").click()
    assert shown_lines(page) == [] and "searching" not in css(page, "#an-title").text


def test_the_engine_view_at_the_end_of_the_game(page, url):
    open_record(page, url, "game=ttt&moves=1+4+2+5")
    engine_on(page, "perfect")
    assert wait_for(lambda: body(page, "live") == "done", 5) is not None
    assert css(page, "#evaltext").text == "X wins in 1"
    css(page, "#cells button[data-r='0'][data-c='2']").click()      # 3: X wins
    idle(page)
    assert body(page, "winner") == "X" and body(page, "live") == "over"
    # the result, not the search of the position before the last move
    assert css(page, "#an-title").text == "X wins."
    assert shown_lines(page) == [] and css(page, "#an-best").text == ""
    css(page, "#engine-on").click()


def test_analyse_this_position_stops_when_the_position_changes(page, url):
    open_record(page, url, "game=connect4&moves=4453")
    choose(page, "#an-engine", "mcts")
    set_budget(page, "#engine-an", "time", 3)
    css(page, "#analyse").click()
    assert wait_for(lambda: len(shown_lines(page)) > 0, 2) is not None
    all_css(page, "#movelist li")[0].click()
    assert wait_for(lambda: body(page, "ply") == "1", 2) is not None
    # its search ends on the server and its view of the other position goes
    assert wait_for(lambda: searches(url) == 0, 1.0) is not None
    time.sleep(0.5)
    assert shown_lines(page) == [] and not css(page, "#an-view").is_displayed()
    idle(page)
    assert css(page, "#error").get_attribute("hidden") is not None


def test_a_solve_answer_belongs_to_its_position(page, url):
    from selenium.webdriver.common.keys import Keys
    open_record(page, url, "game=ttt&moves=1+4+2+5")
    css(page, "#solve").click()
    idle(page)
    assert css(page, "#solve-result").text.startswith("For X: a win in 1 plies")
    # another position shown: the answer was not of it
    css(page, "body").send_keys(Keys.ARROW_LEFT)
    idle(page)
    assert body(page, "ply") == "3" and css(page, "#solve-result").text == ""
    # an answer that comes after the position changed is dropped
    page.execute_script("""const f = window.fetch; window.fetch = async (p, i) => {
        if (p === '/api/solve') await new Promise((r) => setTimeout(r, 1000));
        return f(p, i); };""")
    css(page, "#solve").click()
    css(page, "body").send_keys(Keys.ARROW_LEFT)
    assert wait_for(lambda: body(page, "ply") == "2", 1) is not None
    idle(page)                              # the solve's request has ended
    assert css(page, "#solve-result").text == ""
    assert css(page, "#error").get_attribute("hidden") is not None, css(page, "#error").text


def test_arrow_keys_after_switching_the_engine_on(page, url):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    open_record(page, url, "game=ttt&moves=5+1+9")
    css(page, "#engine-on").click()                      # the checkbox has the focus now
    assert page.execute_script("return document.activeElement.id") == "engine-on"
    ActionChains(page).send_keys(Keys.ARROW_LEFT).perform()
    idle(page)
    assert body(page, "ply") == "2"
    ActionChains(page).send_keys(Keys.HOME).perform()
    idle(page)
    assert body(page, "ply") == "0"
    css(page, "#engine-on").click()
    # typing in a field still types: the keys are its own
    css(page, "#move-text").send_keys("5" + Keys.ARROW_LEFT)
    idle(page)
    assert body(page, "ply") == "0"


def test_a_new_game_during_a_review(page, url):
    open_record(page, url, "game=connect4&moves=4453")
    choose(page, "#an-engine", "mcts")
    set_budget(page, "#engine-an", "time", 1)
    css(page, "#review").click()
    assert wait_for(lambda: page.execute_script("return Object.keys(S.notes).length") >= 1,
                    5) is not None
    choose(page, "#game", "ttt")                         # the review was of the other game
    assert wait_for(lambda: body(page, "review") == "done", 5) is not None
    idle(page)
    time.sleep(1.2)
    assert page.execute_script("return [Object.keys(S.notes), Object.keys(S.evals)]") == [[], []]
    assert css(page, "#review-summary").text == "" and not all_css(page, "#review-list li")
    assert wait_for(lambda: searches(url) == 0, 1.5) is not None


def test_a_pos_link_opens_the_position_with_its_analysis(driver, url):
    """connect4.gamesolver.org's links: ?game=connect4&pos=4453 (columns 1-7) opens that
    position with the engine on it; a bad move keeps the position before it, named."""
    driver.get("about:blank")
    driver.get(url + "?game=connect4&pos=4453&engine=perfect")
    idle(driver)
    assert body(driver, "ply") == "4"
    assert driver.execute_script("return S.allTexts") == ["4", "4", "5", "3"]
    assert css(driver, "#engine-on").is_selected()
    assert wait_for(lambda: body(driver, "updates") not in ("", "0"), 10) is not None
    assert "perfect" in css(driver, "#an-title").text
    # the exact engine scores every column of the position (all seven open)
    rows = all_css(driver, "#an-table tbody tr")
    assert sorted(r.get_attribute("data-move") for r in rows) == [str(c) for c in range(7)]
    assert css(driver, "#an-best").text
    css(driver, "#engine-on").click()
    assert wait_for(lambda: searches(url) == 0, 2.0) is not None
    # a column out of range at move 5: the first four moves stay, the move is named
    driver.get("about:blank")
    driver.get(url + "?game=connect4&pos=445382")
    idle(driver)
    assert body(driver, "ply") == "4"
    assert "move 5 '8' of '445382'" in css(driver, "#error").text
    # another game in its notation: Ultimate Tic-Tac-Toe's 'R,C' moves
    driver.get("about:blank")
    driver.get(url + "?game=uttt&pos=4,4+3,3+0,0")
    idle(driver)
    assert body(driver, "ply") == "3"
    css(driver, "#engine-on").click()
    assert wait_for(lambda: searches(url) == 0, 2.0) is not None
