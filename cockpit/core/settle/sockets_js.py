"""The page side of settling for apps that render what their server sends over a
WebSocket (Streamlit, marimo): spliced into settle_js.py's init script (the sockets
wrapped, their messages noted, and a page showing that it waits for its server) and its
probe (a look held in the page while only the socket's quiet is left, and that quiet:
the server's pace). Text of those two functions, not scripts of their own: they read
the scripts' own names (`S`, `now`, `state`, `socket`, `missed`, `FRAME_MS`)."""

from __future__ import annotations

SOCKETS_INIT_JS = r"""
  // WebSockets: an app that renders what its server sends (Streamlit, marimo) shows an
  // action's outcome when the answer to what it sent has come and been rendered, and a
  // page it opens has rendered once its socket's first messages have. Noted: when the
  // last message came, when the page last sent, and the sockets still waiting for their
  // first message.
  const WS = window.WebSocket;
  // `wsLog`: the latest messages' times, each with whether the DOM changed after it (the
  // page rendered it: an answer, not a status or bookkeeping message), and whether it
  // says that the server finished what it was doing.
  S.wsIn = 0; S.wsOut = 0; S.wsNew = new Map(); S.wsLog = [];
  // A message that says so in its own words: a JSON field that names the message's kind
  // or a state, set to a word of finishing (marimo's `{"op": "completed-run"`, Jupyter's
  // `"execution_state": "idle"`, Gradio's `"msg": "process_completed"`). Binary messages
  // (Streamlit's) never do.
  const FINISHED = new RegExp('"(?:op|type|event|msg|msg_type|kind|status|state|phase|' +
    'execution_state)"\\s*:\\s*"(?:[^"]*[^a-z"])?(?:complete|completed|done|finished|' +
    'idle)(?:[^a-z"][^"]*)?"', 'i');
  // A page that shows it waits for its server: a control it disabled, or a region it
  // marked busy, as it rendered a message (marimo disables a cell's run button while the
  // kernel runs it; `aria-busy` is the standard's way to say so). Kept by element, with
  // when, until the page undoes it: PROBE_JS's socket quiet is then the long one.
  const WAITS = new Set(['disabled', 'aria-disabled', 'aria-busy']);
  const MSG_MS = 100;  // a change this long after a message is taken as its rendering
  const working = (el) => el.isConnected && (el.disabled === true ||
    el.getAttribute('aria-disabled') === 'true' || el.getAttribute('aria-busy') === 'true');
  S.waiting = new Map();
  S.working = working;
  // ... or as the action asked its server over HTTP, before any message (marimo disables
  // the run button on Shift+Enter, as it posts the run): `marked`, by element, with when;
  // PROBE_JS `working` keeps those set within MSG_ASKED_MS of the action's first request.
  S.marked = new Map();
  S.mark = (el, at) => {
    if (!working(el)) S.marked.delete(el);
    else if (!S.marked.has(el)) {
      S.marked.set(el, at);
      if (S.marked.size > 256) S.marked.delete(S.marked.keys().next().value);
    }
  };
  // ... and when the page undid one of those (`released`: when it was set, as `marked` or
  // `waiting`, and when undone): it no longer shows that it waits as it did when the
  // action asked (PROBE_JS `awaited`; marimo enables the run button again mid-run, once
  // its kernel runs the cell, and counts the time instead).
  S.released = [];
  // A page counting while it waits (marimo's elapsed time of a running cell, redrawn each
  // frame): a text changed again and again, each time within TICK_MS of the last.
  // `ticker`: when the latest such run of changes began (its third change), and its last.
  const TICK_MS = S.TICK_MS = 100;
  const ticks = new WeakMap();
  S.ticker = {began: 0, at: 0};
  const tick = (node) => {
    const t = ticks.get(node);
    if (!t || S.mut - t.at > TICK_MS) ticks.set(node, {began: S.mut, at: S.mut, n: 1});
    else if (++t.n >= 3) {
      t.at = S.mut;
      if (S.ticker.at < t.began) S.ticker.began = t.began;
      S.ticker.at = S.mut;
    } else t.at = S.mut;
  };
  S.noteWaits = (records, last) => {  // the MutationObserver's records (INIT_JS)
    for (const r of records) {
      if (r.type === 'characterData') tick(r.target);  // (React sets a text's data)
      else if (r.type === 'childList' && r.addedNodes.length === 1 &&
               r.addedNodes[0].nodeType === 3) tick(r.target);  // (`textContent =`)
      if (r.type !== 'attributes' || !WAITS.has(r.attributeName)) continue;
      const el = r.target, marked = S.marked.get(el), waited = S.waiting.get(el);
      S.mark(el, S.mut);
      if (working(el)) {
        if (last && S.mut - last[0] <= MSG_MS && !S.waiting.has(el)) S.waiting.set(el, S.mut);
        continue;
      }
      S.waiting.delete(el);
      if (marked === undefined && waited === undefined) continue;
      S.released.push({marked, waited, at: S.mut});
      if (S.released.length > 16) S.released.shift();
    }
  };
  if (WS) {
    S.wsOpen = new Set();
    const Wrapped = function WebSocket(...args) {
      const ws = Reflect.construct(WS, args, new.target || Wrapped);
      S.wsNew.set(ws, now());
      S.wsOpen.add(ws);
      const first = () => S.wsNew.delete(ws);
      ws.addEventListener('message', (e) => {
        S.wsIn = now();
        first();
        S.wsLog.push([S.wsIn, false, typeof e.data === 'string' &&
                      FINISHED.test(e.data.slice(0, 1024))]);
        if (S.wsLog.length > 64) S.wsLog.shift();
      });
      ws.addEventListener('close', () => { first(); S.wsOpen.delete(ws); });
      return ws;
    };
    Wrapped.prototype = WS.prototype;
    for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Wrapped[k] = WS[k];
    window.WebSocket = Wrapped;
    const wsSend = WS.prototype.send;
    WS.prototype.send = function (...args) { S.wsOut = now(); return wsSend.apply(this, args); };
  }
"""

