"""MCP tool-list size benchmark (run by hand): python tests/bench/bench_mcp_tools.py

What an agent pays, in o200k tokens (the PyPI package `bpe-openai`), for the tool list of
`cockpit mcp` and of playwright-mcp (`@playwright/mcp`, its default tools), each fetched
with `tools/list` over stdio by the official MCP SDK's client and counted the same way: the
JSON of every tool (name, description, input schema, annotations), as the client hands it
to its model. playwright-mcp is $PLAYWRIGHT_MCP, else `playwright-mcp` on PATH, else
installed with npm into a temporary directory (the npm registry is needed once); without
npm it is left out, and said so. Its browser is the system Chromium, headless.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

import bpe_openai
from mcp import Client, StdioServerParameters

ENCODING = bpe_openai.get_encoding("o200k_base")
CHROMIUM = "/usr/lib/chromium/chromium"


def playwright_mcp(workdir: Path) -> str | None:
    found = os.environ.get("PLAYWRIGHT_MCP") or shutil.which("playwright-mcp")
    if found:
        return found
    if shutil.which("npm") is None:
        return None
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix",
                           str(workdir), "@playwright/mcp"], capture_output=True, text=True,
                          timeout=600, check=False)
    binary = workdir / "node_modules" / ".bin" / "playwright-mcp"
    if done.returncode != 0 or not binary.exists():
        print(f"npm install @playwright/mcp failed: {done.stderr.strip()[-300:]}",
              file=sys.stderr)
        return None
    return str(binary)


async def tool_list(params: StdioServerParameters) -> tuple[int, int, dict[str, int]]:
    """(tools, tokens of the whole list, tokens per tool)."""
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
    listed = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]
    each = {t["name"]: len(ENCODING.encode(json.dumps(t))) for t in listed}
    return len(listed), len(ENCODING.encode(json.dumps({"tools": listed}))), each


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="cockpit-bench-mcp-") as tmp:
        ours = StdioServerParameters(command=sys.executable, args=[
            "-m", "cockpit", "mcp", "--session", "bench-mcp", "--no-record"],
            env=dict(os.environ), cwd=tmp)
        rows = [("cockpit mcp", *await tool_list(ours))]
        binary = playwright_mcp(Path(tmp))
        if binary is not None:
            args = ["--headless", "--isolated", "--no-sandbox", "--browser", "chromium"]
            if Path(CHROMIUM).exists():
                args += ["--executable-path", CHROMIUM]
            version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                     check=False).stdout.replace("Version", "").strip()
            theirs = StdioServerParameters(command=binary, args=args)
            rows.append((f"playwright-mcp {version}".strip(), *await tool_list(theirs)))
        else:
            print("playwright-mcp: not found and npm could not install it: left out")
    print(f"{'server':<28} {'tools':>5} {'o200k tokens':>13}")
    for label, count, tokens, _ in rows:
        print(f"{label:<28} {count:>5} {tokens:>13}")
    if len(rows) == 2:
        print(f"cockpit's list costs {rows[0][2] / rows[1][2]:.0%} of playwright-mcp's")
    print("\ncockpit mcp, per tool:")
    for name, tokens in rows[0][3].items():
        print(f"  {name:<22} {tokens:>5}")


if __name__ == "__main__":
    asyncio.run(main())
