"""Click round trip benchmark (run by hand): python tests/bench/bench_click.py [ROUNDS] [--no-exec]

An action's cost should follow what it changed, not the page's size (issue 17). On the
demo's /reference page and, when Debian's python3-doc is installed, on Python's
stdtypes.html (7,600 refs) and functions.html, served on 127.0.0.1 and opened as file://
pages (whose stylesheets the page cannot read: Cockpit reads them), three clicks:
  - no-op: a button whose click does nothing;
  - small: a button whose click changes one paragraph's text;
  - navigate: a link to the same page (a new document: a full snapshot either way).
The buttons and the link are added to the page (after its first heading) by `js`.

Each click is timed with incremental diffs (the default) and with a full snapshot after
every action (the old path: `Session.incremental_diffs = False`, `COCKPIT_FULL_DIFF=1` for
a served session), in the same run, rounds interleaved and their order rotating:
  - in process: `Session.run("click @eN")`, beside raw Playwright's `page.click()` on
    the same page (the floor: the click alone);
  - through `cockpit exec click @eN` (a new process per click, as an agent calls it)
    against two `cockpit serve` sessions, one per path; beside a bare `python3 -c pass`
    and `cockpit exec title` (exec's own start-up: target <= 2.5x the bare start).
Medians (p90) of ROUNDS rounds (default 5), and the full/incremental ratios.
"""

from __future__ import annotations

import asyncio
import http.server
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_agents import COCKPIT_SCRIPT, Served, once, p90

from cockpit.core import Session
from cockpit.demo.server import DemoSite

PYDOC = Path("/usr/share/doc/python3-doc/html")
ROUNDS = next((int(a) for a in sys.argv[1:] if a.isdigit()), 5)
CASES = ("no-op", "small", "navigate")
# Added after the page's first heading: two buttons, the paragraph one of them changes, a
# link to the page itself. No double quotes: the line goes through `cockpit exec` too.
INJECT = ("js (() => { const d = document.createElement('div'); d.id = 'bench'; "
          "d.innerHTML = '<button id=bn>Bench no-op</button><button id=bs>Bench change"
          "</button><p id=bo>a</p><a id=bl href=' + location.pathname + '>Bench link</a>'; "
          "document.querySelector('h1').after(d); document.getElementById('bs').onclick = "
          "() => { const o = document.getElementById('bo'); o.textContent = o.textContent "
          "=== 'a' ? 'b' : 'a'; }; })()")
NAMES = {"no-op": "Bench no-op", "small": "Bench change", "navigate": "Bench link"}


