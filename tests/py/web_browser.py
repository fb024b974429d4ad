"""Drives arbiter's web view in headless Chromium (Debian's chromium and
chromedriver, through Selenium) for the end-to-end tests.

    web_browser.py URL SCENARIO SHOTS_DIR [ARGS...]

Scenarios:
  live-tournament ID      the tournament page updates by itself while games end
  replay GAME             open a stored game, step to its last move
  play VARIANT            play a whole game against `random` by clicking the board
  escape VARIANT          a plugin's markup labels render as text, no script runs

Prints one line per check; exits non-zero with the reason on failure.
Screenshots go to SHOTS_DIR as SCENARIO-*.png.
"""

import os
import random
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def browser(profile):
    """Headless Chromium with its profile in the folder `profile`."""
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000",
                 f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def wait_for(what, predicate, timeout=30.0, every=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def click(driver, selector, what):
    """Clicks the element, again if the page redrew it under the click."""
    def attempt():
        try:
            found = driver.find_elements(By.CSS_SELECTOR, selector)
            if found:
                found[0].click()
                return True
        except StaleElementReferenceException:
            pass
        return False
    wait_for(what, attempt)


def text_of(driver, selector):
    """The element's text, or None while it is missing or being redrawn."""
    try:
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0].text if found else None
    except StaleElementReferenceException:
        return None


def no_alert(driver):
    try:
        alert = driver.switch_to.alert
        raise SystemExit(f"a script ran: alert '{alert.text}'")
    except NoAlertPresentException:
        pass


def live_tournament(driver, url, shots, tid):
    driver.get(f"{url}/#/tournaments/{tid}")
    first = wait_for("the standings", lambda: text_of(driver, "#progress"))
    print(f"progress at first: {first}")
    wait_for("a game in progress on a board", lambda: driver.find_elements(By.CSS_SELECTOR, "#live-games .live-game svg g.piece"))
    print(f"games in progress shown: {len(driver.find_elements(By.CSS_SELECTOR, '#live-games .live-game'))}")
    driver.save_screenshot(f"{shots}/live-tournament-games.png")
    driver.save_screenshot(f"{shots}/live-tournament-before.png")
    # No reload: the page must change by itself as games end.
    later = wait_for("the standings to change", lambda: (t := text_of(driver, "#progress")) and t != first and t, timeout=90)
    print(f"progress later: {later}")
    tables = driver.find_elements(By.CSS_SELECTOR, "table.standings")
    crosstables = driver.find_elements(By.CSS_SELECTOR, "table.cross")
    if len(tables) != 3 or len(crosstables) != 3:
        raise SystemExit(f"expected standings and a crosstable overall and per variant, found {len(tables)} and {len(crosstables)}")
    rows = tables[0].find_elements(By.CSS_SELECTOR, "tr")
    names = sorted(r.find_elements(By.CSS_SELECTOR, "td")[1].text for r in rows[1:])
    if names != ["alpha", "beta"]:
        raise SystemExit(f"standings rows: {names}")
    print(f"standings: {len(tables)} tables, players {names}")
    driver.save_screenshot(f"{shots}/live-tournament-after.png")


def replay(driver, url, shots, game):
    # The game list, filtered by the game's variant, leads to the game.
    driver.get(f"{url}/#/games")
    everything = wait_for("the game list", lambda: text_of(driver, "#game-count"))
    variant = driver.execute_script(f"return (await (await fetch('/api/games/{game}')).json()).variant;")
    driver.find_element(By.CSS_SELECTOR, f'select[name="variant"] option[value="{variant}"]').click()
    driver.find_element(By.CSS_SELECTOR, "form.filters button").click()
    filtered = wait_for("the filtered list", lambda: (t := text_of(driver, "#game-count")) and t != everything and t)
    print(f"game list: {everything}; {variant} only: {filtered}")
    driver.save_screenshot(f"{shots}/games-{variant}.png")
    click(driver, f'tr[data-game="{game}"]', "the game's row")
    wait_for("the game viewer", lambda: text_of(driver, "#ply"))
    driver.find_element(By.ID, "first").click()
    start = text_of(driver, "#ply")
    assert start.startswith("Ply 0 of "), start
    total = int(start.split(" of ")[1].split(":")[0])
    driver.find_element(By.ID, "next").click()
    assert text_of(driver, "#ply").startswith("Ply 1 of"), text_of(driver, "#ply")
    # Numbered by full moves from the first player's: "1. e4", "e5", "2. Nf3".
    labels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".movelist span")][:3]
    if len(labels) == 3:
        assert labels[0].startswith("1. ") and not labels[1][0].isdigit() and labels[2].startswith("2. "), labels
    print(f"move list: {labels}")
    driver.find_element(By.ID, "last").click()
    last = text_of(driver, "#ply")
    assert last.startswith(f"Ply {total} of {total}"), last
    driver.find_element(By.ID, "flip").click()
    pieces = driver.find_elements(By.CSS_SELECTOR, "svg g.piece")
    print(f"at the last move: {last}; {len(pieces)} pieces drawn")
    driver.save_screenshot(f"{shots}/replay-{game}.png")


def state(driver):
    return driver.execute_script("return window.arbiterState || null;")


def click_cell(driver, cell):
    click(driver, f'svg .cell[data-cell="{cell}"]', f"cell {cell}")


def choose_in_popup(driver, text):
    for b in driver.find_elements(By.CSS_SELECTOR, ".chooser button.choice"):
        if b.text == text:
            b.click()
            return True
    return False


