"""A recording as a readable pytest-playwright test.

Elements are found the way a person names them (role and accessible name, recorded with
each step), never by ref numbers; secrets stay names read from the environment; the
recorded site's origin is one constant a run can move with $COCKPIT_ORIGIN."""

from __future__ import annotations

import re
from typing import Any

from ..core import commands  # noqa: F401  (the registry parse() reads)
from ..core.errors import CommandError
from ..core.parser import command_of, parse
from ..core.registry import REGISTRY, Registry
from ..core.secrets import USE
from ..core.targets import as_ref
from .export_network import Exporter
from .replay import REPLAYED_SOURCES, at_origin, recorded_origin

HEADER = '''"""{title}

Exported by Cockpit from {source}. Run it with pytest (pytest-playwright's `page` fixture);
$COCKPIT_ORIGIN moves it to another copy of the site{secrets_note}.
"""

import json
import os
import re
import shutil

import pytest
from playwright.sync_api import Page, expect

ORIGIN = os.environ.get("COCKPIT_ORIGIN", {origin!r})


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Playwright's own Chromium when installed, else the system's (as Cockpit does)."""
    path = os.environ.get("COCKPIT_BROWSER_PATH") or next(
        (p for p in ("/usr/lib/chromium/chromium", shutil.which("chromium"),
                     shutil.which("google-chrome")) if p and os.path.exists(p)), None)
    args = ["--no-sandbox", "--disable-gpu"] if os.geteuid() == 0 else []
    return {{**browser_type_launch_args, **({{"executable_path": path}} if path else {{}}),
            "args": [*browser_type_launch_args.get("args", []), *args]}}


def tab(page: Page, n: int) -> Page:
    """Tab n (from 1), waiting for it: a click may open it a moment later."""
    while len(page.context.pages) < n:
        page.context.wait_for_event("page")
    page = page.context.pages[n - 1]
    page.bring_to_front()
    return page


def after_close(page: Page, n: int) -> Page:
    """Tab n, once the tab the test is on has closed itself (a popup, after its form)."""
    if not page.is_closed():
        page.wait_for_event("close")
    return tab(page, n)


def load_state(page: Page, path: str) -> None:
    """`state load`: the cookies and each site's localStorage that `state save` wrote
    (a relative path is taken from where the test runs)."""
    with open(path, encoding="utf-8") as file:
        state = json.load(file)
    page.context.add_cookies(state.get("cookies") or [])
    for origin in state.get("origins") or []:
        items = origin.get("localStorage") or []
        if not items or not origin.get("origin", "").startswith("http"):
            continue
        blank = page.context.new_page()  # the site's storage, written from a blank page
        url = origin["origin"].rstrip("/") + "/__cockpit_state__"
        blank.route(url, lambda route: route.fulfill(body="<title>state</title>",
                                                     content_type="text/html"))
        blank.goto(url)
        blank.evaluate("items => items.forEach(i => localStorage.setItem(i.name, i.value))",
                       items)
        blank.close()


def test_{name}(page: Page) -> None:
    page.set_default_timeout(float(os.environ.get("COCKPIT_TIMEOUT_MS", 10_000)))
'''

# The pytest form of each command that has one (what a command *is* comes from its
# declaration: read-only and handoff steps are left out by their flags).
ACTIONS = {"click": "click()", "dblclick": "dblclick()", "hover": "hover()",
           "focus": "focus()", "check": "check()", "uncheck": "uncheck()"}
TYPING = {"fill": "fill", "type": "press_sequentially"}
HISTORY = {"back": "go_back()", "forward": "go_forward()", "reload": "reload()"}


def to_pytest(rec, name: str, registry: Registry = REGISTRY) -> str:
    origin = recorded_origin(rec) or ""
    secrets = sorted({m.group(1) or m.group(2) for s in rec.steps
                      for m in USE.finditer(s["command"])})
    note = (f"; the secrets it types come from the environment: {', '.join(secrets)}"
            if secrets else "")
    lines = [HEADER.format(title=f"A walk recorded by Cockpit ({rec.header.get('session', '')}"
                                 f", {len(rec.steps)} steps).", source=rec.path.name,
                           secrets_note=note, origin=origin, name=name)]
    url = None
    on_tab = 1  # the tab the test is on, as the recording numbers them
    network = Exporter()  # network and emulation steps (export_network.py)
    for step in rec.steps:
        body = _step(step, origin, registry, network)
        at = step.get("at") if isinstance(step.get("at"), dict) else {}
        if body and not body[0].startswith("#") and isinstance(at.get("tab"), int) \
                and at["tab"] != on_tab:  # no `tab` step switched: the tab it was on
            body = [f"page = after_close(page, {at['tab']})", *body]  # closed itself
        if body:
            lines.append(f"    # step {step['n']}: {_comment(step['command'])}")
            lines += [f"    {b}" for b in body]
        switches = _switches_tab(step, registry)
        if body and isinstance(step.get("tab"), int) and switches:
            on_tab = step["tab"]  # the test's page followed the switch
        elif body and isinstance(at.get("tab"), int):
            # The test's page is still the tab the step ran on, even when the session
            # went back to the opener in the step (a popup that closed itself): the next
            # step, on another tab, waits for that close first.
            on_tab = at["tab"]
        new_url = step.get("url")
        began = at.get("url") if isinstance(at.get("url"), str) else url
        left = isinstance(at.get("tab"), int) and step.get("tab") != at["tab"] and \
            not switches  # its tab closed by itself: no URL to see there
        if body and step.get("ok") and new_url and new_url != began and not left and \
                new_url.startswith("http") and not body[0].startswith("#"):
            lines.append(f"    expect(page).to_have_url({_url(new_url, origin)})")
        url = new_url or url
    if network.helpers:  # before the test function: the header's last lines begin it
        head, sep, test = lines[0].rpartition("\n\ndef test_")
        lines[0] = head + "".join(network.helpers.values()) + sep + test
    return "\n".join(lines).rstrip() + "\n"


