"""A game ready to teach its deck on the page, for the end-to-end tests of the teach panel."""

from __future__ import annotations

from pathlib import Path

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import once

PHOTO = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"


def teach_panel_of_two_photo_rounds(driver, url: str, one_pile: bool = False):
    """A pagat game of Us and Them made on the server at ``url`` with two photo rounds, each the bundled photo as
    team Us's table (a few bytes more the second time: another file), saved as read (``one_pile``: corrected to its
    first pile alone, a few card corners), and its panel that teaches the deck opened in ``driver``: (the game's id,
    the panel's deck name field)."""
    game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    for tail in (b"", b"\0\0\0"):
        r = httpx.post(f"{url}/v1/photos", files=[("photos", ("table.jpg", PHOTO.read_bytes() + tail, "image/jpeg"))],
                       data={"rules": "pagat", "teams": "Us"}, timeout=120, headers=once())
        assert r.status_code == 201, r.text
        piles = [p["id"] for im in r.json()["images"] for p in im["piles"]]
        fixes = [{"op": "remove_pile", "pile": p} for p in piles[1:]] if one_pile else []
        saved = httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json={"photo_reading": r.json()["id"],
                                                                               "corrections": fixes})
        assert saved.status_code == 201, saved.text
    driver.get(f"{url}/#/game/{game}/teach")
    return game, WebDriverWait(driver, 60).until(lambda d: d.find_elements(By.ID, "deck-name")).pop()
