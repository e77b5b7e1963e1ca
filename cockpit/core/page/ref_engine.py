"""The `cockpit-ref=` selector engine, with which targets, diffs and popovers find the
element a ref of our snapshot names."""

from __future__ import annotations

# A selector engine (`cockpit-ref=e5`) that finds the element a ref names by the mark
# Playwright leaves on it in its utility world, where content-script engines run. Needed
# because `aria-ref=` only knows the last snapshot taken in a frame, and after a region
# snapshot that is the region. Elements found are checked against our own snapshot first.
#
# Its script also answers the change tracker (changes_js `emptied`) in the page's world,
# which cannot read those marks: a `cockpit-refs-ask` event on the document, whose
# `relatedTarget` is an element the page removed, is answered at once by a `cockpit-refs`
# event on that element, whose detail is the element's ref ('' if none). (Run once per
# document, as Playwright sets up its engines there.)
REF_ENGINE = "cockpit-ref"
REF_ENGINE_JS = r"""(() => {
  document.addEventListener('cockpit-refs-ask', (e) => {
    const root = e.relatedTarget;
    // (Playwright sets its engines up in the page's world too, where the marks are not
    // seen: that one, where the change tracker lives, does not answer.)
    if (!root || root.nodeType !== 1 || window.__cockpitChanges) return;
    const ref = (root._ariaRef && root._ariaRef.ref) || '';
    root.dispatchEvent(new CustomEvent('cockpit-refs', {detail: ref}));
  }, true);
  return {
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
};
})()"""
