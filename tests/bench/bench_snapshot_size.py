"""Snapshot size benchmark (run by hand): python tests/bench/bench_snapshot_size.py

How much smaller `snapshot -i` is than the page's HTML, in o200k tokens (the PyPI package
`bpe-openai`; a benchmark dependency only), how many of its lines name no element, and
whether every visible interactive element of the page is still there. On Python's own
`library/stdtypes.html` (Debian's python3-doc; skipped with a message when missing) and on
the demo site's large /reference page. A last column shows, for comparison only, the
ratio of the same lines written `@e6 button "Sign in"` (the contract's other line form).
"""

from __future__ import annotations

import asyncio
import http.server
import os
import re
import sys
import tempfile
import threading
from functools import partial
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

import bpe_openai

from cockpit.core import Session
from cockpit.demo.server import DemoSite

PYDOC = Path("/usr/share/doc/python3-doc/html")
ENCODING = bpe_openai.get_encoding("o200k_base")
CHUNK_LINES = 500  # the encoder refuses one input of more than 200k tokens
NAMED = re.compile(r'^- [\w-]+ "(?:[^"\\]|\\.)+"')
COUNT_INTERACTIVE_JS = """() => [...document.querySelectorAll(
  'a[href], button, input:not([type=hidden]), select, textarea')]
  .filter(el => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
  .length"""


def tokens(text: str) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(ENCODING.encode("".join(lines[i:i + CHUNK_LINES])))
               for i in range(0, len(lines), CHUNK_LINES))


def ref_first(text: str) -> str:
    """The same lines as `@ref role "name"` (for comparison; not what -i prints)."""
    return "\n".join(re.sub(r'^- ([\w-]+)( "(?:[^"\\]|\\.)*")?(.*?) \[ref=(\w+)\]',
                            r"@\4 \1\2\3", line) for line in text.splitlines())


async def measure(session: Session, label: str, url: str) -> tuple[str, ...]:
    result = await session.run(f"goto {url}")
    assert result.ok, result.error
    page = session.active.page
    html = await page.content()
    text = (await session.run("snapshot -i")).output
    with_urls = (await session.run("snapshot -i -u")).output
    lines = text.splitlines()
    nameless = sum(1 for line in lines if not NAMED.match(line))
    visible = await page.evaluate(COUNT_INTERACTIVE_JS)
    kept = sum(1 for line in lines if not line.startswith("- heading"))
    html_tok, i_tok = tokens(html), tokens(text)
    return (label, f"{html_tok:,}", f"{i_tok:,}", f"{html_tok / i_tok:.1f}x",
            f"{html_tok / tokens(with_urls):.1f}x", f"{nameless} / {len(lines)}",
            f"{kept} / {visible}" + ("" if kept >= visible else " LOST"),
            f"{html_tok / tokens(ref_first(text)):.1f}x")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per file request would bury the output


def serve(directory: Path) -> http.server.ThreadingHTTPServer:
    handler = partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def main() -> None:
    rows = [("page", "HTML tok", "-i tok", "-i ratio", "-i -u ratio", "nameless lines",
             "controls kept / visible", "@ref form")]
    with DemoSite() as site:
        async with Session("bench-size") as session:
            if (PYDOC / "library" / "stdtypes.html").exists():
                server = serve(PYDOC)
                port = server.server_address[1]
                rows.append(await measure(session, "stdtypes.html",
                                          f"http://127.0.0.1:{port}/library/stdtypes.html"))
                server.shutdown()
            else:
                print(f"skipped stdtypes.html: {PYDOC} is missing (apt-get install python3-doc)")
            rows.append(await measure(session, "demo /reference", f"{site.url}/reference"))
    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print(f"snapshot size benchmark (Python {sys.version.split()[0]}, o200k tokens, target 20x)")
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)))


if __name__ == "__main__":
    asyncio.run(main())
