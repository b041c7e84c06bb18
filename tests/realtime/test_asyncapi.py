"""/asyncapi.json: a valid AsyncAPI 3 document, and every frame of a played match
(both ways) validates against it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7
from websockets.asyncio.client import connect

from app.rules.base import COMMON_ACTION_TYPES
from tests.api.helpers import start_match
from tests.realtime.helpers import receive, socket_url

ASYNCAPI_3 = Path(__file__).resolve().parents[2] / "static" / "vendor" / "asyncapi" / "3.0.0.json"
DOC = "urn:dejarik:asyncapi"


@pytest.fixture
async def document(client) -> dict[str, Any]:
    response = await client.get("/asyncapi.json")
    assert response.status_code == 200
    return response.json()


def asyncapi_validator() -> jsonschema.protocols.Validator:
    if not ASYNCAPI_3.exists():
        pytest.fail(f"{ASYNCAPI_3} is missing: run `make vendor` (make test does)")
    schema = json.loads(ASYNCAPI_3.read_text())
    return jsonschema.validators.validator_for(schema)(schema)


class Frames:
    """Checks frames against the document: each by its ``type``, against the message
    of that name in the channel, sent by the side the operations say."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.registry = Registry().with_resource(DOC, Resource.from_contents(document, DRAFT7))
        channel = document["channels"]["match"]
        self.messages = channel["messages"]
        self.sent_by_server, self.sent_by_client = set(), set()
        for operation in document["operations"].values():
            names = [ref["$ref"].rsplit("/", 1)[1] for ref in operation["messages"]]
            replies = [
                ref["$ref"].rsplit("/", 1)[1] for ref in operation.get("reply", {}).get("messages", [])
            ]
            if operation["action"] == "send":
                self.sent_by_server.update(names)
            else:
                self.sent_by_client.update(names)
                self.sent_by_server.update(replies)
        self.seen: dict[str, int] = {}

    def check(self, frame: dict[str, Any], from_server: bool) -> None:
        kind = frame["type"]
        assert kind in (self.sent_by_server if from_server else self.sent_by_client), kind
        payload = self.messages[kind]["payload"]["$ref"]
        validator = jsonschema.Draft7Validator({"$ref": f"{DOC}{payload}"}, registry=self.registry)
        errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(frame)]
        assert not errors, f"{kind} frame does not match /asyncapi.json: {errors[:3]}"
        self.seen[kind] = self.seen.get(kind, 0) + 1


class Checked:
    """A websocket whose every frame, both ways, is checked."""

    def __init__(self, socket, frames: Frames) -> None:
        self.socket, self.frames = socket, frames

    async def send(self, frame: dict[str, Any]) -> None:
        self.frames.check(frame, from_server=False)
        await self.socket.send(json.dumps(frame))

    async def receive(self, kind: str | None = None) -> dict[str, Any]:
        while True:
            frame = await receive(self.socket)
            self.frames.check(frame, from_server=True)
            if kind is None or frame["type"] == kind:
                return frame


async def test_asyncapi_json_validates_against_the_asyncapi_3_schema(document):
    validator = asyncapi_validator()
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(document)]
    assert not errors, errors[:5]
    assert document["asyncapi"] == "3.0.0"
    channel = document["channels"]["match"]
    assert channel["address"] == "/ws/matches/{match_id}"
    assert set(channel["bindings"]["ws"]["query"]["properties"]) == {"token", "since", "spectator"}
    expected = {"snapshot", "update", "action", "ack", "error", "sync", "ping", "pong", "chat", "status"}
    assert set(channel["messages"]) == expected
    # The validator does refuse what AsyncAPI 3 does not allow.
    broken = {**document, "operations": {"x": {"action": "publish", "channel": {"$ref": "#/channels/match"}}}}
    assert any(True for _ in validator.iter_errors(broken))


async def test_the_frames_share_the_openapi_schemas(client, document):
    openapi = (await client.get("/openapi.json")).json()["components"]["schemas"]
    asyncapi = document["components"]["schemas"]
    for shared in ("LogEntry", "RollEvent", "Die", "PlayerRef", "SeatView", "You", "Result"):
        assert set(asyncapi[shared]["properties"]) == set(openapi[shared]["properties"]), shared
    assert set(openapi["MatchView"]["properties"]) < set(asyncapi["SnapshotFrame"]["properties"])


@pytest.mark.parametrize("ruleset", ["kelly", "eote"])
async def test_every_frame_of_a_played_match_matches_the_document(client, live_server, document, ruleset):
    frames = Frames(document)
    with pytest.raises(AssertionError, match="does not match"):  # the check does check
        frames.check({"type": "ack", "id": "no version"}, from_server=True)
    match, players = await start_match(client, ruleset)
    rng = random.Random(7)
    url = socket_url(live_server, match["id"])
    async with (
        connect(socket_url(live_server, match["id"], players[0])) as blue_socket,
        connect(socket_url(live_server, match["id"], players[1])) as red_socket,
        connect(url + "?since=0") as spectator_socket,
    ):
        seats = [Checked(blue_socket, frames), Checked(red_socket, frames)]
        spectator = Checked(spectator_socket, frames)
        views = [await s.receive("snapshot") for s in seats]
        snapshot = await spectator.receive("snapshot")
        assert snapshot["missed"], "?since=0 lists the entries missed"
        # The client's other frames and the server's refusals.
        await seats[0].send({"type": "ping", "id": "p1"})
        assert (await seats[0].receive("pong"))["id"] == "p1"
        await seats[0].send({"type": "sync", "since": 0})
        views[0] = await seats[0].receive("snapshot")
        stale = {"type": "action", "id": "stale", "action": {"type": "resign"}, "version": 0}
        await seats[0].send(stale)
        refused = await seats[0].receive("error")
        assert refused["code"] == 409 and refused["version"] == views[0]["version"]
        await spectator.send({"type": "action", "id": "s", "action": {"type": "resign"}, "version": 0})
        assert (await spectator.receive("error"))["code"] == 401
        for step in range(40):
            if views[0]["status"] == "finished":
                break
            seat = views[0]["to_act"][0]
            game = [a for a in views[seat]["legal_actions"] if a["type"] not in COMMON_ACTION_TYPES]
            action = rng.choice(game) if step < 39 else {"type": "resign"}  # the end, in time
            sent = {"type": "action", "id": f"a{step}", "action": action, "version": views[seat]["version"]}
            await seats[seat].send(sent)
            assert (await seats[seat].receive("ack"))["id"] == f"a{step}"
            views = [await s.receive("update") for s in seats]
            await spectator.receive("update")
        assert views[0]["status"] == "finished"
    assert {"snapshot", "update", "ack", "error", "pong", "action", "sync", "ping"} <= set(frames.seen)
    set_up = [e for entry in snapshot["missed"] for e in entry["events"]]
    assert any(e["type"] == "roll" for e in set_up), "the set-up's roll events were checked too"
