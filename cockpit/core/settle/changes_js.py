"""The page side of incremental diffs: a tracker in every document that notes which parts
of it an action may have changed, and the query that hands those parts to Python.

What can change the accessibility tree, and how the tracker learns of it:
- DOM mutations (nodes added or removed, text, any attribute whose value really changed:
  `class` and `style` included, since either can hide an element): a MutationObserver
  on the document and on every shadow root (`attachShadow` is wrapped; open roots that
  exist when tracking starts are found by a scan).
- Values that live in properties, not attributes (a field's value, a box's checked state,
  a select's choice): `input`/`change`/`reset`/`toggle` events, which fire whichever world
  caused them, and the page's own setters (`el.value = ...` fires no event), wrapped.
- Images and frames that load or fail (their boxes, and so their refs, change).
- State that CSS reads without any mutation (`:hover`, `:focus-within`, `:checked`,
  `:has()`...): the stylesheet rules whose selectors use such a state and whose
  declarations can show, hide or resize something are re-matched each time, and an
  element that entered or left one of them is a change.
- Stylesheets themselves (a `<style>` or `<link>` changing, CSSOM calls, a resize): the
  whole page may look different, so the query answers `global` and Python takes a full
  snapshot, as it does for unreadable (cross-origin) stylesheets and `aria-owns`.

A changed element becomes a *region*: the smallest element whose aria snapshot holds
every line the change can touch, given how Playwright renders its AI snapshot. Hence the
climbs in `regionOf`: past elements whose name comes from their content (a link's name is
its text, and a new name means a new ref), past clickable (cursor: pointer) ancestors
(Playwright treats the outermost one specially), and out of wrappers whose rendering
depends on having a single child (Playwright unwraps and inlines those). Attribute and
value changes start at the element's parent, because CSS sibling combinators reach the
siblings. Regions inside shadow roots become their host.

Limits, by design: a change of layout alone (an element squeezed to zero size by a
sibling elsewhere) and a declarative shadow root added after tracking began are not seen.
"""

from __future__ import annotations

from .tracker_js import TRACKER_JS

