"""The demo walk (`cockpit demo --walk`, started by cockpit/cli/demo.py): the demo site
walked in the plain terminal, in-process.

It drives the site the way an agent does, through the command language only: take a
snapshot, pick refs by role and name, act, read the diff. At the human challenge it hands
over to the person at the terminal (the picture is saved as a PNG to look at).
"""

from __future__ import annotations

import re
import sys

from ..core import Session, Tab, join
from .server import DemoSite


class Walk:
    def __init__(self, session: Session) -> None:
        self.session = session

    async def do(self, line: str) -> str:
        print(f"\n$ {line}", flush=True)
        result = await self.session.run(line, source="agent")
        print(result.text, flush=True)
        if not result.ok:
            raise RuntimeError(result.error)
        return result.output

    @property
    def tab(self) -> Tab:
        """The active tab (a walk needs one: it started the browser with one)."""
        tab = self.session.active
        if tab is None:
            raise RuntimeError("the session has no tab open")
        return tab

    def ref(self, role: str, name: str) -> str:
        snap = self.tab.snapshot
        for ref, node in (snap.refs.items() if snap else []):
            if node.role == role and name.lower() in node.name.lower():
                return f"@{ref}"
        raise RuntimeError(f"no {role} named {name!r} on {self.tab.url}")


def ask_human(prompt: str) -> str | None:
    if not sys.stdin.isatty():
        return None
    try:
        return input(prompt).strip()
    except EOFError:
        return None


async def walk(site: DemoSite, session: Session) -> int:
    w = Walk(session)
    await w.do(f"goto {site.url}/login")
    await w.do("snapshot -i")
    await w.do(f'fill {w.ref("textbox", "Email")} "{site.email}"')
    await w.do(f'fill {w.ref("textbox", "Password")} "{site.password}"')
    await w.do(f'click {w.ref("button", "Sign in")}')
    page_text = await w.do("text")
    code = re.search(r"\b(\d{6})\b", page_text)
    await w.do("snapshot -i")
    await w.do(f'fill {w.ref("textbox", "code")} {code.group(1) if code else "000000"}')
    await w.do(f'click {w.ref("button", "Verify")}')
    await w.do("snapshot -i")
    shot = await w.do("screenshot .captcha")
    print("\nThe site asks for a human: the characters are in the picture "
          f"{shot.split()[1]} (or run `cockpit demo --headed` to see the browser).")
    answer = ask_human("Type the characters you see: ")
    if not answer:
        print("No human at this terminal: the walk stops at the challenge. Run `cockpit "
              "demo` in a terminal to type the answer.")
        return 0
    await w.do(join(["fill", w.ref("textbox", "characters"), answer]))
    await w.do(f'click {w.ref("button", "Continue")}')
    if "/inbox" not in w.tab.url:
        print("\nThat answer was not accepted; the walk stops here.")
        return 1
    await w.do("snapshot -i")
    await w.do(f'click {w.ref("button", "Archive")}')
    await w.do(f'click {w.ref("button", "Check for new mail")}')
    await w.do(f'click {w.ref("link", "Open report")}')
    await w.do("tab 2")
    await w.do("snapshot -i")
    await w.do("tabs")
    print("\nDone: logged in, passed MFA and the human challenge, archived a message, and "
          "read the report in a new tab.")
    return 0
