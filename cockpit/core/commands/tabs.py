"""tabs: list, switch, open and close."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..language.registry import INT, URL, Arg, command
from ..base.result import Outcome
from .navigate import goto as goto_handler

if TYPE_CHECKING:
    from ..session.session import CommandContext
    from ..language.parser import Invocation
    from ..page.tab import Tab


log = logging.getLogger(__name__)

TAB_LOAD_MS = 5000  # the most `tab N` waits for the tab's document to be parsed


def _line(tab: Tab) -> str:
    mark = "*" if tab.session.active is tab else " "
    state = " (loading)" if tab.loading else ""
    state += " [dialog open]" if tab.dialog else ""
    return f"{mark}{tab.index} {tab.title or '(untitled)'} - {tab.url}{state}"


@command("tabs", "tabs", "List the open tabs; * marks the active one.",
         modal_safe=True, read_only=True, tool="browser_tabs")
async def tabs(ctx: CommandContext, a: Invocation) -> Outcome:
    rows = ctx.session.tabs
    return Outcome("\n".join(_line(t) for t in rows), {"tabs": [t.info() for t in rows]})


@command("tab", "tabs", "Switch to tab N (numbered from 1, as `tabs` shows).",
         args=(Arg("n", "the tab's number", kind=INT),), examples=("tab 2",),
         details="A tab still loading its page (a popup just opened) is waited for until "
                 "its document is parsed (5 s at most), so the next command sees the page.",
         modal_safe=True, checks_needs=True, switches_tab=True)
async def tab(ctx: CommandContext, a: Invocation) -> Outcome:
    target = ctx.session.tab_at(a.n)
    await ctx.session.switch_to(target)
    if target.dialog is None:  # (a dialog holds its document back: answered first)
        # a popup just opened is still parsing its first document: the command after this
        # one (`snapshot -i`, a replayed step) would find it empty
        try:
            await target.page.wait_for_load_state("domcontentloaded", timeout=TAB_LOAD_MS)
        except PlaywrightError as exc:  # slow, or closing: the result says where it is
            log.info("tab %s: its document did not load in time: %s", target.index, exc)
    return Outcome(f"now on tab {target.index}: {target.title or '(untitled)'} - {target.url}",
                   {"tab": target.info()})


@command("newtab", "tabs", "Open a new tab (optionally at a URL) and switch to it.",
         args=(Arg("url", "what to open (default: about:blank)", kind=URL, optional=True),),
         mutates=True, examples=("newtab", "newtab example.com"), modal_safe=True,
         switches_tab=True)
async def newtab(ctx: CommandContext, a: Invocation) -> Outcome:
    new = await ctx.session.new_tab()
    await ctx.session.switch_to(new)
    if a.url:
        ctx.tab = new
        await goto_handler(ctx, a)
    return Outcome(f"opened tab {new.index}: {new.url}", {"tab": new.info()})


@command("closetab", "tabs", "Close tab N (default: the active one).",
         args=(Arg("n", "the tab's number", kind=INT, optional=True),), mutates=True,
         modal_safe=True, switches_tab=True)
async def closetab(ctx: CommandContext, a: Invocation) -> Outcome:
    session = ctx.session
    target = session.tab_at(a.n) if a.n is not None else ctx.needs_tab()
    index = target.index
    await target.page.close(run_before_unload=False)
    session.tab_closed(target)  # the close event may arrive later; the list must be right now
    if not session.tabs:
        await session.switch_to(await session.new_tab())
    active = await session.ensure_tab()
    return Outcome(f"closed tab {index}; now on tab {active.index}: {active.url}",
                   {"closed": index, "tab": active.info()})
