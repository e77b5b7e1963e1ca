"""Settling on apps that render what their server sends over a WebSocket: an action's
answer lands after the action returns, a page's first render after its `load`, and an
autosave a while later is not the action's to wait for."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import WSMsgType, web

from conftest import ok, ref_of, serving

APP = """<!doctype html><html><head><title>Socket app</title></head><body><main>
<h1>Socket app</h1><div id=widgets></div><p id=out>nothing yet</p><p id=status></p>
</main><script>
fetch('/config').then((r) => r.json()).then((config) => {
  const ws = new WebSocket(`ws://${location.host}/stream`);
  window.ws = ws;
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.widgets) for (const name of msg.widgets) {
      const b = document.createElement('button');
      b.textContent = name;
      b.onclick = () => ws.send(name);
      document.getElementById('widgets').append(b);
    }
    if (msg.out) document.getElementById('out').textContent = msg.out;
    if (msg.status !== undefined) document.getElementById('status').textContent = msg.status;
  };
});
</script></body></html>"""

# An edit whose note fades in after 0.95 s, for 0.5 s (settling follows both), and that
# the page saves 1.1 s later, as an autosave does: the save, which takes 1.5 s, is not
# the edit's consequence
SAVES = """<!doctype html><html><head><title>Saves later</title></head><body><main>
<style>#said { transition: opacity 0.5s linear; opacity: 0.2 } #said.on { opacity: 1 }</style>
<button onclick="const p = document.getElementById('said'); p.textContent = 'edited';
 setTimeout(() => p.classList.add('on'), 950);
 setTimeout(() => fetch('/save?slow=1500'), 1100)">Edit</button>
<p id=said>-</p></main></body></html>"""
SAVED: list[bool] = []
# A query whose response's body comes 400 ms after its headers (no socket on this page)
QUERY = """<!doctype html><html><head><title>Query</title></head><body><main>
<button onclick="fetch('/late-body').then((r) => r.json()).then((d) => {
  document.getElementById('out').textContent = d.rows[0]; })">Query</button>
