"""The `cockpit-ref=` selector engine, with which targets, diffs and popovers find the
element a ref of our snapshot names."""

from __future__ import annotations

# A selector engine (`cockpit-ref=e5`) that finds the element a ref names by the mark
# Playwright leaves on it in its utility world, where content-script engines run. Needed
# because `aria-ref=` only knows the last snapshot taken in a frame, and after a region
# snapshot that is the region. Elements found are checked against our own snapshot first.
REF_ENGINE = "cockpit-ref"
REF_ENGINE_JS = r"""{
  queryAll(root, ref) {
    const refs = new Set(ref.split(' '));  // a list of refs: hidden.py counts what is left
    if (refs.size > 1) return [root, ...root.querySelectorAll('*')].filter(e => e._ariaRef
      && refs.has(e._ariaRef.ref));  // (not in shadow roots: a popover hides the page's)
    const cache = globalThis.__cockpitRefCache || (globalThis.__cockpitRefCache = new Map());
    const hit = cache.get(ref);
    const el = hit && hit.deref();
    if (el && el.isConnected && el._ariaRef && el._ariaRef.ref === ref &&
        (root === el || root.contains(el))) return [el];
    const found = [];
    const walk = (r) => {
      for (const e of r.querySelectorAll('*')) {
        const mark = e._ariaRef;
        if (mark) {
          cache.set(mark.ref, new WeakRef(e));
          if (mark.ref === ref) found.push(e);
        }
        if (e.shadowRoot) walk(e.shadowRoot);
      }
    };
    walk(root);
    if (root.nodeType === 1 && root._ariaRef && root._ariaRef.ref === ref) found.unshift(root);
    return found;
  }
}"""
