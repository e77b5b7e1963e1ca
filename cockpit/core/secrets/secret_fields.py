"""Password fields in snapshots: Playwright's aria snapshot shows a password box's value in
clear (`textbox "Password" [ref=e5]: hunter2`), and so would every snapshot, diff, resume
note and recording made from it. Before a snapshot is used, the refs of the page's
password fields are found and their values replaced by the mask; the values themselves
go to the session's masker, so outputs that echo them (a `js` reading the field, a page
that prints it) are masked too.

The aria snapshot does not say which textbox is a password field, and refs live in
Playwright's utility world where page scripts cannot read them; so the fields are counted
in the page along with the snapshot (and in its frames when the snapshot shows a text box
in one), and on a page with some, each field is asked for its own one-line aria snapshot,
which carries its ref.

`mask_secrets` is the one door: the full snapshot (`Tab.take_snapshot`) and the regions of
an incremental diff (`changes.update`) both go through it before anyone sees them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import TYPE_CHECKING, Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from .mask import MASK
from ..model.snapshot import NAME_FROM_CONTENT, VALUE_ROLES

if TYPE_CHECKING:
    from ..model.snapshot import Snapshot

log = logging.getLogger(__name__)

# What counts as a password field: typed as one, or announced as one to password managers
# (a "show password" toggle turns the type to text but leaves autocomplete).
SECRET_FIELDS = "input[type=password], input[autocomplete*=password i]"
COUNT_JS = f"() => document.querySelectorAll({json.dumps(SECRET_FIELDS)}).length"
_REF = re.compile(r"\[ref=([^\]]+)\]")
_VALUE = re.compile(r"^(.*\[ref=[^\]]+\](?: \[[^\]]*\])*): .*$")  # a line's `: value`
LOOKUP_MS = 1000  # per field; a page too busy to answer gets its fields masked blindly


async def count_secret_fields(page: Page, frames: bool = False) -> list[tuple[Frame, int]]:
    """(frame, how many password fields it has) for the main frame, or (`frames`) for the
    others, when they have some; -1 when a frame could not say (busy, or going away)."""
    async def one(frame: Frame) -> int:
        try:  # no timeout of its own: the snapshot, which walks every frame, waits as long
            return int(await frame.evaluate(COUNT_JS))
        except PlaywrightError as exc:
            log.debug("counting password fields in %s failed: %s", frame.url, exc)
            return -1
    chosen = page.frames[1:] if frames else [page.main_frame]
    counts = await asyncio.gather(*(one(frame) for frame in chosen))
    return [(frame, n) for frame, n in zip(chosen, counts) if n]


async def mask_secrets(page: Page, snap: Snapshot, learn: Callable[[str], None], *,
                       fields: list[tuple[Frame, int]] | None = None,
                       before: Snapshot | None = None,
                       retake: Callable[[], Awaitable[Snapshot]] | None = None,
                       ) -> tuple[Snapshot, set[Frame]]:
    """Mask the password fields of `snap` and hand their values to `learn` (the session's
    masker); returns the snapshot to use and the frames whose Playwright ref map the
    lookups replaced (the caller copes: the main frame's refs are found by our own engine,
    `Tab.partial_refs`; `retake` is called instead when a child frame's was, and given).

    `snap` is a full snapshot (its main frame's `fields` counted along with it) or the new
    part of an incremental diff (refs of the changed regions only; counted here, and only
    when the part shows a box at all). A field that was a password field in `before` (the
    same document) stays masked, even if the page turned it into a plain text box."""
    if fields is None:
        shows_box = any(node.role in VALUE_ROLES for node in snap.refs.values())
        fields = await count_secret_fields(page) if shows_box else []
    if boxes_in_frames(snap):
        fields = fields + await count_secret_fields(page, frames=True)
    refs: set[str] = set()
    blind = ""
    looked: set[Frame] = set()
    if fields:  # a login page: which refs are password fields
        refs, blind = await secret_refs(page, fields)
        looked = {frame for frame, count in fields if count > 0}
        # (a child frame's refs have no engine of ours: only a full look restores them)
        if retake is not None and any(frame is not page.main_frame for frame in looked):
            snap, looked = await retake(), set()
    if before is not None and before.doc == snap.doc:
        was = before.refs
        refs |= {node.pw for ref, node in snap.refs.items()
                 if node.pw and ref in was and was[ref].secret}
    for value in mask_secret_fields(snap, refs, blind):
        learn(value)  # files mask it wherever it is
    return snap, looked


def boxes_in_frames(snap: Snapshot) -> bool:
    """Whether the snapshot shows a text box inside a frame (only then are frames asked
    for password fields: a page full of ad frames pays nothing)."""
    return any(node.role in VALUE_ROLES and node.in_frame for node in snap.refs.values())


async def secret_refs(page: Page, fields: list[tuple[Frame, int]]) -> tuple[set[str], str]:
    """The refs of those password fields (Playwright's: `Node.pw`), and the places ("e":
    the main frame, "f": frames, as `Node.in_frame` tells them apart) whose fields could
    not be found, so that all their boxes are masked blindly.
    NB: an element's aria snapshot replaces Playwright's ref map of its frame (refs are
    stable: a full look after it gives the same map; `cockpit-ref=` finds them meanwhile)."""
    refs: set[str] = set()
    blind = ""
    for frame, count in fields:
        place = "e" if frame is page.main_frame else "f"
        try:
            if count < 0:
                raise PlaywrightError("the frame did not answer")
            found = frame.locator(SECRET_FIELDS)
            shots = await asyncio.gather(*(found.nth(i).aria_snapshot(
                mode="ai", timeout=LOOKUP_MS) for i in range(count)))
        except PlaywrightError as exc:
            log.debug("password fields of %s not found: %s", frame.url, exc)
            blind += place
            continue
        for shot in shots:
            m = _REF.search(shot.split("\n", 1)[0])
            if m:
                refs.add(m.group(1))
    return refs, blind


def mask_secret_fields(snap: Snapshot, refs: set[str], blind: str = "") -> list[str]:
    """Mark the snapshot's password fields (`node.secret`; `refs`: Playwright's refs of
    them), mask their values, and return the values that were shown, for the masker."""
    shown = []
    for node in snap.refs.values():
        if node.pw in refs or (node.role in VALUE_ROLES and
                               ("f" if node.in_frame else "e") in blind):
            node.secret = True
            if node.value and node.value != MASK:
                shown.append(node.value)
                node.value = MASK
    if shown:
        _masked_everywhere(snap)
    return shown


def _masked_everywhere(snap: Snapshot) -> None:
    """The labels taken from children and the raw text were made before the mask."""
    for node in snap.refs.values():
        node.label = node.name or (node.words() if node.role in NAME_FROM_CONTENT else "")
    secret = {node.pw for node in snap.refs.values() if node.secret}  # as the raw text has them
    lines = snap.raw.split("\n")
    below = -1  # the indent of a secret field whose lines below it are being masked
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" "))
        if below >= 0 and indent > below:
            # its value as a `text:` line (Playwright's form beside a `/placeholder`)
            if line.lstrip(" ").startswith("- text:"):
                lines[i] = " " * indent + f"- text: {MASK}"
            continue
        below = -1
        m = _REF.search(line)
        if m and m.group(1) in secret:
            lines[i] = _VALUE.sub(rf"\1: {MASK}", line)
            below = indent
    snap.raw = "\n".join(lines)
