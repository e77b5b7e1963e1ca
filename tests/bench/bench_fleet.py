"""Starting sessions, and many at once (run by hand): python tests/bench/bench_fleet.py [REPS]

Issue 28's figures, in one run on this machine, medians of REPS (default 5) rounds, the
sides interleaved within each round so a busy machine's drift hits all alike:

1. Launch + first `goto` of a new session, against agent-browser's cold `open URL` (a new
   `--session`: its daemon and Chromium start, then the page loads):
   - `cockpit serve` + `cockpit exec goto URL`: a new process, its browser, the page;
   - a new client of a running `cockpit mcp --port` (the issue's ten agents): the SDK
     client connects, and its first `browser_navigate` opens its session (a context on
     the shared browser) and loads the page;
   - `cockpit serve URL`: the same, in one process (serve goes there, then says it is live);
   - `Session.start()` + `goto` in this process (no process start; the engine's own cost);
   and ten agents starting at once: ten new clients of one `cockpit mcp --port` against
   ten agent-browser sessions opened together, until every one has its page.
2. Ten sessions each driven (a page loaded and a `snapshot -i`) on one `cockpit mcp --port`:
   memory (PSS, the whole process tree: Python, Playwright's driver, Chromium) per session
   added after the first, against a bare Playwright context on the same page (the same
   Chromium, ten contexts on one browser, the driver and browser's tree).
With COCKPIT_BASELINE=DIR (a source tree of another Cockpit, e.g. `git archive REV | tar -x
-C DIR`), part 1 also runs `cockpit serve` + `exec goto` from that tree (in that directory:
`python -m` imports the working directory's code first), interleaved with the rest: before
and after a change, in one run. BENCH_PAGES="/ /login" picks part 1's pages;
BENCH_ONLY_STARTS=1 stops after part 1; BENCH_ONLY_MEMORY=1 runs part 2 alone (with
COCKPIT_BASELINE, that tree's memory too).
Every tool runs Debian's Chromium, headless: Cockpit the binary it picks itself (its
headless shell, when `chromium-headless-shell` is installed; COCKPIT_BENCH_BROWSER=PATH
gives it one), agent-browser the full `chromium` (its own kind of default: Chrome for
Testing) and, for a view with the same binary, the headless shell too; the bare Playwright
contexts of part 2 run what Cockpit runs. agent-browser is installed by npm into a
temporary directory (peers.py); when it cannot run, its side is skipped with the reason.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))
sys.path.insert(0, str(Path(__file__).parent))

from peers import (CHROMIUM, HEADLESS_SHELL, ROOT, AgentBrowser, Unavailable,
                   agent_browser_binary, env_without_cockpit, install_peers)

from cockpit.demo.server import DemoSite

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SESSIONS = 10
COCKPIT = [sys.executable, "-m", "cockpit"]


# --- memory of a process tree ------------------------------------------------------------
def tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rpartition(")")[2].split()[1])
        except OSError:
            continue
        children.setdefault(ppid, []).append(int(pid))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def pss_mb(root: int, *, without_root: bool = False) -> float:
    """The proportional set size of the tree under `root`, in MB (shared pages counted
    once across the tree)."""
    total = 0
    for pid in tree(root):
        if without_root and pid == root:
            continue
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration):
            continue
    return total / 1024


# --- Cockpit's sides -----------------------------------------------------------------------
BASELINE = os.environ.get("COCKPIT_BASELINE")  # another Cockpit's source tree, compared


# Cockpit runs the browser it picks itself, as a user's does (COCKPIT_BENCH_BROWSER=PATH
# gives it one): here Debian's Chromium, headless on its headless shell when installed
OURS = os.environ.get("COCKPIT_BENCH_BROWSER")


def cockpit_env(state: str, tree: str | None = None) -> dict[str, str]:
    env = env_without_cockpit()
    env["COCKPIT_STATE_DIR"] = state
    if OURS:
        env["COCKPIT_BROWSER_PATH"] = OURS
    if tree:  # that tree's cockpit, not this one
        env["PYTHONPATH"] = tree
    return env


async def serve_then_exec(url: str, n: int, at_start: bool = False,
                          tree: str | None = None) -> float:
    """Wall time from spawning `cockpit serve` to `cockpit exec goto URL` answered (or,
    `at_start`, to `cockpit serve URL` saying it is live: it went there first); `tree`:
    another Cockpit's source tree runs them."""
    state = tempfile.mkdtemp(prefix="cockpit-bench-serve-")
    env, session = cockpit_env(state, tree), f"start-{os.getpid()}-{n}"
    began = time.perf_counter()
    # `python -m` puts the working directory first on sys.path: the tree's code runs only
    # from the tree (from this checkout, PYTHONPATH=tree would still import this one)
    proc = await asyncio.create_subprocess_exec(
        *COCKPIT, "serve", "--no-record", "--session", session, *([url] if at_start else []),
        env=env, cwd=tree, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    try:
        while True:  # it prints its socket once the browser runs
            line = await asyncio.wait_for(proc.stdout.readline(), 120)
            if not line:
                raise RuntimeError("cockpit serve ended before its socket")
            if line.strip().startswith(b"socket:"):
                break
        if at_start:
            return (time.perf_counter() - began) * 1000
        done = await asyncio.create_subprocess_exec(
            *COCKPIT, "exec", "--session", session, "goto", url, env=env, cwd=tree,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if await done.wait() != 0:
            raise RuntimeError("cockpit exec goto failed")
        return (time.perf_counter() - began) * 1000
    finally:
        proc.send_signal(signal.SIGTERM)
        await proc.wait()
        shutil.rmtree(state, ignore_errors=True)


class McpServer:
    """`cockpit mcp --port 0` (each client its own session), and SDK clients of it."""

    async def start(self, state: str, tree: str | None = None) -> McpServer:
        self.proc = await asyncio.create_subprocess_exec(
            *COCKPIT, "mcp", "--port", "0", "--no-record", env=cockpit_env(state, tree),
            cwd=tree, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        said = ""
        while "token file:" not in said:
            line = await asyncio.wait_for(self.proc.stderr.readline(), 120)
            if not line:
                raise RuntimeError(f"cockpit mcp ended: {said}")
            said += line.decode()
        self.url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", said)[1]
        self.token = re.search(r"Bearer (\S+)", said)[1]
        self.drain = asyncio.ensure_future(self._drain())
        return self

    async def _drain(self) -> None:
        while await self.proc.stderr.readline():
            pass

    async def client(self, stack: AsyncExitStack, name: str):
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client
        from mcp_types import Implementation
        http = await stack.enter_async_context(create_mcp_http_client(
            headers={"Authorization": f"Bearer {self.token}"}))
        return await stack.enter_async_context(Client(
            streamable_http_client(self.url, http_client=http),
            client_info=Implementation(name=name, version="1")))

    async def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        await self.proc.wait()


async def call(client, tool: str, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    if result.is_error:
        raise RuntimeError(text)
    return text


CONNECTS: list[float] = []  # of the MCP clients: the handshake alone


async def mcp_client_first_goto(server: McpServer, url: str) -> float:
    """A new client: connect, and its first navigate (which opens its session)."""
    async with AsyncExitStack() as stack:
        began = time.perf_counter()
        client = await server.client(stack, "bench")
        CONNECTS.append((time.perf_counter() - began) * 1000)
        await call(client, "browser_navigate", url=url)
        return (time.perf_counter() - began) * 1000


async def in_process(url: str, n: int) -> float:
    from cockpit.core import Session
    began = time.perf_counter()
    async with Session(f"inproc-{os.getpid()}-{n}", browser_path=OURS) as session:
        result = await session.run(f"goto {url}")
        took = (time.perf_counter() - began) * 1000
        assert result.ok, result.error
    return took


async def agent_browser_open(binary: Path, url: str, n: int, browser: str = CHROMIUM) -> float:
    tool = AgentBrowser(binary, f"bench-start-{os.getpid()}-{n}", browser)
    began = time.perf_counter()
    await tool.run("open", url)
    took = (time.perf_counter() - began) * 1000
    await tool.run("close")
    return took


# --- memory ---------------------------------------------------------------------------------
PYTHON_SIZES: dict[str | None, list[float]] = {}  # each tree's Python PSS (None: ours)


async def cockpit_memory(url: str, state: str, tree: str | None = None) -> list[float]:
    """PSS of `cockpit mcp --port`'s tree after each of SESSIONS clients drove a page
    (`tree`: another Cockpit's source tree serves them); its Python process's alone are
    added to PYTHON_SIZES (the browser's renderers vary more than a change of ours)."""
    server = await McpServer().start(state, tree)
    sizes = []
    PYTHON_SIZES[tree] = python = []
    try:
        async with AsyncExitStack() as stack:
            for i in range(SESSIONS):
                client = await server.client(stack, f"mem{i}")
                await call(client, "browser_navigate", url=url)
                await call(client, "browser_snapshot", interactive=True)
                await asyncio.sleep(1.0)  # the page's work done, the heap settled a little
                sizes.append(pss_mb(server.proc.pid))
                python.append(sizes[-1] - pss_mb(server.proc.pid, without_root=True))
    finally:
        await server.stop()
    return sizes



async def playwright_memory(url: str) -> list[float]:
    """PSS of Playwright's driver and browser after each of SESSIONS bare contexts."""
    from playwright.async_api import async_playwright
    pw = await async_playwright().start()
    driver = next(p for p in tree(os.getpid()) if p != os.getpid()
                  and b"node" in Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")[0])
    browser = await pw.chromium.launch(executable_path=OURS or (  # the same as Cockpit's
        HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else CHROMIUM),
                                       args=["--no-sandbox"] if ROOT else [])
    sizes, contexts = [], []
    try:
        for _ in range(SESSIONS):
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            contexts.append(context)
            page = await context.new_page()
            await page.goto(url)
            await page.aria_snapshot(mode="ai")
            await asyncio.sleep(1.0)
            sizes.append(pss_mb(driver))
    finally:
        await browser.close()
        await pw.stop()
    return sizes


def per_added(sizes: list[float]) -> float:
    return (sizes[-1] - sizes[0]) / (len(sizes) - 1)


def first_error(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup):  # the SDK client's task groups
        exc = exc.exceptions[0]
    return str(exc).splitlines()[0] if str(exc) else repr(exc)


def line(label: str, values: list[float], against: float | None = None) -> str:
    if not values:
        return f"  {label:48}every round failed"
    med = statistics.median(values)
    ratio = f"{med / against:8.2f}x" if against else ""
    return f"  {label:48}{med:9.0f} ms  (min {min(values):.0f}, max {max(values):.0f}){ratio}"


async def starts(url: str, problems: dict[str, str], binary: Path, state: str) -> None:
    """Launch + first goto of `url`, each side REPS times, interleaved."""
    server = await McpServer().start(state)
    CONNECTS.clear()
    times: dict[str, list[float]] = {k: [] for k in ("ab", "ab_shell", "serve", "serve_url",
                                                     "mcp", "inproc", "baseline")}
    failures: dict[str, int] = {}  # a side that failed (a goto past its time, on a busy machine)
    try:
        await mcp_client_first_goto(server, url)  # its shared browser has run once
        CONNECTS.clear()
        for n in range(REPS):
            sides = [("serve", lambda n=n: serve_then_exec(url, n)),
                     ("serve_url", lambda n=n: serve_then_exec(url, n + 1000, True)),
                     ("mcp", lambda: mcp_client_first_goto(server, url)),
                     ("inproc", lambda n=n: in_process(url, n))]
            if BASELINE:
                sides.append(("baseline", lambda n=n: serve_then_exec(url, n + 2000,
                                                                      tree=BASELINE)))
            if "agent-browser" not in problems:
                sides.append(("ab", lambda n=n: agent_browser_open(binary, url, n)))
                if os.access(HEADLESS_SHELL, os.X_OK):  # the same binary as ours, for a view
                    sides.append(("ab_shell", lambda n=n: agent_browser_open(
                        binary, url, n + 3000, HEADLESS_SHELL)))
            sides = sides[n % len(sides):] + sides[:n % len(sides)]  # the order rotates
            for key, run in sides:
                try:
                    times[key].append(await run())
                except Unavailable as exc:
                    problems["agent-browser"] = str(exc)
                except Exception as exc:  # noqa: BLE001  counted and said; the run goes on
                    failures[key] = failures.get(key, 0) + 1
                    print(f"  {key} failed in round {n + 1}: {first_error(exc)}",
                          file=sys.stderr, flush=True)
    finally:
        await server.stop()
    print(f"Launch + first goto of {url} (median of {REPS}; load {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores)")
    ab = statistics.median(times["ab"]) if times["ab"] else None
    if ab:
        print(line("agent-browser open URL (cold session)", times["ab"]))
        if times["ab_shell"]:
            print(line("  the same, given the headless shell", times["ab_shell"], ab))
    else:
        print(f"  agent-browser skipped: {problems.get('agent-browser')}")
    print(line("cockpit serve + cockpit exec goto", times["serve"], ab))
    if times["baseline"]:
        print(line("  the same, from COCKPIT_BASELINE's tree", times["baseline"], ab))
    print(line("cockpit serve URL (goes there, then is live)", times["serve_url"], ab))
    print(line("new client of cockpit mcp --port + navigate", times["mcp"], ab))
    print(line("  of which the MCP handshake", CONNECTS, ab))
    print(line("Session.start() + goto, in process", times["inproc"], ab))
    if failures:
        print(f"  failed rounds (not in the medians): {failures}")


async def ten_at_once(url: str, problems: dict[str, str], binary: Path, state: str) -> None:
    """SESSIONS agents starting together: wall time until every one has its first page,
    new clients of one running `cockpit mcp --port` against as many agent-browser
    sessions opened at once."""
    server = await McpServer().start(state)
    try:
        await mcp_client_first_goto(server, url)
        began = time.perf_counter()
        await asyncio.gather(*(mcp_client_first_goto(server, url) for _ in range(SESSIONS)))
        ours = (time.perf_counter() - began) * 1000
    finally:
        await server.stop()
    print(f"{SESSIONS} sessions started at once, each to its first page ({url}; load "
          f"{os.getloadavg()[0]:.1f})")
    print(f"  {SESSIONS} new clients of cockpit mcp --port{'':17}{ours:9.0f} ms")
    if "agent-browser" in problems:
        return
    began = time.perf_counter()
    await asyncio.gather(*(agent_browser_open(binary, url, 2000 + i) for i in range(SESSIONS)))
    theirs = (time.perf_counter() - began) * 1000
    print(f"  {SESSIONS} agent-browser sessions opened{'':16}{theirs:9.0f} ms"
          f"{ours / theirs:8.2f}x (cockpit / agent-browser)")


async def main() -> None:
    site = DemoSite()
    site.start()
    prefix = Path(tempfile.mkdtemp(prefix="cockpit-bench-peers-"))
    problems = install_peers(prefix)
    binary = agent_browser_binary(prefix)
    state = tempfile.mkdtemp(prefix="cockpit-bench-mcp-")
    # a small page (the launch is all there is to it: the home, as agent-browser's `open`
    # of /login waits ~3 s on its password field), and a huge one: the demo's reference,
    # 10,000 refs, whose snapshot after the goto (the step's diff) dominates
    memory_only = bool(os.environ.get("BENCH_ONLY_MEMORY"))
    for path in [] if memory_only else os.environ.get("BENCH_PAGES",
                                                      "/ /login /reference").split():
        await starts(f"{site.url}{path}", problems, binary, state)
    if os.environ.get("BENCH_ONLY_STARTS"):
        return
    if not memory_only:
        await ten_at_once(f"{site.url}/login", problems, binary, state)
    for path in ("/login", "/reference"):
        url = f"{site.url}{path}"
        print(f"\nMemory (PSS of the process tree) with 1..{SESSIONS} sessions driven on {url}")
        try:
            ours = await cockpit_memory(url, state)
            bare = await playwright_memory(url)
        except Exception as exc:  # noqa: BLE001  said, and the run goes on
            print(f"  failed: {first_error(exc)}")
            continue
        print("  cockpit mcp --port: " + " ".join(f"{s:.0f}" for s in ours) + " MB")
        print("  bare Playwright:    " + " ".join(f"{s:.0f}" for s in bare) + " MB")
        print(f"  per added session: cockpit {per_added(ours):.1f} MB, a bare Playwright "
              f"context {per_added(bare):.1f} MB: {per_added(ours) / per_added(bare):.2f}x")
        print(f"  of which Cockpit's Python process: {per_added(PYTHON_SIZES[None]):.1f} MB")
        if BASELINE:  # the other tree's, after ours and the bare contexts
            try:
                theirs = await cockpit_memory(url, state, BASELINE)
            except Exception as exc:  # noqa: BLE001  said, and the run goes on
                print(f"  baseline failed: {first_error(exc)}")
                continue
            print(f"  baseline {BASELINE}: " + " ".join(f"{s:.0f}" for s in theirs) + " MB")
            print(f"  per added session: baseline {per_added(theirs):.1f} MB: "
                  f"{per_added(theirs) / per_added(bare):.2f}x a bare context; its Python "
                  f"process {per_added(PYTHON_SIZES[BASELINE]):.1f} MB")
    site.stop()
    shutil.rmtree(prefix, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
