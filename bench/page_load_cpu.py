"""Browser benchmark: the CPU one match page costs the browser, in each Chromium build.

A benchmark, not a test. It serves the app on a fresh SQLite database (uvicorn in a
thread), creates a `kelly` match between two players, then opens the match page N times
(a new browser context each time, as the browser tests do), waits until it shows the
match live, takes a screenshot (``--shot``: none, the window, or a whole TV page) and
closes it. It reports the CPU time (user + system) the browser's processes used per page:
every process below this one except the Playwright driver, read from /proc before and
after, so other programs on a shared machine do not count.

    .venv/bin/python bench/page_load_cpu.py --pages 20 \\
        --chromium /usr/bin/chromium /usr/bin/chromium-headless-shell
    .venv/bin/python bench/page_load_cpu.py --pages 12 --chromium /usr/bin/chromium-headless-shell \
        --shot none

The builds are measured in turns (A, B, A, B…), a batch of pages each, so a busy
moment of the machine falls on both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from tests.conftest import LiveServer  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
TICK = os.sysconf("SC_CLK_TCK")
BUILDS = ["/usr/bin/chromium", "/usr/bin/chromium-headless-shell"]
LIVE = "() => /^\\d+$/.test(document.getElementById('match').dataset.version)"


SHOTS = {
    "none": ({"width": 1280, "height": 900}, None),
    "window": ({"width": 1280, "height": 900}, {}),
    "tv-full": ({"width": 1920, "height": 1080}, {"full_page": True}),
}
"""What each page ends with: no screenshot, one of the window, or a whole page on a TV."""


def open_once(browser, url: str, cookie: dict[str, str], shot: str = "window") -> None:
    """One page as a browser test opens it: a new context, the match live, a screenshot."""
    viewport, screenshot = SHOTS[shot]
    context = browser.new_context(viewport=viewport, reduced_motion="reduce")
    context.add_cookies([cookie])
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#connection:text('Live')")
    page.wait_for_function(LIVE)
    if screenshot is not None:
        page.screenshot(**screenshot)
    context.close()


def descendants_cpu(skip: str = "node") -> float:
    """CPU seconds of every process below this one, but the Playwright driver (``skip``)."""
    children: dict[int, list[int]] = {}
    stats: dict[int, tuple[str, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name, rest = raw[raw.index("(") + 1 : raw.rindex(")")], raw.rsplit(")", 1)[1].split()
        children.setdefault(int(rest[1]), []).append(int(entry))
        stats[int(entry)] = (name, (int(rest[11]) + int(rest[12])) / TICK)
    total, stack = 0.0, list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        name, cpu = stats.get(pid, ("", 0.0))
        if not name.startswith(skip):
            total += cpu
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20, help="pages per build (default 20)")
    parser.add_argument("--batch", type=int, default=5, help="pages in a row per build (default 5)")
    parser.add_argument(
        "--chromium", nargs="+", default=["/usr/bin/chromium", "/usr/bin/chromium-headless-shell"]
    )
    parser.add_argument(
        "--shot", choices=list(SHOTS), default="window", help="the screenshot each page ends with"
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bench.db", bot_delay_ms=0)
        server = LiveServer(settings).start()
        blue = httpx.post(f"{server.url}/api/v1/players", json={"name": "Blue"}).json()
        red = httpx.post(f"{server.url}/api/v1/players", json={"name": "Red"}).json()
        created = httpx.post(
            f"{server.url}/api/v1/matches",
            json={"ruleset": "kelly", "options": {}, "seat": 0},
            headers={"Authorization": f"Bearer {blue['token']}"},
        ).json()
        httpx.post(
            f"{server.url}/api/v1/matches/{created['id']}/join",
            json={},
            headers={"Authorization": f"Bearer {red['token']}"},
        )
        url = f"{server.url}/matches/{created['id']}"
        cookie = {"name": "dejarik_token", "value": blue["token"], "url": server.url}
        cpu: dict[str, list[float]] = {path: [] for path in args.chromium}
        wall: dict[str, list[float]] = {path: [] for path in args.chromium}
        with sync_playwright() as playwright:
            browsers = {
                path: playwright.chromium.launch(executable_path=path, args=ARGS) for path in args.chromium
            }
            for _ in range(0, args.pages, args.batch):
                for path, browser in browsers.items():
                    for _ in range(args.batch):
                        before, started = descendants_cpu(), time.perf_counter()
                        open_once(browser, url, cookie, args.shot)
                        cpu[path].append(descendants_cpu() - before)
                        wall[path].append(time.perf_counter() - started)
            for browser in browsers.values():
                browser.close()
        server.stop()
    print(f"{'chromium':40} {'pages':>5} {'CPU/page median':>16} {'mean':>6} {'wall/page median':>17}")
    for path in args.chromium:
        median, mean = statistics.median(cpu[path]), statistics.mean(cpu[path])
        took = statistics.median(wall[path])
        print(f"{path:40} {len(cpu[path]):5} {median:15.3f}s {mean:5.3f}s {took:16.3f}s")


if __name__ == "__main__":
    main()
