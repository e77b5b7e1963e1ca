"""A recording as a readable test: pytest-playwright, or @playwright/test in TypeScript
(the language's own words come from dialects.py, the spec's header from export_ts.py).

Elements are found the way a person names them (role and accessible name, recorded with
each step), never by ref numbers; secrets stay names read from the environment; the
recorded site's origin is one constant a run can move with $COCKPIT_ORIGIN."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

from ..core import (
    REGISTRY, USE, CommandError, Expectation, Invocation, Pattern, Registry, as_ref,
    command_of, expectation_of, parse, split_chain,
)
from . import export_steps as forms
from . import pointer
from .dialects import PYTHON, Python
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
from playwright.sync_api import Error, Page, expect

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


def closed_by(page: Page, error: Error) -> None:
    """A step whose action closed its own tab (a popup's Save): Playwright may fail the
    call it still waited on as the tab went. The step was done if the tab closes."""
    if not page.is_closed():
        try:
            page.wait_for_event("close", timeout=2_000)
        except Error:
            raise error from None


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

# The form of each command that has one, as Playwright names the call (what a command
# *is* comes from its declaration: read-only and handoff steps are left out by their flags)
ACTIONS = {"click": "click", "dblclick": "dblclick", "hover": "hover", "focus": "focus",
           "check": "check", "uncheck": "uncheck"}
TYPING = {"fill": "fill", "type": "press_sequentially"}
HISTORY = {"back": "go_back", "forward": "go_forward", "reload": "reload"}
UNNAMED = "recorded without its name"


def to_pytest(rec, name: str, registry: Registry = REGISTRY) -> str:
    """The recording as a pytest-playwright test."""
    origin = recorded_origin(rec) or ""
    secrets = secrets_typed(rec)
    note = (f"; the secrets it types come from the environment: {', '.join(secrets)}"
            if secrets else "")
    lines = [HEADER.format(title=title(rec), source=rec.path.name,
                           secrets_note=note, origin=origin, name=name)]
    network = Exporter()  # network and emulation steps (export_network.py)
    lines += body(rec, origin, registry, PYTHON, network)
    if network.helpers:  # before the test function: the header's last lines begin it
        head, sep, test = lines[0].rpartition("\n\ndef test_")
        lines[0] = head + "".join(network.helpers.values()) + sep + test
    return "\n".join(lines).rstrip() + "\n"


def title(rec) -> str:
    return (f"A walk recorded by Cockpit ({rec.header.get('session', '')}, "
            f"{len(rec.steps)} steps).")


def secrets_typed(rec) -> list[str]:
    """The `$NAME`s the recorded commands use: the test reads them from the environment."""
    return sorted({m.group(1) or m.group(2) for s in rec.steps
                   for m in USE.finditer(s["command"])})


def body(rec, origin: str, registry: Registry, d: Python,
         network: Exporter | None = None) -> list[str]:
    """The test's statements, step by step, indented for its function. `network`: writes
    the network and emulation steps in the same dialect, and the helpers they need."""
    lines: list[str] = []
    url = None
    on_tab = 1  # the tab the test is on, as the recording numbers them
    for index, step in enumerate(rec.steps):
        code = _step(step, origin, registry, d, network)
        exported = bool(code) and not code[0].startswith(d.comment_mark)
        answer = _dialog_answer(rec.steps[index + 1:index + 2], registry, d)
        if answer:  # the dialog it opens is answered as the next step did
            code = [answer, *code]
        at = step.get("at") if isinstance(step.get("at"), dict) else {}
        if exported and isinstance(at.get("tab"), int) \
                and at["tab"] != on_tab:  # no `tab` step switched: the tab it was on
            code = [d.assign_page(f"{d.fn('after_close')}(page, {at['tab']})"),
                    *code]  # closed itself
        switches = _switches_tab(step, registry)
        left = isinstance(at.get("tab"), int) and step.get("tab") != at["tab"] and \
            not switches  # its tab closed by itself: no URL to see there
        if exported and left:
            code = d.closing(code)
        if code:
            lines.append(d.indent + d.comment(f"step {step['n']}: {_comment(step['command'])}"))
            lines += [d.indent + c for c in code]
        if code and isinstance(step.get("tab"), int) and switches:
            on_tab = step["tab"]  # the test's page followed the switch
        elif code and isinstance(at.get("tab"), int):
            # The test's page is still the tab the step ran on, even when the session
            # went back to the opener in the step (a popup that closed itself): the next
            # step, on another tab, waits for that close first.
            on_tab = at["tab"]
        new_url = step.get("url")
        began = at.get("url") if isinstance(at.get("url"), str) else url
        if exported and step.get("ok") and new_url and new_url != began and not left and \
                new_url.startswith("http"):
            lines.append(d.indent + d.do(d.call(d.expect("page"), "to_have_url",
                                                _url(new_url, origin, d))))
        url = new_url or url
    return lines


def _switches_tab(step: dict[str, Any], registry: Registry) -> bool:
    """The step's command moves the session to another tab by itself saying so."""
    spec = command_of(step.get("command") or "", registry)
    return bool(spec is not None and spec.switches_tab)


def _step(step: dict[str, Any], origin: str, registry: Registry, d: Python,
          network: Exporter | None = None) -> list[str]:
    if step.get("source") not in REPLAYED_SOURCES:
        return []
    try:
        inv = parse(step["command"], registry)
    except CommandError:  # a command this version does not know, or malformed quotes
        return [d.comment(f"not exported (cannot be read): {_comment(step['command'])}")]
    spec, p = inv.spec, inv.params
    name = spec.name
    if (spec.read_only and not spec.asserts) or spec.needs_person or spec.session_control \
            or spec.proposes:
        return []
    if not step.get("ok"):
        return [d.comment(f"failed when recorded, not exported: "
                          f"{_comment(step.get('error'))}")]
    flags = {f.key for f in inv.spec.flags if p.get(f.key) not in (None, False)}
    targets = step.get("targets") or {}
    if spec.asserts:
        return _expect(inv, step, origin, d)
    if name == "goto":
        return [d.do(d.call("page", "goto", _url(p["url"], origin, d)))]
    if network is not None and _turns_wheel(name, p):  # the test's own `wheel` helper
        network.helpers["wheel"] = forms.wheel_helper(d)
    if name == "mouse":  # page.mouse.* at the element it was recorded on (pointer.py)
        return pointer.exported(step["command"], step.get("under"), registry,
                                lambda target, known: _locator(target, known, d)[0],
                                targets, d) or []
    if name in HISTORY:
        return [d.do(d.call("page", HISTORY[name]))]
    target = p.get("target")
    loc, note = _locator(target, targets, d) if isinstance(target, str) else ("", "")
    if name in ACTIONS and not flags:
        return [d.do(d.call(loc, ACTIONS[name])) + note]
    if name in TYPING and spec.typed_text and not flags - {"delay"}:
        typed = _text(p[spec.typed_text], d)
        keys = [d.do(d.call(loc, "press", d.lit("ControlOrMeta+a")))] \
            if step.get("select_all") else []  # a code editor: its own select-all first
        return keys + [d.do(d.call(loc, TYPING[name], typed)) + note]
    if name == "press":
        if target:
            return [d.do(d.call(loc, "press", d.lit(p["key"]))) + note]
        return [d.do(d.call("page.keyboard", "press", d.lit(p["key"])))]
    if name == "select":
        return [d.do(d.call(loc, "select_option", d.lit(list(p["options"])))) + note]
    if name == "tab":
        return [d.assign_page(f"{d.fn('tab')}(page, {int(p['n'])})")]
    if name == "newtab":
        out = [d.assign_page(d.call(d.context(), "new_page"))]
        return out + ([d.do(d.call("page", "goto", _url(p["url"], origin, d)))]
                      if p.get("url") else [])
    if name == "wait":
        return _wait(p, d)
    if name == "closetab":  # then the tab the recording went on with
        close = d.do(d.call(f"{d.pages()}[{int(p['n']) - 1}]", "close")) if p.get("n") \
            else d.do(d.call("page", "close"))
        return [close, d.assign_page(f"{d.fn('tab')}(page, {int(step.get('tab') or 1)})")]
    if network is not None:  # network and emulation steps (export_network.py)
        emulated = network.step(name, p)
        if emulated is not None:
            return emulated
    elif Exporter.writes(name):
        return [d.comment(f"not exported to this runner yet: {_comment(step['command'])}")]
    def locate(target: str) -> str:
        return _locator(target, targets, d)[0]

    form = _page_form(name, p, locate, d)
    if form is not None:
        return form
    if name == "chain":  # each command of it, as its own statements
        return [line for sub in split_chain(list(p["commands"]))
                for line in _step({**step, "command": sub}, origin, registry, d, network)]
    if name == "dialog":  # a handler set before the step that opened it (body)
        return [d.comment("answered by the handler set before the step above")]
    if name == "state":  # its file, as given (a relative one: from where the test runs)
        if p["action"] == "save":
            return [d.do(d.call(d.context(), "storage_state", path=p["file"]))]
        return [d.do(f"{d.fn('load_state')}(page, {d.lit(p['file'])})")]
    return [d.comment(f"not exported (no {d.name} form yet): {_comment(step['command'])}")]


def _turns_wheel(name: str, p: dict[str, Any]) -> bool:
    """`scroll up|down` and `mouse wheel`: exported with the `wheel` helper."""
    if name == "scroll":
        return (p.get("where") or "down").lower() in ("up", "down")
    return name == "mouse" and p.get("action") == "wheel"


def _page_form(name: str, p: dict[str, Any], locate: forms.Locate,
               d: Python) -> list[str] | None:
    """The page and browser-state steps (export_steps.py); None: not one of them."""
    if name == "upload":
        return forms.upload(p, locate, d)
    if name == "drag":
        return forms.drag(p, locate, d)
    if name == "scroll":
        return forms.scroll(p, locate, d)
    if name == "viewport":
        return forms.viewport(p, d)
    if name == "cookies":
        return forms.cookies(p, d) or []
    if name == "storage":
        return forms.storage(p, d) or []
    if name == "js":
        return forms.js(p, d)
    return None


def _dialog_answer(after: list[dict[str, Any]], registry: Registry, d: Python) -> str | None:
    """When the step after this one answered a dialog, the handler that answers it (set
    before this step runs: Playwright dismisses a dialog that nobody handles)."""
    if not after or not after[0].get("ok") or after[0].get("source") not in REPLAYED_SOURCES:
        return None
    try:
        inv = parse(after[0]["command"], registry)
    except CommandError:
        return None
    return forms.answer_dialog(inv.params, d) if inv.spec.name == "dialog" else None


def _expect(inv: Invocation, step: dict[str, Any], origin: str, d: Python) -> list[str]:
    """An `expect` step as Playwright's own assertion, the same check the engine ran."""
    e = expectation_of(inv.params)
    targets = step.get("targets") or {}
    note = ""
    options: dict[str, Any] = {}
    if e.target is not None:  # an element's check, or count's selector
        subject, note = _locator(e.target, targets, d)
    elif e.kind == "page_text":
        subject = d.call("page", "locator", d.lit("body"))
        options["use_inner_text"] = True
    else:
        subject = "page"
    args = [] if e.expected is None else [_expected(e, step, origin, d)]
    if e.timeout_given:  # 0 checks once, as the engine does (0 is "none" to Playwright)
        options["timeout"] = max(e.timeout, 1)
    method = ("not_" if e.negates else "") + e.method
    return [d.do(d.call(d.expect(subject), method, *args, **options)) + note]


def _expected(e: Expectation, step: dict[str, Any], origin: str, d: Python) -> str:
    want = e.expected
    if isinstance(want, Pattern):
        return d.regex(want.source)
    if e.kind == "url" and isinstance(want, str):
        if want.startswith("/"):  # a path on the site it was checked on
            at = step.get("at")
            page = (at.get("url") if isinstance(at, dict) else None) or step.get("url") \
                or origin
            return _url(urljoin(str(page), want), origin, d)
        return _url(want, origin, d)
    return d.lit(want)


def _comment(text: Any) -> str:
    """Text for a comment: one line, whatever it held."""
    return " ".join(str(text).split())[:200]


def _locator(target: str, targets: dict[str, dict], d: Python) -> tuple[str, str]:
    """The element by role and name as the recording knew it (or the selector given),
    and a note to end its statement with when it could not be named."""
    ref = as_ref(target)
    if ref is None:
        return d.call("page", "locator", d.lit(target)), ""
    want = targets.get(ref)
    if want is None:  # a ref the recording could not name: nothing stable to find it by
        return (d.call("page", "locator", d.lit("aria-ref=" + ref)),
                f"  {d.comment(UNNAMED)}")
    within = "page"
    for frame in want.get("frame") or []:  # in iframes (a captured step): entered in turn
        within = d.call(within, "frame_locator", d.lit(frame))
    if want.get("label") and not want["name"]:  # nameless to Playwright: by its words
        loc = d.call(d.call(within, "get_by_role", d.lit(want["role"])), "filter",
                     has_text=want["label"])
    else:
        loc = d.call(within, "get_by_role", d.lit(want["role"]), name=want["name"],
                     exact=True)
    return (d.call(loc, "nth", str(want["nth"])) if want.get("nth") else loc), ""


def _text(word: str, d: Python) -> str:
    """An expression for typed text: $NAME becomes the environment variable."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", word)
    return d.env(m.group(1)) if m else d.lit(word)


def _url(url: str, origin: str, d: Python = PYTHON) -> str:
    """At the recorded origin (with its scheme or without: `goto localhost:8421/login`),
    the URL follows $COCKPIT_ORIGIN."""
    rest = at_origin(url, origin)
    return f"ORIGIN + {d.lit(rest)}" if rest is not None else d.lit(url)


def _wait(p: dict[str, Any], d: Python) -> list[str]:
    out = []
    if p.get("text"):
        text = d.first(d.call("page", "get_by_text", d.lit(p["text"])))
        out.append(d.do(d.call(d.expect(text), "to_be_visible")))
    if p.get("gone"):
        gone = d.call("page", "get_by_text", d.lit(p["gone"]))
        out.append(d.do(d.call(d.expect(gone), "to_have_count", "0")))
    return out or [d.do(d.call("page", "wait_for_load_state"))]
