"""Incremental diffs: after an action, snapshot only what it changed.

A full snapshot of a big page costs about a second (Python's stdtypes.html: 7,600 refs),
whether the action changed one line or nothing. So every document keeps a tracker
(`changes_js`) that notes what changed since the tab's last snapshot, and after an action
we ask every frame:

- nothing changed: "No change", no snapshot at all (a changed URL alone, from the history
  API, is still reported);
- parts of a document changed: each part (a *region*) is snapshotted alone with
  `locator.aria_snapshot(mode="ai")`, which gives the same refs as the full snapshot
  (Playwright keeps an element's ref on the element), and the tab's snapshot is patched
  with it; the diff compares the regions only;
- a child frame changed: that frame's whole body is the region;
- a new document, a stylesheet change, too many changes, or anything we cannot place:
  None, and the caller takes a full snapshot as before.

A region snapshot leaves Playwright's ref map of the frame (what `aria-ref=e5` finds)
holding the region only, so the tab notes it (`Tab.partial_refs`) and `targets.resolve`
then finds main-frame refs with our `cockpit-ref=` engine instead.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page, Playwright

from . import hidden
from ..settle.changes_js import QUERY_JS
from .ref_engine import REF_ENGINE, REF_ENGINE_JS
from .changeset import Diff
from .diff import diff
from ..model.refnames import RefNames
from ..secrets.secret_fields import count_secret_fields, mask_secrets
from ..model.snapshot import VALUE_ROLES, Node, Snapshot, parse
from .stylesheets import StylesheetRules

if TYPE_CHECKING:
    from playwright.async_api import Page

log = logging.getLogger("cockpit.changes")

REGION_TIMEOUT_MS = 1000  # a region was found a moment ago; if it is gone, go full
CLIMBS = 4  # parents tried when a region's snapshot cannot be placed in the tab's
_FRAME_PREFIX = re.compile(r"^(f\d+)e\d+$")


async def register_ref_engine(playwright: Playwright) -> None:
    """Make `cockpit-ref=eN` known to every browser context of this Playwright."""
    await playwright.selectors.register(REF_ENGINE, REF_ENGINE_JS, content_script=True)


Unread = list[tuple[Frame, list[str]]]  # frames, and the stylesheets they could not read


async def mark(page: Page) -> tuple[str, Unread]:
    """Every document of the page starts over (a full snapshot follows at once); returns
    the main frame's document token, and the stylesheets each frame could not read (for
    `read_stylesheets`). Frames that cannot answer are skipped: a frame mid-navigation
    will report itself as new on the next query."""
    main = page.main_frame
    frames = [main, *(f for f in page.frames if f is not main)]
    results = await asyncio.gather(*(f.evaluate(QUERY_JS, True) for f in frames),
                                   return_exceptions=True)
    if isinstance(results[0], BaseException):
        raise results[0]
    unread = [(frame, result["unread"]) for frame, result in zip(frames, results)
              if not isinstance(result, BaseException) and result.get("unread")]
    return str(results[0]["doc"]), unread


async def read_stylesheets(page: Page, unread: Unread, sheets: StylesheetRules) -> None:
    """Hand each frame the rules of the stylesheets it could not read (another origin's:
    selectors and property names only), so that its next query can answer with regions
    instead of asking for a full look."""
    for frame, hrefs in unread:
        rules = await sheets.rules(page.context, hrefs)
        if not rules:
            continue
        try:
            left = await frame.evaluate(QUERY_JS, {"sheets": rules})
        except PlaywrightError as exc:  # the frame went on to another document
            log.debug("stylesheet rules not delivered: %s", exc)
            continue
        if left.get("unread"):
            log.debug("full snapshots: stylesheets not read: %s", left["unread"][:3])


class Tracked(Protocol):
    """What `update` reads and sets of a tab (tab.py's Tab)."""

    page: Page
    names: RefNames  # the refs the tab shows for Playwright's
    partial_refs: bool  # some refs were placed from regions, not a whole snapshot


class Unplaceable(Exception):
    """A region's snapshot does not fit the tab's snapshot: take a full one."""


@dataclass
class Prepared:
    """The main document's changed regions snapshotted while settling still waited
    (`prepare`): those the first `upto` answers of the change tracker named, each
    snapshotted after the last of those answers."""

    base: Snapshot  # the snapshot they patch
    upto: int
    swaps: list[Swap]
    # the main document's password fields, counted after the regions were snapshotted
    # (as `mask_secrets` counts them after a snapshot): still so when the regions are kept
    fields: list[tuple[Frame, int]]


async def prepare(tab: Tracked, before: Snapshot, answered: list[dict[str, Any]]
                  ) -> Prepared | None:
    """Snapshot the regions the tracker's answers so far name, ahead of `update`: taken
    while settling waits out a socket's quiet, they are kept when no answer after them
    names a region (nothing changed since: `update`), else taken again. None when these
    answers call for a full snapshot, or a region cannot be placed (`update` decides)."""
    first = _joined(list(answered))
    if isinstance(first, BaseException) or first["doc"] != before.doc or \
            not first["base"] or first["global"] or not first["regions"]:
        return None
    try:
        swaps = await _main_regions(tab.page.main_frame, before, first["regions"], tab.names)
    except (Unplaceable, PlaywrightError) as exc:
        log.debug("regions not prepared: %s", exc)
        return None
    finally:
        # Playwright's ref map of the main frame may hold a region only from now on,
        # whether or not `update` keeps these (a dialog may end the command first)
        tab.partial_refs = True
    shows_box = any(node.role in VALUE_ROLES for swap in swaps for node in swap[2].values())
    fields = await count_secret_fields(tab.page) if shows_box else []
    return Prepared(before, len(answered), swaps, fields)


def _unchanged_since(prepared: Prepared | None, answers: list[Any]) -> bool:
    """Whether the main frame's answers after `prepared.upto` (None: not asked) name
    no region: its regions' snapshots are then the document as it is."""
    return prepared is not None and prepared.upto <= len(answers) and all(
        a is None or (not isinstance(a, BaseException) and "failed" not in a
                      and not a["regions"]) for a in answers[prepared.upto:])


async def update(tab: Tracked, before: Snapshot, learn: Callable[[str], None],
                 answered: list[dict[str, Any]] | None = None,
                 final: bool = False, prepared: Prepared | None = None
                 ) -> tuple[Snapshot, Diff] | None:
    """The tab's snapshot brought up to date from what changed since it was taken, and
    the diff; None when only a full snapshot will do (the caller takes it).
    `answered`: the main frame's answers to the query already given while settling
    (settle.Watch.changes); `final`: nothing can have changed since the last of them, so
    the main frame is not asked again; `learn`: told each secret value a field holds
    (the session's redactor masks it from then on); `prepared`: the regions of the first
    answers, snapshotted while settling waited (`prepare`), kept if none changed since."""
    page = tab.page
    main = page.main_frame
    frames = [main, *(f for f in page.frames if f is not main)]
    asked = frames[1:] if answered and final else frames
    # each frame's answer (QUERY_JS's JSON), or the exception it raised
    states: list[Any] = await asyncio.gather(*(f.evaluate(QUERY_JS, False) for f in asked),
                                        return_exceptions=True)
    if asked is not frames:
        states.insert(0, None)
    answers = [*(answered or []), states[0]]
    first = _joined(answers)
    if isinstance(first, BaseException):
        log.debug("full snapshot: the page did not answer (%s)", first)
        return None
    if first["doc"] != before.doc or not first["base"]:
        log.debug("full snapshot: a new document")  # or one never snapshotted: all new
        return None
    if first["global"]:
        log.debug("full snapshot: %s", first["global"])
        return None
    changed_frames = []
    for frame, state in zip(frames[1:], states[1:]):
        if isinstance(state, BaseException):
            return None  # a frame navigating or going away: its content is in flux
        if not state["base"] or state["global"] or state["regions"]:
            changed_frames.append(frame)
    url = page.url
    title = await page.title() if first["title"] else before.title
    if not first["regions"] and not changed_frames:
        if url == before.url and title == before.title:
            return before, Diff()
        after = Snapshot(before.roots, url=url, title=title, doc=before.doc, refs=before.refs)
        return after, Diff(url=(before.url, url) if url != before.url else None)  # same refs
    kept = prepared if prepared is not None and prepared.base is before and \
        _unchanged_since(prepared, answers) else None
    try:
        swaps = list(kept.swaps) if kept is not None else \
            await _main_regions(main, before, first["regions"], tab.names)
        swaps += await _frame_regions(changed_frames, before, swaps, tab.names)
    except (Unplaceable, PlaywrightError) as exc:
        log.debug("full snapshot: %s", exc)
        return None
    after, old_part, new_part = before.patched(swaps, url=url, title=title)
    if hidden.any_hidden(old_part) or hidden.any_hidden(new_part):
        # elements a popover hid or showed again keep their refs
        same = hidden.keep_refs([(s[0], s[1][0]) for s in swaps if not s[3] and s[1]],
                                after.refs,
                                tab.names, before.refs)
        after.refs, new_part = hidden.rekeyed(after.refs, same), hidden.rekeyed(new_part, same)
    new = Snapshot([], url=url, doc=before.doc, refs=new_part)
    # The regions' password fields are masked by the same door as a full snapshot's
    # (their nodes are the patched snapshot's, so it is masked too) before any diff;
    # kept regions come with the count taken after them (the document has not changed
    # since: `_unchanged_since`), a round trip less on the step's path.
    _, looked = await mask_secrets(page, new, learn, before=before,
                                   fields=kept.fields if kept is not None else None)
    if any(frame is not main for frame in looked):
        log.debug("full snapshot: password fields looked up in a frame replaced its refs")
        return None
    tab.partial_refs = tab.partial_refs or bool(first["regions"]) or bool(looked)
    return after, diff(Snapshot([], url=before.url, doc=before.doc, refs=old_part), new)


def _joined(answers: list[Any]) -> Any:
    """The main frame's answers to successive queries as one: each started the tracker
    over, so together they hold every change since the snapshot. An answer that failed
    (or a document that changed in between) makes the whole a failure: a full look."""
    answers = [a for a in answers if a is not None]
    failed = next((a for a in answers if isinstance(a, BaseException)), None)
    if failed is not None:
        return failed
    if any("failed" in a for a in answers):
        return RuntimeError(next(a["failed"] for a in answers if "failed" in a))
    last = answers[-1]
    if len(answers) == 1:
        return last
    joined: dict[tuple[str, int], list[Any]] = {}
    for r in (r for a in answers for r in a["regions"]):
        # a region snapshotted covers what a wrapper in it lost (`_emptied`)
        had = joined.get((r[0], r[1]))
        if had is None or len(had) > 2:
            joined[(r[0], r[1])] = r
    regions = list(joined.values())
    return {**last, "base": all(a["base"] for a in answers),
            "doc": last["doc"] if all(a["doc"] == last["doc"] for a in answers) else "",
            "global": next((a["global"] for a in answers if a["global"]), ""),
            "title": any(a["title"] for a in answers), "regions": regions}


Swap = tuple[Node, list[Node], dict[str, Node], bool]  # old node, new roots, refs, frame?


async def _main_regions(frame: Frame, before: Snapshot, regions: list[list[Any]], names: RefNames
                        ) -> list[Swap]:
    """Snapshot each changed region of the main document, climbing to a parent when its
    root is not an element of the tab's snapshot (it was hidden, or renamed: new ref).
    The regions' first snapshots are asked for at once (their round trips overlap), and
    parsed in order (new refs are named in the order of the regions, as before). A
    wrapper left empty (`[path, depth, refs]`) has the lines of what it lost dropped
    instead (`_emptied`), or, when they cannot be told, its region snapshotted."""
    swaps: list[Swap] = []
    climbed: list[list[Any]] = []  # [path, depth] of each region to snapshot
    for region in regions:
        dropped = _emptied(before, region[2]) if len(region) > 2 else None
        if dropped is None:
            climbed.append(region[:2])
        else:
            swaps += dropped
    first = await asyncio.gather(*(frame.locator(path).aria_snapshot(
        mode="ai", timeout=REGION_TIMEOUT_MS) for path, depth in climbed if depth > 0),
        return_exceptions=True)
    texts = iter(first)
    for path, depth in climbed:
        locator = frame.locator(path)
        for climb in range(min(CLIMBS, depth)):
            if climb:
                locator = locator.locator("xpath=..")
                text: str | BaseException = await locator.aria_snapshot(
                    mode="ai", timeout=REGION_TIMEOUT_MS)
            else:
                text = next(texts)
            if isinstance(text, BaseException):
                raise text
            refs: dict[str, Node] = {}
            roots = parse(text, refs, names)
            root = roots[0] if len(roots) == 1 else None
            old = before.refs.get(root.ref) if root is not None and root.ref else None
            if root is not None and old is not None and old.role == root.role:
                swaps.append((old, roots, refs, False))
                break
        else:
            raise Unplaceable(f"region {path} has no place in the last snapshot")
    return _outermost(swaps)


def _emptied(before: Snapshot, told: list[str]) -> list[Swap] | None:
    """A wrapper the action left empty (changes_js `emptied`), which had no line of its
    own (Playwright unwrapped it): the lines of what it lost, each with what is inside,
    dropped from the tab's snapshot, found by the refs Playwright left on them (`told`:
    the wrapper's, then each lost element's; '' for none). None when that cannot be
    told for sure (the wrapper had a line; an element it lost had no line of its own
    with a ref; a line left alone in an unnamed group, which Playwright would unwrap):
    its region, the wrapper's parent, is snapshotted instead."""
    by_pw = {n.pw: n for n in before.refs.values() if n.pw}
    if told[0] in by_pw:
        return None  # a line of its own: Playwright may keep it, empty (or not)
    lost = [by_pw.get(ref) for ref in told[1:]]
    drop = [node for node in lost if node is not None]
    if len(drop) < len(lost):
        return None
    dropped = {id(node) for node in drop}
    for node in drop:
        group = node.parent
        if group is not None and group.role == "generic" and not group.name and \
                sum(id(c) not in dropped for c in group.children) <= 1:
            return None
    return [(node, [], {}, False) for node in drop]


async def _frame_regions(frames: list[Frame], before: Snapshot, swaps: list[Swap],
                         names: RefNames) -> list[Swap]:
    """A changed child frame is snapshotted whole and put under its iframe's node."""
    out: list[Swap] = []
    for frame in frames:
        text = await frame.locator("body").aria_snapshot(mode="ai", timeout=REGION_TIMEOUT_MS)
        refs: dict[str, Node] = {}
        roots = parse(text, refs, names)
        # which frame: Playwright's refs say it (`f2e5`), the tab's own names do not
        prefix = next((m.group(1) for n in refs.values()
                       if (m := _FRAME_PREFIX.match(n.pw or ""))), None)
        if prefix is None:
            raise Unplaceable("a changed frame shows nothing with a ref")
        inside = next((n for n in before.refs.values()
                       if (n.pw or "").startswith(prefix + "e")), None)
        node = inside.parent if inside is not None else None
        while node is not None and node.role != "iframe":
            node = node.parent
        if node is None or node.ref is None:
            raise Unplaceable(f"frame {prefix} is not in the last snapshot")
        out.append((node, roots, refs, True))
    return [s for s in _outermost(swaps + out) if s[3]]


def _outermost(swaps: list[Swap]) -> list[Swap]:
    """Drop swaps inside another one (two regions may climb to nested elements)."""
    roots = {id(s[0]) for s in swaps}
    kept: list[Swap] = []
    for swap in swaps:
        node, inner = swap[0].parent, False
        while node is not None:
            if id(node) in roots:
                inner = True
                break
            node = node.parent
        if not inner and all(id(k[0]) != id(swap[0]) for k in kept):
            kept.append(swap)
    return kept

