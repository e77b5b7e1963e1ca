"""What a scripted task costs an agent, tool by tool (run by hand):
python tests/bench/bench_economy.py [REPS]

The task, on the demo site: sign in (email, password), enter the one-time code, open the
task list (a list that re-renders from scratch on every change), archive two tasks,
"Delete all" (a confirm dialog: accept it), and check the page says "All deleted". The
demo's picture check needs a human, so the site runs with `human_check=False`: the code
leads straight to the inbox, for every tool alike.

Each tool is used as its own documentation says (tests/bench/peers.py): the refs come from
its own output — an action's answer when it names the element (Cockpit's diff lines), else
a new snapshot; a ref the tool refuses (the list re-rendered) costs a snapshot and a retry;
agent-browser waits for the URL after a navigating click and for the text at the end, as
its guide says; playwright-mcp fills the sign-in form in one `browser_fill_form`. Counted:
calls, tokens read (o200k of every answer, errors included), milliseconds inside calls.
Medians of REPS (default 3) runs, tools interleaved; targets (issue 17): Cockpit's tokens
and calls at most agent-browser's, its time at most 1.5x (issue 28: 1.0x). "raw Playwright
(floor)" does the task with Playwright alone, the least a script needs (peers.py): what any
tool built on Playwright, as Cockpit is, cannot go under.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))
sys.path.insert(0, str(Path(__file__).parent))

from peers import AgentBrowser, RawPlaywrightTask, ToolError, refs_in, start_tools, tokens

from cockpit.demo.server import DemoSite

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
ARCHIVE = ("Archive Book the flight", "Archive Pay the rent")


class Agent:
    """One run of the task with one tool: what it called, read and waited."""

    def __init__(self, tool) -> None:
        self.tool = tool
        self.calls = 0
        self.tokens = 0
        self.ms = 0.0
        self.refs: dict[tuple[str, str], str] = {}
        self.log: list[str] = []

    async def call(self, what: str, coro, *, new_page: bool = False) -> str:
        t = time.perf_counter()
        try:
            text, failed = await coro, False
        except ToolError as exc:
            text, failed = exc.text, True
        ms = (time.perf_counter() - t) * 1000
        self.ms += ms
        self.calls += 1
        if isinstance(text, list):  # fill_many: one answer per call it made
            self.calls += len(text) - 1
            text = "\n".join(text)
        text = text or ""
        self.tokens += tokens(text)
        self.log.append(f"{what}: {tokens(text)} tok, {ms:.0f} ms"
                        f"{' (error)' if failed else ''}")
        if new_page:
            self.refs = {}
        self.refs.update(refs_in(text))
        if failed:
            raise ToolError(text)
        return text

    async def snapshot(self) -> None:
        self.refs = {}
        await self.call("snapshot", self.tool.snapshot())

    async def ref(self, role: str, name: str) -> str:
        if (role, name) not in self.refs:
            await self.snapshot()
        if (role, name) not in self.refs:
            raise RuntimeError(f"{self.tool.name}: no {role} {name!r} in its snapshot")
        return self.refs[(role, name)]

    async def act(self, what: str, role: str, name: str, action, **kw) -> str:
        """Act on the element named so; a refused ref (a re-rendered list) costs a new
        snapshot and one retry, as it would cost an agent."""
        try:
            return await self.call(what, action(await self.ref(role, name)), **kw)
        except ToolError:
            await self.snapshot()
            return await self.call(what, action(await self.ref(role, name)), **kw)


async def task(agent: Agent, site: DemoSite) -> None:
    tool = agent.tool
    await agent.call("open /login", tool.open(f"{site.url}/login"), new_page=True)
    fields = [(await agent.ref("textbox", "Email"), "Email", site.email),
              (await agent.ref("textbox", "Password"), "Password", site.password)]
    await agent.call("fill the form", tool.fill_many(fields))
    await agent.act("click Sign in", "button", "Sign in", tool.click, new_page=True)
    await wait_url(agent, "**/mfa")
    await agent.act("fill the code", "textbox", "Verification code",
                    lambda ref: tool.fill(ref, site.mfa_code))
    await agent.act("click Verify", "button", "Verify", tool.click, new_page=True)
    await wait_url(agent, "**/inbox")
    await agent.call("open /tasks", tool.open(f"{site.url}/tasks"), new_page=True)
    for name in ARCHIVE:
        await agent.act(f"click {name}", "button", name, tool.click)
    await agent.act("click Delete all", "button", "Delete all", tool.click)
    last = await agent.call("accept the dialog", tool.accept_dialog())
    if "All deleted" not in last:
        await agent.call("wait for the text", tool.wait_text("All deleted"))


async def wait_url(agent: Agent, pattern: str) -> None:
    """agent-browser's guide: wait for the URL after a navigating click (the others'
    actions already wait for what they set going); raw Playwright's floor does the same."""
    if isinstance(agent.tool, AgentBrowser) or getattr(agent.tool, "waits_for_url", False):
        await agent.call(f"wait --url {pattern}", agent.tool.wait_url(pattern))


async def main() -> None:
    started = time.perf_counter()
    runs: dict[str, list[Agent]] = {}
    with tempfile.TemporaryDirectory(prefix="cockpit-economy-npm-") as prefix, \
            DemoSite(human_check=False) as site:
        tools, skipped, served = await start_tools(Path(prefix), "bench-economy")
        tools.append(await RawPlaywrightTask().start())
        try:
            for rep in range(REPS):
                k = rep % len(tools)
                for tool in tools[k:] + tools[:k]:
                    agent = Agent(tool)
                    await task(agent, site)
                    runs.setdefault(tool.name, []).append(agent)
                print(f"  ... run {rep + 1}/{REPS}", file=sys.stderr, flush=True)
        finally:
            try:  # the last started first: each MCP client's streams nest in the one before
                for tool in reversed(tools):
                    await tool.close()
            finally:
                served.stop()
    ab = runs.get("agent-browser")
    rows = [("tool", "calls (/AB)", "tokens read (/AB)", "ms in calls (/AB)")]
    for name, agents in runs.items():
        calls = statistics.median(a.calls for a in agents)
        tok = statistics.median(a.tokens for a in agents)
        ms = statistics.median(a.ms for a in agents)

        def ratio(value: float, key: str) -> str:
            if not ab:
                return ""
            return f" ({value / statistics.median(getattr(a, key) for a in ab):.2f}x)"
        rows.append((name, f"{calls:.0f}{ratio(calls, 'calls')}",
                     f"{tok:,.0f}{ratio(tok, 'tokens')}", f"{ms:,.0f}{ratio(ms, 'ms')}"))
    print(f"economy benchmark (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}, medians of {REPS} runs, tools interleaved, o200k "
          f"tokens, {time.perf_counter() - started:.0f} s)")
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip())
    for name, agents in runs.items():
        print(f"{name}: " + "; ".join(agents[-1].log))
    for line in skipped:
        print(line)


if __name__ == "__main__":
    asyncio.run(main())
