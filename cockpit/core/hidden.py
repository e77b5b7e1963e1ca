"""Popovers that hide the rest of the page from assistive tech (`aria-hidden` on every
part but the popover: BaseWeb's and Radix's menus and selects, most modal dialogs).

Playwright shows an aria-hidden part with its elements' names computed as hidden (empty),
and gives an element a new ref when its name changes; so opening a menu renamed every
element of the page to "" under a new ref, and closing it renamed them back under yet
another: a diff of a dozen renames, and every ref the agent held void.

Here an element hidden or shown again by such a toggle keeps its ref: the subtrees of a
part whose `aria-hidden` changed are walked side by side, before and after, and each
element of the "after" side takes the ref of its counterpart (same place, same role).
The diff then tells the toggle as one line (diff.py: `page hidden behind @e40 listbox
"Category"`), and the elements' own name changes are not news.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .snapshot import NAME_FROM_CONTENT, Node, Snapshot

if TYPE_CHECKING:
    from .refnames import RefNames

HIDDEN = "aria-hidden"


def hides(node: Node) -> bool:
    """Whether the node itself is marked aria-hidden (Playwright marks a hidden part's
    root only: what is below it is hidden with it)."""
    return HIDDEN in node.attrs


def hidden(node: Node) -> bool:
    """Whether the node is in an aria-hidden part of the page (itself or an ancestor)."""
    current: Node | None = node
    while current is not None:
        if hides(current):
            return True
        current = current.parent
    return False


def any_hidden(nodes: list[Node] | dict[str, Node]) -> bool:
    """Whether any of these nodes is an aria-hidden part's root: only then can a toggle
    have happened (a cheap test before the walk)."""
    values = nodes.values() if isinstance(nodes, dict) else nodes
    return any(HIDDEN in node.attrs for node in values)


def _ref_children(node: Node) -> list[Node]:
    """The nearest descendants that have refs (text lines and ref-less wrappers skipped)."""
    out: list[Node] = []
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        if child.ref is not None:
            out.append(child)
        else:
            stack.extend(reversed(child.children))
    return out


def counterparts(pairs: list[tuple[Node, Node]]) -> dict[str, str]:
    """For each (old, new) pair of the same element, its subtrees walked side by side:
    the elements a hiding or showing renamed (new ref -> old ref): marked aria-hidden on
    one side only, or named on one side only (Playwright does not mark every hidden
    element: a hidden wrapper it leaves out of the tree hides what it holds unmarked).

    Children are matched by ref first, then in order by role (a hidden button gains a
    `generic` child holding its words, which the role order steps over)."""
    mapping: dict[str, str] = {}
    stack = list(pairs)
    while stack:
        old, new = stack.pop()
        olds, news = _ref_children(old), _ref_children(new)
        kept_old = {c.ref for c in olds} & {c.ref for c in news}
        free = [c for c in olds if c.ref not in kept_old]
        by_ref = {c.ref: c for c in olds}
        at = 0
        for child in news:
            match = by_ref.get(child.ref) if child.ref in kept_old else None
            if match is None:
                found = next((i for i in range(at, len(free)) if free[i].role == child.role),
                             None)
                if found is None:
                    continue
                match, at = free[found], found + 1
                if hides(match) != hides(child) or bool(match.name) != bool(child.name):
                    assert match.ref is not None and child.ref is not None
                    mapping[child.ref] = match.ref
            stack.append((match, child))
    return mapping


def top_pairs(before: dict[str, Node], after: dict[str, Node]) -> list[tuple[Node, Node]]:
    """The outermost elements both snapshots have (by ref), as (old, new): where a side
    by side walk starts (a popover may have wrapped the page in a new ref-less root)."""
    pairs = []
    for ref, node in after.items():
        if ref not in before:
            continue
        parent = node.parent
        while parent is not None and parent.ref is None:
            parent = parent.parent
        if parent is None or parent.ref not in before:
            pairs.append((before[ref], node))
    return pairs


def keep_refs(pairs: list[tuple[Node, Node]], refs: dict[str, Node], names: RefNames,
              taken: dict[str, Node]) -> dict[str, str]:
    """Give the elements a hide or show toggled (under each (old, new) pair) their old
    refs: each node is renamed, and so is its Playwright ref in the tab's `names`, so that
    the next snapshot names it the same. `refs` is the new snapshot's map (a ref already
    in it is never given twice); `taken`: the old one. Returns new ref -> old ref."""
    mapping = {new: old for new, old in counterparts(pairs).items()
               if old not in refs and new in refs and old in taken}
    for new_ref, old_ref in mapping.items():
        node = refs[new_ref]
        node.ref = old_ref
        node.attrs = [f"ref={old_ref}" if a == f"ref={new_ref}" else a for a in node.attrs]
        if node.pw is not None:
            names.alias(node.pw, old_ref)
    return mapping


def rekeyed(refs: dict[str, Node], mapping: dict[str, str]) -> dict[str, Node]:
    """`refs` with the renamed nodes under their kept refs, in the same order."""
    return {mapping.get(ref, ref): node for ref, node in refs.items()} if mapping else refs


def keep_snapshot_refs(before: Snapshot | None, after: Snapshot, names: RefNames) -> None:
    """`keep_refs` over two whole snapshots of the same document (after a full one)."""
    if before is None or before.doc != after.doc or not (
            any_hidden(after.refs) or any_hidden(before.refs)):
        return
    pairs = top_pairs(before.refs, after.refs)
    after.refs = rekeyed(after.refs, keep_refs(pairs, after.refs, names, before.refs))


# What a popover is, to name the one that hid the page (else the first new control).
POPOVER_ROLES = ("dialog", "alertdialog", "listbox", "menu", "tree", "grid", "tooltip")
HIDING_FIELDS = frozenset({HIDDEN, "name", "ref"})  # what hiding changes by itself


def toggled(old_refs: dict[str, Node], new_refs: dict[str, Node]) -> tuple[bool, bool]:
    """(some part was hidden, some part was shown again) between two snapshots (or parts
    of them) whose toggled elements kept their refs (`keep_refs`)."""
    if not (any_hidden(old_refs) or any_hidden(new_refs)):
        return False, False
    both = [(old_refs[ref], node) for ref, node in new_refs.items() if ref in old_refs]
    return (any(hides(b) and not hides(a) for a, b in both),
            any(hides(a) and not hides(b) for a, b in both))


def _words(*texts: str) -> set[str]:
    return {w for text in texts for w in text.split()}


def explained(old: Node, new: Node, fields: set[str]) -> set[str]:
    """The changed fields of an element that hiding (or showing) it explains: the mark,
    its name gone (or back), and its text when the words only moved from name to text."""
    if bool(old.name) == bool(new.name) and hides(old) == hides(new):
        return set()
    shown, gone = (new, old) if new.name else (old, new)
    out = fields & HIDING_FIELDS
    if "text" in fields and _words(gone.text) <= _words(shown.name, shown.text):
        out.add("text")
    return out


def noise(node: Node) -> bool:
    """An element that appears (or goes) inside a hidden control only because the
    control's name is hidden: a nameless holder of the words its name was made of."""
    parent = node.parent
    while parent is not None and parent.ref is None:
        parent = parent.parent
    return (not node.name and not node.interactive and parent is not None
            and not parent.name and parent.role in NAME_FROM_CONTENT)


def popover(added: list[Node]) -> Node | None:
    """Which of the elements that appeared with a hiding is the popover in front."""
    shown = [node for node in added if not hidden(node)]
    for role in POPOVER_ROLES:
        found = next((node for node in shown if node.role == role), None)
        if found is not None:
            return found
    return next((node for node in shown if node.interactive), None) or \
        next((node for node in shown if node.label), None)
