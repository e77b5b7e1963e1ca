"""Diffs keyed by ref: what was added, removed or changed between two snapshots of a tab.

Refs are stable while an element lives, so one inserted row is one added line, never a
renumbered text diff. Refs do not survive everything, though: Playwright gives an element
a new ref when its name changes, and a page that rebuilds a list gives every row a new
node. A removed and an added element are therefore paired first (`_pair`): same role and
name under the same parent is the same element, reported under its new ref.
"""

from __future__ import annotations

from typing import Any

from . import hidden
from .changeset import Change, Diff
from ..model.snapshot import Node, Snapshot

def _signature(node: Node) -> dict[str, Any]:
    sig: dict[str, Any] = {"name": node.name, "text": node.text}
    sig.update(node.state)
    if "/url" in node.props:
        sig["url"] = node.props["/url"]
    chosen = [c.name for c in node.children if c.ref is None and c.attr("selected")]
    if chosen:  # a select's options carry no refs: its choice is its own state
        sig["selected"] = ", ".join(chosen)
    return sig


REMOVED_WORDS = 60  # a removed row's words, cut at a word's end past this


def _told(node: Node) -> str:
    """The words a removed element without a name is told by: its own text (a row's,
    not its buttons', which its line names: `(with @e9 button …)`); cut at a word's end."""
    text = " ".join(node.text.split())
    if len(text) <= REMOVED_WORDS:
        return text
    head = text[:REMOVED_WORDS + 1]
    space = head.rfind(" ")
    return (head[:space] if space > 0 else head[:REMOVED_WORDS]).rstrip(" ,;:") + "…"


def _ref_parent(node: Node) -> Node | None:
    """The nearest ancestor that has a ref (text lines and props have none)."""
    parent = node.parent
    while parent is not None and parent.ref is None:
        parent = parent.parent
    return parent


def _depth(node: Node) -> int:
    depth, parent = 0, _ref_parent(node)
    while parent is not None:
        depth, parent = depth + 1, _ref_parent(parent)
    return depth


CONTENT_KEY_CHARS = 200  # words compared when pairing re-rendered elements


def _pair(old: Snapshot, new: Snapshot, removed: list[str], added: list[str],
          exact: set[str] | None = None) -> dict[str, str]:
    """Pair elements that left and came back: new ref -> old ref (the new refs paired on
    the same role, label and words under a kept or exactly paired parent go to `exact`).

    Pages rebuild parts of themselves (`innerHTML = ''` and new rows); Playwright gives
    every new node a new ref, so ref-keyed diffs alone read a rebuilt list as all removed
    and all added. An added and a removed element are the same element when they have the
    same role and label under the same parent (itself kept, or paired first: pairing runs
    from the top down). Among those, the same words below pairs first (a list that lost
    its third row pairs rows 1, 2, 4, 5 with their old selves); what is left pairs in
    order (a field re-rendered with another value: a change); what is left after that
    pairs by position, the same role at the same index (a renamed element: Playwright
    gives it a new ref too)."""
    pairs: dict[str, str] = {}  # new ref -> old ref
    taken: set[str] = set()

    def parent_key(node: Node, side: str) -> str | None:
        parent = _ref_parent(node)
        if parent is None or parent.ref is None:
            return None
        if side == "new" and parent.ref not in old.refs:
            return pairs.get(parent.ref, "new:" + parent.ref)  # unpaired: matches nothing
        return parent.ref

    def index(node: Node) -> int:
        siblings = node.parent.children if node.parent else []
        return next((i for i, s in enumerate(siblings) if s is node), -1)

    keys = (
        lambda n, side: (parent_key(n, side), n.role, n.label, n.words(CONTENT_KEY_CHARS)),
        lambda n, side: (parent_key(n, side), n.role, n.label),
        lambda n, side: (parent_key(n, side), n.role, index(n)),
    )
    by_depth: dict[int, tuple[list[str], list[str]]] = {}
    for ref in removed:
        by_depth.setdefault(_depth(old.refs[ref]), ([], []))[0].append(ref)
    for ref in added:
        by_depth.setdefault(_depth(new.refs[ref]), ([], []))[1].append(ref)
    for depth in sorted(by_depth):
        gone, came = by_depth[depth]
        for key in keys:
            pool: dict[Any, list[str]] = {}
            for ref in gone:
                if ref not in taken:
                    pool.setdefault(key(old.refs[ref], "old"), []).append(ref)
            for ref in came:
                if ref in pairs:
                    continue
                candidates = pool.get(key(new.refs[ref], "new"))
                if candidates:
                    old_ref = candidates.pop(0)
                    pairs[ref] = old_ref
                    taken.add(old_ref)
                    parent = _ref_parent(new.refs[ref])
                    if exact is not None and key is keys[0] and (
                            parent is None or parent.ref in old.refs or parent.ref in exact):
                        exact.add(ref)
    return pairs


def diff(old: Snapshot | None, new: Snapshot) -> Diff:
    """Compare two snapshots of the same tab, keyed by ref."""
    result = Diff()
    old_refs = old.refs if old else {}
    if old is None or old.doc != new.doc:
        result.new_page = old is not None
    if old is not None and old.url != new.url:
        result.url = (old.url, new.url)
    if result.new_page:
        result.changes = [Change("added", r, n.role, n.label, text=n.text)
                          for r, n in new.refs.items()]
        return result
    added = [r for r in new.refs if r not in old_refs]
    removed = [r for r in old_refs if r not in new.refs]
    exact: set[str] = set()
    renamed = _pair(old, new, removed, added, exact) if old and added and removed else {}
    gone = set(renamed.values())
    for ref in removed:
        if ref not in gone:
            node = old_refs[ref]
            parent = _ref_parent(node)
            inside = parent is not None and parent.ref in old_refs and \
                parent.ref not in new.refs and parent.ref not in gone
            result.changes.append(Change("removed", ref, node.role, node.label,
                                         text="" if node.label or inside else _told(node),
                                         inside=inside))
    for ref, node in new.refs.items():
        before = old_refs.get(ref) or (old_refs[renamed[ref]] if ref in renamed else None)
        if before is None:
            result.changes.append(Change("added", ref, node.role, node.label, text=node.text))
            continue
        a, b = _signature(before), _signature(node)
        if a != b:
            fields = {k: (a.get(k), b.get(k)) for k in {**a, **b} if a.get(k) != b.get(k)}
            if ref in renamed:
                fields["ref"] = (renamed[ref], ref)
            result.changes.append(Change("changed", ref, node.role, node.label, fields))
    result.moved = {renamed[ref]: ref for ref in exact}
    hidden.fold(result, old_refs, new.refs)
    return result
