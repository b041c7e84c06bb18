"""Creature figures on the board, and the animation of what happened (skipped under
prefers-reduced-motion). Animations are recorded by wrapping Element.animate."""

from __future__ import annotations

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.rules.creatures import KELLY_CREATURES
from tests.browser.conftest import join_match, new_match, new_player, rest_act, rest_view, signed_in
from tests.browser.helpers import aggressive_choice, wait_for_version

RECORD_ANIMATIONS = """
window.__animations = [];
const original = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  window.__animations.push({
    piece: this.getAttribute('data-piece') || this.getAttribute('data-retired'),
    retiring: this.hasAttribute('data-retiring'),
    frames: frames.map(f => f.transform || ''), delay: (options && options.delay) || 0,
    kind: options && options.id,
  });
  return original.call(this, frames, options);
};
"""

FIGURES = {"savrip", "monnok", "ghhhk", "houjix", "strider", "ngok", "klorslug", "molator"}


def open_page(server, new_context, player, match_id, script: str = RECORD_ANIMATIONS, **options) -> Page:
    """The match page, live and showing its first snapshot (all eight pieces), recording
    what ``script`` records. The tests' moves come after: a move the snapshot already
    holds would not be animated."""
    options.setdefault("reduced_motion", "no-preference")  # the animations are what is tested
    context = new_context(viewport={"width": 1280, "height": 900}, **options)
    page = signed_in(context, server, player).new_page()
    page.add_init_script(script)
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("[data-piece]")).to_have_count(8)
    return page


def kelly_pair(server):
    blue, red = new_player(server, "Rey"), new_player(server, "Finn")
    match_id = new_match(server, blue)
    join_match(server, red, match_id)
    return match_id, [blue, red]


def play_until(server, match_id, players, page, wanted: str, limit: int = 80) -> list[dict]:
    """Both sides play aggressively over REST until an update has an event of type ``wanted``."""
    for _ in range(limit):
        match = rest_view(server, match_id)
        seat = match["to_act"][0]
        mine = rest_view(server, match_id, players[seat])
        rest_act(server, match_id, players[seat], aggressive_choice(mine), mine["version"])
        wait_for_version(page, mine["version"] + 1)
        events = page.evaluate("window.__dejarik.store.entries.at(-1).events")
        if any(e["type"] == wanted for e in events):
            return events
    raise AssertionError(f"no {wanted} in {limit} actions")


def test_every_creature_has_its_figure_in_its_seats_shape(web_server, new_context, artifacts):
    match_id, players = kelly_pair(web_server)
    page = open_page(web_server, new_context, players[0], match_id)
    pieces = rest_view(web_server, match_id)["state"]["pieces"]
    assert {p["kind"] for p in pieces} == FIGURES
    for p in pieces:
        token = page.locator(f"[data-piece='{p['id']}']")
        expect(token.locator(f"use.figure[data-figure='{p['kind']}']")).to_have_count(1)
        # The owner's shape stays: circle for Blue, hexagon for Red (colour is never the only signal).
        expect(token.locator("circle.token" if p["owner"] == 0 else "polygon.token")).to_have_count(1)
    # Every figure is a real drawing with a body, and the legend shows the same figures.
    sizes = page.evaluate(
        "[...document.querySelectorAll('#dejarik-art symbol')]"
        ".map(s => [s.id, s.querySelector('path').getBBox().width])"
    )
    others = {"grimtaash", "king", "queen", "knight", "pawn", "guard"}
    assert {name for name, _ in sizes} >= {f"art-{k}" for k in FIGURES | others}
    assert all(width > 10 for _, width in sizes)
    expect(page.locator("#legend .figure-icon")).to_have_count(8)
    page.locator("svg.board").screenshot(path=artifacts / "kelly-figures.png")


