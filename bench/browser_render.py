"""Browser benchmark: what a match page transfers, and how long rendering an update takes.

A benchmark, not a test. It serves the app on a fresh SQLite database (uvicorn in a
thread), opens a `kelly` match page as the blue player in Debian's Chromium (never a
downloaded browser), then applies N updates by playing random legal actions for both
players through the REST API; the page receives each over its websocket and renders it.

- transfer: the bytes the page's HTTP requests took on the wire (Chrome DevTools
  ``encodedDataLength``: HTML, CSS, JS modules, the log fetch) plus the websocket frames it
  received while loading (the snapshot);
- render: every ``dejarik-render`` measure (performance.mark/measure in
  static/js/render.js), p50/p95/max in milliseconds of wall-clock time;
- render CPU: the same renders in CPU time of the page's main thread (the thread clock
  of the start and end marks, from a Chrome trace of the ``blink.user_timing``
  category), which leaves out the time other processes of a busy machine take the core.

    .venv/bin/python bench/browser_render.py --updates 300

When a match ends, a new one starts and the page for it is opened; measures of every
page are pooled.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.rules.base import COMMON_ACTION_TYPES as COMMON  # noqa: E402
from tests.browser.conftest import CHROMIUM_ARGS  # noqa: E402
from tests.conftest import LiveServer  # noqa: E402

RENDER_TIMES = "performance.getEntriesByName('dejarik-render').map(m => m.duration)"
"""Every render of the page; the first draws the board from the snapshot, the rest are updates."""


def player(http: httpx.Client, name: str) -> dict[str, Any]:
    body = http.post("/api/v1/players", json={"name": name}).raise_for_status().json()
    body["headers"] = {"Authorization": f"Bearer {body['token']}"}
    return body


def new_match(http: httpx.Client, blue: dict[str, Any], red: dict[str, Any]) -> str:
    match = http.post("/api/v1/matches", json={"ruleset": "kelly", "seat": 0}, headers=blue["headers"])
    match_id = match.raise_for_status().json()["id"]
    http.post(f"/api/v1/matches/{match_id}/join", json={}, headers=red["headers"]).raise_for_status()
    return match_id


def play_one(
    http: httpx.Client, match_id: str, players: list[dict[str, Any]], rng: random.Random
) -> int | None:
    """One random legal action by whoever must act; the new version, or None once finished."""
    for seat_player in players:
        match = http.get(f"/api/v1/matches/{match_id}", headers=seat_player["headers"]).json()
        if match["status"] != "active":
            return None
        actions = [a for a in match["legal_actions"] if a["type"] not in COMMON]
        if actions:
            body = {"action": rng.choice(actions), "version": match["version"]}
            url = f"/api/v1/matches/{match_id}/actions"
            response = http.post(url, json=body, headers=seat_player["headers"])
            return response.raise_for_status().json()["version"]
    raise RuntimeError("nobody could act")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def render_cpu_times(trace_path: Path) -> list[float]:
    """CPU milliseconds of every update render in the trace: the main thread's clock
    (``tts``, microseconds) from each render's start mark to its end mark. The first
    render of each page (the snapshot, mark number 0) is left out."""
    events = json.loads(trace_path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    marks: dict[tuple[str, str, str], int] = {}
    prefix = "dejarik-render-"
    for event in events:
        name = event.get("name", "")
        if name.startswith(prefix) and "tts" in event:
            edge, number = name[len(prefix) :].rsplit("-", 1)
            page = event["args"]["data"].get("navigationId", "")
            marks[(page, number, edge)] = event["tts"]
    return [
        (end - marks[(page, number, "start")]) / 1000
        for (page, number, edge), end in marks.items()
        if edge == "end" and number != "0" and (page, number, "start") in marks
    ]


def open_page(context: Any, server: LiveServer, match_id: str) -> tuple[Any, dict[str, int]]:
    """The match page, loaded and live; with the bytes it transferred while loading."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    transferred = {"http": 0, "websocket": 0, "requests": 0}

    def finished(event: dict[str, Any]) -> None:
        transferred["http"] += int(event.get("encodedDataLength", 0))
        transferred["requests"] += 1

    def frame(event: dict[str, Any]) -> None:
        transferred["websocket"] += len(event["response"]["payloadData"].encode())

    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.webSocketFrameReceived", frame)
    page.goto(f"{server.url}/matches/{match_id}", wait_until="load")
    page.wait_for_function("document.getElementById('connection').dataset.connection === 'live'")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")
    page.wait_for_load_state("networkidle")
    snapshot = dict(transferred)
    cdp.remove_listener("Network.webSocketFrameReceived", frame)
    return page, snapshot


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--updates", type=int, default=300, help="updates to apply (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Settings(database_url=f"sqlite+aiosqlite:///{tmp}/bench.db")).start()
        try:
            with httpx.Client(base_url=server.url, timeout=30) as http, sync_playwright() as playwright:
                blue, red = player(http, "Blue bench"), player(http, "Red bench")
                browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_cookies([{"name": "dejarik_token", "value": blue["token"], "url": server.url}])
                match_id = new_match(http, blue, red)
                page, transfer = open_page(context, server, match_id)
                trace = Path(tmp) / "trace.json"
                browser.start_tracing(path=str(trace), categories=["blink.user_timing"])
                durations: list[float] = []  # renders of updates
                first_renders: list[float] = []  # the first render of each page: the snapshot
                applied = 0
                while applied < args.updates:
                    version = play_one(http, match_id, [blue, red], rng)
                    if version is None:  # the match ended: collect, and go on with a new one
                        first, *rest = page.evaluate(RENDER_TIMES)
                        first_renders.append(first)
                        durations += rest
                        page.close()
                        match_id = new_match(http, blue, red)
                        page, _ = open_page(context, server, match_id)
                        continue
                    page.wait_for_function(
                        "v => Number(document.getElementById('match').dataset.version) >= v", arg=version
                    )
                    applied += 1
                first, *rest = page.evaluate(RENDER_TIMES)
                first_renders.append(first)
                durations += rest
                browser.stop_tracing()
                cpu = render_cpu_times(trace)
                browser.close()
        finally:
            server.stop()

    total = transfer["http"] + transfer["websocket"]
    print(f"match page transfer: {total / 1024:.1f} KB")
    print(f"  http: {transfer['http'] / 1024:.1f} KB in {transfer['requests']} requests")
    print(f"  websocket while loading: {transfer['websocket'] / 1024:.1f} KB")
    print(f"updates applied: {applied}; update renders measured: {len(durations)}")
    print(f"first render of a page (the snapshot): max {max(first_renders):.2f} ms")
    p50, p95, mean = percentile(durations, 50), percentile(durations, 95), statistics.fmean(durations)
    print(f"update render ms: p50 {p50:.2f}  p95 {p95:.2f}  max {max(durations):.2f}  (mean {mean:.2f})")
    p50, p95, mean = percentile(cpu, 50), percentile(cpu, 95), statistics.fmean(cpu)
    print(f"update render CPU ms: p50 {p50:.2f}  p95 {p95:.2f}  max {max(cpu):.2f}  (mean {mean:.2f})")


if __name__ == "__main__":
    main()