def refs_in(text: str) -> dict[str, str]:
    """The bench elements' refs in a `snapshot -i` text (either line format)."""
    out = {}
    for case, name in NAMES.items():
        m = re.search(rf'(?:@(\w+) \w+ "{name}"|"{name}"[^\n]*\[ref=(\w+)\])', text)
        if m is None:
            raise RuntimeError(f"{name!r} not in the snapshot:\n{text[:2000]}")
        out[case] = m.group(1) or m.group(2)
    return out


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def pages(demo: DemoSite) -> dict[str, str]:
    out = {"reference": f"{demo.url}/reference"}
    if (PYDOC / "library" / "stdtypes.html").exists():
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                 partial(Quiet, directory=str(PYDOC)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/library"
        out["stdtypes"] = f"{base}/stdtypes.html"
        out["functions"] = f"{base}/functions.html"
        # opened from the disk, as people read the offline docs: every stylesheet of a
        # file:// page is another origin's, which the page cannot read (stylesheets.py)
        out["stdtypes (file://)"] = f"file://{PYDOC}/library/stdtypes.html"
        out["functions (file://)"] = f"file://{PYDOC}/library/functions.html"
    else:
        print(f"note: {PYDOC} missing (apt-get install python3-doc): the demo page only")
    return out


def line(label: str, xs: list[float]) -> str:
    return f"{label:<34} {statistics.median(xs):8.1f} ms (p90 {p90(xs):8.1f})"


def ratio(slow: list[float], fast: list[float]) -> str:
    return f"{statistics.median(slow) / statistics.median(fast):6.2f}x"


# --- in process -----------------------------------------------------------------------
async def in_process(urls: dict[str, str]) -> None:
    print(f"\n== in process: Session.run('click @eN'), {ROUNDS} rounds ==")
    async with Session("bench-click") as s:
        for page_name, url in urls.items():
            report(page_name, await in_process_page(s, url))
        s.incremental_diffs = True


async def in_process_page(s: Session, url: str) -> dict[str, list[float]]:
    refs: dict[str, str] = {}

    async def setup() -> None:
        for step in (f"goto {url}", INJECT):
            result = await s.run(step)
            assert result.ok, result.error
        refs.update(refs_in((await s.run("snapshot -i")).output))

    def side(case: str, incremental: bool):
        async def run() -> None:
            s.incremental_diffs = incremental
            result = await s.run(f"click @{refs[case]}")
            assert result.ok, result.error
        return run

    await setup()
    sides = {"raw page.click (no-op)": lambda: s.active.page.click("#bn")}
    for case in CASES:
        for inc in (True, False):
            sides[f"{case} {'incremental' if inc else 'full'}"] = side(case, inc)
    names = list(sides)
    times: dict[str, list[float]] = {}
    for i in range(ROUNDS + 1):  # the first round warms up
        k = i % len(names)
        for name in names[k:] + names[:k]:
            ms = await once(sides[name])
            if i:
                times.setdefault(name, []).append(ms)
            if name.startswith("navigate"):
                await setup()  # back to the page with the bench elements
    return times


def report(page_name: str, times: dict[str, list[float]]) -> None:
    print(f"-- {page_name}")
    for name, xs in times.items():
        print(line(name, xs))
    for case in CASES:
        inc, full = times[f"{case} incremental"], times[f"{case} full"]
        print(f"{case + ': full / incremental':<34} {ratio(full, inc)}")
    if "raw page.click (no-op)" in times:
        print(f"{'no-op incremental / raw click':<34} "
              f"{ratio(times['no-op incremental'], times['raw page.click (no-op)'])}")


# --- through cockpit exec -------------------------------------------------------------
class Session2(Served):
    """`cockpit serve` under another session name, with extra environment."""

    def __init__(self, name: str, workspace: str, state: str, env: dict[str, str]) -> None:
        import bench_agents
        saved = bench_agents.SESSION
        bench_agents.SESSION = name
        try:
            os.environ.update(env)
            super().__init__(workspace, state)
        finally:
            for key in env:
                os.environ.pop(key, None)
            bench_agents.SESSION = saved
        self.name = name

    def run(self, *words: str) -> str:
        done = subprocess.run([COCKPIT_SCRIPT, "exec", "--session", self.name, *words],
                              cwd=self.workspace, env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(words)[:80]}: exit {done.returncode}: "
                               f"{done.stderr.strip()}")
        return done.stdout


def exec_page(served: dict[str, Session2], url: str,
              starts: dict[str, list[float]]) -> dict[str, list[float]]:
    refs: dict[str, dict[str, str]] = {}

    def setup(path: str) -> None:
        each = served[path]
        each.run("goto", url)
        each.run(INJECT)
        refs[path] = refs_in(each.run("snapshot", "-i"))

    for path in served:
        setup(path)
    times: dict[str, list[float]] = {}
    sides = [(case, path) for case in CASES for path in served]
    for i in range(ROUNDS + 1):
        k = i % len(sides)
        for case, path in sides[k:] + sides[:k]:
            t = time.perf_counter()
            served[path].run("click", "@" + refs[path][case])
            ms = (time.perf_counter() - t) * 1000
            if i:
                times.setdefault(f"{case} {path}", []).append(ms)
            if case == "navigate":
                setup(path)
        if i:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            starts["python3 -c pass"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            served["incremental"].run("title")
            starts["cockpit exec title"].append((time.perf_counter() - t) * 1000)
    return times


def through_exec(urls: dict[str, str]) -> None:
    print(f"\n== through `cockpit exec click @eN` (a process per click), {ROUNDS} rounds ==")
    work, state = tempfile.mkdtemp(prefix="bench-click-"), tempfile.mkdtemp()
    served = {"incremental": Session2("bench-click-inc", work, state, {}),
              "full": Session2("bench-click-full", work, state, {"COCKPIT_FULL_DIFF": "1"})}
    try:
        for each in served.values():
            each.wait_socket()
        starts: dict[str, list[float]] = {"python3 -c pass": [], "cockpit exec title": []}
        for page_name, url in urls.items():
            report(page_name, exec_page(served, url, starts))
        print("-- exec start-up")
        for name, xs in starts.items():
            print(line(name, xs))
        r = statistics.median(starts["cockpit exec title"]) / statistics.median(
            starts["python3 -c pass"])
        print(f"{'exec title / bare start':<34} {r:6.2f}x (target <= 2.5x: "
              f"{'met' if r <= 2.5 else 'NOT met'})")
    finally:
        for each in served.values():
            warning = each.stop()
            if warning:
                print(warning)


def main() -> None:
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; python "
          f"{sys.version.split()[0]}")
    with DemoSite() as demo:
        urls = pages(demo)
        asyncio.run(in_process(urls))
        if "--no-exec" not in sys.argv:
            through_exec(urls)


if __name__ == "__main__":
    main()
