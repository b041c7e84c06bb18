"""The settings (``app/config.py``) and the README's table of them: an operator finds every
setting there, under the name the environment gives it."""

from __future__ import annotations

import re
from pathlib import Path

from app.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_setting_is_in_the_readme_s_table():
    rows = [line for line in README.read_text().splitlines() if line.startswith("| `")]
    named = {name.lower() for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split(" | ")[0])}
    missing = sorted(name.upper() for name in Settings.model_fields if name not in named)
    assert not missing, f"settings missing from the README's table: {missing}"
