"""The page side of settling: an init script that notes what a page sets going, and the
probe that asks it what is still pending for an action that began at a given time.

The script wraps setTimeout/clearTimeout, requestAnimationFrame, fetch and XHR, listens to
the Navigation API's `navigate` event and keeps a MutationObserver's last time. Each timer
carries the time its chain began (a timer set inside another timer's callback inherits its
parent's), so a poll loop that was running before the action is never mistaken for the
action's work. Times are `Date.now()`: the same wall clock as `time.time()` in Python.
What it does for WebSocket apps is sockets_js.py's, spliced in where `__SOCKETS_INIT__`
and `__SOCKETS_PROBE__` stand.
"""

from __future__ import annotations

from .tracker_js import INIT_JS as CHANGES_INIT_JS
from .changes_js import QUERY_JS
from .sockets_js import SOCKETS_INIT_JS, SOCKETS_PROBE_JS

# Timers due later than this after the action began are not the action's to wait for.
TIMER_LIMIT_MS = 1000

INIT_JS = r"""
(() => {
  // A window opened by `window.open` shows an initial about:blank document first; its
  // first navigation to a page of the same origin keeps the window (HTML's rule), with
  // this script installed on a document that is gone: what listens to the document must
  // listen to the new one (else a popup's submit or DOM goes unseen). Chromium may not
  // run init scripts again for it at all: the probe checks too (PROBE_JS).
  const old = window.__cockpitSettle;
  if (old) { if (old.doc !== document) old.bind(); return; }
  const S = {timers: new Map(), fetches: new Set(), nav: 0, open: 0, download: 0, mut: 0,
             chooser: 0, submit: null, submitted: 0, root: 0, closing: 0,
             refused: 0, invalid: [], muts: 0, framedMuts: 0, waiters: [], doc: null,
             polling: null};
  Object.defineProperty(window, '__cockpitSettle', {value: S, enumerable: false});
  const now = () => Date.now();
  const setT = window.setTimeout, clearT = window.clearTimeout;
  const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
  // A quick click (quick_click.py) sends its probe before the mouse's events: the probe
  // waits here for that click, by its id, to be over. The click's guard ends it at the
  // next frame's start or the next task, whichever comes first (Cockpit's own: the page's
  // setTimeout and requestAnimationFrame are wrapped below, and counted).
  S.later = (fn, ms = 0) => setT.call(window, fn, ms);
  S.nextFrame = (fn) => raf && raf.call(window, fn);
  S.clickWaits = new Map();
  S.clickEnded = null;
  S.modal = 0;  // when an alert, confirm or prompt last opened
  S.untilClicked = (id, ms) => new Promise((resolve) => {
    if (S.clickEnded === id) return resolve(true);
    S.clickWaits.set(id, resolve);
    setT.call(window, () => { S.clickWaits.delete(id); resolve(false); }, ms);
  });
  S.clicked = (id) => {
    if (S.clickEnded === id) return;
    S.clickEnded = id;
    const resolve = S.clickWaits.get(id);
    S.clickWaits.delete(id);
    if (resolve) resolve(true);
  };
  for (const name of ['alert', 'confirm', 'prompt']) {
    const dialog = window[name];
    if (typeof dialog === 'function')
      window[name] = function (...args) { S.modal = now(); return dialog.apply(this, args); };
  }
  // The chain a callback belongs to: the root of the timer running it, else now.
  const rootNow = () => S.root || now();
  const wrap = (fn, root) => function (...args) {
    const saved = S.root; S.root = root;
    try { return fn.apply(this, args); } finally { S.root = saved; }
  };
  window.setTimeout = function (fn, delay, ...args) {
    if (typeof fn !== 'function') return setT.call(window, fn, delay, ...args);
    const root = rootNow(), d = Math.max(0, Number(delay) || 0);
    // A timer set for a while (a debounce: not a framework's next slice of work) that is
    // due past the limit after its chain began is not waited for (PROBE_JS), and what it
    // does then (an autosave's fetch, a second later) starts a chain of no action's: -1
    // is older than any action.
    const late = d >= 250 && now() + d > root + __LIMIT__;
    // A poll loop: a callback that sets itself again with the same delay, the DOM still
    // since its round before, a third time (an editor polling its input textarea every
    // 100 ms from the moment it has the focus, CodeMirror 5's): it runs as long as the
    // page does, not because of the action; waiting for it cost a fill in such an
    // editor the whole limit. A loop that changes the DOM each round (a typewriter) is
    // the action's work, followed as before.
    const cur = S.polling;  // the timer callback running now, if any
    const again = cur && cur.fn === fn && cur.d === d && d >= 50;
    const rounds = again && cur.still ? cur.rounds + 1 : 0;
    const poll = rounds >= 2, made = now();
    let id;
    const run = wrap(function (...a) {
      S.timers.delete(id);
      const saved = S.polling;  // `still`: no mutation since it was set (its round before)
      S.polling = {fn, d, rounds, still: S.mut < made};
      try { return fn.apply(this, a); } finally { S.polling = saved; }
    }, late || poll ? -1 : root);
    id = setT.call(window, run, delay, ...args);
    if (d <= 2000 && !poll) S.timers.set(id, {root, due: now() + d});
    return id;
  };
  window.clearTimeout = function (id) { S.timers.delete(id); return clearT.call(window, id); };
  if (raf) {
    window.requestAnimationFrame = function (fn) {
      const root = rootNow(), key = {};
      const id = raf.call(window, wrap(function (t) { S.timers.delete(key); return fn(t); }, root));
      S.timers.set(key, {root, due: now() + 16, raf: id});
      return id;
    };
    window.cancelAnimationFrame = function (id) {
      for (const [k, t] of S.timers) if (t.raf === id) S.timers.delete(k);
      return caf.call(window, id);
    };
  }
  // A message through a MessageChannel is a task the page set going, as a timer is:
  // React's scheduler renders in such tasks, a few ms at a time, each posting the next.
  // Followed as timers are, from the post to the receiving port's `onmessage`, which
  // carries the chain on; a message nobody takes stops counting after POST_MS.
  const Channel = window.MessageChannel, Port = window.MessagePort;
  const portOn = Port && Object.getOwnPropertyDescriptor(Port.prototype, 'onmessage');
  if (Channel && portOn && portOn.set) {
    const peer = new WeakMap(), inbox = new WeakMap(), given = new WeakMap();
    window.MessageChannel = function MessageChannel() {
      const channel = new Channel();
      peer.set(channel.port1, channel.port2);
      peer.set(channel.port2, channel.port1);
      return channel;
    };
    window.MessageChannel.prototype = Channel.prototype;
    const post = Port.prototype.postMessage;
    Port.prototype.postMessage = function (...args) {
      const to = peer.get(this);
      if (to) {
        const key = {};
        S.timers.set(key, {root: rootNow(), due: now(), post: true});
        if (!inbox.has(to)) inbox.set(to, []);
        inbox.get(to).push(key);
      }
      return post.apply(this, args);
    };
    Object.defineProperty(Port.prototype, 'onmessage', {
      configurable: true, enumerable: portOn.enumerable,
      get() { return given.has(this) ? given.get(this) : portOn.get.call(this); },
      set(fn) {
        given.set(this, fn);
        const port = this;
        portOn.set.call(this, typeof fn !== 'function' ? fn : function (...args) {
          const key = (inbox.get(port) || []).shift();
          const sent = key && S.timers.get(key);
          if (key) S.timers.delete(key);
          return (sent ? wrap(fn, sent.root) : fn).apply(this, args);
        });
      },
    });
  }
  // Fetches that ended lately, by the time their chain began: an app that asks its
  // server over HTTP may get the answer over its socket (marimo runs a cell so).
  S.ended = [];
  const bodies = new WeakMap();  // a fetch's response: the time its chain began
  // `asked`: a request (not a body read), whose end `ended` notes.
  const track = (promise, root = rootNow(), asked = true) => {
    const rec = {root};
    S.fetches.add(rec);
    const done = () => {
      S.fetches.delete(rec);
      if (!asked) return;
      S.ended.push({root: rec.root, at: now()});
      if (S.ended.length > 20) S.ended.shift();
    };
    promise.then(done, done);
  };
  if (window.fetch) {
    const f = window.fetch;
    window.fetch = function (...args) {
      const p = f.apply(this, args), root = rootNow();
      track(p, root);
      p.then((r) => { if (r && typeof r === 'object') bodies.set(r, root); }, () => {});
      return p;
    };
  }
  // A fetch's promise settles with the response's headers; the page reads the body after
  // (`r.json()`), and renders or fetches again only then: the read is followed as the
  // fetch is (in its chain), so that no moment between the two looks quiet.
  const Res = window.Response && Response.prototype;
  for (const m of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
    const read = Res && Res[m];
    if (typeof read !== 'function') continue;
    Res[m] = function (...args) {
      const p = read.apply(this, args);
      if (bodies.has(this)) track(p, bodies.get(this), false);
      return p;
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    const xhr = this;
    track(new Promise((resolve) => xhr.addEventListener('loadend', resolve, {once: true})));
    return send.apply(this, args);
  };
  const open = window.open;
  window.open = function (...args) { S.open = now(); return open.apply(this, args); };
  // A popup that closes itself (an admin's "add another" popup, once it has saved): the
  // action's consequence is the tab going away, which settling then waits for.
  const close = window.close;
  window.close = function (...args) { S.closing = now(); return close.apply(this, args); };
__SOCKETS_INIT__
  if (window.navigation) {
    navigation.addEventListener('navigate', (e) => {
      if (e.downloadRequest !== null && e.downloadRequest !== undefined) S.download = now();
      else if (!e.destination.sameDocument) S.nav = now();
    });
  }
  // After the DOM changes, the next frame's rendering is when what watches the layout
  // answers (resize and intersection observers); a task after that frame, the DOM has
  // settled unless they changed it again. `framedMuts`: the mutations a frame followed.
  // The page's own timers and frames are the wrapped ones above: these are not counted.
  let framing = false;
  const afterFrame = () => {
    if (framing || !raf) return;
    framing = true;
    raf.call(window, () => {
      const upTo = S.muts;
      setT.call(window, () => {
        framing = false;
        S.framedMuts = upTo;
        if (S.muts > upTo) return afterFrame();
        const waiters = S.waiters;
        S.waiters = [];
        for (const resolve of waiters) resolve();
      }, 0);
    });
  };
  S.untilFramed = (ms) => new Promise((resolve) => {  // or `ms`: a hidden page has no frames
    S.waiters.push(resolve);
    setT.call(window, () => { S.waiters = S.waiters.filter((w) => w !== resolve); resolve(); },
              ms);
  });
  S.bind = () => {  // (again for each document of a reused window, see above)
    S.doc = document;
    const T = window.__cockpitChanges;  // the change tracker's too (it voids the old refs)
    if (T && T.doc !== document && T.bind) T.bind();
    document.addEventListener('click', (e) => {
      const el = e.target && e.target.closest && e.target.closest('a[target], area[target]');
      if (el && !/^_(self|top|parent)?$/i.test(el.getAttribute('target') || '')) S.open = now();
      // A file input's click (its own, its label's, or a button's `input.click()`) opens a
      // file chooser, which the browser reports a moment after the click has returned.
      const input = e.target;
      if (input instanceof HTMLInputElement && input.type === 'file' && !input.disabled)
        S.chooser = now();
    }, true);
    // A form's submission navigates a task later than its click: the probe sees the submit
    // event (and, the event being over then, whether a handler prevented it) before that.
    document.addEventListener('submit', (e) => {
      const form = e.target, by = e.submitter;
      const target = (by && by.getAttribute('formtarget')) || form.getAttribute('target') || '';
      if (/^(_(self|top|parent))?$/i.test(target)) { S.submit = e; S.submitted = now(); }
      else S.open = now();  // into another window: a new tab is on its way
    }, true);
    // The browser's own constraint validation refused a submission (a `required` field
    // left empty, a bad email): it fires `invalid` at each field instead of `submit`.
    // Noted with what the person would see, for the result to say why nothing happened.
    document.addEventListener('invalid', (e) => {
      const el = e.target, at = now();
      if (at - S.refused > 50) S.invalid = [];  // a new refusal
      S.refused = at;
      if (S.invalid.length >= 5) return;
      const label = (el.labels && el.labels[0] && el.labels[0].innerText) ||
        el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.name || el.id || '';
      S.invalid.push({label: label.trim().replace(/\s+/g, ' ').slice(0, 60),
                      tag: el.tagName.toLowerCase(), type: el.type || '',
                      message: el.validationMessage || 'invalid'});
    }, true);
    new MutationObserver((records) => {
      S.mut = now(); S.muts++; afterFrame();
      const last = S.wsLog[S.wsLog.length - 1];
      if (last) last[1] = true;  // (an observer's callback runs in the task that mutated)
      S.noteWaits(records, last);
    }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  };
  // The page's long tasks (50 ms and more of script: its modules' evaluation after
  // `load`), the last few, as [start, end] of the wall clock (after_load.py's BOOT_JS).
  S.longs = [];
  S.long = (e) => {
    const start = performance.timeOrigin + e.startTime;
    S.longs.push([start, start + e.duration]);
    if (S.longs.length > 8) S.longs.shift();
  };
  try {
    S.longObserver = new PerformanceObserver((list) => list.getEntries().forEach(S.long));
    S.longObserver.observe({type: 'longtask'});
  } catch (e) { /* not in this browser (Firefox, WebKit): none is waited for */ }
  S.bind();
})();
""".replace("__LIMIT__", str(TIMER_LIMIT_MS)).replace(
    "__SOCKETS_INIT__\n", SOCKETS_INIT_JS) + CHANGES_INIT_JS  # the change tracker rides along

