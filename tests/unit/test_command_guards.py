"""A command handler run with no tab, or with the browser gone, says so in one line (a
CommandError), never an AttributeError on None. `execute` gives the handlers that need one a
tab; these are the handlers' own guards (Context.needs_tab, Session.browser_context)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from cockpit.core import REGISTRY
from cockpit.core.base.errors import CommandError
from cockpit.core.language.parser import parse
from cockpit.core.session.context import Context
from cockpit.core.session.browser_owner import BrowserOwner
from cockpit.core.session.session import Session


class NoBrowser:
    """A session whose browser is not running: no context, no tabs."""

    _context = None
    context = None
    tabs: list[Any] = []
    active = None
    browser_context = BrowserOwner.browser_context  # the real guard

    def __init__(self, files_dir: Path) -> None:
        self.files_dir = files_dir


async def _run(line: str, tmp_path: Path) -> None:
    inv = parse(line, REGISTRY)
    ctx = Context(cast(Session, NoBrowser(tmp_path)), None)
    await inv.spec.handler(ctx, inv)


@pytest.mark.parametrize("line", [
    "dialog accept", "upload @e1 shot.png", "closetab", "links", "snapshot", "screenshot"])
async def test_a_command_without_a_tab_says_so(line: str, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="the browser has no tab for this command"):
        await _run(line, tmp_path)


@pytest.mark.parametrize("line", [
    "cookies clear --url https://example.com", "cookies list --url https://example.com",
    "state save {tmp}/state.json", "state load {tmp}/saved.json"])
async def test_a_command_without_the_browser_says_so(line: str, tmp_path: Path) -> None:
    (tmp_path / "saved.json").write_text(json.dumps({"cookies": [], "origins": []}))
    with pytest.raises(CommandError, match="the browser is not running"):
        await _run(line.format(tmp=tmp_path), tmp_path)
