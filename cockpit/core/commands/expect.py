"""expect: check that the page or an element is as expected, retrying until a timeout as
Playwright's expect does; a failed expectation is a failed command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..expect.check import check
from ..expect.model import STATES, expectation_of
from ..expect.propose import proposals
from ..language.registry import INT, TARGET, Arg, Flag, command
from ..base.result import Outcome

if TYPE_CHECKING:
    from ..language.parser import Invocation
    from ..session.session import CommandContext


@command("expect", "expect",
         "Check that an element or the page is as expected; fail, saying what was found, "
         "when it is not.",
         args=(Arg("subject", "@ref or selector; or url, title, text (the page's), count",
                   kind=TARGET),
               Arg("check", f"for an element: {'|'.join(STATES)}, text or value; for url, "
                            "title and text: the text expected; for count: a selector",
                   optional=True),
               Arg("value", "the text of `text`/`value` checks; the number for count",
                   optional=True)),
         flags=(Flag("--not", help="expect the opposite"),
                Flag("--timeout", help="retry until MS have passed (default 5000; 0 checks "
                                       "once)", value="MS", kind=INT)),
         details="Forms: `expect TARGET visible|hidden|enabled|disabled|checked|unchecked|"
                 "focused`, `expect TARGET text TEXT` (contains), `expect TARGET value TEXT` "
                 "(equals), `expect url TEXT|/REGEX/` (a URL, or a path on this site such as "
                 "/inbox; /REGEX/ is searched), `expect title TEXT|/REGEX/`, `expect text "
                 "TEXT` (the page shows it), `expect count SELECTOR N`. It retries until it "
                 "holds or the timeout passes, as Playwright's expect does, then fails with "
                 "what was expected and what was found (exit 1). A first word url, "
                 "title, text or count names the page's: an element such as <title> is "
                 "checked by its ref or another selector (`head > title`). "
                 "Replay checks every expectation and reports the failed ones; `cockpit "
                 "export` writes each as an `expect(...)` line.",
         examples=("expect @e3 visible", 'expect @e3 value "a@b.c"', "expect @e7 text Saved",
                   "expect url /inbox", "expect title /Inbox/", 'expect text "Welcome back"',
                   "expect count 'tr.row' 3", "expect @e5 hidden --timeout 10000",
                   "expect @e9 checked --not"),
         read_only=True, asserts=True, waits_for=("timeout",), tool="browser_expect")
async def expect(ctx: CommandContext, a: Invocation) -> Outcome:
    return await check(ctx, expectation_of(a.params))


@command("expectations", "expect",
         "List the expectations that hold now for an element, as `expect` lines to pick "
         "from.",
         args=(Arg("target", "@ref from `snapshot`, or a CSS selector", kind=TARGET),),
         details="Checks once, now: visible (or hidden), enabled or disabled, checked or "
                 "unchecked, focused, the value of a field (never a password's), and the "
                 "start of its text. Run the one you want kept as a check: it is then "
                 "recorded, replayed and exported. In the TUI, `a` on a ref's row offers "
                 "them to pick from. The listing itself is no step of the walk: replay and "
                 "export leave it out.",
         examples=("expectations @e3", "expectations '#status'"), read_only=True,
         proposes=True)
async def expectations(ctx: CommandContext, a: Invocation) -> Outcome:
    lines = await proposals(ctx, a.target)
    return Outcome("\n".join([*lines, *ctx.notes]), {"proposals": lines})
