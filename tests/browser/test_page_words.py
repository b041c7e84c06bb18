"""No word from the code on the pages a newcomer sees (issue 31, item 6).

A newcomer's walk through the site, in a browser (so the words the pages' scripts
write count too): the home page signed in with the new-match form open at each
ruleset, a match page while it runs and once it is over, its replay, the player page,
the settings, every rules page and the tutorial. The text each shows (what is drawn,
not what is hidden) must hold none of the code's words: ``null``, a seat by its number,
``True``/``False``, a bare ``s`` for seconds, file paths, snake_case keys, the seed
texts' numbers, ``Version`` for a step, ``Sheets 1``, a ruleset's id."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from app.rules import registry
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import match_page_ready, open_new_match_form, random_play

CODE_WORDS = {
    "null": re.compile(r"\bnull\b"),
    "a seat by its number": re.compile(r"\bseat [0-9]\b", re.I),
    "a Python boolean": re.compile(r"\b(True|False|None)\)"),
    "default: a Python value": re.compile(r"default: (True|False|None)\b"),
    "a bare s for seconds": re.compile(r"(?<![\w'’.])(?<!\d )s(?![\w'’])"),  # "2 s" is fine
    "a file path": re.compile(r"\b(docs|app|static|templates)/|\b\w+\.(py|md)\b"),
    "a snake_case key": re.compile(r"\b[a-z]+_[a-z_]+\b"),
    "a key and its message": re.compile(r"\b[a-z]+_[a-z]+:"),
    "a seed text's number": re.compile(r"\bseed \d{3}\b"),
    "Version for a step": re.compile(r"\bVersion \d+ of\b"),
    "a list's index": re.compile(r"\bSheets \d\b"),
    "a ruleset's id": re.compile(rf"(?<![\w/.-])({'|'.join(map(re.escape, registry()))})(?![\w/.-])"),
}


def code_words(text: str) -> list[str]:
    """Each code word in ``text``, with the words around it."""
    return [
        f"{what}: …{text[max(0, m.start() - 50) : m.end() + 30]}…"
        for what, pattern in CODE_WORDS.items()
        for m in pattern.finditer(text)
    ]


def shown_text(page: Page) -> str:
    """What the page shows: its drawn text, with every <details> opened first."""
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    return page.evaluate("() => document.body.innerText")


def test_the_patterns_catch_the_words_the_walk_through_found():
    found = code_words(
        "Time per move: null is untimed. Per move s. Initial ranks check (default: False). Sheets 1. "
        "The two characters, seat 0 first. draft: d8 draft as in seed 004. the recipe is in docs/dice.md. "
        "Version 0 of 81. webhook_url: the host does not resolve. kelly · replay"
    )
    assert len(found) >= 10, found
    fine = code_words(
        "Light's sheet. 5 minutes a move. Off by default. Play the first seat. Step 3 of 81. "
        "Dejarik (Kelly): 23 h 59 min left. Counter-push. Sent — check your channel."
    )
    assert fine == []


def test_no_code_words_on_the_pages_a_newcomer_sees(web_server, new_context, artifacts):
    kessa, rook = new_player(web_server, "Kessa"), new_player(web_server, "Rook")
    running = new_match(web_server, kessa, "eote")
    join_match(web_server, rook, running)
    finished = new_match(web_server, kessa, "kelly")
    join_match(web_server, rook, finished)
    random_play(web_server, finished, [kessa, rook], steps=6, seed=31)
    rest_act(web_server, finished, kessa, {"type": "resign"}, rest_view(web_server, finished)["version"])
    latest = rest_view(web_server, finished)["version"]

    page = signed_in(new_context(viewport={"width": 1366, "height": 768}), web_server, kessa).new_page()
    seen: dict[str, list[str]] = {}

    def look(name: str) -> None:
        seen[name] = code_words(shown_text(page))

    page.goto(f"{web_server.url}/")
    open_new_match_form(page)
    for ruleset in registry():
        page.check(f"#new-match input[type='radio'][name='ruleset'][value='{ruleset}']")
        expect(page.locator(f"[data-options-for='{ruleset}']")).to_be_visible()
        look(f"home, new match form, {ruleset}")

    page.goto(f"{web_server.url}/matches/{running}")
    match_page_ready(page)
    look("eote match page")
    page.goto(f"{web_server.url}/matches/{finished}")
    match_page_ready(page)
    expect(page.locator("[data-verify]")).to_be_visible()
    look("finished kelly match page")
    page.goto(f"{web_server.url}/matches/{finished}/replay")
    expect(page.locator("#position")).to_contain_text(f"of {latest}")
    look("replay")
    page.goto(f"{web_server.url}/players/{kessa['id']}")
    expect(page.locator("tr[data-match]")).to_have_count(2)
    look("player page")
    page.goto(f"{web_server.url}/settings")
    look("settings")
    for path in ["/rules", *(f"/rules/{r}" for r in registry())]:
        page.goto(web_server.url + path)
        look(f"rules page {path}")
    page.goto(f"{web_server.url}/tutorial")
    look("tutorial")
    page.click("text=Start the tutorial")
    page.wait_for_url("**/tutorial/*")
    match_page_ready(page)
    look("tutorial match")

    found = {name: words for name, words in seen.items() if words}
    assert found == {}, "\n".join(f"{name}:\n  " + "\n  ".join(words) for name, words in found.items())
