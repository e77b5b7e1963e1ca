"""The change tracker installed in every document (the first half of changes_js.py's
story: this notes what an action may have changed; QUERY_JS there hands it to Python)."""

from __future__ import annotations

# The tracker, as a function both the init script and a late install (a page opened before
# Cockpit added its script) run. Until a baseline is set (the first snapshot of the
# document) it only observes: the first snapshot is a full one anyway.
TRACKER_JS = r"""
function () {
  // A window kept for its next document (a popup's about:blank, then its first page of
  // the same origin): the tracker starts over on the new document (settle_js says more).
  const old = window.__cockpitChanges;
  if (old) { if (old.doc !== document) old.bind(); return; }
  const MAX = 400;  // changed elements past this: the page changed wholesale
  const REMOVED = 8;
  // `nodes`: elements whose children or text changed; of those, `lost`: the ones that lost
  // a child they had at the last query; `added`: nodes added since then (a child added and
  // removed again, a toast or a tooltip that came and went, changed nothing); `removed`:
  // the children each element lost (up to REMOVED; then null: too many to tell).
  const fresh = () => ({base: false, nodes: new Set(), attrs: new Map(), values: new Set(),
                        lost: new Set(), added: new WeakSet(), removed: new Map(),
                        global: '', title: false, rules: undefined, members: null,
                        scanned: false, given: new Map(), unread: []});
  const T = fresh();
  Object.defineProperty(window, '__cockpitChanges', {value: T, enumerable: false});
  const IGNORED = new Set(['SCRIPT', 'NOSCRIPT', 'META', 'TEMPLATE']);
  const ignorable = (n) => n.nodeType === 8 || (n.nodeType === 1 && (IGNORED.has(n.tagName)
    || n.id === '__cockpit_annotations'));
  const take = (r) => {
    if (T.global) return;
    const t = r.target;
    if (r.type === 'attributes') {
      let m = T.attrs.get(t);
      if (!m) T.attrs.set(t, m = new Map());
      if (!m.has(r.attributeName)) m.set(r.attributeName, r.oldValue);
    } else if (r.type === 'characterData') {
      if (t.parentNode) { T.nodes.add(t.parentNode); T.lost.add(t.parentNode); }
    } else {
      let relevant = false;
      for (const n of r.addedNodes) {
        if (!ignorable(n)) { relevant = true; T.added.add(n); }
        if (n.nodeType === 1 && n.shadowRoot) observe(n.shadowRoot);
      }
      for (const n of r.removedNodes) {
        if (ignorable(n)) continue;
        relevant = true;
        if (T.added.has(n)) { T.added.delete(n); continue; }
        T.lost.add(t);
        let lost = T.removed.get(t);
        if (lost === undefined) T.removed.set(t, lost = []);
        if (lost !== null && lost.length < REMOVED) lost.push(n);
        else T.removed.set(t, null);
      }
      if (relevant) T.nodes.add(t);
    }
    if (T.nodes.size + T.attrs.size > MAX) T.global = 'many parts of the page changed';
  };
  const OPTS = {subtree: true, childList: true, attributes: true, attributeOldValue: true,
                characterData: true};
  const obs = new MutationObserver((records) => { if (T.base) for (const r of records) take(r); });
  T.flush = () => { for (const r of obs.takeRecords()) if (T.base) take(r); };
  const observe = (root) => { try { obs.observe(root, OPTS); } catch (e) { /* detached */ } };
  T.observe = observe;
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (...args) {
    const root = attach.apply(this, args);
    observe(root);
    return root;
  };
  const value = (el) => {
    if (T.base && !T.global && el && el.nodeType === 1 && el.tagName !== 'SCRIPT') T.values.add(el);
  };
  T.bind = () => {  // once per document this window shows
    if (T.doc) {  // a new document in this window: it starts over, and its refs are new
      Object.assign(T, fresh());
      window.__cockpitDoc = undefined;
    }
    T.doc = document;
    observe(document);
    for (const type of ['input', 'change', 'reset', 'toggle', 'load', 'error'])
      document.addEventListener(type, (e) => value(e.target), true);
  };
  T.bind();
  window.addEventListener('resize', () => { if (T.base) T.global = 'the window was resized'; });
  const wrapSetter = (proto, prop) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, prop);
    if (!d || !d.set) return;
    Object.defineProperty(proto, prop, {...d, set(v) { value(this); return d.set.call(this, v); }});
  };
  for (const p of ['value', 'checked', 'indeterminate', 'valueAsNumber', 'valueAsDate'])
    wrapSetter(HTMLInputElement.prototype, p);
  wrapSetter(HTMLTextAreaElement.prototype, 'value');
  wrapSetter(HTMLSelectElement.prototype, 'value');
  wrapSetter(HTMLSelectElement.prototype, 'selectedIndex');
  wrapSetter(HTMLOptionElement.prototype, 'selected');
  const wrapMethod = (proto, name, effect) => {
    const f = proto && proto[name];
    if (typeof f !== 'function') return;
    proto[name] = function (...args) { effect(this); return f.apply(this, args); };
  };
  for (const m of ['stepUp', 'stepDown', 'setRangeText'])
    wrapMethod(HTMLInputElement.prototype, m, value);
  const css = () => { if (T.base) T.global = 'a stylesheet changed'; T.rules = undefined; };
  for (const m of ['insertRule', 'deleteRule', 'addRule', 'removeRule', 'replace', 'replaceSync'])
    wrapMethod(window.CSSStyleSheet && CSSStyleSheet.prototype, m, css);
  for (const m of ['setProperty', 'removeProperty'])
    wrapMethod(CSSStyleDeclaration.prototype, m, function (decl) { if (decl.parentRule) css(); });
  const adopted = Object.getOwnPropertyDescriptor(Document.prototype, 'adoptedStyleSheets');
  if (adopted && adopted.set) {
    Object.defineProperty(Document.prototype, 'adoptedStyleSheets',
      {...adopted, set(v) { css(); return adopted.set.call(this, v); }});
  }
}
"""

# Run in a document: take what changed since the last call (or, with `mark`, only start
# over: a full snapshot follows). Returns the document's token (see tab.DOC_TOKEN_JS),
# whether a baseline existed, a reason when only a full snapshot will do, whether the
# title changed, and the regions as CSS paths, each with its distance from <body>.

# The init script: installed in every document of every frame, from its first line.
INIT_JS = f"({TRACKER_JS.strip()})();"
