"""policy: a person answers an agent's command that waits on `--confirm` (core/policy)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import time

from ..base.errors import CommandError, UsageError
from ..language.registry import Arg, command
from ..base.result import Outcome

if TYPE_CHECKING:
    from ..language.parser import Invocation
    from ..session.session import CommandContext

ANSWERING_SOURCES = ("human",)  # who may approve or deny: a person, never an agent


def _answer(ctx: CommandContext, ok: bool, reason: str) -> Outcome:
    if ctx.source not in ANSWERING_SOURCES:
        # an agent that could approve itself would make the confirmation worthless
        raise UsageError(f"only a person can {'approve' if ok else 'deny'} a command: this "
                         f"one came from {ctx.source}. A person answers in the cockpit "
                         "(y/n, or `approve` / `deny REASON`) or with `cockpit exec "
                         "--human approve`")
    approvals = ctx.session.policy.approvals
    waiting = approvals.answer(ok, reason, ctx.source)
    if waiting is None:
        patterns = ", ".join(p.text for p in approvals.patterns) or "none (--confirm)"
        raise CommandError(f"no command waits for a person (confirm patterns: {patterns})")
    seconds = time.time() - waiting.since
    verb = "approved" if ok else "denied"
    more = f"; {len(approvals.waiting)} more waiting" if approvals.waiting else ""
    because = f": {reason}" if reason else ""
    return Outcome(f"{verb} {waiting.describe()} from {waiting.source}, after {seconds:.0f} s"
                   f"{because}{more}",
                   {"confirm": {"answer": verb, **waiting.to_json(), "reason": reason}})


@command("approve", "control", "Let the oldest agent command waiting on --confirm run (a "
         "person only).",
         details="An agent's command that matches a --confirm pattern waits until a person "
                 "approves or denies it; the oldest one waiting is answered. Refused when "
                 "an agent sends it. In the TUI, y answers the same.",
         examples=("approve",),
         modal_safe=True, needs_tab=False, never_held=True, needs_person=True,
         bypasses_queue=True)
async def approve(ctx: CommandContext, a: Invocation) -> Outcome:
    return _answer(ctx, True, "")


@command("deny", "control", "Refuse the oldest agent command waiting on --confirm; the agent "
         "gets a failed result with the reason (a person only).",
         args=(Arg("reason", "why, for the agent", variadic=True, optional=True),),
         details="The waiting command does not run; its caller gets `denied by a person: "
                 "REASON`. Refused when an agent sends it. In the TUI, n answers the same.",
         examples=("deny", 'deny "do not delete anything"'),
         modal_safe=True, needs_tab=False, never_held=True, needs_person=True,
         bypasses_queue=True)
async def deny(ctx: CommandContext, a: Invocation) -> Outcome:
    return _answer(ctx, False, " ".join(a.reason or []))
