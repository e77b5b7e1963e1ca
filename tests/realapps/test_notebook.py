"""A marimo notebook (a single-page app over a websocket kernel) driven through Cockpit:
run its cells with Shift+Enter, edit one and run it, move its slider.

The notebook server keeps one kernel for the run and saves edits to the file, so the test
reads what it changes relative to what it found, never to the file's first text."""

from __future__ import annotations

import re
import time

from steps import look, ok

from cockpit.core import Session


def shows(output: str, text: str) -> bool:
    """Whether a diff line says an element now shows `text`: added with it
    (`+ @e9 generic: 45`) or changed to it (`(text: "45" -> "190")`)."""
    return re.search(rf'(: {re.escape(text)}$|-> "{re.escape(text)}"[;)])', output,
                     re.MULTILINE) is not None


def textboxes(page: str) -> list[str]:
    """The refs of the cells' code editors (CodeMirror textboxes, in order)."""
    return re.findall(r"^(@e\d+) textbox\b", page, re.MULTILINE)


async def run_all(s: Session, page: str) -> list:
    """Run the four cells in order: Shift+Enter runs a cell and moves to the next one; the
    last one with Ctrl+Enter (Shift+Enter there would add a cell)."""
    await ok(s, f"click {textboxes(page)[0]}")
    return [await ok(s, "press Shift+Enter") for _ in range(3)] + \
        [await ok(s, "press Control+Enter")]


async def leave(s: Session) -> None:
    """Leave the notebook as a user does: marimo asks before unloading an edited notebook
    (a beforeunload dialog), and the next test's session must not find it open."""
    left = await s.run("goto about:blank")
    if left.ok and "beforeunload dialog opened" in left.output:
        await ok(s, "dialog accept")


async def test_a_cell_edited_and_run_and_the_slider_moved_report_their_outputs(s, notebook):
    try:
        await edit_run_and_slide(s, notebook)
    finally:
        await leave(s)


async def edit_run_and_slide(s: Session, notebook: str) -> None:
    await ok(s, f"goto {notebook}")
    await ok(s, "wait --text 'size.value'")
    ran = await run_all(s, await look(s))
    assert re.search(r'^\+ @e\d+ slider "Size"$', ran[2].output, re.MULTILINE), ran[2].output
    stars = re.search(r"""(?:: |-> ")'(\*+)'"?""", ran[3].output)
    assert stars, ran[3].output
    # edit the second cell and run it: its result reports the new output
    n = 20 + int(time.time()) % 1000  # a sum this run has not shown yet
    page = await look(s)
    await ok(s, f"fill {textboxes(page)[1]} 'sum(range({n}))'")
    edited = await ok(s, f"click {textboxes(page)[1]}")
    assert edited.ok
    ran_cell = await ok(s, "press Control+Enter")
    assert shows(ran_cell.output, str(sum(range(n)))), ran_cell.output
    # move the slider: the cell that reads it shows one more star, and the diff says so
    page = await look(s)
    slider = re.search(r'^(@e\d+) slider "Size"', page, re.MULTILINE)
    assert slider, page
    before = stars.group(1)
    moved = await ok(s, f"press {'ArrowRight' if len(before) < 10 else 'ArrowLeft'} "
                        f"{slider.group(1)}")
    after = before + "*" if len(before) < 10 else before[:-1]
    assert f"(text: \"'{before}'\" -> \"'{after}'\")" in moved.output, moved.output
    assert shows(moved.output, f"'{after}'"), moved.output