QUERY_JS = r"""
(arg) => {
  if (!window.__cockpitChanges) (__TRACKER__)();
  const T = window.__cockpitChanges;
  if (T.doc !== document && T.bind) T.bind();  // a window kept for a new document
  if (arg && arg.sheets) {  // rules of stylesheets the page may not read (stylesheets.py)
    for (const [href, rules] of Object.entries(arg.sheets)) T.given.set(href, rules);
    T.rules = undefined;
    if (T.base) T.members = match();
    return {unread: T.members === null ? T.unread : []};
  }
  // Attributes whose change leaves the element's role and name as they were (Playwright
  // then keeps its ref): its region can start at the element itself, not at its parent.
  // (Its own visibility may change with `class` or `style`: changes.py climbs then.)
  const KEEPS_NAME = new RegExp('^(class|style|data-.*|tabindex|disabled|aria-(expanded|' +
    'selected|checked|pressed|current|busy|disabled|invalid|required|readonly))$');
  const SIBLING_RULES = 100;
  const mark = arg === true;
  const doc = mark ? (window.__cockpitDoc ??= Math.random().toString(36).slice(2))
                   : (window.__cockpitDoc || '');
  T.flush();
  const out = {doc, base: T.base, global: T.global, title: false, regions: []};
  const body = document.body;
  let members;  // the rules' matches now: the next query compares with them
  if (!mark && T.base && !T.global) collect(out);
  // start over: the next query reports what changes from now on
  T.nodes.clear(); T.attrs.clear(); T.values.clear(); T.global = '';
  T.lost.clear(); T.added = new WeakSet(); T.removed.clear();
  if (!T.scanned) {  // open shadow roots that existed before tracking began
    T.scanned = true;
    for (const el of document.querySelectorAll('*')) if (el.shadowRoot) T.observe(el.shadowRoot);
  }
  if (members === undefined) members = match();
  if (members === null && !out.global && !mark) out.global = 'a stylesheet Cockpit cannot read';
  T.members = members;
  T.base = true;
  if (members === null) out.unread = T.unread;  // Python may read them for us
  return out;

  // Stylesheet rules that match on a state no mutation reports, and that can show, hide
  // or resize what they match; null when a stylesheet cannot be read. For a stylesheet
  // of another origin (a CDN's, a file:// page's) Python gives each rule's selector and
  // property names, if it could read it; its address is noted in T.unread otherwise.
  function rules() {
    if (T.rules !== undefined) return T.rules;
    const STATE = new RegExp(':(hover|focus|focus-within|focus-visible|active|target|' +
      'target-within|checked|indeterminate|valid|invalid|user-valid|user-invalid|' +
      'placeholder-shown|autofill|-webkit-autofill|in-range|out-of-range|has|popover-open|' +
      'modal|open|closed|fullscreen|picture-in-picture|playing|paused|default|blank|state)\\b');
    const SHOWS = new RegExp('^(display|visibility|content|width|height|min-|max-|' +
      'inline-size|block-size|overflow|clip|transform|scale|font-size|zoom|pointer-events)');
    const PSEUDO = /::?(before|after|marker|placeholder|first-line|first-letter)\b/g;
    const found = new Set(), siblings = new Set();
    let unreadable = false;
    T.unread = [];
    const consider = (selector, names) => {  // names: a rule's style, or Python's list
      const state = STATE.test(selector);
      // a sibling combinator: an attribute of one element shows or hides another
      const sibling = !state && /[~+]/.test(selector.replace(/\[[^\]]*\]|\([^)]*\)/g, ''));
      if (!state && !sibling) return;
      for (let i = 0; i < names.length; i++) {
        if (SHOWS.test(names[i])) {
          (state ? found : siblings).add(selector.replace(PSEUDO, ''));
          return;
        }
      }
    };
    const sheet = (s) => {
      let list = null;
      try { list = s.cssRules; } catch (e) { /* another origin's */ }
      if (list !== null) return visit(list);
      const given = s.href ? T.given.get(s.href) : undefined;
      if (given) {
        for (const [selector, names] of given) consider(selector, names);
        return;
      }
      unreadable = true;
      if (s.href && !T.given.has(s.href)) T.unread.push(s.href);
    };
    const visit = (list) => {
      for (const r of list) {
        if (r.styleSheet) sheet(r.styleSheet);
        if (r.selectorText !== undefined && r.style) consider(r.selectorText, r.style);
        if (r.cssRules && r.cssRules.length) visit(r.cssRules);
      }
    };
    for (const s of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) sheet(s);
    // Too many sibling rules to match each time: an attribute's change is then looked for
    // from its element's parent (`regionOf`), which holds the siblings it may reach.
    T.siblings = siblings.size <= SIBLING_RULES;
    T.rules = unreadable || found.size > 300 ? null : [...found, ...(T.siblings ? siblings : [])];
    return T.rules;
  }

  function match() {
    const list = rules();
    if (list === null) return null;
    const sets = new Map();
    for (const sel of list) {
      try { sets.set(sel, new Set(document.querySelectorAll(sel))); }
      catch (e) { T.rules = null; return null; }  // e.g. a nested rule's `&`
    }
    return sets;
  }

  function collect(out) {
    const starts = [];  // [element, its name may have changed]
    for (const n of T.nodes) {
      if (!net(n)) continue;
      if (n === document || n === document.documentElement || n === body) {
        out.global = 'the page changed as a whole';
        return;
      }
      const el = n.nodeType === 1 ? n : (n.host || n.parentElement);
      if (!el || !el.isConnected) continue;
      if (el.closest('head')) {
        if (el.closest('title')) { out.title = true; continue; }
        if (el.closest('style') || n === document.head) return sheet(out);
        continue;  // scripts, metadata
      }
      if (el.tagName === 'STYLE' || el.tagName === 'LINK') return sheet(out);
      starts.push([el, false]);
    }
    for (const [el, names] of T.attrs) {
      if (!el.isConnected) continue;
      let changed = false, renames = false;
      for (const [name, old] of names) {
        if (el.getAttribute(name) === old) continue;
        changed = true;
        renames = renames || !T.siblings || !KEEPS_NAME.test(name);
      }
      if (!changed) continue;
      if (el.closest('title')) { out.title = true; continue; }
      if (inert(el, names.get('rel'))) continue;
      if (el === body || el === document.documentElement || el.closest('head') ||
          el.tagName === 'STYLE' || el.tagName === 'LINK' || names.has('id') || names.has('for')) {
        out.global = 'the page changed as a whole';
        return;
      }
      starts.push([el, renames]);
    }
    for (const el of T.values) {
      if (!el.isConnected || inert(el)) continue;
      if (el.tagName === 'LINK' || el.tagName === 'STYLE') return sheet(out);
      // a field's value is not its name, but a button-like input's is
      starts.push([el, !T.siblings || (el.tagName === 'INPUT' &&
        /^(button|submit|reset|image)$/i.test(el.type))]);
    }
    const before = T.members, now = members = match();
    if (before === null || now === null) return whole(out, 'a stylesheet Cockpit cannot read');
    for (const [sel, set] of now) {
      const old = before.get(sel);
      if (!old) { out.global = 'a stylesheet changed'; return; }
      for (const el of set) if (!old.has(el)) starts.push([el, true]);
      for (const el of old) if (!set.has(el) && el.isConnected) starts.push([el, true]);
    }
    if (!starts.length) return;
    if (document.querySelector('[aria-owns]')) { out.global = 'the page uses aria-owns'; return; }
    // names that come from elsewhere: aria-labelledby, <label for>
    const labelled = [];
    for (const el of document.querySelectorAll('[aria-labelledby], label[for]')) labelled.push(el);
    const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
    const cursor = new Map();
    const pointer = (el) => {
      if (!cursor.has(el)) cursor.set(el, getComputedStyle(el).cursor === 'pointer');
      return cursor.get(el);
    };
    const NFC_TAGS = new Set(['A', 'BUTTON', 'SUMMARY', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
      'TD', 'TH', 'TR', 'OPTION', 'LABEL']);
    const NFC_ROLES = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell',
      'heading', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio',
      'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);
    const NAMES_PARENT = new Set(['LEGEND', 'CAPTION', 'FIGCAPTION', 'SUMMARY']);
    const SEMANTIC = new Set(['ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BUTTON', 'CODE', 'DD',
      'DETAILS', 'DIALOG', 'DT', 'EM', 'FIELDSET', 'FIGURE', 'H1', 'H2', 'H3', 'H4', 'H5',
      'H6', 'HR', 'INPUT', 'LI', 'MAIN', 'MENU', 'NAV', 'OL', 'OPTION', 'P', 'SELECT',
      'STRONG', 'TABLE', 'TBODY', 'TD', 'TEXTAREA', 'TFOOT', 'TH', 'THEAD', 'TR', 'UL']);
    const nfc = (el) => {
      const role = el.getAttribute('role');
      return role ? NFC_ROLES.has(role) : NFC_TAGS.has(el.tagName) ||
        el.hasAttribute('aria-labelledby');
    };
    const generic = (el) => {
      const role = el.getAttribute('role');
      if (role) return /^(generic|none|presentation)$/.test(role);
      return !(SEMANTIC.has(el.tagName) || (el.tagName === 'A' && el.hasAttribute('href')));
    };
    const kids = (el) => {
      let n = 0;
      for (const c of el.childNodes) {
        if (c.nodeType === 3 ? /\S/.test(c.data) : c.nodeType === 1 && (
            getComputedStyle(c).display === 'contents' ||
            c.checkVisibility({visibilityProperty: true}))) n++;
        if (n > 1) break;
      }
      return n;
    };
    // Whether Playwright may render an element as one text (its children are text, or
    // inline elements of one text node each): the only child of a generic parent, it is
    // then inlined into the parent's line and has no ref of its own.
    const textual = (el) => {
      for (const c of el.childNodes) {
        if (c.nodeType !== 1) continue;
        const display = getComputedStyle(c).display;
        if (display === 'none' || display === 'contents') return false;
        if (!display.startsWith('inline') || !generic(c) || c.childNodes.length !== 1 ||
            c.firstChild.nodeType !== 3) return false;
      }
      return true;
    };
    const regionOf = (el, renamed) => {
      let r = renamed ? up(el) : el;
      for (let a = r; a && a !== body; a = up(a)) {
        if (NAMES_PARENT.has(a.tagName)) r = up(up(a)) || body;
        else if (nfc(a)) r = up(a) || body;
      }
      let top = null;
      for (let a = r && up(r); a && a !== body; a = up(a)) if (pointer(a)) top = a;
      if (top) r = top;
      while (r && r !== body && r !== document.documentElement) {
        const p = up(r);
        if (!p || p === body) break;
        if ((generic(r) && kids(r) <= 1) || (kids(p) <= 1 && generic(r) && textual(r))) {
          r = p;
          continue;
        }
        break;
      }
      while (r && r.getRootNode() !== document) r = r.getRootNode().host;
      return r && body && body.contains(r) ? r : body;
    };
    // A generic wrapper the action left empty (a code editor's container of its
    // completion list, once the list closed): Playwright shows no line for it now, and
    // unwrapped it while it held one child, so its region is its parent (in a notebook,
    // all of it). When all it lost is elements no longer in the page, Python instead
    // drops the lines they had from the tab's snapshot (changes.py `_emptied`), found by
    // the refs Playwright left on them, which its world tells (ref_engine.py): the
    // wrapper's, then each lost element's ('' for none); null when not all can be told.
    const emptied = (el) => {
      const lost = T.removed.get(el);
      if (!lost || !lost.length || el.firstElementChild || el.shadowRoot ||
          /\S/.test(el.textContent) || !generic(el) || el.hasAttribute('aria-label') ||
          el.hasAttribute('aria-labelledby') || el.hasAttribute('title')) return null;
      const els = lost.filter((n) => n.nodeType === 1);
      if (!els.length || els.some((n) => n.isConnected) ||
          lost.some((n) => n.nodeType !== 1 && /\S/.test(n.textContent))) return null;
      const told = [];
      for (const p of [el, ...els]) {
        let detail = null;
        const take = (e) => { detail = detail || String(e.detail); };  // (one world knows)
        p.addEventListener('cockpit-refs', take);
        document.dispatchEvent(new MouseEvent('cockpit-refs-ask', {relatedTarget: p}));
        p.removeEventListener('cockpit-refs', take);
        if (detail === null) return null;
        told.push(detail);
      }
      return told;
    };
    const regions = [], gones = [];
    const add = (el, renamed) => {
      const r = regionOf(el, renamed);
      if (r === body) return false;
      const told = r !== el && emptied(el);
      if (told) gones.push([el, r, told]);
      else regions.push(r);
      return true;
    };
    for (const [el, renamed] of starts) if (!add(el, renamed)) return whole(out);
    for (const el of labelled) {  // a label changed: what it names changed too
      const from = el.tagName === 'LABEL' ? [el] : (el.getAttribute('aria-labelledby') || '')
        .split(/\s+/).map((id) => id && document.getElementById(id)).filter(Boolean);
      const target = el.tagName === 'LABEL' ? el.control : el;
      if (target && from.some((f) => regions.some((r) => r.contains(f) || f.contains(r)))) {
        if (!add(target, true)) { out.global = 'the page changed as a whole'; return; }
      }
    }
    const kept = regions.filter((r, i) => !regions.some((o, j) => o !== r && o.contains(r))
      && regions.indexOf(r) === i);
    if (kept.length > 12) { out.global = 'many parts of the page changed'; return; }
    const depth = (r) => {
      let n = 0;
      for (let a = r; a && a !== body; a = a.parentElement) n++;
      return n;
    };
    for (const r of kept) out.regions.push([path(r), depth(r)]);
    for (const [el, r, told] of gones) {
      if (!kept.some((k) => k.contains(el))) out.regions.push([path(r), depth(r), told]);
    }
  }

  // Whether a node's children or text really changed: it lost one it had, or holds one
  // added since (else all that came went again, and it is as it was).
  function net(n) {
    if (T.lost.has(n)) return true;
    for (const c of n.childNodes) if (T.added.has(c)) return true;
    return false;
  }
  function sheet(out) { out.global = 'a stylesheet changed'; }
  // A <link> that is not (and was not) a stylesheet shows nothing: an app that swaps its
  // favicon while it works (marimo, as a cell runs) has not changed the page as a whole.
  function inert(el, oldRel) {
    return el.tagName === 'LINK' && !/stylesheet/i.test(el.rel || '') &&
      !/stylesheet/i.test(oldRel || '');
  }
  function whole(out, why) { out.global = why || 'the page changed as a whole'; }

  function path(el) {
    const parts = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (e.id && document.getElementById(e.id) === e) {
        parts.unshift('#' + CSS.escape(e.id));
        break;
      }
      if (e === document.documentElement) { parts.unshift('html'); break; }
      const i = Array.prototype.indexOf.call(e.parentElement.children, e) + 1;
      parts.unshift(CSS.escape(e.localName) + ':nth-child(' + i + ')');
    }
    return parts.join(' > ');
  }
}
""".replace("__TRACKER__", TRACKER_JS.strip())

