"""Cockpit against its peers (run by hand): python tests/bench/bench_peers.py [REPS]

The same pages, the same Chromium (Debian's), tools interleaved within each repetition (the
order rotating), medians of REPS (default 5) repetitions, o200k tokens (`bpe-openai`):
  - snapshot: each tool's own snapshot for an agent — Cockpit's and agent-browser's
    `snapshot -i`, playwright-mcp's `browser_snapshot` (it has no interactive-only mode),
    raw Playwright's `page.aria_snapshot(mode="ai")` — its tokens (and the page's HTML
    tokens over them) and the milliseconds it takes;
  - click round trip: one click on an in-page link (`#anchor`: the page does not change,
    as most clicks on a documentation page), with what the tool answers about it: Cockpit's
    diff, agent-browser's `click`, playwright-mcp's `browser_click` response; raw
    Playwright's `click()` answers nothing. The ref is read from the tool's own snapshot.
Cockpit runs four ways: `cockpit exec` and the Python client on one `cockpit serve`
subprocess, `Session.run` in this process, and `cockpit mcp` driven by the `mcp` SDK's
client. The exec floor, last: a bare start of exec's Python against `cockpit exec` of a
command answered without the browser, alternated. Pages: the demo's /reference always,
Python's library/stdtypes.html and functions.html when Debian's python3-doc is installed
(served from /usr/share/doc/python3-doc/html on 127.0.0.1). The peers are installed by npm
into a temporary directory; one that cannot run here is skipped with the reason.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))
sys.path.insert(0, str(Path(__file__).parent))

from peers import (COCKPIT_SCRIPT, RawPlaywright, Served, ToolError, refs_in, start_tools,
                   tokens)

from cockpit.demo.server import DemoSite

PYDOC = Path("/usr/share/doc/python3-doc/html")
REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
LINK_LINE = re.compile(r'^(\s*)- link(?: "((?:[^"\\]|\\.)*)")?[^\n]*?\[(?:[^\]\n]*, )?ref=(\w+)\]')


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(directory: Path) -> http.server.ThreadingHTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             partial(QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def progress(text: str) -> None:
    print(f"  ... {text}", file=sys.stderr, flush=True)


def links(snapshot: str) -> list[tuple[str, str, str]]:
    """(name, ref, href) of each link of an aria snapshot; a nameless link is named by its
    first child's text, as Cockpit's `-i` and agent-browser name it."""
    out: list[tuple[str, str, str]] = []
    lines = snapshot.splitlines()
    for i, line in enumerate(lines):
        m = LINK_LINE.match(line)
        if not m:
            continue
        depth, name, ref, href = len(m.group(1)), m.group(2) or "", m.group(3), ""
        for child in lines[i + 1:]:
            if len(child) - len(child.lstrip()) <= depth:
                break
            body = child.strip()
            if body.startswith("- /url:"):
                href = body.split(":", 1)[1].strip().strip('"')
            elif not name and ": " in body:
                name = body.split(": ", 1)[1].strip().strip('"')
        out.append((name, ref, href))
    return out


def click_target(raw_snapshot: str) -> tuple[str, str]:
    """(name, href) of the first in-page link (`#anchor`) whose name no other link has."""
    found = links(raw_snapshot)
    names = [name for name, _, _ in found]
    for name, _, href in found:
        if href.startswith("#") and names.count(name) == 1 and len(name) > 3:
            return name, href
    raise RuntimeError("no in-page link with a unique name on the page")


def ref_for(snapshot: str, name: str, href: str) -> str | None:
    """The link's ref in a tool's own snapshot: by its name, else by its target."""
    ref = refs_in(snapshot).get(("link", name))
    if ref is None:
        ref = next((r for n, r, h in links(snapshot) if h == href), None)
    return ref


async def timed(coro) -> tuple[float, str, bool]:
    t = time.perf_counter()
    try:
        text, ok = await coro, True
    except ToolError as exc:
        text, ok = exc.text, False
    return (time.perf_counter() - t) * 1000, text, ok


async def start_all(prefix: Path) -> tuple[list, list[str], Served]:
    tools, skipped, served = await start_tools(prefix, "bench-peers")
    tools.append(await RawPlaywright().start())
    return tools, skipped, served


async def measure(tools: list, raw: RawPlaywright, label: str, url: str) -> list[dict]:
    await raw.open(url)
    html_tok = tokens(await raw.html())
    target, href = click_target(await raw.snapshot())
    progress(f"{label}: HTML {html_tok:,} tokens; clicking the link {target!r} ({href})")
    runs: dict[str, dict[str, list]] = {t.name: {"snap": [], "tok": [], "click": [],
                                                 "answer": [], "errors": []} for t in tools}
    for rep in range(REPS):
        k = rep % len(tools)
        for tool in tools[k:] + tools[:k]:
            r = runs[tool.name]
            await tool.open(url)
            ms, snap, ok = await timed(tool.snapshot())
            r["snap"].append(ms)
            r["tok"].append(tokens(snap))
            ref = ref_for(snap, target, href)
            if ref is None:
                r["errors"].append(f"no ref for link {target!r} in its snapshot")
                continue
            ms, answer, ok = await timed(tool.click(ref))
            r["click"].append(ms)
            r["answer"].append(tokens(answer))
            if not ok:
                r["errors"].append(answer.splitlines()[0] if answer else "failed")
        progress(f"{label}: repetition {rep + 1}/{REPS}")
    rows = []
    for tool in tools:
        r = runs[tool.name]
        tok = statistics.median(r["tok"])
        rows.append({"page": label, "html": html_tok, "tool": tool.name,
                     "flag": tool.interactive_flag, "tok": tok,
                     "snap": statistics.median(r["snap"]),
                     "click": statistics.median(r["click"]) if r["click"] else None,
                     "answer": statistics.median(r["answer"]) if r["answer"] else None,
                     "errors": sorted(set(r["errors"]))})
    return rows


def table(rows: list[dict]) -> list[tuple[str, ...]]:
    out = [("page", "tool", "snapshot tokens (HTML/x)", "snapshot ms (/AB)",
            "click round trip ms (/AB)", "click answer tokens")]
    for page in dict.fromkeys(r["page"] for r in rows):
        group = [r for r in rows if r["page"] == page]
        ab = next((r for r in group if r["tool"] == "agent-browser"), None)

        def ratio(value, key, ab=ab):
            base = ab and ab[key]
            return f" ({value / base:.2f}x)" if base and value is not None else ""
        for n, r in enumerate(group):
            what = f"{r['tool']} {r['flag']}".strip()
            click = "-" if r["click"] is None else f"{r['click']:,.0f}{ratio(r['click'], 'click')}"
            out.append((f"{page} ({r['html']:,} HTML tok)" if n == 0 else "", what,
                        f"{r['tok']:,.0f} ({r['html'] / r['tok']:.1f}x)",
                        f"{r['snap']:,.0f}{ratio(r['snap'], 'snap')}", click,
                        "-" if r["answer"] is None else f"{r['answer']:,.0f}"))
    return out


async def main() -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cockpit-peers-npm-") as prefix, \
            DemoSite() as site:
        tools, skipped, served = await start_all(Path(prefix))
        raw = tools[-1]
        pages = [("demo /reference", f"{site.url}/reference")]
        server = None
        if (PYDOC / "library" / "stdtypes.html").exists():
            server = serve(PYDOC)
            base = f"http://127.0.0.1:{server.server_address[1]}/library"
            pages += [("stdtypes.html", f"{base}/stdtypes.html"),
                      ("functions.html", f"{base}/functions.html")]
        else:
            skipped.append(f"Python's docs skipped: {PYDOC} is missing (apt-get install "
                           "python3-doc)")
        rows: list[dict] = []
        try:
            for label, url in pages:
                rows += await measure(tools, raw, label, url)
            floor = await exec_floor(tools[0])
        finally:
            try:  # the last started first: each MCP client's streams nest in the one before
                for tool in reversed(tools):
                    await tool.close()
            finally:
                served.stop()
            if server:
                server.shutdown()
    print(f"peers benchmark (Python {sys.version.split()[0]}, Chromium {chromium_version()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, medians of {REPS} "
          f"repetitions, tools interleaved, o200k tokens, {time.perf_counter() - started:.0f} s)")
    lines = table(rows)
    width = [max(len(r[i]) for r in lines) for i in range(len(lines[0]))]
    for r in lines:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip())
    print(floor_line(floor, rows))
    for r in rows:
        for error in r["errors"]:
            print(f"note: {r['page']}, {r['tool']}: {error}")
    for line in skipped:
        print(line)


async def exec_floor(cockpit_exec, rounds: int = 20) -> dict[str, float]:
    """What a `cockpit exec` costs before any browser work, against a bare start of the
    Python it runs on, alternated: the share of agent-browser's click that a new Python
    process per call spends before the click begins."""
    async def run(*argv: str) -> float:
        t = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cockpit_exec.served.workspace, env=cockpit_exec.served.env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await proc.wait()
        return (time.perf_counter() - t) * 1000
    python, idle = [], []
    for _ in range(rounds):
        python.append(await run(sys.executable, "-c", "pass"))
        idle.append(await run(COCKPIT_SCRIPT, "exec", "--session",
                              cockpit_exec.served.session, "help click"))
    return {"python": statistics.median(python), "exec": statistics.median(idle)}


def floor_line(floor: dict[str, float], rows: list[dict]) -> str:
    ab = {r["page"]: r["click"] for r in rows if r["tool"] == "agent-browser" and r["click"]}
    per_page = ", ".join(f"{floor['exec'] / ms:.2f}x on {page}" for page, ms in ab.items())
    return (f"exec floor: a bare `python -c pass` {floor['python']:.1f} ms; `cockpit exec "
            f"help click` (a command answered without the browser) {floor['exec']:.1f} ms"
            + (f", before any browser work already {per_page} of agent-browser's whole "
               "click" if per_page else ""))


def chromium_version() -> str:
    import subprocess
    from peers import CHROMIUM
    done = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True)
    return done.stdout.strip().split()[-1] if done.returncode == 0 else "?"


if __name__ == "__main__":
    asyncio.run(main())