<p id=out>nothing yet</p></main></body></html>"""


# A notebook's cell run, as marimo's: the page asks over HTTP, and the answer comes over
# the socket in a quick burst that the page renders part by part
ASKS = APP.replace("<p id=status></p>", "<p id=status></p><button onclick=\"fetch('/ask', "
                   "{method: 'POST'})\">Ask</button>")
SOCKETS: list[web.WebSocketResponse] = []
BURSTS: list[asyncio.Task[None]] = []


async def _asks(request: web.Request) -> web.Response:
    return web.Response(text=ASKS, content_type="text/html")


async def _ask(request: web.Request) -> web.Response:
    async def burst() -> None:
        await asyncio.sleep(0.05)
        for part in ({"status": "running"}, {"out": "answered"}, {"status": "idle"},
                     {"status": "done"}):
            for ws in [ws for ws in SOCKETS if not ws.closed]:  # (earlier pages' closed)
                await ws.send_json(part)
            await asyncio.sleep(0.02)
    BURSTS.append(asyncio.ensure_future(burst()))  # (kept: a task is held weakly)
    return web.json_response({"ok": True})


# The same ask to a loaded server (marimo's kernel on a busy machine): slow to start
# answering, and pausing inside its answer longer than a quick burst's pauses (longer
# than the 40 ms quiet that once ended settling there, and missed the output)
SLOW_ASKS = ASKS.replace("fetch('/ask'", "fetch('/slow-ask'")


async def _slow_asks(request: web.Request) -> web.Response:
    return web.Response(text=SLOW_ASKS, content_type="text/html")


async def _slow_ask(request: web.Request) -> web.Response:
    async def answer() -> None:
        for wait, part in ((0.2, {"status": "running"}), (0.12, {"out": "answered slowly"}),
                           (0.02, {"status": "done"})):
            await asyncio.sleep(wait)
            for ws in [ws for ws in SOCKETS if not ws.closed]:
                await ws.send_json(part)
    BURSTS.append(asyncio.ensure_future(answer()))
    return web.json_response({"ok": True})


# The same ask to a server that works a while on it, as a notebook's kernel running a cell
# does: it says "running" at once (the page disables its Ask button, as marimo does its
# run button), then sends the output when done, longer after than any pause of its pace
BUSY_ASKS = ASKS.replace("fetch('/ask'", "fetch('/busy-ask'").replace(
    "if (msg.out)", "if (msg.busy !== undefined) document.querySelector('main > button')"
    ".disabled = msg.busy;\n    if (msg.out)")


async def _busy_asks(request: web.Request) -> web.Response:
    return web.Response(text=BUSY_ASKS, content_type="text/html")


async def _busy_ask(request: web.Request) -> web.Response:
    async def answer() -> None:
        for wait, part in ((0.03, {"status": "running", "busy": True}),
                           (0.2, {"out": "computed", "status": "idle", "busy": False})):
            await asyncio.sleep(wait)
            for ws in [ws for ws in SOCKETS if not ws.closed]:
                await ws.send_json(part)
    BURSTS.append(asyncio.ensure_future(answer()))
    return web.json_response({"ok": True})


# The same, from a page that disables its Ask button itself as it asks (marimo's run
# button, on Shift+Enter), before any message: "running" then comes at once and changes
# nothing of it, the output 200 ms later, with the button enabled again
ASKS_DISABLED = ASKS.replace("onclick=\"fetch('/ask'", "onclick=\"this.disabled = true; "
                            "fetch('/busy-ask'").replace(
    "if (msg.out)", "if (msg.busy === false) document.querySelector('main > button')"
    ".disabled = false;\n    if (msg.out)")


async def _asks_disabled(request: web.Request) -> web.Response:
    return web.Response(text=ASKS_DISABLED, content_type="text/html")


async def _page(request: web.Request) -> web.Response:
    return web.Response(text=APP, content_type="text/html")


async def _saves(request: web.Request) -> web.Response:
    return web.Response(text=SAVES, content_type="text/html")


async def _query(request: web.Request) -> web.Response:
    return web.Response(text=QUERY, content_type="text/html")


async def _config(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def _save(request: web.Request) -> web.Response:
    await asyncio.sleep(int(request.query.get("slow", "0")) / 1000)
    SAVED.append(True)
    return web.json_response({"saved": True})


async def _stream(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    await asyncio.sleep(0.3)  # the app's first render comes a while after `load`
    await ws.send_json({"widgets": ["Run", "Other", "Rerun"]})
    SOCKETS.append(ws)
    try:
        await _answer(ws)
    finally:
        SOCKETS.remove(ws)
    return ws


async def _answer(ws: web.WebSocketResponse) -> None:
    """Answer what the page sends over its socket."""
    async for msg in ws:
        if msg.type == WSMsgType.TEXT and msg.data == "Rerun":
            # as Streamlit's rerun: "running" at once, which the page shows, and the
            # output once the script has run, longer after than a burst's pauses
            await ws.send_json({"status": "running"})
            await asyncio.sleep(0.25)
            await ws.send_json({"status": "", "out": "reran"})
        elif msg.type == WSMsgType.TEXT:
            await asyncio.sleep(0.15)  # the server works, then answers over the socket
            await ws.send_json({"out": f"ran {msg.data}"})


async def _late_body(request: web.Request) -> web.StreamResponse:
    """Headers at once, the body a while later (a slow query streamed out)."""
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    await response.prepare(request)
    await response.write(b" ")  # (aiohttp sends the headers with the first bytes)
    await asyncio.sleep(0.4)
    await response.write(b'{"rows": ["Late row"]}')
    await response.write_eof()
    return response


@pytest.fixture
async def socket_app():
    app = web.Application()
    app.add_routes([web.get("/", _page), web.get("/config", _config),
                    web.get("/stream", _stream), web.get("/saves", _saves),
                    web.get("/save", _save), web.get("/late-body", _late_body),
                    web.get("/query", _query), web.get("/asks", _asks),
                    web.post("/ask", _ask), web.get("/slow-asks", _slow_asks),
                    web.post("/slow-ask", _slow_ask), web.get("/busy-asks", _busy_asks),
                    web.post("/busy-ask", _busy_ask),
                    web.get("/asks-disabled", _asks_disabled)])
    async with serving(app) as url:
        yield url


async def test_goto_waits_for_a_socket_apps_first_render(s, socket_app):
    r = await ok(s, f"goto {socket_app}/")
    assert 'button "Run"' in r.output and 'button "Other"' in r.output, r.output


async def test_an_answer_over_the_socket_is_in_the_actions_result(s, socket_app):
    await ok(s, f"goto {socket_app}/")
    await ok(s, "snapshot -i")
    failed = await s.run("click @e999")  # a failed command first, as an agent may
    assert not failed.ok
    r = await ok(s, f"click {ref_of(s, 'button', 'Run')}")
    assert '"nothing yet" -> "ran Run"' in r.output, r.output
    r = await ok(s, f"click {ref_of(s, 'button', 'Other')}")
    assert '"ran Run" -> "ran Other"' in r.output, r.output


async def test_a_request_long_after_the_action_does_not_hold_its_result(s, socket_app):
    # the autosave starts while settling still follows the fade: it is not the edit's
    # consequence, and the edit's result does not wait for it to be saved
    await ok(s, f"goto {socket_app}/saves")
    await ok(s, "snapshot -i")
    SAVED.clear()
    r = await ok(s, f"click {ref_of(s, 'button', 'Edit')}")
    assert "edited" in r.output, r.output
    assert not SAVED, "the edit's result waited for the autosave"


async def test_an_answer_in_parts_after_the_page_sent_is_in_the_result(s, socket_app):
    # a status the page shows at once, the output 250 ms later: what the page sent over
    # its socket set server work going whose first message is not all of its answer
    await ok(s, f"goto {socket_app}/")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Rerun')}")
    assert '"nothing yet" -> "reran"' in r.output, r.output


async def test_a_fetch_whose_body_comes_late_is_followed_to_its_render(s, socket_app):
    # the response's headers come at once and its body 400 ms later: the page renders
    # only when it has read the body, and that is in the click's result
    await ok(s, f"goto {socket_app}/query")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Query')}")
    assert '"nothing yet" -> "Late row"' in r.output, r.output


async def test_an_answer_in_a_burst_over_the_socket_is_in_the_result_to_its_end(s, socket_app):
    # asked over HTTP, answered over the socket in parts 20 ms apart, each rendered: the
    # changed parts are snapshotted while settling waits for the socket's quiet, and the
    # parts that come after that are in the result too (as the page shows them at its end)
    await ok(s, f"goto {socket_app}/asks")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Ask')}")
    assert '"nothing yet" -> "answered"' in r.output, r.output
    assert "done" in r.output and "running" not in r.output and "idle" not in r.output, \
        r.output


async def test_a_loaded_servers_answer_paused_inside_is_in_the_result(s, socket_app):
    # asked over HTTP, the server starts answering 200 ms later ("running", which the page
    # shows), then pauses 120 ms before the output: its pace says it is still working, so
    # the pause does not end settling, and the output and the last status are in
    await ok(s, f"goto {socket_app}/slow-asks")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Ask')}")
    assert '"nothing yet" -> "answered slowly"' in r.output, r.output
    assert "done" in r.output and "running" not in r.output, r.output


async def test_an_answer_the_page_shows_it_waits_for_is_in_the_result(s, socket_app):
    # "running" comes at once and the page disables its Ask button: it shows it waits for
    # its server, whose output comes 200 ms later (a cell that computes): that pause does
    # not end settling, and the output is in the result, the button enabled again
    await ok(s, f"goto {socket_app}/busy-asks")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Ask')}")
    assert '"nothing yet" -> "computed"' in r.output, r.output
    assert "idle" in r.output and "running" not in r.output and "disabled" not in r.output, \
        r.output


async def test_an_answer_asked_with_a_control_disabled_by_the_action_is_in_the_result(
        s, socket_app):
    # the page disables its Ask button as the click asks (no message yet): a cell run on
    # marimo's first run after load, whose output came 200 ms after "running", was
    # reported without it ("~ button (disabled: - -> true)"): the button still disabled
    # says the server is at work, and the result waits for it to be enabled again
    await ok(s, f"goto {socket_app}/asks-disabled")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Ask')}")
    assert '"nothing yet" -> "computed"' in r.output, r.output
    assert "idle" in r.output and "disabled" not in r.output, r.output