# Returns null when the script is absent (a page opened before it was added), else what
# the action that began at `since` still has going, and `missed`: a quick click's guard
# stopped its events (quick_click.py). With `clickId` (sent before a quick click's mouse
# events) it first waits for that click to be over; `expired` when it never was, or when
# a dialog opened meanwhile: the command was then cancelled (execute.py), nobody reads this
# answer, and its change query would take the next command's changes. A DOM changed just
# now is given its frame first (`untilFramed`, at most `quietMs`) in the same call. With
# `changes`, a probe that finds the page quiet (nothing going; the DOM unchanged for
# `quietMs`, or a frame rendered since its last change: settle.py then stops waiting) also
# asks the change tracker what changed (changes.py), in the same round trip: most actions
# end on such a probe, and the query would be a round trip of its own.
PROBE_JS = r"""
async ([since, limit, quietMs, changes, clickId, socket, hold]) => {
  const POST_MS = 100;  // a MessageChannel message not taken by then is not waited for
  const CLICK_MS = 1000;  // the click guard's own expiry (quick_click.py)
  const FRAME_MS = 20;  // a frame's own rendering (60 Hz, and some): the page's work
  const STEP_MS = 50;  // a timeout due this soon, the DOM just changed: rendering in steps
  const MSG_ASKED_MS = 100;  // a control disabled this near the action's ask: its waiting
  const S = window.__cockpitSettle;
  if (clickId !== null && S && S.untilClicked) {  // (a page of an older Cockpit: not)
    const asked = Date.now();
    if (!(await S.untilClicked(clickId, CLICK_MS)) || S.modal >= asked) return {expired: true};
  }
  const guard = window.__cockpitClickGuard;
  const missed = !!(guard && guard.missed);
  if (guard) Object.assign(guard, {el: null, missed: false});
  if (!S) return missed ? {missed} : null;  // a page opened before the script was added
  // A window kept for a new document runs no init script for it (Chromium): the document's
  // listeners are set up here, at the first look (see INIT_JS).
  if (S.doc !== document && S.bind) S.bind();
  const busy = (o) => o.timers || o.fetches || o.anim || o.nav || o.open || o.download ||
    o.chooser || o.submit || o.closing || missed;
  if (hold) await held(hold[0], hold[1]);
  let out = state();
  if (!busy(out) && out.mutated >= 0 && out.mutated < quietMs && !out.framed) {
    await S.untilFramed(quietMs - out.mutated);  // the DOM changed just now: a frame on
    out = state();
  }
  const quiet = !busy(out) && (out.mutated < 0 || out.mutated >= quietMs || out.framed);
  // A socket's answer has come (its fetches over): what changed so far is asked for even
  // while the page's timers run, so that it can be snapshotted while settling waits out
  // the socket's quiet (settle.py's on_quiet); later changes are in later answers.
  const answering = out.wsIn >= 0 && !out.fetches;
  if (changes === 'busy' || (changes && (quiet || answering))) {
    try { out.changes = (__QUERY__)(false); }
    catch (e) { out.changes = {failed: String(e)}; }  // Python takes a full snapshot
  }
  return out;

__SOCKETS_PROBE__
  function lastEnded(since) {  // when the action's last fetch ended (0: none did)
    let last = 0;
    for (const e of S.ended || []) if (e.root >= since) last = Math.max(last, e.at);
    return last;
  }

  function state() {
    const now = Date.now(), ask = firstAsk(since);  // (read by the socket checks below)
    let timers = 0, next = Infinity, stepped = 0;
    for (const [key, t] of S.timers) {
      if (t.post && now - t.due > POST_MS) { S.timers.delete(key); continue; }  // not taken
      if (t.root >= since && t.due <= since + limit) { timers++; next = Math.min(next, t.due); }
      // a timeout due soon: a page rendering in steps (settle.py's _rendering; not a
      // frame's callback, which an animation asks for again and again)
      if (t.root >= since && t.raf === undefined && !t.post && t.due - now <= STEP_MS) stepped++;
    }
    let fetches = 0;
    for (const f of S.fetches) if (f.root >= since) fetches++;
    let anim = 0;
    if (S.mut >= since && document.getAnimations) {
      for (const a of document.getAnimations()) {
        if (a.playState !== 'running') continue;
        const end = a.effect && a.effect.getComputedTiming().endTime;
        const left = Number.isFinite(end) ? end - (a.currentTime || 0) : Infinity;
        if (left > 0 && left <= limit) anim = Math.max(anim, left);
      }
    }
    const o = {timers, next: timers ? Math.max(0, next - now) : 0, stepped, fetches, anim,
            nav: S.nav >= since, open: S.open >= since, download: S.download >= since,
            chooser: S.chooser >= since, missed, closing: S.closing >= since,
            refused: S.refused >= since ? S.invalid : null,
            wsNew: [...S.wsNew.values()].filter((t) => t >= since).length,
            wsSent: S.wsOut >= since ? now - S.wsOut : -1,
            wsIn: S.wsIn >= since ? now - S.wsIn : -1, ...paced(since, ask),
            wsAsked: wsAsked(since, now), wsReleased: released(since, ask),
            fetched: lastEnded(since) ? now - lastEnded(since) : -1,
            submit: S.submitted >= since && !S.submit.defaultPrevented &&
              S.submit.target.method !== 'dialog',
            mutated: S.mut >= since ? now - S.mut : -1, framed: S.framedMuts === S.muts};
    const w = working(since, ask);
    [o.wsWorking, o.wsAwaiting] = [w.still, w.asked];
    o.wsAwait = awaited(o, ask, now);
    o.wsQuiet = quietOf(o);
    return o;
  }
}
""".replace("__QUERY__", QUERY_JS.strip()).replace("__SOCKETS_PROBE__\n", SOCKETS_PROBE_JS)
