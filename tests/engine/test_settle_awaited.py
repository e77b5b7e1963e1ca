"""Settling on an app whose server works a while on what the action asked, and whose page
shows it waits (a notebook's cell run, as marimo's): the server's first messages are
bookkeeping, then it is silent for longer than any quiet of its pace, then the output
comes. The result holds the output, or says the page was still waiting."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from cockpit.core.settle import sockets
from cockpit.core.settle.settle import probe
from conftest import ok, ref_of, serving

# The page asks over HTTP and gets the answer over its socket. As it asks it disables its
# Run button (marimo's run button, on Shift+Enter). `queued` is bookkeeping (marimo's
# "variables": it re-colours the editor, nothing a snapshot shows). `running` enables the
# button again (marimo does so mid-run) and starts an elapsed-time counter redrawn each
# frame (marimo's). `output` stops it, with the output (marimo's `cell-op`).
PAGE = """<!doctype html><html><head><title>Cells</title></head><body><main>
<pre id=code class=plain>total = sum(range(10))</pre>
<button onclick="this.disabled = true; fetch('/run' + location.search, {method: 'POST'})"
>Run</button><span id=elapsed></span><p id=out>nothing yet</p></main><script>
const ws = new WebSocket(`ws://${location.host}/ws`);
let started = 0;
const count = () => {
  if (!started) return;
  document.getElementById('elapsed').textContent = `${Date.now() - started}ms`;
  requestAnimationFrame(count);
};
ws.onmessage = (e) => {
  const m = JSON.parse(e.data), run = document.querySelector('main > button');
  if (m.op === 'queued') document.getElementById('code').className = 'coloured';
  if (m.op === 'running') { run.disabled = false; started = Date.now(); count(); }
  if (m.op === 'output') {
    started = 0;
    run.disabled = false;
    document.getElementById('out').textContent = m.out;
  }
  if (!['queued', 'running', 'output'].includes(m.op)) run.dataset.runs = 'more';
};
</script></body></html>"""
SOCKETS: list[web.WebSocketResponse] = []
RUNS: list[asyncio.Task[None]] = []


async def _page(request: web.Request) -> web.Response:
    return web.Response(text=PAGE, content_type="text/html")


async def _run(request: web.Request) -> web.Response:
    """`queued` at once; `running` after `queued_ms` (a kernel busy starting: its first
    run after load), if `run_ms`; `output` after `run_ms` more (the cell's own work)."""
    queued, run = (int(request.query.get(k, "0")) / 1000 for k in ("queued_ms", "run_ms"))
    last = request.query.get("last")  # a last message, that says it finished or not

    async def answer() -> None:
        steps = [(0.02, {"op": "queued"}), (queued, {"op": "running"} if run else None),
                 (run, {"op": "output", "out": "sum: 45"}),
                 (0.002, {"op": last} if last in ("completed-run", "idle") else
                  {"text": "all done"} if last else None)]
        for wait, message in steps:
            await asyncio.sleep(wait)
            for ws in [ws for ws in SOCKETS if not ws.closed] if message else []:
                await ws.send_json(message)
    RUNS.append(asyncio.ensure_future(answer()))  # (kept: a task is held weakly)
    return web.json_response({"ok": True})


async def _ws(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    SOCKETS.append(ws)
    try:
        async for _ in ws:
            pass
    finally:
        SOCKETS.remove(ws)
    return ws


@pytest.fixture
async def cells():
    app = web.Application()
    app.add_routes([web.get("/", _page), web.post("/run", _run), web.get("/ws", _ws)])
    async with serving(app) as url:
        yield url


async def _run_cell(s, url: str):
    await ok(s, f"goto {url}")
    await ok(s, "snapshot -i")
    return await ok(s, f"click {ref_of(s, 'button', 'Run')}")


async def test_a_run_whose_server_is_silent_a_while_with_the_run_button_disabled(s, cells):
    # bookkeeping at once, then 600 ms of silence with the Run button still disabled as
    # the click left it (marimo's first cell run after it loaded): the result had only
    # "~ button "Run" (disabled: - -> true)"; the button says the page still waits
    r = await _run_cell(s, f"{cells}/?queued_ms=600")
    assert '"nothing yet" -> "sum: 45"' in r.output, r.output
    assert "disabled" not in r.output and "note:" not in r.output, r.output


async def test_a_run_the_page_counts_the_time_of_is_in_the_result(s, cells):
    # the server says "running" (the button enabled again, a counter redrawn each frame),
    # then works 1.3 s (a cell that computes): the result had the counter at ~1 s and not
    # the output; the counter running says the page still waits
    r = await _run_cell(s, f"{cells}/?queued_ms=30&run_ms=1300")
    assert '"nothing yet" -> "sum: 45"' in r.output, r.output
    assert "note:" not in r.output, r.output


async def test_a_run_longer_than_the_wait_says_the_page_was_still_waiting(s, cells, monkeypatch):
    # a cell that works longer than settling waits for it: the result says so, with what
    # showed it, instead of passing the counter off as the answer
    monkeypatch.setattr(sockets, "WS_REPLY_CAP_S", 0.6)
    r = await _run_cell(s, f"{cells}/?queued_ms=30&run_ms=2000")
    assert "note: the page still showed it was waiting for its server" in r.output, r.output
    assert "as a timer counting" in r.output and "sum: 45" not in r.output, r.output
    await asyncio.sleep(1.6)
    r = await ok(s, "snapshot")
    assert "sum: 45" in r.output, r.output  # it came, as the note said it might


async def test_a_control_still_disabled_past_its_wait_is_said_as_it_is(s, cells, monkeypatch):
    # the server's bookkeeping, then nothing while the Run button stays disabled (a kernel
    # still starting; or a chat's Send button, which stays so): past the wait the result
    # says what is so, and does not claim the page is at work
    monkeypatch.setattr(sockets, "WS_ASKED_CAP_S", 0.5)
    r = await _run_cell(s, f"{cells}/?queued_ms=1500")
    assert "note: a control the page disabled as the action asked its server was still " \
        "disabled" in r.output, r.output
    assert '"Run" (disabled: - -> true)' in r.output and "sum: 45" not in r.output, r.output


@pytest.mark.parametrize("last,finished", [("completed-run", True), ("idle", True),
                                           ("text", False), ("", False)])
async def test_a_last_message_that_says_the_server_finished_shortens_the_quiet(
        s, cells, last, finished):
    # marimo ends a run with `{"op": "completed-run"}`: nothing more is to come, and the
    # page has rendered it, so the socket's quiet is only what the page needs to render
    # (a word of finishing in a message's text alone says nothing of the kind)
    await ok(s, f"goto {cells}/?last={last}")
    await ok(s, "snapshot -i")
    page = s.active.page
    since = await page.evaluate("Date.now()")
    r = await ok(s, f"click {ref_of(s, 'button', 'Run')}")
    assert '"nothing yet" -> "sum: 45"' in r.output, r.output
    state = await probe(page, since)
    assert state is not None and state["wsFinished"] is finished, state
    quiet = sockets.WS_FINISHED_QUIET_S if finished else sockets.WS_RENDERED_QUIET_S
    assert state["wsQuiet"] == quiet * 1000 if finished else state["wsQuiet"] >= quiet * 1000
