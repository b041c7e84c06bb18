"""The match page's chat panel in real browsers: live delivery to the other player,
text shown as text, the length limit, quick phrases, muting, a spectator kept out of
the players' channel, and a badge for messages that arrive out of sight.
(tests/api/test_chat.py runs the same rules on both databases.)"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import REST, auth, join_match, new_match, new_player, signed_in


def match_page(context, server, match_id: str) -> Page:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: errors.append(f"a dialog opened: {dialog.message}"))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#connection")).to_have_text("Live")
    return page


def chat_lines(page: Page):
    return page.locator("#chat [data-chat-log] li .chat-text")


def players_at_a_match(server, new_context, **context_options):
    leia, chewie = new_player(server, "Leia"), new_player(server, "Chewie")
    match_id = new_match(server, leia)
    join_match(server, chewie, match_id)
    pages = [
        match_page(signed_in(new_context(**context_options), server, player), server, match_id)
        for player in (leia, chewie)
    ]
    return match_id, pages


def test_a_message_reaches_the_other_player_live_as_plain_text(web_server, new_context, artifacts):
    _, (leia, chewie) = players_at_a_match(web_server, new_context)
    leia.fill("#chat-input", "Good luck, fuzzball")
    leia.get_by_role("button", name="Send").click()
    expect(chat_lines(chewie)).to_have_text(["Good luck, fuzzball"])  # no reload: over the websocket
    expect(chat_lines(leia)).to_have_text(["Good luck, fuzzball"])
    expect(leia.locator("#chat-input")).to_have_value("")
    # Each name with its author's role beside it, as text (L4: a name alone could be anyone's).
    line = chewie.locator("#chat [data-chat-log] li").first
    expect(line.locator("strong")).to_have_text("Leia")
    expect(line.locator(".chat-role")).to_have_text("Blue")

    script = "<script>window.__pwned = 1</script><b>bold</b>"
    chewie.fill("#chat-input", script)
    chewie.keyboard.press("Enter")
    expect(chat_lines(leia).last).to_have_text(script)
    assert leia.locator("#chat [data-chat-log] script, #chat [data-chat-log] b").count() == 0
    assert leia.evaluate("window.__pwned") is None
    leia.screenshot(path=artifacts / "chat-desktop.png")
    assert leia.js_errors == [] and chewie.js_errors == []


def test_the_501st_character_is_refused(web_server, new_context):
    _, (leia, chewie) = players_at_a_match(web_server, new_context)
    leia.fill("#chat-input", "a" * 501)
    assert len(leia.input_value("#chat-input")) == 500  # the field stops at 500
    # A page whose limit was removed is refused by the server, and says so.
    leia.evaluate("document.querySelector('#chat-input').removeAttribute('maxlength')")
    leia.fill("#chat-input", "a" * 501)
    leia.get_by_role("button", name="Send").click()
    expect(leia.locator("[data-chat-error]")).to_contain_text("at most 500 characters")
    expect(chat_lines(leia)).to_have_count(0)
    leia.fill("#chat-input", "b" * 500)
    leia.get_by_role("button", name="Send").click()
    expect(chat_lines(chewie)).to_have_text(["b" * 500])
    expect(leia.locator("[data-chat-error]")).to_be_hidden()


def test_quick_phrases_on_a_phone_and_muting_the_other_side(web_server, new_context, artifacts):
    phone = {"viewport": {"width": 375, "height": 812}, "has_touch": True, "is_mobile": True}
    _, (leia, chewie) = players_at_a_match(web_server, new_context, **phone)
    chewie.get_by_role("button", name="Your move").tap()
    expect(chat_lines(leia)).to_have_text(["Your move"])
    chewie.screenshot(path=artifacts / "chat-phone.png", full_page=True)

    leia.get_by_role("button", name="Mute the other side").tap()
    expect(chat_lines(leia)).to_have_count(0)
    chewie.get_by_role("button", name="Back soon").tap()
    expect(chat_lines(chewie)).to_have_text(["Your move", "Back soon"])
    leia.get_by_role("button", name="Good game").tap()
    expect(chat_lines(leia)).to_have_text(["Good game"])  # only her own
    expect(leia.locator("[data-chat-hidden]")).to_contain_text("2 messages from others hidden")
    leia.reload()  # the mute is remembered
    expect(chat_lines(leia)).to_have_text(["Good game"])
    leia.get_by_role("button", name="Mute the other side").tap()
    expect(chat_lines(leia)).to_have_text(["Your move", "Back soon", "Good game"])


def test_a_spectator_talks_with_spectators_and_is_refused_in_the_players_channel(web_server, new_context):
    match_id, (leia, chewie) = players_at_a_match(web_server, new_context)
    watcher_context = signed_in(new_context(), web_server, new_player(web_server, "Watcher"))
    watcher = match_page(watcher_context, web_server, match_id)
    expect(watcher.locator("[data-chat-channel='spectators']")).to_have_attribute("aria-pressed", "true")
    leia.get_by_role("button", name="Good game").click()
    watcher.locator("[data-chat-channel='players']").click()
    expect(chat_lines(watcher)).to_have_text(["Good game"])  # spectators read the players' channel

    refused = watcher.evaluate(
        """id => fetch(`/api/v1/matches/${id}/chat`, {
                method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({text: 'Attack the Houjix!', channel: 'players'}),
              })
              .then(async r => ({status: r.status, body: await r.json()}))""",
        match_id,
    )
    assert refused["status"] == 403 and "spectators" in refused["body"]["detail"]

    watcher.fill("#chat-input", "Leia is winning")
    watcher.get_by_role("button", name="Send").click()  # shows the channel it went to
    expect(watcher.locator("[data-chat-channel='spectators']")).to_have_attribute("aria-pressed", "true")
    expect(chat_lines(watcher)).to_have_text(["Leia is winning"])
    expect(watcher.locator("#chat [data-chat-log] li .chat-role")).to_have_text(["Spectator"])
    watcher.locator("[data-chat-channel='players']").click()
    expect(chat_lines(watcher)).to_have_text(["Good game"])
    # The seated players never see the spectators' channel while the match runs.
    for page in (leia, chewie):
        expect(page.locator("[data-chat-channel]")).to_have_count(0)
        expect(chat_lines(page)).to_have_text(["Good game"])


def test_a_message_out_of_sight_is_badged_until_the_chat_is_shown(web_server, new_context, artifacts):
    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    match_id, (leia, chewie) = players_at_a_match(web_server, new_context, **phone)
    token = next(c["value"] for c in leia.context.cookies() if c["name"] == "dejarik_token")
    title = leia.title()
    # Leia looks at the board; the chat is far below it, out of sight.
    leia.evaluate("() => window.scrollTo(0, 0)")
    chewie.locator("#chat [data-chat-phrase='Your move']").click()
    badge = leia.locator("[data-chat-badge]")
    expect(badge).to_have_text("Chat: 1 new message")
    expect(leia).to_have_title(f"(1) {title}")
    expect(badge).to_be_in_viewport(ratio=1)
    chewie.locator("#chat [data-chat-phrase='Good game']").click()
    expect(badge).to_have_text("Chat: 2 new messages")
    leia.screenshot(path=artifacts / "issue31" / "chat-badge-390x844.png")
    # Her own message (sent from her other device) is no news to her.
    url = f"{web_server.url}/api/v1/matches/{match_id}/chat"
    REST.post(url, json={"text": "Back soon"}, headers=auth({"token": token})).raise_for_status()
    expect(chat_lines(leia)).to_have_count(3)
    expect(badge).to_have_text("Chat: 2 new messages")
    # A tap on the badge brings the chat into view, and the news is read.
    badge.tap()
    expect(badge).to_be_hidden()
    expect(leia).to_have_title(title)
    expect(chat_lines(leia).last).to_be_in_viewport()
    assert leia.js_errors == [] and chewie.js_errors == []
