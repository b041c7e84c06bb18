"""JSON from clients (``app/api/json_input.py``) and the body check in front of every
route (``BodyLimit``, ``app/api/errors.py``), without a server: what no database or
encoder could take is refused with the path of the field, oversized bodies with a
413, and everything else passes untouched. ``tests/api/test_hostile_input.py`` fuzzes
a live server with the same values."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.types import Message

from app.api.errors import BodyLimit, body_problem, problem_as_field_error
from app.api.json_input import MAX_DEPTH, MAX_SAFE_INT, UnsafeInput, parse, printable


def refused(raw: str | bytes, where: str = "body") -> str:
    """The message ``parse`` refuses ``raw`` with."""
    with pytest.raises(UnsafeInput) as problem:
        parse(raw, where)
    assert problem.value.message == f"{problem.value.where}: {problem.value.problem}"
    return problem.value.message


def nested(levels: int) -> str:
    """``levels`` objects, one inside the other, around a number."""
    return '{"a": ' * levels + "1" + "}" * levels


def test_ordinary_json_comes_back_as_sent():
    text = '{"action": {"type": "move", "piece": "🐉 é", "to": "A1", "n": [1, 2.5, -3]}, "version": 7}'
    assert parse(text) == json.loads(text)
    assert parse(text.encode()) == json.loads(text), "bytes as well as text"
    assert parse('{"a": null, "b": true, "c": ""}') == {"a": None, "b": True, "c": ""}


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_with_the_field(constant: str):
    message = refused(f'{{"name": {constant}}}')
    assert message == f"body.name: {constant} is not a JSON number (must be finite)"


@pytest.mark.parametrize("number", ["1e999", "-1e999"])
def test_a_number_too_large_for_a_float_is_refused(number: str):
    assert refused(f'{{"turns": {number}}}') == "body.turns: must be a finite number"


def test_integers_past_2_to_the_53_are_refused_and_up_to_it_accepted():
    assert parse(f'{{"n": {MAX_SAFE_INT}}}') == {"n": MAX_SAFE_INT}
    assert parse(f'{{"n": {-MAX_SAFE_INT}}}') == {"n": -MAX_SAFE_INT}
    for number in (MAX_SAFE_INT + 1, -MAX_SAFE_INT - 1, 10**30):
        assert refused(f'{{"n": {number}}}') == "body.n: the integer is too large (at most 2^53)"


def test_a_nul_character_is_refused_in_a_value_and_in_a_field_name():
    assert refused('{"name": "R2\\u0000D2"}') == "body.name: must not contain a NUL character"
    assert refused('{"a\\u0000b": 1}') == "body.a\\x00b: the field name must not contain a NUL character"


def test_a_lone_surrogate_is_refused_in_a_value_and_in_a_field_name():
    assert refused('{"name": "\\ud800"}') == "body.name: must be valid Unicode (it has a lone surrogate)"
    assert refused('{"name": "ok\\ud83dthen"}').startswith("body.name: must be valid Unicode")
    message = refused('{"\\udfff": 1}')
    assert message == "body.\\udfff: the field name must be valid Unicode (it has a lone surrogate)"
    message.encode("utf-8")  # the message itself can be sent


def test_a_pair_of_surrogates_is_one_character_and_accepted():
    assert parse('{"name": "\\ud83d\\udc09"}') == {"name": "🐉"}


def test_the_path_names_list_items_by_index_and_the_websocket_frame_by_its_name():
    assert refused('{"action": {"path": ["A1", "A2", NaN]}}').startswith("body.action.path.2:")
    assert refused('{"type": "action", "id": "\\u0000"}', "frame").startswith("frame.id:")
    assert refused("NaN") == "body: NaN is not a JSON number (must be finite)"


def test_nesting_up_to_the_limit_is_accepted_and_one_level_more_refused():
    assert parse(nested(MAX_DEPTH)) is not None
    message = refused(nested(MAX_DEPTH + 1))
    assert message.endswith(f": nested deeper than {MAX_DEPTH} levels")
    assert message.startswith("body.a.a.")


@pytest.mark.parametrize("raw", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_nesting_deep_enough_to_exhaust_the_stack_is_refused_not_a_crash(raw: str):
    assert refused(raw) == f"body: nested deeper than {MAX_DEPTH} levels"


@pytest.mark.parametrize("raw", ["{", '"unterminated', "", "{'single': 1}", b"\xff\xfe"])
def test_text_that_is_not_json_is_a_plain_value_error_for_the_parser_to_word(raw: str | bytes):
    with pytest.raises(ValueError) as error:
        parse(raw)
    assert not isinstance(error.value, UnsafeInput)


def test_printable_escapes_what_a_reply_cannot_show_and_keeps_the_rest():
    assert printable("Bo\x00ba") == "Bo\\x00ba"
    assert printable("\ud800") == "\\ud800"
    assert printable("\x1b[31m") == "\\x1b[31m"
    assert printable("Dengar 🐉 é") == "Dengar 🐉 é"


# --- the body check in front of every route -----------------------------------------


def test_a_json_body_is_checked_whatever_its_json_content_type():
    for kind in (
        b"application/json",
        b"Application/JSON; charset=utf-8",
        b"application/merge-patch+json",
        b"",
    ):
        problem = body_problem(kind, b'{"name": NaN}')
        assert problem is not None and problem.where == "body.name", kind


def test_bodies_fastapi_does_not_parse_as_json_are_left_alone():
    assert body_problem(b"text/plain", b'{"name": NaN}') is None
    assert body_problem(b"application/json", b"{not json") is None, "FastAPI says where it stops"
    assert body_problem(b"application/json", b"  \n") is None


def test_a_form_with_a_nul_anywhere_is_refused():
    for body in (b"name=Bo%00ba", b"name=Bo%00", b"x=1&name=%00"):
        problem = body_problem(b"application/x-www-form-urlencoded", body)
        assert problem is not None and problem.message == "form: must not contain a NUL character"
    assert body_problem(b"application/x-www-form-urlencoded", b"name=Boba%20Fett") is None


def test_a_refusal_names_the_field_as_a_path_of_keys_and_indexes():
    problem = UnsafeInput("body.action.path.2", "must be a finite number")
    assert problem_as_field_error(problem) == {
        "loc": ["body", "action", "path", 2],
        "msg": "must be a finite number",
        "type": "unsafe_input",
    }


class App:
    """The app behind the check: answers 200 with the body it was given."""

    def __init__(self) -> None:
        self.body: bytes | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        self.body = b"".join(chunks)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": self.body})


async def through(
    chunks: list[bytes],
    headers: dict[str, str] | None = None,
    path: str = "/api/v1/players",
    query: bytes = b"",
    limit: int = 1024,
) -> tuple[int, Any, bytes | None]:
    """(status, JSON answer or None, body the app saw or None) for a request through ``BodyLimit``."""
    app = App()
    incoming = [
        {"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1}
        for n, chunk in enumerate(chunks)
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    raw = [
        (k.encode(), v.encode()) for k, v in {"content-type": "application/json", **(headers or {})}.items()
    ]
    scope = {"type": "http", "method": "POST", "path": path, "query_string": query, "headers": raw}
    await BodyLimit(app, limit)(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, (json.loads(body) if status != 200 else None), app.body


async def test_a_good_body_reaches_the_app_whole_even_in_pieces():
    status, _, seen = await through([b'{"name": ', b'"Lando"}'])
    assert (status, seen) == (200, b'{"name": "Lando"}')


async def test_a_body_declared_larger_than_the_limit_is_a_413_before_it_is_read():
    status, answer, seen = await through([b"{}"], {"content-length": "2048"})
    assert (status, seen) == (413, None)
    assert answer == {"detail": "the request body is larger than 1 KB"}


async def test_a_streamed_body_that_grows_past_the_limit_is_a_413():
    status, answer, seen = await through([b'{"name": "' + b"x" * 600, b"x" * 600 + b'"}'])
    assert (status, seen) == (413, None)
    assert "larger than 1 KB" in answer["detail"]


async def test_a_content_length_that_is_no_number_is_refused():
    for declared in ("-1", "1e3", "0x10"):
        status, _, seen = await through([b"{}"], {"content-length": declared})
        assert (status, seen) == (413, None), declared


async def test_unsafe_json_is_a_422_naming_the_field_and_never_reaches_the_app():
    status, answer, seen = await through([b'{"name": "R2\\u0000D2"}'])
    assert (status, seen) == (422, None)
    assert answer == {
        "detail": "body.name: must not contain a NUL character",
        "errors": [
            {"loc": ["body", "name"], "msg": "must not contain a NUL character", "type": "unsafe_input"}
        ],
    }


async def test_a_nul_in_the_path_or_the_query_is_a_422_saying_where():
    status, answer, _ = await through([b""], path="/api/v1/matches/abc\x00def")
    assert (status, answer["detail"]) == (422, "path: must not contain a NUL character")
    status, answer, _ = await through([b""], path="/api/v1/matches", query=b"player=a%00b")
    assert (status, answer["detail"]) == (422, "query: must not contain a NUL character")
