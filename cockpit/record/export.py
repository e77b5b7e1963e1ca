"""`cockpit export FILE --to pytest`: a recording as a readable pytest-playwright test.

Elements are found the way a person names them (role and accessible name, recorded with
each step), never by ref numbers; secrets stay names read from the environment; the
recorded site's origin is one constant a run can move with $COCKPIT_ORIGIN."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ..core.parser import split_words
from ..core.secrets import USE
from ..core.targets import as_ref
from .reader import UnreadableRecording, read
from .replay import REPLAYED_SOURCES, recorded_origin

HEADER = '''"""{title}

Exported by Cockpit from {source}. Run it with pytest (pytest-playwright's `page` fixture);
$COCKPIT_ORIGIN moves it to another copy of the site{secrets_note}.
"""

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


def test_{name}(page: Page) -> None:
    page.set_default_timeout(float(os.environ.get("COCKPIT_TIMEOUT_MS", 10_000)))
'''

ACTIONS = {"click": "click()", "dblclick": "dblclick()", "hover": "hover()",
           "focus": "focus()", "check": "check()", "uncheck": "uncheck()"}
READ_ONLY = {"snapshot", "snap", "text", "html", "title", "url", "tabs", "links", "forms",
             "console", "network", "dialogs", "status", "help", "?", "attrs", "css", "is",
             "count", "perf", "screenshot", "pdf", "cookies", "storage", "eval", "js"}


def export_main(argv: list[str]) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="cockpit export", description="Write a test from a "
                                "recording: pytest-playwright, elements by role and name.")
    p.add_argument("file", help="a recording (recordings/*.jsonl)")
    p.add_argument("--to", choices=("pytest",), required=True, help="the kind of test")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write it (default: test_<recording>.py beside it)")
    args = p.parse_args(argv)
    try:
        rec = read(Path(args.file))
    except UnreadableRecording as exc:
        print(f"cockpit export: {exc}", file=sys.stderr)
        return 2
    for problem in rec.problems:
        print(f"cockpit export: {args.file}: {problem}", file=sys.stderr)
    stem = re.sub(r"\W+", "_", Path(args.file).stem).strip("_").lower() or "recording"
    out = Path(args.output) if args.output else Path(args.file).with_name(f"test_{stem}.py")
    out.write_text(to_pytest(rec, stem), encoding="utf-8")
    print(f"wrote {out}: run it with `python -m pytest {out}` (pip install pytest-playwright)")
    return 0


def to_pytest(rec, name: str) -> str:
    origin = recorded_origin(rec) or ""
    secrets = sorted({m.group(1) or m.group(2) for s in rec.steps
                      for m in USE.finditer(s["command"])})
    note = (f"; the secrets it types come from the environment: {', '.join(secrets)}"
            if secrets else "")
    lines = [HEADER.format(title=f"A walk recorded by Cockpit ({rec.header.get('session', '')}"
                                 f", {len(rec.steps)} steps).", source=rec.path.name,
                           secrets_note=note, origin=origin, name=name)]
    url = None
    for step in rec.steps:
        body = _step(step, origin)
        if body:
            lines.append(f"    # step {step['n']}: {step['command']}")
            lines += [f"    {b}" for b in body]
        new_url = step.get("url")
        if body and step.get("ok") and new_url and new_url != url and \
                new_url.startswith("http") and not body[0].startswith("#"):
            lines.append(f"    expect(page).to_have_url({_url(new_url, origin)})")
        url = new_url or url
    return "\n".join(lines).rstrip() + "\n"


def _step(step: dict[str, Any], origin: str) -> list[str]:
    if step.get("source") not in REPLAYED_SOURCES:
        return []
    try:
        words = split_words(step["command"])
    except Exception:
        return [f"# not exported (cannot be read): {step['command']}"]
    if not words or words[0] in READ_ONLY or words[0] in ("handoff", "resume"):
        return []
    if not step.get("ok"):
        return [f"# failed when recorded, not exported: {step.get('error')}"]
    name, args = words[0], words[1:]
    targets = step.get("targets") or {}
    if name in ("goto", "open", "navigate") and args:
        return [f"page.goto({_url(args[0], origin)})"]
    if name in ("back", "forward", "reload"):
        return [f"page.go_{name}()" if name != "reload" else "page.reload()"]
    if name in ACTIONS and args:
        return [f"{_locator(args[0], targets)}.{ACTIONS[name]}"]
    if name in ("fill", "type") and len(args) >= 2:
        verb = "fill" if name == "fill" else "press_sequentially"
        return [f"{_locator(args[0], targets)}.{verb}({_text(args[1])})"]
    if name == "press" and args:
        if len(args) > 1:
            return [f"{_locator(args[1], targets)}.press({args[0]!r})"]
        return [f"page.keyboard.press({args[0]!r})"]
    if name == "select" and len(args) >= 2:
        return [f"{_locator(args[0], targets)}.select_option({args[1:]!r})"]
    if name == "tab" and args:
        return [f"page = tab(page, {int(args[0])})"]
    if name == "newtab":
        out = ["page = page.context.new_page()"]
        return out + ([f"page.goto({_url(args[0], origin)})"] if args else [])
    if name == "wait":
        return _wait(args)
    return [f"# not exported (no pytest form yet): {step['command']}"]


def _locator(target: str, targets: dict[str, dict]) -> str:
    ref = as_ref(target)
    if ref is None:
        return f"page.locator({target!r})"
    want = targets.get(ref)
    if want is None:  # a ref the recording could not name: nothing stable to find it by
        return f"page.locator({('aria-ref=' + ref)!r})  # recorded without its name"
    loc = f"page.get_by_role({want['role']!r}, name={want['name']!r}, exact=True)"
    return loc + (f".nth({want['nth']})" if want.get("nth") else "")


def _text(word: str) -> str:
    """A Python expression for typed text: $NAME becomes the environment variable."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", word)
    return f"os.environ[{m.group(1)!r}]" if m else repr(word)


def _url(url: str, origin: str) -> str:
    if origin and url.startswith(origin):
        return f"ORIGIN + {url[len(origin):]!r}"
    return repr(url)


def _wait(args: list[str]) -> list[str]:
    out = []
    for flag, value in zip(args, args[1:]):
        if flag == "--text":
            out.append(f"expect(page.get_by_text({value!r}).first).to_be_visible()")
        elif flag == "--gone":
            out.append(f"expect(page.get_by_text({value!r})).to_have_count(0)")
    return out or ["page.wait_for_load_state()"]
