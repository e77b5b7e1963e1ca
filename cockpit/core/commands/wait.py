"""wait: for text, an element, a URL, a load state, or some time."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from playwright.async_api import Error as PlaywrightError

from ..base.errors import CommandError, UsageError
from ..language.registry import INT, TARGET, Arg, Flag, command
from ..base.result import Outcome

if TYPE_CHECKING:
    from ..session.session import CommandContext
    from ..language.parser import Invocation

LoadState = Literal["domcontentloaded", "load", "networkidle"]  # as Page.wait_for_load_state


@command("wait", "interact", "Wait until something is true (every condition given).",
         args=(Arg("target", "an element to wait for (same as --selector), or a number of "
                   "milliseconds", kind=TARGET,
                   optional=True),),
         flags=(Flag("--text", help="text that must appear on the page", value="TEXT"),
                Flag("--gone", help="text that must disappear", value="TEXT"),
                Flag("--url", help="URL the tab must reach (glob * or /regex/)", value="URL"),
                Flag("--selector", help="a selector or @ref that must be visible",
                     value="SEL"),
                Flag("--load", help="the page's load event"),
                Flag("--idle", help="no network traffic for 500 ms (networkidle)"),
                Flag("--ms", help="just wait this many milliseconds", value="MS", kind=INT),
                Flag("--timeout", help="give up after MS (default 10000)", value="MS",
                     kind=INT, default=10_000)),
         mutates=True, waits_for=("timeout", "ms", "target"),
         examples=('wait --text "Welcome"', "wait --url '**/inbox'", "wait 500",
                   "wait @e5"))
async def wait(ctx: CommandContext, a: Invocation) -> Outcome:
    page, timeout = ctx.page, a.timeout
    target: str | None = a.target
    ms: int | None = a.ms
    if target and ms is None and re.fullmatch(r"\d+", target):
        ms, target = int(target), None  # `wait 500`: milliseconds, as elsewhere
    selector = a.selector or target
    if not any([a.text, a.gone, a.url, selector, a.load, a.idle, ms is not None]):
        raise UsageError("wait needs a condition: --text, --gone, --url, --selector (or a "
                         "target), --load, --idle or --ms; e.g. wait --text \"Done\"")
    done: list[str] = []
    current = ""  # the condition being waited for, named if it times out
    try:
        if ms is not None:
            if not 0 <= ms <= 600_000:
                raise UsageError("wait --ms takes 0 to 600000 milliseconds")
            await page.wait_for_timeout(ms)
            done.append(f"{ms} ms")
        if a.url:
            current = f"--url {a.url}"
            pattern = re.compile(a.url[1:-1]) if len(a.url) > 2 and a.url[0] == a.url[-1] \
                == "/" else a.url
            await page.wait_for_url(pattern, timeout=timeout, wait_until="commit")
            done.append(f"URL {page.url}")
        states: tuple[tuple[LoadState, bool], ...] = (("load", a.load), ("networkidle", a.idle))
        for state, wanted in states:
            if wanted:
                current = "--load (the load event)" if state == "load" else "--idle"
                await page.wait_for_load_state(state, timeout=timeout)
                done.append(state)
        if selector:
            current = f"{ctx.describe(selector)} to be visible"
            locator = await ctx.locate(selector)
            await locator.first.wait_for(state="visible", timeout=timeout)
            done.append(f"{ctx.describe(selector)} visible")
        if a.text:
            current = f"--text \"{a.text}\""
            await page.get_by_text(a.text).first.wait_for(state="visible", timeout=timeout)
            done.append(f"text \"{a.text}\"")
        if a.gone:
            current = f"--gone \"{a.gone}\""
            await page.get_by_text(a.gone).first.wait_for(state="hidden", timeout=timeout)
            done.append(f"text \"{a.gone}\" gone")
    except PlaywrightError as exc:
        if "Timeout" not in str(exc):
            raise
        raise CommandError(f"timed out after {timeout} ms waiting for {current}"
                           + (f" (done: {', '.join(done)})" if done else "")
                           + ": check the page with `snapshot -i`, or raise --timeout") from None
    return Outcome("waited for " + ", ".join(done))
