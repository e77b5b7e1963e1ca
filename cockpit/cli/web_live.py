"""`cockpit web`'s live view: the page as real pixels beside the cockpit's terminal, and
a place to act on it. The browser gets the session's frames (the control socket's
`frames` op) over a websocket, and sends back what the person does on the picture:
clicks, double-clicks, drags, the wheel and keys, which become `mouse` and `press`
commands run as the human's (trusted input, through Playwright), only while the human
has control; "Take control" hands it over (`handoff --terminal`), "Give back" resumes.

Behind the same token as the cockpit's page (checked by web.py's guard)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
from collections import deque
from typing import Any

from ..control import wire
from ..control.async_client import AsyncCockpit
from ..control.client import READ_LIMIT, hello
from ..control.discovery import LiveInfo
from ..control.protocol import encode
from ..core import command_of, join, positional
from ..core import events as ev

log = logging.getLogger("cockpit")

STATE_S = 1.0  # who has control, asked of the session this often (and on its events)
CONTROL_EVENTS = (ev.HANDOFF, ev.RESUMED, ev.NEEDS_HUMAN, ev.NEEDS_CLEARED,
                  ev.AGENTS_HELD, ev.AGENTS_RELEASED)
KEY = re.compile(r"^(?:(?:Control|Alt|Meta|Shift)\+)*(?:[^\s+]{1,20}|\+)$")
BUTTONS = ("left", "middle", "right")
TAKEN = "taken over in the web view"

# Beside the terminal: the page's picture on the right (the terminal keeps the rest).
PANEL = """<style>body #terminal.textual-terminal{width:58vw !important}</style>
<iframe id="cockpit-live" src="/live?token={token}" title="the page, live"
 style="position:fixed;top:0;right:0;width:42vw;height:100vh;border:0;
 border-left:1px solid #345;z-index:30"></iframe>"""

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Cockpit: the page, live</title>
<meta name="referrer" content="no-referrer"><style>
body{margin:0;background:#0c181f;color:#dde;font:13px system-ui,sans-serif;display:flex;
 flex-direction:column;height:100vh}
#bar{padding:6px 8px;display:flex;gap:8px;align-items:center;min-height:28px}
#wrap{flex:1;display:flex;align-items:flex-start;justify-content:center;overflow:hidden}
#view{max-width:100%;max-height:100%;outline:none;cursor:crosshair;user-select:none}
#view.watch{cursor:not-allowed}#view:focus{box-shadow:0 0 0 2px #4a9}
#said{opacity:.7;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
</style></head><body>
<div id="bar"><b id="who">connecting…</b><button id="take" hidden>Take control</button>
<button id="give" hidden>Give back</button><span id="said"></span></div>
<div id="wrap"><img id="view" tabindex="0" alt="the page, live" draggable="false"></div>
<script>
const token = new URLSearchParams(location.search).get('token');
const ws = new WebSocket((location.protocol === 'https:' ? 'wss' : 'ws') + '://' +
  location.host + '/live/ws/' + encodeURIComponent(token));
const view = document.getElementById('view'), who = document.getElementById('who');
const take = document.getElementById('take'), give = document.getElementById('give');
const said = document.getElementById('said');
let css = {w: 0, h: 0}, shown = null;
const DOUBLE_MS = 500;
window.cockpitLive = {frames: 0, human: false, results: []};
ws.onmessage = e => {
  if (typeof e.data !== 'string') {
    const url = URL.createObjectURL(e.data);
    view.onload = () => { if (shown) URL.revokeObjectURL(shown); shown = url;
                          window.cockpitLive.frames++; };
    view.src = url; return; }
  const m = JSON.parse(e.data);
  if (m.type === 'frame') css = {w: m.css_width, h: m.css_height};
  else if (m.type === 'control') {
    window.cockpitLive.human = m.human;
    who.textContent = m.human ? 'You have control: the mouse and keys act on the page'
      : 'Watch-only' + (m.need ? ' · NEEDS A HUMAN: ' + m.need : '');
    take.hidden = m.human; give.hidden = !m.human; view.className = m.human ? '' : 'watch';
  } else if (m.type === 'said') { said.textContent = m.text;
    window.cockpitLive.results.push(m); }
};
ws.onclose = () => { who.textContent = 'disconnected: reload the page'; };
const send = m => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
const at = e => { const r = view.getBoundingClientRect();
  return [Math.round((e.clientX - r.left) * css.w / r.width * 10) / 10,
          Math.round((e.clientY - r.top) * css.h / r.height * 10) / 10]; };
