"""The tools that bench_peers.py and bench_economy.py compare, behind one small interface.

Each tool is driven as its own documentation says, and every method returns the text the
tool answered (what an agent would read; its o200k tokens are what the agent pays):
  - Cockpit four ways: `cockpit exec` (a new process per command, on a `cockpit serve`
    subprocess), the Python client (`cockpit.client.AsyncCockpit`, on the same serve), in
    process (`Session.run`), and `cockpit mcp` on stdio with the `mcp` SDK's client (its
    own tools: `browser_click` with a target, `browser_run` for the rest);
  - agent-browser (npm `agent-browser`): its CLI, a new process per command, talking to its
    own daemon; the package's native binary is run directly, as its global install does;
  - playwright-mcp (npm `@playwright/mcp`): its stdio MCP server, driven with the `mcp`
    Python SDK's stdio client;
  - raw Playwright: `page.aria_snapshot(mode="ai")` and `locator("aria-ref=eN").click()`,
    which answer nothing an agent could read about what changed.
Every tool runs Debian's Chromium (CHROMIUM), headless, with --no-sandbox as root (as
Cockpit itself launches it). The npm packages are installed by `install_peers()` into a
temporary directory with `npm install --prefix`; a peer that cannot run here is skipped
with the reason (`Unavailable`).
"""

from __future__ import annotations

import asyncio
import compileall
import contextlib
import os
import platform
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

try:
    import bpe_openai  # o200k tokens, as GPT-4o and later count them
except ImportError:
    sys.exit("tests/bench needs the o200k tokenizer: python3 -m pip install bpe-openai")

# BENCH_BROWSER=PATH gives every tool another binary (the headless shell below, say)
CHROMIUM = os.environ.get("BENCH_BROWSER", "/usr/lib/chromium/chromium")
# Debian's chromium-headless-shell, the same build: what Cockpit runs headless when it is
# installed (core/browser/browser.py), as Playwright does with its own builds
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
AGENT_BROWSER = "agent-browser@0.41"
PLAYWRIGHT_MCP = "@playwright/mcp@0.0.83"
ROOT = os.geteuid() == 0
COCKPIT_SCRIPT = os.path.join(os.path.dirname(sys.executable), "cockpit")
ENCODING = bpe_openai.get_encoding("o200k_base")
CHUNK_LINES = 500  # the encoder refuses one input of more than 200k tokens

# `- role "name" ... [ref=eN]` (the peers' snapshot lines and Cockpit's full snapshot),
# `@eN role "name"` (Cockpit's `snapshot -i` line) and `+ @eN role "name"` (a Cockpit diff
# line): the refs an agent reads from a tool's own output.
SNAPSHOT_LINE = re.compile(r'- ([\w-]+) "((?:[^"\\]|\\.)*)"[^\n]*?\[(?:[^\]\n]*, )?ref=([\w-]+)\]')
INTERACTIVE_LINE = re.compile(r'^\s*@([\w-]+) ([\w-]+) "((?:[^"\\]|\\.)*)"', re.M)
DIFF_LINE = re.compile(r'^[+~] @([\w-]+) ([\w-]+) "((?:[^"\\]|\\.)*)"', re.M)


class Unavailable(Exception):
    """A tool that cannot run on this machine; the message says why."""


