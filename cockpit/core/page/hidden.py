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

Two other ways of hiding the page get the same line: a modal that takes the page out of
Playwright's snapshot altogether (`pointer-events: none` under aria-hidden, as Radix's
dialogs do: the elements the diff lost are looked up in the page, kept as
`Snapshot.behind`, and not news when they come back under their refs), and `inert`
(which Playwright does not show at all: the page is asked when a popover comes or goes).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from .ref_engine import REF_ENGINE
from ..model.snapshot import NAME_FROM_CONTENT, Node, Snapshot
from .changeset import Change

if TYPE_CHECKING:
    from .changeset import Diff
    from ..model.refnames import RefNames

log = logging.getLogger(__name__)

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
    if before is None or before.doc != after.doc:
        return
    marked = {ref for ref, node in after.refs.items() if HIDDEN in node.attrs}
    if marked == {ref for ref, node in before.refs.items() if HIDDEN in node.attrs}:
        return  # no part was hidden or shown (a page's aria-hidden icons stay as they were)
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


def fold(result: Diff, old_refs: dict[str, Node], new_refs: dict[str, Node]) -> None:
    """A popover that aria-hides the rest of the page (or its closing) is one line, first:
    what hiding does by itself to each element (names gone, words moved) is not news; the
    rest of their changes (a button's `expanded`) and the popover's own lines stay."""
    hid, shown = toggled(old_refs, new_refs)
    if not (hid or shown):
        return
    kept: list[Change] = []
    for change in result.changes:
        if change.kind == "changed":
            was = change.fields.get("ref", (change.ref,))[0]
            a, b = old_refs.get(was), new_refs[change.ref]
            if a is not None:
                drop = explained(a, b, set(change.fields))
                change.fields = {k: v for k, v in change.fields.items() if k not in drop}
                if not change.fields:
                    continue
                change.name = change.name or a.label
        elif noise((new_refs if change.kind == "added" else old_refs)[change.ref]):
            continue
        kept.append(change)
    added = [new_refs[c.ref] for c in kept if c.kind == "added"]
    result.changes = page_lines(hid, shown, added) + kept


def page_lines(hid: bool, shown: bool, added: list[Node]) -> list[Change]:
    """The diff's lines for a hiding (`~ page hidden behind @e40 listbox "Category"`,
    naming the popover among the `added` elements) and a showing (`~ page shown again`)."""
    lines = []
    if hid:
        front = popover(added)
        lines.append(Change("changed", front.ref or "", front.role, front.label, page="hidden")
                     if front is not None else Change("changed", "", "", "", page="hidden"))
    if shown:
        lines.append(Change("changed", "", "", "", page="shown"))
    return lines


# --- parts the snapshot loses while a popover is open ----------------------------------
# A modal popover may hide the page so that Playwright leaves it out of the snapshot
# (aria-hidden with `pointer-events: none`, as Radix's dialogs do, or `inert`): the diff
# would call all of it removed, and added back when it closes. The page is asked whether
# the elements the diff lost are still there behind a hiding; those are "behind", and
# come back under the refs they had.
BEHIND_MIN = 3  # fewer lost elements than this are not a page hidden
ROOTS_ASKED = 12  # the outermost lost elements asked about (at once); the rest are gone
HIDDEN_JS = """e => !!e.closest('[aria-hidden=true], [inert]')
    || getComputedStyle(e).pointerEvents === 'none'"""
LOOKUP_MS = 1000


async def still_behind(page: Page, roots: list[Node], lost: list[Node]) -> set[str]:
    """Which of the `lost` nodes (what a diff lost; `roots`: the outermost of them) are
    still in the main document, under a root hidden by an aria-hidden or inert part or
    made unclickable under a modal: their refs (the tab's)."""
    asked = [node for node in roots if node.pw and node.ref and not node.in_frame]
    # the ones still there first (counting waits for nothing; an evaluate would wait for
    # an element that went, as a rebuilt list's rows did)
    asked = await _still_there(page, asked[:ROOTS_ASKED])
    answers = await asyncio.gather(*(page.locator(f"{REF_ENGINE}={node.pw}").evaluate(
        HIDDEN_JS, timeout=LOOKUP_MS) for node in asked), return_exceptions=True)
    hiding = {id(node) for node, hid in zip(asked, answers) if hid is True}
    if not hiding:
        return set()
    under = [node for node in lost if node.pw and node.ref and any(
        id(up) in hiding for up in _up(node))]
    return {node.ref for node in await _still_there(page, under) if node.ref}


