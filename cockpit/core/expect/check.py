"""Running an expectation against the page with Playwright's own `expect`, which retries
until its timeout; when it does not hold, what was found instead is read once and said."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import expect as playwright_expect

from ..base.errors import CommandError, StaleRefError
from ..base.result import Outcome
from ..language.parser import as_ref
from .model import STATES, Expectation, ExpectationFailed, Pattern, shown

if TYPE_CHECKING:
    from ..session.session import CommandContext

FOUND_TIMEOUT_MS = 1_000  # reading what is there after a failure: it is there or not
FOCUSED_JS = "el => el === document.activeElement"
PASSWORD_JS = "el => el.type === 'password'"


def subject_words(ctx: CommandContext, target: str) -> str:
    """How a result names the element: `@e3 "Email"` (its ref and name), `@e3 (button)`,
    or the selector in backquotes."""
    ref = as_ref(target)
    snap = ctx.needs_tab().snapshot
    node = snap.refs.get(snap.live(ref)) if ref and snap is not None else None
    if ref and node is not None:
        name = node.label or node.name
        return f"@{ref} \"{name}\"" if name else f"@{ref} ({node.role})"
    return f"@{ref}" if ref else f"`{target}`"


def _regex(p: Pattern) -> re.Pattern[str]:
    return re.compile(p.source)


async def check(ctx: CommandContext, e: Expectation) -> Outcome:
    """Hold the page to `e`, retrying until its timeout; ExpectationFailed when it does
    not hold (saying what was found), CommandError when it cannot be checked at all."""
    page = ctx.page
    subject: Any = page
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    name = subject_words(ctx, e.target) if e.on_element and e.target else None
    words = e.words(name)
    if e.on_element:
        assert e.target is not None
        try:
            subject = await ctx.locate(e.target)
        except StaleRefError:
            if e.met_by_absence and _known_ref(ctx, e.target):
                # the element the ref named has gone: hidden, as Playwright says of nothing
                return Outcome(f"ok: expected {words} (it is no longer on the page)",
                               {"expect": _data(e), "passed": True})
            raise
    elif e.kind == "count":
        assert e.target is not None
        subject = await ctx.locate(e.target)
    elif e.kind == "page_text":
        subject = page.locator("body")
        kwargs["use_inner_text"] = True
    if e.kind in ("text", "value", "page_text", "count"):
        args.append(e.expected)
    elif e.kind == "url" or e.kind == "title":
        want = e.expected
        if isinstance(want, Pattern):
            args.append(_regex(want))
        elif e.kind == "url" and isinstance(want, str) and want.startswith("/"):
            args.append(urljoin(page.url, want))  # a path: on this page's site
        else:
            args.append(want)
    assertions = playwright_expect(subject)
    method = getattr(assertions, ("not_" if e.negates else "") + e.method)
    # 0 is "no timeout at all" to Playwright; to the user it is "check once, now"
    timeout = max(e.timeout, 1)
    try:
        await method(*args, timeout=timeout, **kwargs)
    except AssertionError:
        found = await _found(ctx, e, subject)
        raise ExpectationFailed(f"expected {words}, found {found}",
                                data={"expect": _data(e), "passed": False,
                                      "found": found}) from None
    except PlaywrightError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "strict mode violation" in first:
            many = await subject.count()
            raise CommandError(f"{name or e.target} matched {many} elements: use a ref "
                               "from `snapshot -i` or a more specific selector") from None
        raise CommandError(f"expect: could not check {words}: {first}") from None
    return Outcome(f"ok: {words}", {"expect": _data(e), "passed": True})


def _known_ref(ctx: CommandContext, target: str) -> bool:
    """A ref the tab's snapshot gave out (not a typo nor another tab's)."""
    ref, snap = as_ref(target), ctx.needs_tab().snapshot
    return bool(ref and snap is not None and snap.live(ref) in snap.refs)


def _data(e: Expectation) -> dict[str, Any]:
    expected = e.expected
    return {"kind": e.kind, "target": e.target, "negated": e.negated, "timeout": e.timeout,
            "expected": str(expected) if isinstance(expected, Pattern) else expected}


async def _found(ctx: CommandContext, e: Expectation, subject: Any) -> str:
    """What the page shows instead, in a few words; never a password field's value."""
    page = ctx.page
    try:
        if e.kind == "url":
            return page.url
        if e.kind == "title":
            return shown(await page.title())
        if e.kind == "page_text":
            return "it on the page" if e.negated else "no such text on the page"
        if e.kind == "count":
            return str(await subject.count())
        count = await subject.count()
        if count == 0:
            return "nothing on the page"
        if count > 1:
            return (f"{count} elements: use a ref from `snapshot -i`, or a selector that "
                    "matches one")
        if e.kind == "text":
            return shown(" ".join((await subject.inner_text(timeout=FOUND_TIMEOUT_MS))
                                  .split()))
        if e.kind == "value":
            if await subject.evaluate(PASSWORD_JS):
                return "another value (a password field: not shown)"
            return shown(await subject.input_value(timeout=FOUND_TIMEOUT_MS))
        return await _state(e.kind, subject)
    except PlaywrightError as exc:  # gone meanwhile: said, not a second failure
        return f"nothing readable ({str(exc).splitlines()[0] if str(exc) else exc})"


async def _state(kind: str, subject: Any) -> str:
    assert kind in STATES
    if kind in ("visible", "hidden"):
        return "visible" if await subject.is_visible() else "hidden"
    if kind in ("enabled", "disabled"):
        return "enabled" if await subject.is_enabled(timeout=FOUND_TIMEOUT_MS) else "disabled"
    if kind in ("checked", "unchecked"):
        return "checked" if await subject.is_checked(timeout=FOUND_TIMEOUT_MS) \
            else "unchecked"
    return "focused" if await subject.evaluate(FOCUSED_JS) else "not focused"