const near = (a, b, d) => Math.hypot(a[0] - b[0], a[1] - b[1]) <= d;
let down = null, last = null, wheel = null;
// A press goes to the page at once (no wait to tell a click from a double-click): the
// second press near the first within DOUBLE_MS is sent as click 2, a double-click to
// the page. While pressed, the pointer's moves follow (the server keeps the newest).
view.addEventListener('pointerdown', e => { e.preventDefault(); view.focus();
  const p = at(e), button = ['left', 'middle', 'right'][e.button] || 'left';
  const now = performance.now();
  const count = last && last.button === button && now - last.t < DOUBLE_MS &&
    near(last.p, p, 6) ? Math.min(last.count + 1, 3) : 1;
  down = {p, button, count, moved: false}; last = {p, button, count, t: now};
  view.setPointerCapture(e.pointerId);
  send({type: 'down', at: p, button, count}); });
view.addEventListener('pointermove', e => {
  if (!down) return;
  const p = at(e);
  if (!down.moved && near(p, down.p, 3)) return;
  down.moved = true; last = null;
  send({type: 'move', at: p}); });
const release = e => {
  if (!down) return;
  const d = down; down = null;
  const m = {type: 'up', button: d.button, count: d.count};
  if (d.moved) m.at = at(e);
  send(m); };
view.addEventListener('pointerup', release);
view.addEventListener('pointercancel', release);
view.addEventListener('contextmenu', e => e.preventDefault());
view.addEventListener('wheel', e => { e.preventDefault();
  if (!wheel) { wheel = {p: at(e), dx: 0, dy: 0};
    setTimeout(() => { send({type: 'wheel', at: wheel.p, dx: Math.round(wheel.dx),
                             dy: Math.round(wheel.dy)}); wheel = null; }, 80); }
  wheel.dx += e.deltaX; wheel.dy += e.deltaY; }, {passive: false});
view.addEventListener('keydown', e => {
  let k = e.key;
  if (['Shift', 'Control', 'Alt', 'Meta'].includes(k)) return;
  e.preventDefault();
  if (k === ' ') k = 'Space';
  const mods = [];
  if (e.ctrlKey) mods.push('Control'); if (e.altKey) mods.push('Alt');
  if (e.metaKey) mods.push('Meta'); if (e.shiftKey && k.length > 1) mods.push('Shift');
  send({type: 'key', key: [...mods, k].join('+')}); });
