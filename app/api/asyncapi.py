"""``/asyncapi.json``: the websocket ``WS /ws/matches/{match_id}`` as an AsyncAPI 3 document.

Its schemas are generated from the same pydantic models as ``/openapi.json``
(``app/api/schemas.py``), so the two never disagree.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from app.api.leagues import LEAGUE_CLIENT_FRAMES, LEAGUE_SERVER_FRAMES
from app.api.schemas import CLIENT_FRAMES, SERVER_FRAMES, AckFrame, ActionFrame, ErrorFrame

REF = "#/components/schemas/{model}"
CHANNEL = {"$ref": "#/channels/match"}
OPTIONAL_FRAMES = ("chat", "status")


def frame_type(model: type[BaseModel]) -> str:
    return model.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]


def message_ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/channels/match/messages/{frame_type(model)}"}


def _asyncapi_schema(schema: Any) -> Any:
    """Pydantic's JSON Schema as AsyncAPI 3 wants it: a discriminator is the property's name."""
    if isinstance(schema, dict):
        return {
            key: value["propertyName"]
            if key == "discriminator" and isinstance(value, dict)
            else _asyncapi_schema(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_asyncapi_schema(item) for item in schema]
    return schema


@cache
def _frame_schemas() -> dict[str, Any]:
    models = [*SERVER_FRAMES, *CLIENT_FRAMES, *LEAGUE_SERVER_FRAMES, *LEAGUE_CLIENT_FRAMES]
    _, definitions = models_json_schema([(model, "serialization") for model in models], ref_template=REF)
    return _asyncapi_schema(definitions["$defs"])


def _message(model: type[BaseModel]) -> dict[str, Any]:
    kind = frame_type(model)
    summary = (model.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    return {
        "name": kind,
        "title": f"{kind} frame" + (" (optional)" if kind in OPTIONAL_FRAMES else ""),
        "summary": summary or f"The {kind} frame.",
        "contentType": "application/json",
        "payload": {"$ref": REF.format(model=model.__name__)},
    }


def asyncapi_document(app: FastAPI) -> dict[str, Any]:
    server_frames = [m for m in SERVER_FRAMES if m not in (AckFrame, ErrorFrame)]
    document = {
        "asyncapi": "3.0.0",
        "info": {
            "title": f"{app.title} realtime",
            "version": app.version,
            "description": (
                "One websocket per match. On connect the server sends a snapshot; after every "
                "applied action an update, to every connection of the match, each seeing only "
                "what its seat may see. A client may act (the same rules as REST), ask for a "
                "sync, or ping. Every frame is one JSON object with a `type`. The REST API: "
                "[/docs](/docs) and [/openapi.json](/openapi.json)."
            ),
        },
        "defaultContentType": "application/json",
        "channels": {
            "match": {
                "address": "/ws/matches/{match_id}",
                "title": "One match",
                "description": "Connect with the token as ?token= (or the browser's cookie); "
                "without one, the match is watched as a spectator.",
                "parameters": {"match_id": {"description": "The match's id."}},
                "messages": {frame_type(m): _message(m) for m in (*SERVER_FRAMES, *CLIENT_FRAMES)},
                "bindings": {
                    "ws": {
                        "bindingVersion": "0.1.0",
                        "query": {
                            "type": "object",
                            "properties": {
                                "token": {
                                    "type": "string",
                                    "description": "The player's bearer token (POST /api/v1/players). "
                                    "A token that is not valid gets an error frame (code 401) and "
                                    "the socket closes with 4401.",
                                },
                                "since": {
                                    "type": "integer",
                                    "minimum": 0,
                                    "description": "The last version this client saw: the snapshot "
                                    "then lists the log entries after it under `missed`.",
                                },
                                "spectator": {
                                    "type": "boolean",
                                    "description": "Watch anonymously even from a signed-in browser "
                                    "(a table's TV must never show a seat's private view).",
                                },
                            },
                        },
                    }
                },
            }
        },
        "operations": {
            "sendFrames": {
                "action": "send",
                "channel": CHANNEL,
                "title": "Snapshots, updates and replies the server sends",
                "messages": [message_ref(m) for m in server_frames],
            },
            "receiveAction": {
                "action": "receive",
                "channel": CHANNEL,
                "title": "Apply an action",
                "messages": [message_ref(ActionFrame)],
                "reply": {"channel": CHANNEL, "messages": [message_ref(AckFrame), message_ref(ErrorFrame)]},
            },
            "receiveOther": {
                "action": "receive",
                "channel": CHANNEL,
                "title": "Sync and ping",
                "description": "sync: a fresh snapshot comes back (at most `WS_SYNCS_PER_10S`, "
                "5 by default, in 10 s per socket: past it an error frame, code 429, with "
                "`retry_after`); ping: a pong with the same id. "
                "Any other frame gets an error frame (code 400).",
                "messages": [message_ref(m) for m in CLIENT_FRAMES if m is not ActionFrame],
            },
        },
        "components": {"schemas": _frame_schemas()},
    }
    leagues = league_parts()
    document["channels"].update(leagues["channels"])
    document["operations"].update(leagues["operations"])
    return document


def league_message_ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": f"#/channels/league/messages/{frame_type(model)}"}


def league_parts() -> dict[str, Any]:
    """Leagues (issue 32): ``WS /ws/leagues/{league_id}``, news that a league changed."""
    channel = {"$ref": "#/channels/league"}
    return {
        "channels": {
            "league": {
                "address": "/ws/leagues/{league_id}",
                "title": "One league",
                "description": "Anyone may watch (no token). Whenever a league game gets its result, a "
                "round is paired, a player joins or withdraws, or the league starts or ends, every "
                "socket on it, on every server process, gets a `league` frame; the client then "
                "fetches GET /api/v1/leagues/{league_id}.",
                "parameters": {"league_id": {"description": "The league's id."}},
                "messages": {
                    frame_type(m): _message(m) for m in (*LEAGUE_SERVER_FRAMES, *LEAGUE_CLIENT_FRAMES)
                },
            }
        },
        "operations": {
            "sendLeagueNews": {
                "action": "send",
                "channel": channel,
                "title": "News of the league",
                "messages": [league_message_ref(m) for m in LEAGUE_SERVER_FRAMES if frame_type(m) != "pong"],
            },
            "receiveLeaguePing": {
                "action": "receive",
                "channel": channel,
                "title": "Ping",
                "messages": [league_message_ref(m) for m in LEAGUE_CLIENT_FRAMES],
                "reply": {"channel": channel, "messages": [league_message_ref(LEAGUE_SERVER_FRAMES[-1])]},
            },
        },
    }