SOCKETS_PROBE_JS = r"""
  // With `hold` ([mode, ms]), the look waits here first, at most `ms`, while all the
  // action waits for is the page's socket (its fetches, an answer asked over HTTP, the
  // socket's quiet: settle.py's _socket_delay): its end is seen when it comes, not at
  // the next look a round trip later. Mode 'answer': also until a message has come and
  // the page has rendered what came (a frame since its last change): settling's caller
  // then snapshots what changed while the quiet is waited out (settle.py's on_quiet).
  // The quiet is kept on the page's own clock: when its timers run late (a loaded
  // machine), a message may wait as long in its task queue unseen, so the quiet is
  // longer by how late they ran meanwhile (`lag`). Not by the page's own work: a timer
  // is late on any machine while the page renders what came (a message came, or its DOM
  // changed, since the timer was set), by up to a frame's budget when a frame was drawn
  // meanwhile (a running animation's: ~17 ms each in a marimo cell run), and once now
  // and then (a garbage collection, one of its own timers): `lag` is the second latest
  // (a loaded machine makes them late again and again). The longest single one had
  // lengthened a cell run's quiet by 16-26 ms on a quiet machine.
  async function held(mode, ms) {
    const end = Date.now() + ms;
    let lag = 0, latest = 0, frames = 0, framing = false, done = false;
    const frame = () => {  // frames drawn while the look waits, counted
      if (framing || done) return;
      framing = true;
      S.nextFrame(() => { framing = false; frames++; frame(); });
    };
    frame();
    try {
      for (;;) {
        const o = state();
        const socketWait = o.fetches || (o.wsAsked >= 0 && o.wsAsked < socket[2]) ||
          (o.wsIn >= 0 && o.wsIn < o.wsQuiet + lag) ||
          (o.wsAwait && !o.wsAwait.late);
        if (!socketWait || o.nav || o.open || o.download || o.chooser || o.submit ||
            o.closing || missed || Date.now() >= end) return;
        if (mode === 'answer' && o.wsIn >= 0 && !o.fetches && o.wsRendered && o.framed) return;
        const asked = Date.now(), came = S.wsIn, changed = S.muts, drawn = frames;
        await new Promise((resolve) => S.later(resolve, 2));
        if (S.wsIn !== came || S.muts !== changed) continue;  // the page at work
        const late = frames !== drawn ? Date.now() - asked - 2 - FRAME_MS :
          Date.now() - asked - 2;
        if (late > latest) [lag, latest] = [latest, late];
        else if (late > lag) lag = late;
      }
    } finally {
      done = true;
    }
  }
  // How long the socket must be silent for its answer to be in (ms; sockets.py's
  // socket_quiet): `socket` = [the longest, the shortest, the asked cap, the reply cap].
  // The longest while the page has rendered none of the messages, after it sent over its
  // socket, or while it shows that it waits for its server (`wsWorking`); else the pace
  // of the server's answer so far: twice its longest pause, or as long as it took to send
  // its first message (a loaded server is slow at both). (Not shorter once the page
  // enabled again a control it had disabled: marimo does so before a new widget's output
  // has rendered, docs/benchmarks.md.) The shortest once the last message said that the
  // server finished (`wsFinished`, INIT_JS `FINISHED`) and the page changed after it:
  // nothing more is to come, and that quiet lets the page render what came.
  function quietOf(o) {
    if (!o.wsRendered || o.wsSent >= 0 || o.wsWorking) return socket[0];
    if (o.wsFinished) return socket[4];
    return Math.min(socket[0], Math.max(socket[1], 2 * o.wsGap, o.wsTurn));
  }
  // Whether the page, rendering a message that came since the action, or as the action
  // asked its server over HTTP, showed that it waits for its server (INIT_JS `waiting`,
  // `marked`) and still does: its server is at work, and the socket's quiet is then the
  // long one (quietOf), not its answer's pace. (A cell's first run after marimo loaded,
  // its output 200 ms after "running", was reported with its run button disabled.)
  // `asked`: one marked as the action asked is among them (`wsAwaiting`).
  function working(since, ask) {
    const out = {still: false, asked: false};
    for (const [el, t] of S.waiting || []) {
      if (!S.working(el)) S.waiting.delete(el);
      else if (t >= since) out.still = true;
    }
    for (const [el, t] of S.marked || []) {
      if (!S.working(el)) S.marked.delete(el);
      else if (asked(t, since, ask)) out.still = out.asked = true;
    }
    return out;
  }
  // Whether the page still shows that it waits for its server's answer to the action,
  // whose first message has come (sockets.py's `awaited`): no pause of the server's ends
  // settling then. {why, late} or null. `why`: 'control': a control it disabled as the
  // action asked is disabled still (marimo's run button while its kernel is busy), not
  // enabled since, until `socket[2]` after the ask (a chat's Send button, disabled as it
  // posts with the box emptied, stays so: that much at most); 'ticking': a text the page
  // began to redraw again and again since the action (INIT_JS `ticker`: a running cell's
  // elapsed time) still is, until `socket[3]` after the action. `late`: past those.
  // (A text that already ticked before the action, and goes on, hides one begun since.)
  function awaited(o, ask, now) {
    if (o.wsIn < 0 || !(S.wsOpen && S.wsOpen.size)) return null;
    if (S.ticker.began >= since && now - S.ticker.at <= S.TICK_MS)
      return {why: 'ticking', late: now - since >= socket[3]};
    if (o.wsAwaiting && !o.wsReleased)
      return {why: 'control', late: now - ask >= socket[2]};
    return null;
  }
  // A control marked as the action's chain asked its server over HTTP (MSG_ASKED_MS).
  function asked(t, since, ask) {
    return !!ask && t >= since && Math.abs(t - ask) <= MSG_ASKED_MS;
  }
  function firstAsk(since) {  // when the action's chain first asked over HTTP (0: not)
    let ask = 0;
    for (const f of [...S.fetches, ...(S.ended || [])])
      if (f.root >= since && (!ask || f.root < ask)) ask = f.root;
    return ask;
  }
  // Whether the page undid such a mark since the action (INIT_JS `released`), once its
  // server had begun to answer over the socket: it no longer shows that it waits so.
  function released(since, ask) {
    const first = (S.wsLog || []).find((m) => m[0] >= since);
    if (!first) return false;
    return (S.released || []).some((r) => r.at >= first[0] && (
      (r.waited !== undefined && r.waited >= since) ||
      (r.marked !== undefined && asked(r.marked, since, ask))));
  }
  // ms since the action's first fetch ended with the page's socket silent since: its
  // answer may be on its way over the socket; -1 when not so. (Not from the last fetch:
  // one the answer itself set going, ending after its messages, asks nothing.)
  function wsAsked(since, now) {
    if (!S.wsOpen || !S.wsOpen.size) return -1;
    let first = 0;
    for (const e of S.ended || []) if (e.root >= since && (!first || e.at < first)) first = e.at;
    return first && !(S.wsIn >= first) ? now - first : -1;
  }
  // The pace of the server's answer since the action: whether the page rendered one of
  // its messages (`wsRendered`), the longest pause between them (`wsGap`, ms), and how
  // long the server took to send the first after the page asked (`wsTurn`, ms: from the
  // first request of the action's chain, else from the action). A loaded server is slow
  // at both, and pauses as long within its answer: settle.py's quiet follows them.
  function paced(since, ask) {
    const msgs = (S.wsLog || []).filter((m) => m[0] >= since);
    let gap = 0;
    for (let i = 1; i < msgs.length; i++) gap = Math.max(gap, msgs[i][0] - msgs[i - 1][0]);
    const turn = msgs.length ? Math.max(0, msgs[0][0] - (ask || since)) : 0;
    const last = msgs[msgs.length - 1];
    return {wsRendered: msgs.some((m) => m[1]), wsGap: gap, wsTurn: turn,
            wsFinished: !!last && last[1] && last[2]};
  }
"""