take.onclick = () => send({type: 'take'});
give.onclick = () => send({type: 'give'});
</script></body></html>"""


def _n(value: Any) -> str:
    number = float(value)
    if number != number or abs(number) > 1e6:  # NaN, or far off any viewport
        raise ValueError(f"not a coordinate: {value!r}")
    return f"{round(number, 1):g}"


def command_for(message: dict[str, Any]) -> str | None:
    """The command a person's action on the picture means (None: not one we take).
    Raises ValueError for a malformed one."""
    kind = message.get("type")
    if kind == "take":
        return join(["handoff", "--terminal", TAKEN])
    if kind == "give":
        return "resume"
    if kind == "click":
        x, y = message["at"]
        return " ".join(["mouse", "click", _n(x), _n(y), *_pressed(message)])
    if kind in ("down", "up"):  # a press or a release, sent as it happens
        words = ["mouse", kind]
        if message.get("at") is not None:
            x, y = message["at"]
            words += [_n(x), _n(y)]
        return " ".join(words + _pressed(message))
    if kind == "move":
        x, y = message["at"]
        return f"mouse move {_n(x)} {_n(y)}"
    if kind == "drag":
        (x1, y1), (x2, y2) = message["from"], message["to"]
        return " ".join(["mouse", "drag", _n(x1), _n(y1), _n(x2), _n(y2)])
    if kind == "wheel":
        return f"mouse wheel {_n(message.get('dx', 0))} {_n(message.get('dy', 0))}"
    if kind == "key":
        key = str(message.get("key") or "")
        if not KEY.match(key):
            raise ValueError(f"not a key: {key[:30]!r}")
        return join(["press", *positional(key)])
    return None


def _pressed(message: dict[str, Any]) -> list[str]:
    """The --button and --count words of a click, press or release."""
    words = []
    button = message.get("button", "left")
    if button not in BUTTONS:
        raise ValueError(f"no such button: {button!r}")
    if button != "left":
        words += ["--button", button]
    count = int(message.get("count") or 1)
    if count > 1:
        words += ["--count", str(min(count, 3))]
    return words


async def _frames(info: LiveInfo, ws: Any) -> None:
    """The session's frames to the browser: the viewport's size, then the JPEG."""
    reader, writer = await asyncio.open_unix_connection(info.socket, limit=READ_LIMIT)
    try:
        writer.write(hello(info, "web-live"))
        await reader.readline()  # the welcome
        writer.write(encode({"id": 1, "op": "frames"}))
        await writer.drain()
        size = None
        while line := await reader.readline():
            frame = wire.loads(line).get("frame")
            if not frame:
                continue
            if (frame["css_width"], frame["css_height"]) != size:
                size = (frame["css_width"], frame["css_height"])
                await ws.send_str(json.dumps({"type": "frame", "css_width": size[0],
                                              "css_height": size[1]}))
            await ws.send_bytes(base64.b64decode(frame["jpeg"]))
    finally:
        writer.close()


async def _control(session: AsyncCockpit, ws: Any, state: dict[str, Any]) -> None:
    """Who has control (and what the page needs), to the browser whenever it changes:
    asked at once on each event that may change it (and every STATE_S besides), so an
    action on the picture is checked against it without a question to the session."""
    told = None
    changed = asyncio.Event()

    async def follow() -> None:
        async for event in session.events():
            if event.kind in CONTROL_EVENTS:
                changed.set()
    following = asyncio.create_task(follow())
    try:
        while True:
            changed.clear()
            status = (await session.state()).get("status") or {}
            handoff = status.get("handoff") or {}
            need = (handoff.get("needs") or {}).get("kind")
            # a session `cockpit record` started is the person's from the start
            state["human"] = bool(handoff.get("human_has_control")
                                  or status.get("captures_everything"))
            now = (state["human"], need)
            if now != told:
                told = now
                await ws.send_str(json.dumps({"type": "control", "human": now[0],
                                              "need": need}))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), STATE_S)
    finally:
        following.cancel()


async def live_socket(request: Any, info: LiveInfo) -> Any:
    """One visitor's live view: frames out, their actions in (as the human's commands)."""
    from aiohttp import WSMsgType, web
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    session = await AsyncCockpit(socket_path=info.socket, source="human",
                                 client="web-live").connect()
    state: dict[str, Any] = {"human": False}
    inbox: deque[str] = deque()
    arrived = asyncio.Event()
    tasks = [asyncio.create_task(_frames(info, ws)),
             asyncio.create_task(_control(session, ws, state)),
             asyncio.create_task(_acting(session, ws, state, inbox, arrived))]
    try:
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            inbox.append(message.data)
            arrived.set()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await session.close()
    return ws


async def _acting(session: AsyncCockpit, ws: Any, state: dict[str, Any],
                  inbox: deque[str], arrived: asyncio.Event) -> None:
    """The person's actions, run one after another in the order they came (a press
    before its release); of moves in a row only the newest runs: a mouse step takes as
    long as the page needs to settle, and the pointer is where it was moved last."""
    while True:
        await arrived.wait()
        arrived.clear()
        while inbox:
            data = inbox.popleft()
            if inbox and _is_move(data) and _is_move(inbox[0]):
                continue
            try:
                await _act(session, ws, state, data)
            except (ConnectionError, OSError, RuntimeError) as exc:  # the session went away
                log.warning("the web live view's input stopped: %s", exc)
                await ws.close()
                return


def _is_move(data: str) -> bool:
    try:
        message = json.loads(data)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") == "move"


async def _act(session: AsyncCockpit, ws: Any, state: dict[str, Any], data: str) -> None:
    try:
        message = json.loads(data)
        line = command_for(message) if isinstance(message, dict) else None
    except (ValueError, KeyError, TypeError) as exc:
        await ws.send_str(json.dumps({"type": "said", "ok": False,
                                      "text": f"not taken: {exc}"}))
        return
    if line is None:
        return
    spec = command_of(line)
    # a handoff and a resume need no control; the rest is checked against who has it as
    # _control keeps it (told at once of a handoff or a resume): a press goes to the page
    # without a question to the session first
    if (spec is None or not spec.needs_person) and not state["human"]:
        await ws.send_str(json.dumps({"type": "said", "ok": False, "text":
                                      "watch-only: Take control first"}))
        return
    # the person's own mouse and keys, relayed: while their actions are captured, what
    # they do in the page is recorded as their steps (click @e1 by role and name, a fill
    # once), not as the mouse and key commands that carried it
    result = await session.run(line, source="human",
                               relayed=spec is not None and not spec.needs_person)
    if result.ok and spec is not None and spec.needs_person:  # taken, or given back
        state["human"] = spec.name == "handoff"
    first = (result.output if result.ok else result.error or "").split("\n", 1)[0]
    await ws.send_str(json.dumps({"type": "said", "ok": result.ok, "command": line,
                                  "text": f"{line}: {first}"}))
