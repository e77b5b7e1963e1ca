"""Saving and loading cookies and web storage (Playwright's storage-state JSON format).

A persistent context cannot be given a storage state at launch, so loading adds the
cookies and writes each origin's localStorage from a blank page served for that origin
by a route: nothing is fetched from the network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

BLANK = "<!doctype html><title>cockpit</title>"


async def save_state(context: BrowserContext, path: Path) -> dict[str, int]:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = await context.storage_state(indexed_db=True)
    except TypeError:  # an older Playwright without IndexedDB support
        data = await context.storage_state()
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    path.chmod(0o600)  # it holds session cookies
    return {"cookies": len(data.get("cookies", [])), "origins": len(data.get("origins", []))}


async def load_state(context: BrowserContext, data: dict[str, Any]) -> dict[str, int]:
    cookies = data.get("cookies", [])
    origins = data.get("origins", [])
    if cookies:
        await context.add_cookies(cookies)
    for origin in origins:
        items = origin.get("localStorage", [])
        if not items or not origin.get("origin", "").startswith("http"):
            continue
        page = await context.new_page()
        try:
            url = origin["origin"].rstrip("/") + "/__cockpit_state__"
            await page.route(url, lambda route: route.fulfill(body=BLANK,
                                                              content_type="text/html"))
            await page.goto(url)
            await page.evaluate("(items) => { for (const {name, value} of items) "
                                "localStorage.setItem(name, value); }", items)
        finally:
            await page.close()
    return {"cookies": len(cookies), "origins": len(origins)}