def test_a_move_slides_along_its_path_and_an_attack_lunges(web_server, new_context):
    match_id, players = kelly_pair(web_server)
    page = open_page(web_server, new_context, players[0], match_id)
    assert page.evaluate("window.__animations.length") == 0  # the first view is not animated

    events = play_until(web_server, match_id, players, page, "move")
    move = next(e for e in events if e["type"] == "move")
    slid = "piece => window.__animations.some(a => a.piece === piece && a.kind === 'slide')"
    try:  # the update's render may still be on its way on a loaded machine
        page.wait_for_function(slid, arg=move["piece"], timeout=5_000)
    except PlaywrightTimeout:
        recorded = page.evaluate("window.__animations")
        raise AssertionError(f"the moved piece did not slide: {move}, animations {recorded}") from None
    slides = [
        a
        for a in page.evaluate("window.__animations")
        if a["piece"] == move["piece"] and a["kind"] == "slide"
    ]
    # One frame per space it passed through, starting where it was.
    assert len(slides[-1]["frames"]) == len([s for s in move["path"] if s != move["from"]]) + 1

    events = play_until(web_server, match_id, players, page, "attack")
    attack = next(e for e in events if e["type"] == "attack")
    recorded = page.evaluate("window.__animations")
    lunge = [a for a in recorded if a["piece"] == attack["piece"] and a["kind"] == "lunge"]
    assert lunge and lunge[-1]["frames"][0] == lunge[-1]["frames"][2], "the attacker lunges and comes back"
    result = next(e for e in events if e["type"] == "combat")["result"]
    # Once the dice settle, the exchange is announced in words, with both totals and the result.
    rolls = [e for e in events if e["type"] == "roll"]
    announced = page.locator("#announce")
    seats = ["Blue", "Red"]
    attacker, defender = (KELLY_CREATURES[attack[k]].name for k in ("piece", "target"))  # kelly: id = kind
    expect(announced).to_contain_text(
        f"{seats[rolls[0]['seat']]} {attacker} attacks {seats[rolls[1]['seat']]} {defender}: "
    )
    expect(announced).to_contain_text(
        " against ".join(f"{len(r['dice'])} dice total {r['total']}" for r in rolls) + f", {result}"
    )
    if result in ("push", "counter-push") and not any(e["type"] == "push_blocked" for e in events):
        # The winner chooses where the loser goes; then the loser is shoved there.
        if not any(e["type"] == "push" for e in events):
            events = play_until(web_server, match_id, players, page, "push", 1)
        shove = next(e for e in events if e["type"] == "push")
        recorded = page.evaluate("window.__animations")
        shoves = [a for a in recorded if a["piece"] == shove["piece"] and a["kind"] == "shove"]
        assert shoves, "the loser is shoved"
    if result in ("kill", "counter-kill"):
        assert [a for a in recorded if a["retiring"] and a["kind"] == "fade"], "the dead piece fades out"
    # Once the fade is over the board holds exactly the living pieces.
    alive = [p for p in rest_view(web_server, match_id)["state"]["pieces"] if p["at"]]
    expect(page.locator("[data-piece]")).to_have_count(len(alive))
    expect(page.locator("[data-retiring]")).to_have_count(0)


def test_reduced_motion_animates_nothing(web_server, new_context):
    match_id, players = kelly_pair(web_server)
    page = open_page(web_server, new_context, players[0], match_id, reduced_motion="reduce")
    play_until(web_server, match_id, players, page, "attack")
    assert page.evaluate("window.__animations") == []
    alive = [p for p in rest_view(web_server, match_id)["state"]["pieces"] if p["at"]]
    assert page.locator("[data-piece]").count() == len(alive)
    assert page.evaluate("getComputedStyle(document.querySelector('.holo-scan')).animationName") == "none"


# Two frames into every slide, what a click at the sliding piece's centre would reach.
RECORD_CLICKS_DURING_SLIDES = """
window.__slideHits = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  const animation = animate.call(this, frames, options);
  if (options && options.id === 'slide') {
    const g = this;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const r = g.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      window.__slideHits.push({
        piece: g.getAttribute('data-piece'), sliding: animation.playState === 'running',
        reachesPiece: Boolean(hit && hit.closest('[data-piece]') === g),
        space: hit && hit.closest('[data-space]') ? hit.closest('[data-space]').dataset.space : null,
      });
    }));
  }
  return animation;
};
"""


def test_a_click_where_a_piece_slides_past_reaches_the_space_beneath(web_server, new_context):
    """A player may click a space while the opponent's piece slides across it: the click
    lands on the space they aimed at, not on the passing piece. Once it has landed, the
    piece takes clicks again."""
    match_id, players = kelly_pair(web_server)
    page = open_page(web_server, new_context, players[0], match_id, RECORD_CLICKS_DURING_SLIDES)
    move = next(e for e in play_until(web_server, match_id, players, page, "move") if e["type"] == "move")
    page.wait_for_function("piece => window.__slideHits.some(h => h.piece === piece)", arg=move["piece"])
    hit = [h for h in page.evaluate("window.__slideHits") if h["piece"] == move["piece"]][-1]
    assert hit["sliding"], hit
    assert not hit["reachesPiece"], f"a click on the sliding piece would hit it, not the space: {hit}"
    assert hit["space"], hit
    still = "piece => !document.querySelector(`[data-piece='${piece}']`).getAnimations().length"
    page.wait_for_function(still, arg=move["piece"])
    landed = page.evaluate(
        """piece => {
            const r = document.querySelector(`[data-piece="${piece}"]`).getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return Boolean(hit && hit.closest(`[data-piece="${piece}"]`));
        }""",
        move["piece"],
    )
    assert landed, "the piece takes clicks again once it has landed"