FLEETING_ROLES = ("listbox", "menu", "tooltip")  # popovers that come and go, never "the page"


def _fleeting(node: Node) -> bool:
    """Whether the node is such a popover, or a wrapper of one (its container: a code
    editor's completion tooltip is the list and an empty box for the details)."""
    while node.role not in FLEETING_ROLES:
        inside = [n for n in _ref_children(node) if not _empty(n)]
        if node.role != "generic" or node.name or len(inside) != 1:
            return False
        node = inside[0]
    return True


def _empty(node: Node) -> bool:
    return node.role == "generic" and not node.name and not node.children


def _up(node: Node) -> list[Node]:
    """The node and its ancestors."""
    out: list[Node] = []
    current: Node | None = node
    while current is not None:
        out.append(current)
        current = current.parent
    return out


async def _still_there(page: Page, nodes: list[Node]) -> list[Node]:
    """Those nodes whose elements are still in the main document: counted by halves
    (what went away is mostly one stretch of the document: a few round trips)."""
    if not nodes:
        return []
    selector = f"{REF_ENGINE}={' '.join(node.pw or '' for node in nodes)} "
    try:
        count = await page.locator(selector).count()
    except PlaywrightError as exc:
        log.debug("hidden elements not counted: %s", exc)
        return []
    if count == len(nodes) or count == 0:
        return nodes if count else []
    half = len(nodes) // 2
    first, second = await asyncio.gather(_still_there(page, nodes[:half]),
                                         _still_there(page, nodes[half:]))
    return first + second


async def settle_behind(page: Page, before: Snapshot | None, after: Snapshot, d: Diff) -> None:
    """What a popover's hiding made the diff call removed (or added back when it closed)
    is said as one line, `page hidden behind @e40 dialog` / `page shown again`; the
    elements it hid are kept on the snapshot (`Snapshot.behind`) and, shown again, are
    no news: Playwright gives them back their refs."""
    if before is None or d.new_page or before.doc != after.doc:
        return
    behind = dict(before.behind)
    back = {c.ref for c in d.changes if c.kind == "added" and c.ref in behind}
    lost = [c for c in d.changes if c.kind == "removed"]
    gone: set[str] = set()
    if len(lost) >= BEHIND_MIN:
        # a menu, list or tooltip that closed went: it is no page hidden (an editor's
        # completion list closing at each notebook cell run cost that step a look, ~5 ms)
        roots = [node for c in lost if not c.inside and c.ref in before.refs
                 and not _fleeting(node := before.refs[c.ref])]
        if roots:
            gone = await still_behind(page, roots, [before.refs[c.ref] for c in lost
                                                    if c.ref in before.refs])
    inert = await _inert(page, before, d)
    hid, shown = bool(gone) or inert > before.inert, bool(back) or inert < before.inert
    if hid or shown:
        told = {c.page for c in d.changes if c.page}
        added = [after.refs[c.ref] for c in d.changes
                 if c.kind == "added" and c.ref in after.refs]
        rest = [c for c in d.changes if not ((c.kind == "added" and c.ref in back)
                                             or (c.kind == "removed" and c.ref in gone))]
        d.changes = page_lines(hid and "hidden" not in told, shown and "shown" not in told,
                               added) + rest
        behind.update({ref: before.refs[ref] for ref in gone})
    after.behind = {ref: node for ref, node in behind.items() if ref not in after.refs}
    after.inert = inert


# `inert` parts stay in Playwright's snapshot as they were (names and refs): only the page
# says that a popover made the rest of it inert. Asked when a popover comes or goes.
INERT_MIN = 10  # elements in visible inert parts: fewer is not "the page"
INERT_JS = """() => [...document.querySelectorAll('[inert]')].filter(e =>
    e.getClientRects().length && !e.parentElement.closest('[inert]'))
  .reduce((n, e) => n + e.getElementsByTagName('*').length, 0)"""


async def _inert(page: Page, before: Snapshot, d: Diff) -> bool:
    """Whether a big part of the page is inert now: asked only when a popover came, or
    went while the page was inert (one that goes cannot make it inert: an editor's
    completion list closing at each notebook cell run cost that step ~2 ms), else as
    `before` knew it."""
    if not any(c.role in POPOVER_ROLES and (c.kind == "added" or
                                            (c.kind == "removed" and before.inert))
               for c in d.changes):
        return before.inert
    try:
        return int(await page.evaluate(INERT_JS)) >= INERT_MIN
    except PlaywrightError as exc:  # navigating away: the next look says
        log.debug("inert parts not counted: %s", exc)
        return before.inert