def _switches_tab(step: dict[str, Any], registry: Registry) -> bool:
    """The step's command moves the session to another tab by itself saying so."""
    spec = command_of(step.get("command") or "", registry)
    return bool(spec is not None and spec.switches_tab)


def _step(step: dict[str, Any], origin: str, registry: Registry,
          network: Exporter | None = None) -> list[str]:
    if step.get("source") not in REPLAYED_SOURCES:
        return []
    try:
        inv = parse(step["command"], registry)
    except CommandError:  # a command this version does not know, or malformed quotes
        return [f"# not exported (cannot be read): {_comment(step['command'])}"]
    spec, p = inv.spec, inv.params
    name = spec.name
    if spec.read_only or spec.needs_person:
        return []
    if not step.get("ok"):
        return [f"# failed when recorded, not exported: {_comment(step.get('error'))}"]
    flags = {f.key for f in inv.spec.flags if p.get(f.key) not in (None, False)}
    targets = step.get("targets") or {}
    if name == "goto":
        return [f"page.goto({_url(p['url'], origin)})"]
    if name in HISTORY:
        return [f"page.{HISTORY[name]}"]
    if name in ACTIONS and not flags:
        return [f"{_locator(p['target'], targets)}.{ACTIONS[name]}"]
    if name in TYPING and spec.typed_text and not flags - {"delay"}:
        typed = _text(p[spec.typed_text])
        return [f"{_locator(p['target'], targets)}.{TYPING[name]}({typed})"]
    if name == "press":
        if p.get("target"):
            return [f"{_locator(p['target'], targets)}.press({p['key']!r})"]
        return [f"page.keyboard.press({p['key']!r})"]
    if name == "select":
        return [f"{_locator(p['target'], targets)}.select_option({list(p['options'])!r})"]
    if name == "tab":
        return [f"page = tab(page, {int(p['n'])})"]
    if name == "newtab":
        out = ["page = page.context.new_page()"]
        return out + ([f"page.goto({_url(p['url'], origin)})"] if p.get("url") else [])
    if name == "wait":
        return _wait(p)
    if name == "closetab":  # then the tab the recording went on with
        close = f"page.context.pages[{int(p['n']) - 1}].close()" if p.get("n") else \
            "page.close()"
        return [close, f"page = tab(page, {int(step.get('tab') or 1)})"]
    emulated = (network or Exporter()).step(name, p)
    if emulated is not None:
        return emulated
    if name == "state":  # its file, as given (a relative one: from where the test runs)
        if p["action"] == "save":
            return [f"page.context.storage_state(path={p['file']!r})"]
        return [f"load_state(page, {p['file']!r})"]
    return [f"# not exported (no pytest form yet): {_comment(step['command'])}"]


def _comment(text: Any) -> str:
    """Text for a `#` comment: one line, whatever it held."""
    return " ".join(str(text).split())[:200]


def _locator(target: str, targets: dict[str, dict]) -> str:
    ref = as_ref(target)
    if ref is None:
        return f"page.locator({target!r})"
    want = targets.get(ref)
    if want is None:  # a ref the recording could not name: nothing stable to find it by
        return f"page.locator({('aria-ref=' + ref)!r})  # recorded without its name"
    if want.get("label") and not want["name"]:  # nameless to Playwright: by its words
        loc = f"page.get_by_role({want['role']!r}).filter(has_text={want['label']!r})"
    else:
        loc = f"page.get_by_role({want['role']!r}, name={want['name']!r}, exact=True)"
    return loc + (f".nth({want['nth']})" if want.get("nth") else "")


def _text(word: str) -> str:
    """A Python expression for typed text: $NAME becomes the environment variable."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", word)
    return f"os.environ[{m.group(1)!r}]" if m else repr(word)


def _url(url: str, origin: str) -> str:
    """At the recorded origin (with its scheme or without: `goto localhost:8421/login`),
    the URL follows $COCKPIT_ORIGIN."""
    rest = at_origin(url, origin)
    return f"ORIGIN + {rest!r}" if rest is not None else repr(url)


def _wait(p: dict[str, Any]) -> list[str]:
    out = []
    if p.get("text"):
        out.append(f"expect(page.get_by_text({p['text']!r}).first).to_be_visible()")
    if p.get("gone"):
        out.append(f"expect(page.get_by_text({p['gone']!r})).to_have_count(0)")
    return out or ["page.wait_for_load_state()"]
