"""A browserless stand-in for `cockpit.core.Session`, for TUI snapshot tests.

`FakeSession` has the session surface (`cockpit.core.session.surface.SessionSurface`, checked by
mypy in `tests/surface_check.py`) plus start and close, and nothing else. Every event
it emits carries a fixed time from its own clock, so a screenshot of the command log is the same on
every run (with TZ=UTC: the log shows local times).
"""

from __future__ import annotations

import itertools
import logging
import shlex
from typing import Any

from cockpit.core import REGISTRY
from cockpit.core.base import events as ev
from cockpit.core.base.errors import EXIT_OK, EXIT_USAGE
from cockpit.core.base.events import Event, EventBus
from cockpit.core.base.result import Result

BASE_TIME = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
STEP_S = 7.0  # the fake clock moves this far between two commands
SITE = "http://127.0.0.1:8765"

TABS = [
    {"index": 1, "id": 1, "title": "Sign in — Cockpit Demo", "url": f"{SITE}/login",
     "loading": False, "active": True, "dialog": None},
    {"index": 2, "id": 2, "title": "Weekly report", "url": f"{SITE}/report",
     "loading": False, "active": False, "dialog": None},
]

REFS = [  # ref, role, name, value
    ("e1", "link", "Cockpit Demo", ""),
    ("e2", "heading", "Sign in", ""),
    ("e3", "checkbox", "Remember me", ""),
    ("e4", "textbox", "Email", "jane@example.com"),
    ("e5", "textbox", "Password", ""),
    ("e6", "button", "Sign in", ""),
    ("e7", "link", "Forgot password?", ""),
    ("e8", "status", "", "You stay signed in for 30 days"),
]

SNAPSHOT_I = "\n".join([
    '@e1 link "Cockpit Demo"',
    '@e2 heading "Sign in"',
    '@e3 checkbox "Remember me"',
    '@e4 textbox "Email": jane@example.com',
    '@e5 textbox "Password"',
    '@e6 button "Sign in"',
    '@e7 link "Forgot password?"',
])

CLICK_DIFF = {
    "summary": "+1 -0 ~1", "new_page": False, "url": None,
    "added": 1, "removed": 0, "changed": 1,
    "changes": [
        {"kind": "changed", "ref": "e3", "role": "checkbox", "name": "Remember me",
         "fields": {"checked": {"old": False, "new": True}}},
        {"kind": "added", "ref": "e8", "role": "status", "name": "",
         "text": "You stay signed in for 30 days"},
    ],
}


def goto_diff(url: str) -> dict[str, Any]:
    changes = [{"kind": "added", "ref": r, "role": role, "name": name}
               for r, role, name, _ in REFS[:7]]
    return {"summary": f"new page {url}, +7 -0 ~0", "new_page": True,
            "url": ["about:blank", url], "added": 7, "removed": 0, "changed": 0,
            "changes": changes}


class FakeBus(EventBus):
    """The real EventBus, plus `emit_at` for events with a given time."""

    def emit_at(self, time: float, kind: str, **data: Any) -> Event | None:
        if not self._listeners:
            return None
        event = Event(kind, data, time=time)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # as the real bus: counted and logged
                self.listener_errors += 1
                logging.getLogger("cockpit.tests").exception("a listener failed")
        return event


