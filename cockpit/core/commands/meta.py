"""meta: chain, help, status."""

from __future__ import annotations


from ..base.errors import CommandError, UsageError
from ..language.registry import COMMAND, Arg, command
from ..base.result import Outcome
from ..language.parser import split_chain

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session.session import CommandContext
    from ..language.parser import Invocation


@command("chain", "meta", "Run several commands in a row; stop at the first that fails.",
         args=(Arg("commands", "quoted command lines, or commands separated by ' ; '",
                   kind=COMMAND, variadic=True),),
         details="The chain runs as one step: nothing else runs in between. Its data has "
                 "every step's result.",
         examples=('chain "goto localhost:8000" "snapshot -i"',
                   "chain fill @e4 jane@example.com ; fill @e5 secret ; click @e6"))
async def chain(ctx: CommandContext, a: Invocation) -> Outcome:
    from ..session.execute import execute
    from ..language.parser import parse
    lines = split_chain(a.commands)
    invocations = [parse(line, ctx.session.registry) for line in lines]  # all parse first
    if any(inv.spec.name == "chain" for inv in invocations):
        raise UsageError("a chain cannot contain another chain")
    steps, outputs = [], []
    for n, inv in enumerate(invocations, 1):
        result = await execute(ctx.session, inv, ctx.source)
        steps.append(result.to_json())
        if not result.ok:
            outputs.append(f"[{n}/{len(lines)}] {inv.line}: error: {result.error}")
            raise CommandError(f"chain stopped at step {n} of {len(lines)} (`{inv.line}`): "
                               f"{result.error}", data={"steps": steps, "failed_step": n})
        outputs.append(f"[{n}/{len(lines)}] {inv.line}\n{result.output}".rstrip())
    return Outcome("\n".join(outputs), {"steps": steps})


@command("help", "meta", "List the commands, or show one command in full.",
         args=(Arg("name", "a command", kind=COMMAND, optional=True),),
         aliases=("?",), examples=("help", "help snapshot"),
         modal_safe=True, needs_tab=False, read_only=True)
async def help_(ctx: CommandContext, a: Invocation) -> Outcome:
    registry = ctx.session.registry
    if a.name is None:
        return Outcome(registry.overview(), registry.describe())
    spec = registry.get(a.name)
    if spec is None:
        from ..language.parser import suggest
        raise UsageError(suggest(a.name, registry))
    return Outcome(spec.help_text(), spec.describe())


@command("status", "meta", "Show the session: browser, tabs, modal state, counters.",
         modal_safe=True, needs_tab=False, never_held=True, read_only=True,
         bypasses_queue=True)
async def status(ctx: CommandContext, a: Invocation) -> Outcome:
    s = ctx.session.status()
    if ctx.session.context is None:
        return Outcome(f"session {s['session']}: the browser is not running", s)
    active = s["active"] or {}
    lines = [f"session {s['session']}: {s['browser']}",
             f"tabs: {s['tabs']}, active: {active.get('index')} {active.get('url', '')}",
             f"commands run: {s['commands_run']}, up {s['uptime_s']} s",
             "profile: " + (s["profile"] or "the attached browser's own"),
             f"files: {s['files']}"]
    control = s["handoff"]
    if control["human_has_control"]:
        lines.append(f"control: the human ({control['reason']}; {control['mode']}); agents "
                     "wait until `resume`")
    elif s["agents_held"]:
        lines.append(f"agents wait: {s['agents_held']}")
    if control["needs"]:
        lines.append(f"needs a human: {control['needs']['kind']} "
                     f"({control['needs']['detail']})")
    policy = s.get("policy") or {}
    if policy.get("allowed_domains"):
        lines.append(f"allowed domains: {', '.join(policy['allowed_domains'])} (and their "
                     "subdomains)")
    if policy.get("allowed_domains_gap"):
        lines.append(f"warning: {policy['allowed_domains_gap']}")
    if policy.get("confirm"):
        lines.append(f"a person confirms agents' {', '.join(policy['confirm'])}")
    for waiting in policy.get("waiting") or ():
        lines.append(f"waiting for a person: `{waiting['command']}` from "
                     f"{waiting['source']} (`approve` or `deny REASON`)")
    net = s["network"]
    if net["routes"]:
        lines.append(f"routes ({len(net['routes'])}): " + "; ".join(net["routes"]))
    if net["har_replay"]:
        lines.append(f"answering from HAR {net['har_replay']}")
    if net["har_recording"]:
        lines.append(f"HAR: {net['har_recording']}")
    if net["emulation"]:
        lines.append("emulating: " + ", ".join(net["emulation"]))
    if active.get("dialog"):
        d = active["dialog"]
        lines.append(f"a {d['type']} dialog is open: \"{d['message']}\"")
    return Outcome("\n".join(lines), s)
