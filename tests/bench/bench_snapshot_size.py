"""Snapshot size benchmark (run by hand): python tests/bench/bench_snapshot_size.py

How much smaller `snapshot -i` is than the page's HTML, in o200k tokens (the PyPI package
`bpe-openai`; a benchmark dependency only), how many of its lines name no element, and
whether every visible interactive element of the page is still there. On Python's own
`library/stdtypes.html` and `library/functions.html` (Debian's python3-doc; skipped with a
message when missing) and on the demo site's large /reference page, each in a fresh
session (a later document's refs carry a frame prefix, `f1e5`: two tokens a line more).

A second table measures, on the same text, the ideas that were tried and not kept (the
README says why): Playwright's tree line form `- link "x" [ref=e5]` (what -i printed
before), runs of identical links to one URL collapsed (`@e5 link "x" (+2 more: @e7 @e9)`),
every repeat of a link collapsed into its first line page-wide, headings without a ref,
and names cut to 30 characters.
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
from typing import Callable

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

import bpe_openai

from cockpit.core import Session
from cockpit.demo.server import DemoSite

PYDOC = Path("/usr/share/doc/python3-doc/html")
ENCODING = bpe_openai.get_encoding("o200k_base")
CHUNK_LINES = 500  # the encoder refuses one input of more than 200k tokens
NAME = r'"(?:[^"\\]|\\.)*"'
NAMED = re.compile(r'^@(?:f\d+)?e\d+ [\w-]+ "(?:[^"\\]|\\.)+"')
# A `-i -u` line: ref, role, name, the rest (states, value), and the link's target.
LINE = re.compile(rf"^@(\S+) ([\w-]+)(?: ({NAME}))?(.*?)(?: -> (\S+))?$")
COUNT_INTERACTIVE_JS = """() => [...document.querySelectorAll(
  'a[href], button, input:not([type=hidden]), select, textarea')]
  .filter(el => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
  .length"""


def tokens(text: str) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(ENCODING.encode("".join(lines[i:i + CHUNK_LINES])))
               for i in range(0, len(lines), CHUNK_LINES))


def tree_form(lines: list[str], _: list[str]) -> list[str]:
    """Playwright's line form, `- link "x" [ref=e5]`: what -i printed before."""
    return [re.sub(rf"^@(\S+) ([\w-]+)( {NAME})?(.*)$",
                   lambda m: f'- {m[2]}{m[3] or ""} [ref={m[1]}]{m[4]}', line)
            for line in lines]


def collapse(lines: list[str], targets: list[str], *, page_wide: bool) -> list[str]:
    """Repeats of a link (same name, same target) folded into the line of the first one:
    consecutive runs only, or every repeat on the page. Every ref stays on some line."""
    out: list[tuple[str, list[str]]] = []
    first: dict[tuple[str, str], int] = {}
    for line, with_url in zip(lines, targets):
        m = LINE.match(with_url)
        key = (m[3], m[5]) if m and m[2] == "link" and m[5] else None
        if key and key in first and (page_wide or first[key] == len(out) - 1):
            out[first[key]][1].append("@" + m[1])
            continue
        if key:
            first[key] = len(out)
        out.append((line, []))
    return [line + (f" (+{len(more)} more: {' '.join(more)})" if more else "")
            for line, more in out]


def no_heading_refs(lines: list[str], _: list[str]) -> list[str]:
    return [re.sub(rf"^@\S+ heading ({NAME})$", r"# \1", line) for line in lines]


def short_names(lines: list[str], _: list[str], limit: int = 30) -> list[str]:
    def cut(m: re.Match[str]) -> str:
        name = m[1]
        return f'"{name if len(name) <= limit else name[:limit - 1].rstrip() + "…"}"'
    return [re.sub(r'"((?:[^"\\]|\\.)*)"', cut, line, count=1) for line in lines]


IDEAS: list[tuple[str, Callable[[list[str], list[str]], list[str]]]] = [
    ("tree form (before)", tree_form),
    ("runs collapsed", partial(collapse, page_wide=False)),
    ("repeats collapsed page-wide", partial(collapse, page_wide=True)),
    ("headings without ref", no_heading_refs),
    ("names cut at 30", short_names),
]


async def measure(label: str, url: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    async with Session("bench-size") as session:
        result = await session.run(f"goto {url}")
        assert result.ok, result.error
        page = session.active.page
        html = await page.content()
        text = (await session.run("snapshot -i")).output
        with_urls = (await session.run("snapshot -i -u")).output
        visible = await page.evaluate(COUNT_INTERACTIVE_JS)
    lines, targets = text.splitlines(), with_urls.splitlines()
    nameless = sum(1 for line in lines if not NAMED.match(line))
    kept = sum(1 for line in lines if line.split()[1:2] != ["heading"])
    html_tok, i_tok = tokens(html), tokens(text)
    row = (label, f"{html_tok:,}", f"{i_tok:,}", f"{html_tok / i_tok:.1f}x",
           f"{html_tok / tokens(with_urls):.1f}x", f"{nameless} / {len(lines)}",
           f"{kept} / {visible}" + ("" if kept >= visible else " LOST"),
           f"{html_tok / kept:.0f}")
    ideas = [label]
    for _, idea in IDEAS:
        other = tokens("\n".join(idea(lines, targets)))
        ideas.append(f"{html_tok / other:.1f}x ({(other - i_tok) / i_tok:+.1%})")
    return row, tuple(ideas)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per file request would bury the output


def serve(directory: Path) -> http.server.ThreadingHTTPServer:
    handler = partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def table(rows: list[tuple[str, ...]]) -> None:
    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)))


async def main() -> None:
    rows = [("page", "HTML tok", "-i tok", "-i ratio", "-i -u ratio", "nameless lines",
             "controls kept / visible", "HTML tok per control")]
    ideas = [("page", *(name for name, _ in IDEAS))]
    with DemoSite() as site:
        pages = []
        server = None
        if (PYDOC / "library" / "stdtypes.html").exists():
            server = serve(PYDOC)
            base = f"http://127.0.0.1:{server.server_address[1]}/library"
            pages += [("stdtypes.html", f"{base}/stdtypes.html"),
                      ("functions.html", f"{base}/functions.html")]
        else:
            print(f"skipped stdtypes.html, functions.html: {PYDOC} is missing "
                  "(apt-get install python3-doc)")
        pages.append(("demo /reference", f"{site.url}/reference"))
        for label, url in pages:
            row, idea = await measure(label, url)
            rows.append(row)
            ideas.append(idea)
        if server:
            server.shutdown()
    print(f"snapshot size benchmark (Python {sys.version.split()[0]}, o200k tokens, target 20x)")
    table(rows)
    print("\nideas measured on the same -i text (ratio, and tokens against -i):")
    table(ideas)


if __name__ == "__main__":
    asyncio.run(main())