class FakeSession:
    """Canned answers, fixed times, no browser."""

    def __init__(self, name: str = "fake") -> None:
        self.name = name
        self.registry = REGISTRY
        self.bus = FakeBus()
        self.clock = BASE_TIME
        self.commands_run = 0
        self.lines: list[tuple[str, str]] = []  # (line, source) in the order run
        self._ids = itertools.count(1)

    # --- lifecycle ------------------------------------------------------------------------
    async def start(self) -> FakeSession:
        return self

    async def close(self) -> None:
        pass

    # --- running commands -----------------------------------------------------------------
    async def run(self, line: str, source: str = "human", *,
                  timeout: float | None = None, relayed: bool = False) -> Result:
        command_id = next(self._ids)
        self.lines.append((line, source))
        queued = self.clock
        self.clock += STEP_S
        self.bus.emit_at(queued, ev.COMMAND_QUEUED, id=command_id, command=line, source=source)
        self.bus.emit_at(queued, ev.COMMAND_STARTED, id=command_id, command=line,
                         source=source, targets=self._targets(line))
        result, side_events = self._answer(line, source)
        for kind, data in side_events:
            self.bus.emit_at(queued + result.ms / 1000, kind, **data)
        self.commands_run += 1
        self.bus.emit_at(queued + result.ms / 1000, ev.COMMAND_FINISHED, id=command_id,
                         source=source, exit_code=result.exit_code, **result.to_json())
        return result

    def _targets(self, line: str) -> dict[str, dict[str, Any]]:
        known = {r: (role, name) for r, role, name, _ in REFS}
        return {w.lstrip("@"): {"role": known[w.lstrip("@")][0],
                                "name": known[w.lstrip("@")][1], "nth": 0}
                for w in line.split()[1:] if w.lstrip("@") in known}

    def _answer(self, line: str, source: str) -> tuple[Result, list[tuple[str, dict]]]:
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        name = words[0] if words else ""
        spec = self.registry.get(name)
        if spec is None:
            error = (f"unknown command {name!r}: did you mean click or links or dblclick? "
                     "Type `help` to list the commands.")
            return Result(line, False, error=error, ms=1.0, exit_code=EXIT_USAGE,
                          source=source), []
        name = spec.name
        if name == "goto":
            url = words[1] if len(words) > 1 else f"{SITE}/login"
            diff = goto_diff(url)
            output = f"opened {url} - {TABS[0]['title']}\n{diff['summary']}"
            events = [(ev.NAVIGATION, {"tab": 1, "url": url}),
                      (ev.TAB_UPDATED, dict(TABS[0]))]
            return Result(line, True, output=output, ms=812.0, data={"diff": diff},
                          source=source), events
        if name == "snapshot":
            events = [(ev.SNAPSHOT, {"tab": 1, "url": TABS[0]["url"], "refs": len(REFS)})]
            return Result(line, True, output=SNAPSHOT_I, ms=9.0, source=source), events
        if name == "click":
            target = words[1] if len(words) > 1 else "@e3"
            lines = [f'clicked {target} (checkbox "Remember me")', CLICK_DIFF["summary"],
                     '~ @e3 checkbox "Remember me" (checked: false -> true)',
                     '+ @e8 status: You stay signed in for 30 days']
            return Result(line, True, output="\n".join(lines), ms=244.0, data={"diff": CLICK_DIFF},
                          source=source), []
        if name == "fill":
            target = words[1] if len(words) > 1 else "@e4"
            return Result(line, True, output=f"filled {target}", ms=31.0,
                          data={"diff": {"summary": "No change", "new_page": False,
                                         "url": None, "added": 0, "removed": 0,
                                         "changed": 0, "changes": []}},
                          source=source), []
        return Result(line, True, output=f"(fake) {line}", ms=5.0, exit_code=EXIT_OK,
                      source=source), []

    # --- what views ask -------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        active = next(t for t in TABS if t["active"])
        return {
            "session": self.name,
            "browser": "chromium (fake, headless)",
            "engine": "chromium",
            "headed": False,
            "tabs": len(TABS),
            "active": dict(active),
            "commands_run": self.commands_run,
            "uptime_s": 0.0,
            "profile": "/nonexistent/fake/profile-chromium",
            "files": "/nonexistent/fake/files",
        }

    def tabs_info(self) -> list[dict[str, Any]]:
        return [dict(t) for t in TABS]

    def refs_info(self) -> list[tuple[str, str, str, str]]:
        return list(REFS)

    def refs(self) -> list[tuple[str, str, str]]:
        return [(r, role, name) for r, role, name, _ in REFS]

    async def picture(self, labels: bool = False, timeout: float = 3.0,
                      target: str | None = None) -> bytes | None:
        return None

    async def current_refs(self) -> list[tuple[str, str, str, str]]:
        return self.refs_info()

    @property
    def secret_names(self) -> list[str]:
        return []

    async def agent_control(self, action: str) -> str:
        return "no agent: start one with cockpit --agent CMD"


PRELOAD = [
    (f"goto {SITE}/login", "human"),
    ("snapshot -i", "agent"),
    ("click @e3", "agent"),
    ("clik", "human"),
]


async def preload(fake: FakeSession) -> None:
    """Run canned commands so the log, diff, tabs and refs panes all have content.

    Call it inside the running app (its event batcher needs the app's loop)."""
    for line, source in PRELOAD:
        await fake.run(line, source=source)