class ToolError(Exception):
    """A command the tool refused or failed; `text` is what it answered (tokens count)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def tokens(text: str) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(ENCODING.encode("".join(lines[i:i + CHUNK_LINES])))
               for i in range(0, len(lines), CHUNK_LINES))


def refs_in(text: str) -> dict[tuple[str, str], str]:
    """(role, name) -> ref of every element the text names with a ref (first one wins)."""
    found: dict[tuple[str, str], str] = {}
    for role, name, ref in SNAPSHOT_LINE.findall(text):
        found.setdefault((role, name), ref.removeprefix("@"))
    for ref, role, name in INTERACTIVE_LINE.findall(text):
        found.setdefault((role, name), ref)
    for ref, role, name in DIFF_LINE.findall(text):
        found[(role, name)] = ref  # a diff's refs are newer than any snapshot's
    return found


def env_without_cockpit() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("COCKPIT_SOCKET", "COCKPIT_SESSION")}


# --- the npm packages ---------------------------------------------------------------------
def install_peers(prefix: Path, names: tuple[str, ...] = ("agent-browser", "playwright-mcp")
                  ) -> dict[str, str]:
    """npm install the peers (both by default) under prefix; name -> problem for those that
    cannot run."""
    problems: dict[str, str] = {}
    if not os.access(CHROMIUM, os.X_OK):
        return {name: f"{CHROMIUM} missing (apt-get install chromium)" for name in names}
    npm = shutil.which("npm")
    if npm is None:
        return {name: "npm is not installed" for name in names}
    specs = {"agent-browser": AGENT_BROWSER, "playwright-mcp": PLAYWRIGHT_MCP}
    for name, spec in ((name, specs[name]) for name in names):
        done = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit",
                               "--no-fund", spec], capture_output=True, text=True)
        if done.returncode != 0:
            problems[name] = f"npm install {spec} failed: {done.stderr.strip()[-300:]}"
    binary = agent_browser_binary(prefix)
    if "agent-browser" in names and "agent-browser" not in problems and not binary.exists():
        problems["agent-browser"] = f"no native binary {binary.name} in the package"
    return problems


def agent_browser_binary(prefix: Path) -> Path:
    arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return prefix / "node_modules" / "agent-browser" / "bin" / f"agent-browser-linux-{arch}"


# --- Cockpit ------------------------------------------------------------------------------
class Served:
    """`cockpit serve` in a subprocess (its own workspace and state), for exec and client."""

    def __init__(self, session: str) -> None:
        # `cockpit exec` as installed: its modules compiled (a pip install writes the .pyc
        # files; an editable install under PYTHONDONTWRITEBYTECODE=1 would recompile them
        # on every call, ~8 ms)
        import cockpit
        compileall.compile_dir(os.path.dirname(cockpit.__file__), quiet=1)
        self.session = session
        self.workspace = tempfile.mkdtemp(prefix="cockpit-peers-ws-")
        self.env = env_without_cockpit()
        self.env["COCKPIT_STATE_DIR"] = tempfile.mkdtemp(prefix="cockpit-peers-state-")
        self.env["COCKPIT_BROWSER_PATH"] = CHROMIUM
        self.stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  open while it runs
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cockpit", "serve", "--no-record", "--session", session],
            cwd=self.workspace, env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        self.socket = self._wait_socket()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _wait_socket(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            if line.strip().startswith("socket:"):
                return line.split("socket:", 1)[1].strip()
        self.stderr.seek(0)
        raise RuntimeError(f"`cockpit serve` did not come up: {self.stderr.read()[-500:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class CockpitTool:
    """What the three Cockpit ways share: the command lines and how errors read."""

    name = "Cockpit"
    interactive_flag = "-i"

    async def line(self, line: str) -> str:
        raise NotImplementedError

    async def open(self, url: str) -> str:
        return await self.line(f"goto {url}")

    async def snapshot(self) -> str:
        return await self.line("snapshot -i")

    async def click(self, ref: str) -> str:
        return await self.line(f"click @{ref}")

    async def fill(self, ref: str, text: str) -> str:
        return await self.line(f"fill @{ref} {shlex.quote(text)}")

    async def fill_many(self, fields: list[tuple[str, str, str]]) -> list[str]:
        return [await self.fill(ref, text) for ref, _, text in fields]

    async def accept_dialog(self) -> str:
        return await self.line("dialog accept")

    async def wait_url(self, pattern: str) -> str | None:
        return None  # a click's own result says where it led (settling is built in)

    async def wait_text(self, text: str) -> str:
        return await self.line(f"wait --text {shlex.quote(text)}")

    async def close(self) -> None:
        pass


class CockpitExec(CockpitTool):
    name = "Cockpit exec"

    def __init__(self, served: Served) -> None:
        self.served = served

    async def line(self, line: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            COCKPIT_SCRIPT, "exec", "--session", self.served.session, line,
            cwd=self.served.workspace, env=self.served.env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        text = (out.decode() + err.decode()).strip()
        if proc.returncode != 0:
            raise ToolError(text)
        return text


class CockpitClient(CockpitTool):
    name = "Cockpit client"

    def __init__(self, served: Served) -> None:
        from cockpit.client import AsyncCockpit
        self.client = AsyncCockpit(socket_path=served.socket, client="bench-peers")

    async def start(self) -> CockpitClient:
        await self.client.connect()
        return self

    async def line(self, line: str) -> str:
        result = await self.client.run(line)
        if not result.ok:
            raise ToolError(result.error or "")
        return result.output

    async def close(self) -> None:
        await self.client.close()


class CockpitInProcess(CockpitTool):
    name = "Cockpit in process"

    def __init__(self, session: str) -> None:
        os.environ.setdefault("COCKPIT_BROWSER_PATH", CHROMIUM)
        from cockpit.core import Session
        self.session = Session(session)

    async def start(self) -> CockpitInProcess:
        await self.session.start()
        return self

    async def line(self, line: str) -> str:
        result = await self.session.run(line)
        if not result.ok:
            raise ToolError(result.error or "")
        return result.output

    async def close(self) -> None:
        await self.session.close()


# --- agent-browser ------------------------------------------------------------------------
class AgentBrowser:
    name = "agent-browser"
    interactive_flag = "-i"

    def __init__(self, binary: Path, session: str, browser: str = CHROMIUM) -> None:
        self.binary = str(binary)
        self.session = session
        self.env = dict(os.environ, AGENT_BROWSER_EXECUTABLE_PATH=browser)
        if ROOT:
            self.env["AGENT_BROWSER_ARGS"] = "--no-sandbox"

    async def run(self, *words: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            self.binary, "--session", self.session, *words, env=self.env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        text = (out.decode() + err.decode()).strip()
        if proc.returncode != 0:
            raise ToolError(text)
        return text

    async def start(self) -> AgentBrowser:
        try:
            await self.run("open", "about:blank")
        except ToolError as exc:
            raise Unavailable(f"agent-browser did not start: {exc.text[-300:]}") from None
        return self

    async def open(self, url: str) -> str:
        return await self.run("open", url)

    async def snapshot(self) -> str:
        return await self.run("snapshot", "-i")

    async def click(self, ref: str) -> str:
        return await self.run("click", f"@{ref}")

    async def fill(self, ref: str, text: str) -> str:
        return await self.run("fill", f"@{ref}", text)

    async def fill_many(self, fields: list[tuple[str, str, str]]) -> list[str]:
        return [await self.fill(ref, text) for ref, _, text in fields]

    async def accept_dialog(self) -> str:
        return await self.run("dialog", "accept")

    async def wait_url(self, pattern: str) -> str | None:
        return await self.run("wait", "--url", pattern)  # its docs: wait after a navigation

    async def wait_text(self, text: str) -> str:
        return await self.run("wait", "--text", text)

    async def close(self) -> None:
        with contextlib.suppress(ToolError):
            await self.run("close")


# --- MCP servers on stdio ----------------------------------------------------------------
class StdioMcp:
    """An MCP server on stdio, driven with the `mcp` Python SDK's own client, as the agents
    that speak MCP drive it: one server process for the whole run."""

    name = "an MCP server"

    def __init__(self) -> None:
        self._stack = contextlib.AsyncExitStack()
        self.session: Any = None

    async def connect(self, command: str, args: list[str], cwd: str,
                      env: dict[str, str] | None = None) -> None:
        try:
            from mcp import StdioServerParameters
            from mcp.client.session import ClientSession
            from mcp.client.stdio import stdio_client
        except ImportError:
            raise Unavailable("the `mcp` SDK is not installed (python3 -m pip install "
                              "mcp)") from None
        params = StdioServerParameters(command=command, args=args, cwd=cwd, env=env)
        try:
            read, write = await self._stack.enter_async_context(
                stdio_client(params, errlog=open(os.devnull, "w")))  # noqa: SIM115
            self.session = await self._stack.enter_async_context(ClientSession(read, write))
            await self.session.initialize()
        except Exception as exc:  # noqa: BLE001  said as the reason the tool is skipped
            await self._stack.aclose()
            raise Unavailable(f"{self.name} did not start: {exc}") from None

    async def call(self, tool: str, **arguments: Any) -> str:
        result = await self.session.call_tool(tool, arguments)
        text = "\n".join(getattr(c, "text", "") for c in result.content)
        if getattr(result, "is_error", False):
            raise ToolError(text)
        return text

    async def disconnect(self) -> None:
        with contextlib.suppress(Exception):
            await self._stack.aclose()


class CockpitMcp(CockpitTool, StdioMcp):
    """`cockpit mcp` on stdio, its own tools as an MCP client calls them (`browser_click`
    with a target, ...), `browser_run` for the commands without a tool of their own."""

    name = "Cockpit MCP"

    def __init__(self, session: str) -> None:
        StdioMcp.__init__(self)
        self.session_name = session
        self.workspace = tempfile.mkdtemp(prefix="cockpit-peers-mcp-ws-")
        self.state = tempfile.mkdtemp(prefix="cockpit-peers-mcp-state-")
        self.env = env_without_cockpit()
        self.env["COCKPIT_STATE_DIR"] = self.state
        self.env["COCKPIT_BROWSER_PATH"] = CHROMIUM

    async def start(self) -> CockpitMcp:
        await self.connect(sys.executable, ["-m", "cockpit", "mcp", "--no-record",
                                            "--session", self.session_name],
                           cwd=self.workspace, env=self.env)
        await self.open("about:blank")  # the first call waits for the browser to start
        return self

    async def line(self, line: str) -> str:
        return await self.call("browser_run", command=line)

    async def open(self, url: str) -> str:
        return await self.call("browser_navigate", url=url)

    async def snapshot(self) -> str:
        return await self.call("browser_snapshot", interactive=True)

    async def click(self, ref: str) -> str:
        return await self.call("browser_click", target=f"@{ref}")

    async def fill(self, ref: str, text: str) -> str:
        return await self.call("browser_fill", target=f"@{ref}", text=text)

    async def close(self) -> None:
        await self.disconnect()
        for directory in (self.workspace, self.state):
            shutil.rmtree(directory, ignore_errors=True)


# --- playwright-mcp -----------------------------------------------------------------------
class PlaywrightMcp(StdioMcp):
    name = "playwright-mcp"
    interactive_flag = ""  # it has no interactive-only snapshot: the full tree

    def __init__(self, prefix: Path) -> None:
        super().__init__()
        self.cli = prefix / "node_modules" / "@playwright" / "mcp" / "cli.js"
        self.workdir = tempfile.mkdtemp(prefix="cockpit-peers-mcp-")

    async def start(self) -> PlaywrightMcp:
        node = shutil.which("node")
        if node is None:
            raise Unavailable("node is not installed")
        args = [str(self.cli), "--headless", "--isolated", "--executable-path", CHROMIUM,
                "--output-dir", self.workdir]
        if ROOT:
            args.append("--no-sandbox")
        await self.connect(node, args, cwd=self.workdir)
        return self

    async def open(self, url: str) -> str:
        return await self.call("browser_navigate", url=url)

    async def snapshot(self) -> str:
        return await self.call("browser_snapshot")

    async def click(self, ref: str) -> str:
        return await self.call("browser_click", element=ref, target=ref)

    async def fill(self, ref: str, text: str) -> str:
        return await self.call("browser_type", element=ref, target=ref, text=text)

    async def fill_many(self, fields: list[tuple[str, str, str]]) -> list[str]:
        """Its docs offer one call for a whole form: browser_fill_form."""
        return [await self.call("browser_fill_form", fields=[
            {"target": ref, "name": name, "type": "textbox", "value": text}
            for ref, name, text in fields])]

    async def accept_dialog(self) -> str:
        return await self.call("browser_handle_dialog", accept=True)

    async def wait_url(self, pattern: str) -> str | None:
        return None  # its actions wait for what they set going

    async def wait_text(self, text: str) -> str:
        return await self.call("browser_wait_for", text=text)

    async def close(self) -> None:
        await self.disconnect()
        shutil.rmtree(self.workdir, ignore_errors=True)


# --- raw Playwright -----------------------------------------------------------------------
class RawPlaywright:
    name = "raw Playwright"
    interactive_flag = ""

    async def start(self) -> RawPlaywright:
        from playwright.async_api import async_playwright
        self._pw = await async_playwright().start()
        self.browser = await self._pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"] if ROOT else [])
        self.page = await self.browser.new_page()
        return self

    async def open(self, url: str) -> str:
        await self.page.goto(url)
        return ""

    async def snapshot(self) -> str:
        return await self.page.aria_snapshot(mode="ai")

    async def click(self, ref: str) -> str:
        await self.page.locator(f"aria-ref={ref}").click()
        return ""

    async def html(self) -> str:
        return await self.page.content()

    async def close(self) -> None:
        await self.browser.close()
        await self._pw.stop()


class RawPlaywrightTask(RawPlaywright):
    """The economy task in Playwright alone, doing the least a script needs: `goto`, the
    page's `aria_snapshot` only where the task reads refs (a new page), actions through
    `get_by_role` (which waits for a re-rendered list by itself), `wait_for_url` after a
    navigating click, the confirm accepted as it shows. No settling, no report of what
    changed: a floor under any tool that drives Chromium through Playwright."""

    name = "raw Playwright (floor)"
    waits_for_url = True

    async def start(self) -> RawPlaywrightTask:
        await super().start()
        self.page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
        self.roles: dict[str, tuple[str, str]] = {}
        return self

    async def _do(self, action) -> str:
        try:
            await action
        except Exception as exc:  # noqa: BLE001  the bench's agent retries, as with any tool
            raise ToolError(str(exc)) from None
        return ""

    def _named(self, ref: str):
        role, name = self.roles[ref]
        return self.page.get_by_role(role, name=name, exact=True)  # type: ignore[arg-type]

    async def snapshot(self) -> str:
        text = await self.page.aria_snapshot(mode="ai")
        self.roles = {ref: (role, name) for (role, name), ref in refs_in(text).items()}
        return text

    async def click(self, ref: str) -> str:
        return await self._do(self._named(ref).click())

    async def fill(self, ref: str, text: str) -> str:
        return await self._do(self._named(ref).fill(text))

    async def fill_many(self, fields: list[tuple[str, str, str]]) -> list[str]:
        return [await self.fill(ref, text) for ref, _, text in fields]

    async def accept_dialog(self) -> str:
        return ""  # accepted as it showed (a dialog left open blocks the page)

    async def wait_url(self, pattern: str) -> str | None:
        return await self._do(self.page.wait_for_url(pattern))

    async def wait_text(self, text: str) -> str:
        return await self._do(self.page.get_by_text(text).wait_for())


# --- the tools of one run ------------------------------------------------------------------
async def start_tools(prefix: Path, label: str) -> tuple[list, list[str], Served]:
    """Cockpit's four ways and the peers that can run here (installed under prefix); the
    ones that cannot are said, with the reason, in the list of skipped."""
    skipped: list[str] = []
    problems = install_peers(prefix)
    served = Served(label)
    tools: list = [CockpitExec(served), await CockpitClient(served).start(),
                   await CockpitInProcess(f"{label}-inproc").start()]
    candidates = [("Cockpit MCP", lambda: CockpitMcp(f"{label}-mcp")),
                  ("agent-browser", lambda: AgentBrowser(agent_browser_binary(prefix),
                                                           f"{label}-{os.getpid()}")),
                  ("playwright-mcp", lambda: PlaywrightMcp(prefix))]
    for name, make in candidates:
        if name in problems:
            skipped.append(f"{name} skipped: {problems[name]}")
            continue
        try:
            tools.append(await make().start())
        except Unavailable as exc:
            skipped.append(f"{name} skipped: {exc}")
    return tools, skipped, served
