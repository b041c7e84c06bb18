"""The installable app (issue 33): the manifest a browser installs from, its icons, and the
service worker served from the root with a version that follows the static files.
``tests/browser/test_installable.py`` checks them in Chromium."""

from __future__ import annotations

import io
import json
import re
import shutil

from PIL import Image

from app.api.app_shell import service_worker_script
from app.api.headers import CONTENT_SECURITY_POLICY
from app.config import ROOT
from app.rules import registry


async def test_the_manifest_names_the_app_and_its_icons_have_their_sizes(client):
    response = await client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["name"] == "Dejarik" and manifest["short_name"] and manifest["description"]
    assert (manifest["start_url"], manifest["scope"], manifest["id"]) == ("/", "/", "/")
    assert manifest["display"] == "standalone"
    background = re.search(r"--bg: (#[0-9a-f]{6})", (ROOT / "static/style.css").read_text()).group(1)
    assert manifest["background_color"] == manifest["theme_color"] == background

    sizes = {}
    for icon in manifest["icons"]:
        image = await client.get(icon["src"])
        assert image.status_code == 200 and image.headers["content-type"] == "image/png", icon["src"]
        width, height = Image.open(io.BytesIO(image.content)).size
        assert icon["sizes"] == f"{width}x{height}", icon["src"]
        sizes.setdefault(icon["purpose"], set()).add(width)
    assert {192, 512} <= sizes["any"] and 512 in sizes["maskable"]

    home = (await client.get("/")).text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in home
    assert f'<meta name="theme-color" content="{background}">' in home
    touch_icon = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', home).group(1)
    assert (await client.get(touch_icon)).status_code == 200


async def test_the_worker_is_served_from_the_root_fresh_and_keeps_the_offline_pages(client):
    response = await client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY  # not loosened
    script = response.text
    assert re.search(r'const CACHE_VERSION = "[0-9a-f]{16}";', script)
    kept = json.loads(re.search(r"const OFFLINE_PAGES = (\[.*?\]);", script).group(1))
    assert kept == ["/rules", *(f"/rules/{ruleset}" for ruleset in registry()), "/tutorial"]
    static = json.loads(re.search(r"const STATIC_URLS = (\[.*?\]);", script).group(1))
    assert {"/static/style.css", "/static/js/net.js", "/static/icons/icon-192.png"} <= set(static)
    for url in static[:3]:
        assert (await client.get(url)).status_code == 200, url
    offline = await client.get("/offline")
    assert offline.status_code == 200 and "You are offline — reconnecting" in offline.text


def test_the_workers_version_changes_when_a_static_file_does(tmp_path):
    static = tmp_path / "static"
    shutil.copytree(ROOT / "static", static, ignore=shutil.ignore_patterns("vendor"))

    def version() -> str:
        return re.search(r'CACHE_VERSION = "(\w+)"', service_worker_script(static)).group(1)

    before = version()
    assert version() == before  # the same files, the same version
    (static / "style.css").write_text((static / "style.css").read_text() + "\n/* a deploy */\n")
    assert version() != before
