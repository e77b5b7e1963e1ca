"""The script every page of a captured context runs: it reports what a person does
(trusted DOM events only) through the `__cockpitCapture` binding, each action with the
role, accessible name and place among equals of its element, resolved in the page at
the moment of the event (a click that navigates leaves nothing to look up later)."""

from __future__ import annotations

BINDING = "__cockpitCapture"

# What it reports, one object per action:
#   {kind: click|dblclick|fill|select|check|uncheck|press|drag,
#    target: {role, name, nth, label?}, source? (a drag's), value?, values?, key?, secret?,
#    url, title, t}
# `t` is Date.now() at the event: events the cockpit itself caused (a command's click is
# trusted too) are told apart by when they happened (capture.py).
#
# Why so: a click is held back for DOUBLE_MS, so the clicks of a double-click become one
# `dblclick`; it is sent at once when the page is left. A fill is sent once, when the
# field's value is committed (`change`: the field was left or the form submitted), and
# before the key that submits it; a password field's value never leaves the page.
CAPTURE_JS = r"""(() => {
  // once a document: a popup's first (blank) document hands its window on to the page it
  // opens, so a mark on the window would keep the page's own listeners out
  if (document.__cockpitCaptureInstalled) return;
  Object.defineProperty(document, '__cockpitCaptureInstalled', {value: true});
  // off until the cockpit says a person drives: the agent's own clicks cost nothing
  let on = false;
  Object.defineProperty(window, '__cockpitCaptureOn',
                        {value: (v) => { on = !!v; }, configurable: true, writable: true});
  const send = (action) => {
    const report = window['__BINDING__'];
    if (typeof report !== 'function') return;
    action.url = location.href; action.title = document.title;
    action.t = action.t || Date.now();  // a held click: when it was made
    try { report(action); } catch (e) { /* the binding went with its context */ }
  };
  try {
    const asked = window['__BINDING__'] && window['__BINDING__']({kind: 'hello'});
    if (asked && asked.then) asked.then(v => { on = on || !!v; }, () => {});
  } catch (e) { /* no binding in this world */ }
  const TEXTY = new Set(['text', 'email', 'password', 'search', 'tel', 'url', 'number',
    'date', 'datetime-local', 'month', 'time', 'week', '']);
  const isTextField = (e) => e && ((e.tagName === 'INPUT'
    && TEXTY.has((e.type || '').toLowerCase())) || e.tagName === 'TEXTAREA');
  const isToggle = (e) => e && e.tagName === 'INPUT' && ['checkbox', 'radio'].includes(e.type);
  const isSecret = (e) => e.type === 'password'
    || /password/i.test(e.getAttribute('autocomplete') || '');
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  // a name from the element's content: its words, an image's alt, a part's own label
  const content = (node) => {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || ['SCRIPT', 'STYLE', 'TEMPLATE'].includes(node.tagName)
        || node.getAttribute('aria-hidden') === 'true') return '';
    const style = getComputedStyle(node);
    if (style.display === 'none' || style.visibility === 'hidden') return '';
    const own = norm(node.getAttribute('aria-label'))
      || (node.tagName === 'IMG' ? norm(node.getAttribute('alt')) : '');
    const inner = own || [...node.childNodes].map(content).join('')
      + (node.shadowRoot ? [...node.shadowRoot.childNodes].map(content).join('') : '');
    return style.display.startsWith('inline') ? inner : ` ${inner} `;
  };
  const text = (e) => norm([...e.childNodes].map(content).join(''));
  const byIds = (e, attr) => norm((e.getAttribute(attr) || '').split(/\s+/).map(id => {
    const x = id && document.getElementById(id);
    return x ? x.textContent : '';
  }).join(' '));
  const roleOf = (e) => {
    const explicit = (e.getAttribute('role') || '').split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = e.tagName, type = (e.getAttribute('type') || '').toLowerCase();
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'A' || tag === 'AREA') return e.hasAttribute('href') ? 'link' : 'generic';
    if (tag === 'TEXTAREA') return 'textbox';
    if (tag === 'SELECT') return (e.multiple || e.size > 1) ? 'listbox' : 'combobox';
    if (tag === 'OPTION') return 'option';
    if (tag === 'IMG') return e.getAttribute('alt') === '' ? 'presentation' : 'img';
    if (/^H[1-6]$/.test(tag)) return 'heading';
    if (tag === 'LI') return 'listitem';
    if (tag === 'UL' || tag === 'OL') return 'list';
    if (tag === 'INPUT') {
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (['email', 'tel', 'url', 'text', 'password', ''].includes(type))
        return e.hasAttribute('list') ? 'combobox' : 'textbox';
      if (type === 'search') return e.hasAttribute('list') ? 'combobox' : 'searchbox';
      return 'textbox';
    }
    return 'generic';
  };
  // a label's words: not the control's own (a <select> inside its label), another
  // control embedded in it by its value
  const words = (node, self) => {
    if (node === self) return '';
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1 || ['SCRIPT', 'STYLE'].includes(node.tagName)) return '';
    if (isTextField(node)) return ' ' + node.value + ' ';
    if (node.tagName === 'SELECT')
      return ' ' + [...node.selectedOptions].map(o => o.textContent).join(' ') + ' ';
    return [...node.childNodes].map(c => words(c, self)).join('');
  };
  const labelled = (e) => e.labels && e.labels.length
    ? norm([...e.labels].map(l => words(l, e)).join(' ')) : '';
  // the accessible name, as the accname rules give it for the elements people act on
  const nameOf = (e, role) => {
    let n = byIds(e, 'aria-labelledby') || norm(e.getAttribute('aria-label'));
    if (n) return n;
    const tag = e.tagName, type = (e.getAttribute('type') || '').toLowerCase();
    if (tag === 'INPUT' && ['submit', 'reset', 'button'].includes(type))
      return norm(e.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    if (tag === 'INPUT' && type === 'image') return norm(e.alt || e.value);
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(tag))
      return labelled(e) || norm(e.getAttribute('title')) || norm(e.getAttribute('placeholder'));
    if (tag === 'IMG') return norm(e.alt || e.title);
    if (['button', 'link', 'heading', 'option', 'tab', 'menuitem', 'checkbox', 'radio',
         'switch', 'cell', 'row', 'treeitem'].includes(role)) return text(e) || norm(e.title);
    return norm(e.title);
  };
  const ACTED_ON = 'a[href],button,input,select,textarea,summary,option,[role],[onclick],'
    + '[tabindex],img,label,h1,h2,h3,h4,h5,h6,li,ul,ol';
  // the element a person acted on: the nearest control around what was hit (a link
  // around an image), else the nearest element with a role a test can find it by
  const CONTROLS = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'textbox',
    'searchbox', 'combobox', 'slider', 'spinbutton']);
  const actionable = (start) => {
    let e = start && start.nodeType === 1 ? start : start && start.parentElement;
    let first = null;
    while (e) {
      const role = roleOf(e);
      if (CONTROLS.has(role)) return e;
      if (!first && role && !['generic', 'presentation', 'none'].includes(role)) first = e;
      const root = e.getRootNode();
      e = e.parentElement || (root instanceof ShadowRoot ? root.host : null);
    }
    return first;
  };
  const targetOf = (e) => {
    const role = roleOf(e), name = nameOf(e, role);
    let nth = 0;  // its place among the page's elements of that role and name
    for (const other of document.querySelectorAll(ACTED_ON)) {
      if (other === e) break;
      if (roleOf(other) === role && nameOf(other, role) === name
          && (name || text(other) === text(e))) nth++;
    }
    // nameless to Playwright (a list item): named by its words, as `snapshot -i` does
    return name ? {role, name, nth} : {role, name, nth, label: text(e)};
  };
  const committed = new WeakMap();  // field -> the value last sent as a fill
  const fill = (field) => {
    if (!isTextField(field)) return;
    const value = field.value;
    const before = committed.has(field) ? committed.get(field) : field.defaultValue;
    if (value === before) return;
    committed.set(field, value);
    const secret = isSecret(field);
    const action = {kind: 'fill', target: targetOf(field), secret};
    if (!secret) action.value = value;
    flushClick();
    send(action);
  };
  let pendingClick = null, clickTimer = null;
  const flushClick = () => {
    if (clickTimer) clearTimeout(clickTimer);
    clickTimer = null;
    const action = pendingClick; pendingClick = null;
    if (action) send(action);
  };
  const DOUBLE_MS = 300;
  document.addEventListener('click', (event) => {
    if (!on || !event.isTrusted || event.button !== 0 || justDragged) return;
    const raw = event.composedPath ? event.composedPath()[0] : event.target;
    const e = actionable(raw);
    // a toggle's step is its change, a field's its fill, a select's its choice
    if (!e || isToggle(e) || isTextField(e) || ['SELECT', 'OPTION'].includes(e.tagName)) return;
    if (e.tagName === 'LABEL' && e.control
        && (isToggle(e.control) || isTextField(e.control))) return;
    // the second click of a double-click (see dblclick), or one a key made (its press is the step)
    if (event.detail !== 1) return;
    flushClick();
    pendingClick = {kind: 'click', target: targetOf(e), t: Date.now()};
    clickTimer = setTimeout(flushClick, DOUBLE_MS);
  }, true);
  document.addEventListener('dblclick', (event) => {
    if (!on || !event.isTrusted) return;
    const e = actionable(event.composedPath ? event.composedPath()[0] : event.target);
    if (!e || isTextField(e)) { flushClick(); return; }
    if (clickTimer) clearTimeout(clickTimer);
    clickTimer = null; pendingClick = null;
    send({kind: 'dblclick', target: targetOf(e)});
  }, true);
  document.addEventListener('change', (event) => {
    if (!on || !event.isTrusted) return;
    const e = event.target;
    if (isToggle(e)) {
      flushClick();
      send({kind: e.checked ? 'check' : 'uncheck', target: targetOf(e)});
    } else if (e.tagName === 'SELECT') {
      flushClick();
      send({kind: 'select', target: targetOf(e),
            values: [...e.selectedOptions].map(o => norm(o.label || o.textContent))});
    } else if (isTextField(e)) {
      fill(e);
    }
  }, true);
  const EDITING = new Set(['Backspace', 'Delete', 'ArrowLeft', 'ArrowRight', 'ArrowUp',
    'ArrowDown', 'Home', 'End', 'Insert']);
  const NOT_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'CapsLock', 'Dead',
    'Unidentified', 'Process']);
  document.addEventListener('keydown', (event) => {
    if (!on || !event.isTrusted || event.isComposing || NOT_KEYS.has(event.key)) return;
    const e = event.composedPath ? event.composedPath()[0] : event.target;
    if (event.key === ' ' && isToggle(e)) return;  // its change is the step
    // opening or closing a select's list: its choice is the step
    if (e && e.tagName === 'SELECT' && ['Enter', 'Escape', ' '].includes(event.key)) return;
    const chord = event.ctrlKey || event.metaKey || event.altKey;
    const typing = !chord && event.key.length === 1;  // a character: part of a fill
    const inField = isTextField(e) || (e && (e.isContentEditable || e.tagName === 'SELECT'));
    // editing a field (arrows, Backspace, Control+a) is part of its fill, not a step
    if (typing || (inField && (EDITING.has(event.key) || (chord && event.key !== 'Enter'))))
      return;
    if (isTextField(e)) fill(e);  // its text first: the key may submit it
    flushClick();
    let key = event.key === ' ' ? 'Space' : event.key;
    if (key.length === 1 && chord) key = key.toLowerCase();
    const mods = [event.ctrlKey && 'Control', event.altKey && 'Alt', event.metaKey && 'Meta',
                  event.shiftKey && key.length > 1 && 'Shift'].filter(Boolean);
    send({kind: 'press', key: [...mods, key].join('+')});
  }, true);
  // A drag: HTML5 drag and drop (dragstart .. drop), or a pointer held down on an
  // element that the page moves with it (a sortable list) and let go elsewhere. A text
  // selection moves nothing: not a drag. What was dropped on is under the pointer.
  const draggable = (start) => {
    const e = start && start.nodeType === 1 ? start : start && start.parentElement;
    const found = actionable(e);
    return found && found.tagName !== 'BODY' ? found : null;
  };
  const under = (x, y, dragged) => {
    for (const hit of document.elementsFromPoint(x, y)) {
      if (dragged.contains(hit)) continue;  // what is dragged follows the pointer
      const e = draggable(hit);
      if (e && e !== dragged) return e;
    }
    return null;
  };
  // each named as it was when the person took it, and where it was let go: before the
  // page moves it (replay finds them as they were)
  const sendDrag = (source, dest) => {
    if (!source || !dest || source.e === dest) return;
    flushClick();
    send({kind: 'drag', source: source.target, target: targetOf(dest)});
  };
  const taken = (e) => e && {e, target: targetOf(e)};
  let html5 = null, dropped = null, held = null, justDragged = false;
  document.addEventListener('dragstart', (event) => {
    if (!on || !event.isTrusted) return;
    held = null;
    html5 = taken(draggable(event.composedPath ? event.composedPath()[0] : event.target));
    dropped = null;
  }, true);
  document.addEventListener('drop', (event) => {
    if (!on || !event.isTrusted || !html5) return;
    const spot = under(event.clientX, event.clientY, html5.e)
      || draggable(event.composedPath ? event.composedPath()[0] : event.target);
    dropped = spot && spot !== html5.e ? {e: spot, target: targetOf(spot)} : null;
  }, true);
  document.addEventListener('dragend', (event) => {
    if (!on || !event.isTrusted || !html5) return;
    if (dropped && event.dataTransfer && event.dataTransfer.dropEffect !== 'none') {
      flushClick();
      send({kind: 'drag', source: html5.target, target: dropped.target});
    }
    html5 = null; dropped = null;
  }, true);
  const FIELDS = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'OPTION']);
  document.addEventListener('pointerdown', (event) => {
    if (!on || !event.isTrusted || event.button !== 0) { held = null; return; }
    const e = draggable(event.composedPath ? event.composedPath()[0] : event.target);
    held = e && !FIELDS.has(e.tagName) ? {...taken(e), x: event.clientX, y: event.clientY,
                                           box: e.getBoundingClientRect()} : null;
  }, true);
  document.addEventListener('pointerup', (event) => {
    const was = held; held = null;
    if (!on || !event.isTrusted || !was || html5) return;
    const box = was.e.getBoundingClientRect();
    const moved = Math.hypot(event.clientX - was.x, event.clientY - was.y) > 8
      && (Math.abs(box.left - was.box.left) > 4 || Math.abs(box.top - was.box.top) > 4);
    if (!moved) return;
    const dest = under(event.clientX, event.clientY, was.e);
    if (!dest) return;
    sendDrag(was, dest);
    justDragged = true;  // the click its release makes (on what both share) is no step
    setTimeout(() => { justDragged = false; }, 0);
  }, true);
  // leaving the page: what is held back goes now (the binding sends synchronously)
  window.addEventListener('pagehide', flushClick, true);
  // a command is about to run: what the person did before it goes first (capture.py)
  Object.defineProperty(window, '__cockpitCaptureFlush', {value: flushClick,
                                                          configurable: true, writable: true});
  window.addEventListener('beforeunload', flushClick, true);
})();"""


def capture_script() -> str:
    """The init script, with the binding's name in it."""
    return CAPTURE_JS.replace("__BINDING__", BINDING)
