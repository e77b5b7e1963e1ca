"""What the real-apps tests do the way a user does: read refs off `snapshot -i`, run
command lines, and sign in to the shop's admin (answering its CAPTCHA and one-time code
as the person at the keyboard would)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from apps import Shop
from cockpit.core import Session
from cockpit.core.base.result import Result


def ref(snapshot: str, role: str, name: str, exact: bool = False) -> str:
    """The ref of the first element of this role whose name holds `name` (or is `name`,
    exact), in a snapshot's text (`@e5 button "Save"`), as a user reads it."""
    around = "" if exact else '[^"\n]*'
    m = re.search(rf'^@(\w+) {role} "{around}{re.escape(name)}{around}"', snapshot,
                  re.MULTILINE)
    assert m, f"no {role} {name!r} in:\n{snapshot}"
    return "@" + m.group(1)


async def ok(s: Session, line: str) -> Result:
    """Run a line that must succeed."""
    result = await s.run(line)
    assert result.ok, f"{line!r} failed: {result.error}\n{result.output}"
    return result


async def look(s: Session) -> str:
    """`snapshot -i`: the page's controls with their refs."""
    return (await ok(s, "snapshot -i")).output


def said(result: Result) -> str:
    """The result's own lines, without the listed controls (`@e5 button "Save"`): what it
    says about what happened."""
    return "\n".join(line for line in result.output.splitlines() if not line.startswith("@"))


async def captcha_answer(s: Session, shop: Shop) -> str:
    """The person reads the CAPTCHA picture: its answer, found by the hidden key field."""
    hashkey = await s.active.page.eval_on_selector("input[name$='captcha_0']", "e => e.value")
    return shop.captcha_answer(hashkey)


async def sign_in(s: Session, shop: Shop) -> list[Result]:
    """Through the two-step sign-in from /admin/; the results of each step."""
    opened = await ok(s, f"goto {shop.url}/admin/")
    page = opened.output
    answer = await captcha_answer(s, shop)
    filled = [await ok(s, f"fill {ref(page, 'textbox', 'Username')} {shop.user}"),
              await ok(s, f"fill {ref(page, 'textbox', 'Password')} {shop.password}"),
              await ok(s, f"fill {ref(page, 'textbox', 'Captcha')} {answer}")]
    to_code = await ok(s, f"click {ref(page, 'button', 'Next')}")
    page = await look(s)
    typed = await ok(s, f"fill {ref(page, 'textbox', 'Token')} {shop.totp()}")
    signed = await ok(s, f"click {ref(page, 'button', 'Next')}")
    if signed.data["tab"]["url"] == f"{shop.url}/admin/" and shop.url not in _STATE:
        path = Path(tempfile.mkdtemp(prefix="cockpit-shop-state-")) / "signed-in.json"
        await s.context.storage_state(path=path)  # for the next tests: see signed_state
        _STATE[shop.url] = path
    return [opened, *filled, to_code, typed, signed]


_STATE: dict[str, Path] = {}


async def signed_state(s: Session, shop: Shop) -> Path:
    """A signed-in state file of the shop (Playwright's storage state, as `state save`
    writes it), from the run's first sign-in: a one-time code is good once, and django-otp
    takes only a couple a minute."""
    if shop.url not in _STATE:
        signed = (await sign_in(s, shop))[-1]
        assert shop.url in _STATE, f"the sign-in did not reach the admin:\n{signed.output}"
    return _STATE[shop.url]


async def signed_in(s: Session, shop: Shop) -> None:
    """The session signed in to the shop (the saved state loaded, as a user would)."""
    path = await signed_state(s, shop)
    await ok(s, f"state load {path}")
