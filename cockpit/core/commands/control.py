"""control: handing the browser to a human and taking it back."""

from __future__ import annotations

from ..language.registry import Arg, Flag, command
from ..base.result import Outcome

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session.session import CommandContext
    from ..language.parser import Invocation


@command("handoff", "control", "Give the browser to a human: a visible window with every tab, "
         "cookie and storage entry kept; agents' commands wait until `resume`.",
         args=(Arg("reason", "what the human should do", variadic=True, optional=True),),
         flags=(Flag("--terminal", "-t", "no window: the human drives from the cockpit with "
                                         "typed commands and the page picture"),),
         details="Agents call it when they are stuck (a CAPTCHA, a one-time code, a login). "
                 "Without a display (over SSH) the human drives from the terminal. If the "
                 "window cannot open, the headless browser goes on as it was.",
         examples=('handoff "solve the CAPTCHA"', "handoff --terminal type the MFA code"),
         needs_person=True, interrupts=True, tool="browser_handoff")
async def handoff(ctx: CommandContext, a: Invocation) -> Outcome:
    return await ctx.session.handoff.start(" ".join(a.reason or []), terminal=a.terminal)


@command("resume", "control", "Give the browser back to the agents: headless again, with what "
         "the human left; the agent's next result says what changed.",
         details="Closing the handoff window resumes too. The result has a diff against the "
                 "snapshot taken at handoff and a fresh snapshot of the tab in front.",
         examples=("resume",),
         modal_safe=True, needs_tab=False, never_held=True, needs_person=True, interrupts=True)
async def resume(ctx: CommandContext, a: Invocation) -> Outcome:
    return await ctx.session.handoff.end()
