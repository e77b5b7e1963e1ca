"""Element targets: a ref from the tab's last snapshot (`@e4`, `e4`, `ref=e4`; `@f1e2`, the
frame refs of Playwright's naming, is still read, see refnames.py) or a selector. A ref is
checked before use, so a stale, unknown or foreign ref fails at once instead of after an
action timeout."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from .ref_engine import REF_ENGINE
from ..base.errors import StaleRefError, UsageError
from ..language.parser import as_ref
from .tab import DOC_TOKEN_JS

if TYPE_CHECKING:
    from ..language.command import Command
    from ..model.snapshot import Node, Snapshot
    from .tab import Tab

NEW_SNAPSHOT = "take a new snapshot (`snapshot -i`) and use its refs"


def refs_used(snap: Snapshot | None, command: Command) -> dict[str, dict[str, Any]]:
    """Role and name of every ref the line uses, as the snapshot knew them before the step
    ran (the `targets` of its command.started event): what replay finds the element by
    when refs are numbered differently, and how the recorder knows a password field."""
    found: dict[str, dict[str, Any]] = {}
    if snap is None or not snap.refs:
        return found
    for ref in command.refs():
        live = snap.live(ref)  # a re-rendered element's old ref: its new one
        node = snap.refs.get(live)
        if node is not None:
            found[ref] = {"role": node.role, "name": node.name, "nth": nth_of(snap, live)}
            if not node.name and node.label:
                # nameless to Playwright (`<button><p>Place order</p></button>`), named by
                # its words on screen as `snapshot -i` names it: replay and export find it so
                found[ref]["label"] = node.label
    return found


def nth_of(snap: Snapshot, ref: str) -> int:
    """How many elements of the ref's role and label (its name, or its words when it has
    none) come before it in its frame, in document order: its place among those replay
    and export would take for it (refs_info names each element by its label; a frame's
    are found inside it, the page's outside every frame)."""
    node, count = snap.refs[ref], 0
    frame = _frame_of(node)
    for other, n in snap.refs.items():
        if other == ref:
            return count
        count += n.role == node.role and (n.label or n.name) == (node.label or node.name) \
            and _frame_of(n) is frame
    return count


def _frame_of(node: Node) -> Node | None:
    """The iframe a node is in (its nearest), or None in the page itself."""
    parent = node.parent
    while parent is not None and parent.role != "iframe":
        parent = parent.parent
    return parent


async def resolve(tab: Tab, target: str) -> Locator:
    """Return a Playwright Locator for the target, checked when it is a ref."""
    ref = as_ref(target)
    if ref is None and target.strip().startswith("@"):
        raise UsageError(f"`{target.strip()}` is not a ref: refs look like @e5; "
                         f"{NEW_SNAPSHOT}", data={"target": target})
    if ref is None:
        return await _selector(tab, target)
    snap = tab.snapshot
    if snap is not None:
        ref = snap.live(ref)  # re-rendered as it was: the element it has become
    if snap is not None and ref not in snap.refs and ref in snap.behind:
        node = snap.behind[ref]
        name = f' "{node.label}"' if node.label else ""
        raise StaleRefError(f"@{ref} ({node.role}{name}) is hidden behind a popover that "
                            "hides the rest of the page: close it first (`press Escape` or "
                            "its own button), then retry", data={"ref": ref})
    if snap is None or ref not in snap.refs:
        elsewhere = [t for t in tab.session.tabs
                     if t is not tab and t.snapshot and ref in t.snapshot.refs]
        if snap is None:
            reason = f"@{ref}: no snapshot has been taken on this tab (tab {tab.index}) yet"
        elif elsewhere:
            reason = (f"@{ref} is not in this tab's snapshot; it came from tab "
                      f"{elsewhere[0].index}: switch with `tab {elsewhere[0].index}`, or")
        else:
            reason = f"@{ref} is not in this tab's last snapshot (unknown or outdated ref)"
        raise StaleRefError(f"{reason}; {NEW_SNAPSHOT}", data={"ref": ref})
    engine = _engine(tab, snap, ref)
    locator = tab.page.locator(f"{engine}={_playwright(snap, ref)}")
    # The ref map lives in Playwright's utility world, so count there; the document token
    # lives in the main world (of the top frame, also for frame refs). Both at once.
    try:
        try:
            count, doc = await asyncio.gather(locator.count(), tab.page.evaluate(DOC_TOKEN_JS))
        except PlaywrightError:
            if engine == "aria-ref":
                raise
            # our engine unknown to this context: a full look restores Playwright's map
            await tab.page.aria_snapshot(mode="ai")
            tab.partial_refs = False
            locator = tab.page.locator(f"aria-ref={_playwright(snap, ref)}")
            count, doc = await asyncio.gather(locator.count(), tab.page.evaluate(DOC_TOKEN_JS))
    except PlaywrightError:  # e.g. "Invalid frame in aria-ref selector": its frame is gone
        raise StaleRefError(f"{snap.describe(ref)} belongs to a frame that is gone; "
                            f"{NEW_SNAPSHOT}", data={"ref": ref}) from None
    what = snap.describe(ref)
    if doc != snap.doc:
        raise StaleRefError(f"{what} is from an earlier page: this tab has loaded "
                            f"{tab.url} since; {NEW_SNAPSHOT}", data={"ref": ref})
    if count == 0:
        raise StaleRefError(f"{what} is no longer on the page; {NEW_SNAPSHOT}",
                            data={"ref": ref})
    if count > 1:
        raise StaleRefError(f"{what} is ambiguous ({count} elements); {NEW_SNAPSHOT}",
                            data={"ref": ref})
    return locator


def _playwright(snap: Snapshot, ref: str) -> str:
    """Playwright's own ref for one of the tab's (refnames.py), what its engines find."""
    return snap.refs[ref].pw or ref


def _engine(tab: Tab, snap: Snapshot, ref: str) -> str:
    # After a region snapshot Playwright's own ref map holds that region only (changes.py)
    return REF_ENGINE if tab.partial_refs and not snap.refs[ref].in_frame else "aria-ref"


def ref_selector(tab: Tab, target: str) -> str | None:
    """The selector of a ref the tab's last snapshot has (`aria-ref=e5`), unchecked; None
    for anything else. For a one-round-trip attempt whose failure goes to `resolve`."""
    ref, snap = as_ref(target), tab.snapshot
    if ref is None or snap is None:
        return None
    ref = snap.live(ref)
    return f"{_engine(tab, snap, ref)}={_playwright(snap, ref)}" if ref in snap.refs else None


async def _selector(tab: Tab, selector: str) -> Locator:
    if not selector.strip():
        raise UsageError("empty target: give a ref such as @e3 or a CSS selector")
    locator = tab.page.locator(selector)
    try:
        await locator.count()  # parses the selector now, not after an action timeout
    except PlaywrightError as exc:
        detail = str(exc).splitlines()[0]
        raise UsageError(f"selector `{selector}` does not parse ({detail}): fix it, or use a "
                         f"ref from `snapshot -i`") from None
    return locator

