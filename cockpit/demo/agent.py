"""The demo agent: `python -m cockpit.demo.agent URL` walks the demo site through a live
session, as `cockpit demo` runs it in the agent pane.

It works like a real agent, from the outside: only command lines over the control socket
(`cockpit.client`), refs picked by role and name from `snapshot -i` text. At the "verify
you are human" challenge it asks for a human and waits until someone in the cockpit
solves it. Exit codes: 0 done, 1 a step failed, 3 no session (or it ended).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

from ..control.client import Cockpit, CommandFailed, Unreachable

POLL_S = 1.0
REMIND_S = 60.0
# One `snapshot -i` line: `@e6 button "Sign in"`, maybe `[active]`, `: value` or
# `-> /url` after the name. The ref comes first, so a page cannot fake one inside a name.
ITEM = re.compile(r'^@(?P<ref>[\w-]+) (?P<role>[A-Za-z][\w-]*) (?P<name>"(?:[^"\\]|\\.)*")')
ACCOUNT = re.compile(r"Demo account:\s*(\S+)\s+with password\s+(\S+?)\.?\s*$", re.MULTILINE)


class NotOnPage(Exception):
    """What the agent looked for is not on the page: the site is not where it expects."""


def ref(snapshot_text: str, role: str, name: str) -> str:
    """`@ref` of the first element of this role whose name contains `name` (any case)."""
    for line in snapshot_text.splitlines():
        item = ITEM.match(line)
        if item and item["role"] == role and \
                name.lower() in json.loads(item["name"]).lower():
            return "@" + item["ref"]
    raise NotOnPage(f"no {role} named {name!r} in the snapshot:\n{snapshot_text}")


def say(line: str) -> None:
    print(line, flush=True)  # flushed: the agent pane shows each step as it happens


def sign_in(browser: Cockpit, url: str, email: str | None, password: str | None) -> None:
    say("→ opening the sign-in page")
    browser.goto(f"{url}/login")
    page = browser.snapshot("-i").output
    shown = ACCOUNT.search(browser.text().output)  # the page shows the demo account
    if shown:
        email, password = email or shown[1], password or shown[2]
    if not (email and password):
        raise NotOnPage("the sign-in page does not show the demo account: "
                        "pass --email and --password")
    say(f"→ signing in as {email}")
    browser.fill(ref(page, "textbox", "Email"), email)
    browser.fill(ref(page, "textbox", "Password"), password)
    browser.click(ref(page, "button", "Sign in"))
    code = re.search(r"\b(\d{6})\b", browser.text().output)
    if code is None:
        raise NotOnPage("no 6-digit code on the verification page")
    say(f"→ the page shows the code {code.group(1)}; typing it")
    page = browser.snapshot("-i").output
    browser.fill(ref(page, "textbox", "code"), code.group(1))
    browser.click(ref(page, "button", "Verify"))


# What the human changed, from the first of our results after they gave the browser back
# (whichever command that was: a reminder's snapshot too).
handed_back: dict = {}


def what_to_type(browser: Cockpit) -> str:
    result = browser.snapshot("-i")
    handed_back.update(result.data.get("handoff") or {})
    page = result.output
    field, button = ref(page, "textbox", "characters"), ref(page, "button", "Continue")
    return f'fill {field} "..." then click {button} (Continue)'


def active_url(browser: Cockpit) -> str:
    """The active tab's URL, from the session's state: not a command, so waiting does not
    fill the log with a line a second."""
    active = browser.state()["status"].get("active") or {}
    return active.get("url") or ""


def wait_for_human(browser: Cockpit) -> None:
    """Ask for a human at the challenge, then wait (no limit) until the inbox opens."""
    ask = what_to_type(browser)
    say("I need a human: the page asks for the characters in a picture (needs: captcha). "
        "Take over in the cockpit (F10), solve it in the browser window, then resume "
        f"(F10 again); or type them in the cockpit prompt: {ask}.")
    last_reminder = time.monotonic()
    while "/inbox" not in active_url(browser):
        if time.monotonic() - last_reminder >= REMIND_S:
            try:  # a wrong answer reloads the page with new refs: name the current ones
                ask = what_to_type(browser)
            except (CommandFailed, NotOnPage):
                pass  # the human is elsewhere for now; keep the last instructions
            say(f"… still waiting for a human at the challenge: {ask}.")
            last_reminder = time.monotonic()
        time.sleep(POLL_S)
    say("→ thanks, human: the inbox is open; carrying on")


def use_inbox(browser: Cockpit) -> None:
    result = browser.snapshot("-i")
    page = result.output
    note = result.data.get("handoff") or handed_back
    if note:  # the human had the browser: the first result after it says what changed
        diff = (note.get("diff") or {}).get("summary", "")
        say(f"→ the human had control for {note['seconds']:g} s; what changed: {diff}"
            + (f"; new cookies: {', '.join(note['new_cookies'])}" if note["new_cookies"]
               else ""))
    say("→ archiving the first message")
    browser.click(ref(page, "button", "Archive"))
    say("→ checking for new mail")
    browser.click(ref(page, "button", "Check for new mail"))
    say("→ opening the report (it opens in a new tab)")
    browser.click(ref(page, "link", "Open report"))
    browser.tab(2)
    browser.snapshot("-i")
    say("→ the tabs now:")
    for line in browser.tabs().output.splitlines():
        say(f"   {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cockpit.demo.agent",
                                     description="Walk the demo site in a live cockpit.")
    parser.add_argument("url", help="the demo site's base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--email", help="the account (default: the one the page shows)")
    parser.add_argument("--password", help="its password (default: as the page shows)")
    args = parser.parse_args(argv)
    try:
        with Cockpit(source="agent", client="demo-agent") as browser:
            say(f"demo agent on session {browser.session!r}, site {args.url}")
            sign_in(browser, args.url.rstrip("/"), args.email, args.password)
            wait_for_human(browser)
            use_inbox(browser)
    except (CommandFailed, NotOnPage) as exc:
        say(f"✗ stopped: {exc}")
        return 1
    except (Unreachable, ConnectionError) as exc:  # the cockpit closed under us
        say(f"✗ cannot reach the session: {exc}")
        return 3
    except KeyboardInterrupt:
        say("✗ interrupted")
        return 130
    say("Done: signed in, passed the code and the human check, archived a message, "
        "checked for new mail and opened the report in tab 2.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