def pick(s, rng):
    """A random move of the state `s`: a mate first, then a capture, then a
    check (games end sooner, each ply being a few clicks). In chess, a queen promotion after
    a mate, and never a piece moved where the opponent attacks it: against
    `random` that mates in about 70 plies, where the plain order took 130 on
    average and 300 one game in ten (python-chess, 150 simulated games)."""
    moves = s["moves"]
    safe = chess_safety(s) if s.get("variant") == "chess" else (lambda m: True)
    for mark in (["#", "=Q", "x", "+", ""] if s.get("variant") == "chess" else ["#", "x", "+"]):
        marked = [m for m in moves if mark in m["text"] and (mark == "#" or safe(m))]
        if marked:
            return rng.choice(marked)
    return rng.choice(moves)


def chess_safety(s):
    """Whether a chess move leaves the moved piece unattacked, judged on the
    pieces the player sees (castling and en passant aside: a test's
    heuristic, not a rule)."""
    import chess
    board = chess.Board(None)
    for p in s["observation"]["pieces"]:
        kind = chess.PIECE_SYMBOLS.index(p["label"].lower())
        board.set_piece_at(int(p["cell"]), chess.Piece(kind, p["owner"] == 0))
    mover = s["to_move"] == 0

    def safe(m):
        cells = [int(c) for c in (m["cells"] or [])]
        if len(cells) < 2:
            return True
        after = board.copy()
        piece = after.remove_piece_at(cells[0])
        after.set_piece_at(cells[-1], piece)
        return not after.is_attacked_by(not mover, cells[-1])
    return safe


def play(driver, url, shots, variant, max_plies=3000):
    rng = random.Random(7)
    driver.get(f"{url}/#/play")
    wait_for("the play form", lambda: driver.find_elements(By.ID, "play-form"))
    driver.find_element(By.CSS_SELECTOR, f'select[name="variant"] option[value="{variant}"]').click()
    seat = driver.find_element(By.CSS_SELECTOR, 'select[name="seat"] option[value="0"]')
    seat.click()
    tc = driver.find_element(By.CSS_SELECTOR, 'input[name="tc"]')
    tc.clear()
    tc.send_keys("inf")
    driver.find_element(By.ID, "start").click()
    wait_for("the game", lambda: state(driver))
    clicks = 0
    seen_popup = False
    while True:
        s = wait_for("my turn or the end", lambda: (x := state(driver)) and (x["result"] or x["moves"]) and x, timeout=60)
        if s["result"]:
            break
        if s["ply"] > max_plies:
            raise SystemExit(f"no result after {max_plies} plies")
        m = pick(s, rng)
        cells = m["cells"] or []
        ply = s["ply"]
        if len(cells) >= 2:
            click_cell(driver, cells[0])
            click_cell(driver, cells[-1])
            clicks += 2
        elif len(cells) == 1:
            click_cell(driver, cells[0])
            clicks += 1
        else:
            buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "#other-moves button") if b.text == m["text"]]
            if not buttons:
                raise SystemExit(f"move {m['text']} has no cells and no button")
            buttons[0].click()
            clicks += 1
        if driver.find_elements(By.CSS_SELECTOR, ".chooser"):
            seen_popup = True
            if not choose_in_popup(driver, m["text"]):
                raise SystemExit(f"the chooser does not offer {m['text']}")
        wait_for(f"move {m['text']} to be played", lambda: (x := state(driver)) and (x["result"] or x["ply"] != ply))
        if ply == 10:
            driver.save_screenshot(f"{shots}/play-{variant}-early.png")
    result = wait_for("the result banner", lambda: text_of(driver, "#result"))
    wait_for("the link to the stored game", lambda: driver.find_elements(By.ID, "stored-game"), timeout=10)
    print(f"{variant}: {result} after {s['ply']} plies, {clicks} clicks, chooser used: {seen_popup}")
    driver.save_screenshot(f"{shots}/play-{variant}-end.png")
    driver.find_element(By.ID, "stored-game").click()
    wait_for("the stored game", lambda: text_of(driver, "#ply"))
    print(f"stored: {text_of(driver, '#ply')}")


def escape(driver, url, shots, variant):
    driver.get(f"{url}/#/play")
    wait_for("the play form", lambda: driver.find_elements(By.ID, "play-form"))
    driver.find_element(By.CSS_SELECTOR, f'select[name="variant"] option[value="{variant}"]').click()
    driver.find_element(By.ID, "start").click()
    wait_for("the board", lambda: driver.find_elements(By.CSS_SELECTOR, "svg g.piece text"))
    label = driver.find_element(By.CSS_SELECTOR, "svg g.piece text").get_attribute("textContent")
    assert label == "<script>alert(1)</script>", label
    title = driver.find_element(By.CSS_SELECTOR, "svg g.piece title").get_attribute("textContent")
    assert "<img src=x onerror=alert(2)>" in title, title
    assert not driver.find_elements(By.CSS_SELECTOR, "main script, main img"), "markup from a plugin became elements"
    no_alert(driver)
    print(f"label shown as text: {label}")
    driver.save_screenshot(f"{shots}/escape.png")


def main():
    url, scenario, shots, *args = sys.argv[1:]
    os.makedirs(shots, exist_ok=True)
    # The browser's profile lives as long as the browser, and no longer.
    with tempfile.TemporaryDirectory(prefix="arbiter-chromium-", ignore_cleanup_errors=True) as profile:
        driver = browser(profile)
        try:
            {"live-tournament": live_tournament, "replay": replay, "play": play, "escape": escape}[scenario](driver, url, shots, *args)
            no_alert(driver)
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
