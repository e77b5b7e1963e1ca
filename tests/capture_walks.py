"""Pages where a person acts beyond the page's own document (iframes of the same and
another origin, a popup that closes itself, a board to drag on), and the walks a person
makes on them: Playwright's mouse and keyboard play the person (trusted input, as from a
real one). Shared by tests/engine/test_capture_places.py and the e2e replay of them."""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError

from conftest import page

CARD = page("capture_card", """
<label>Card number <input name="card"></label>
<label>Card password <input type="password" name="pin"></label>
<button type="button" onclick="paid.textContent = 'Paid with '
  + document.querySelector('input').value.slice(-2)">Pay</button>
<p id="paid"></p>""")
NOTES = page("capture_notes", '<label>Note <input name="note"></label>')
# the card form comes from another origin (localhost, not 127.0.0.1): a cross-origin frame
FRAMED = page("capture_framed", f"""
<iframe name="pay" width="500" height="260"></iframe>
<iframe title="Notes" src="{NOTES}" width="500" height="160"></iframe>
<script>document.querySelector('iframe[name=pay]').src =
  'http://localhost:' + location.port + '{CARD}';</script>""")

POPUP = page("capture_popup", """
<label>Name <input name="n"></label>
<button type="button" onclick="opener.document.querySelector('#got').textContent =
  'Got ' + document.querySelector('input').value; window.close()">Save</button>""")
OPENER = page("capture_opener", f"""
<button type="button" onclick="window.open('{POPUP}', 'pick', 'width=500,height=400')">
  Pick a name</button>
<p id="got"></p>
<button type="button" onclick="this.textContent = 'Done'">Finish</button>""")

BOARD = page("capture_board", """
<div role="list" aria-label="Cards"><div role="listitem" draggable="true" id="card"
  style="width:160px;padding:8px;border:1px solid">Write tests</div></div>
<div role="region" aria-label="Done" id="done"
  style="width:300px;height:90px;border:1px solid;margin:20px 0">Drop here</div>
<ul aria-label="Order" id="order" style="user-select:none;width:200px">
  <li style="padding:10px">Alpha</li><li style="padding:10px">Beta</li>
  <li style="padding:10px">Gamma</li></ul>
<p id="said"></p>
<script>
card.addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'card'));
done.addEventListener('dragover', e => e.preventDefault());
done.addEventListener('drop', e => { e.preventDefault(); done.appendChild(card); });
// a list sorted by the pointer, as sortable-list libraries do: the item follows the
// pointer while held, and is put before the item it is let go on
let held = null, startY = 0;
order.addEventListener('pointerdown', e => {
  held = e.target.closest('li'); startY = e.clientY;
});
addEventListener('pointermove', e => {
  if (held) held.style.transform = `translateY(${e.clientY - startY}px)`;
});
addEventListener('pointerup', e => {
  if (!held) return;
  const item = held; held = null; item.style.transform = '';
  const on = document.elementsFromPoint(e.clientX, e.clientY)
    .find(x => x.tagName === 'LI' && x !== item);
  if (on) { order.insertBefore(item, on); said.textContent = 'sorted'; }
});
</script>""")


async def centre(locator) -> tuple[float, float]:
    box = await locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def click_on(p, locator) -> None:
    """A person's click: the mouse at the element's middle (in a frame too: the page's
    coordinates)."""
    await p.mouse.click(*await centre(locator))


async def drag(p, source, destination) -> None:
    """A person's drag: pressed on one, moved over in steps, let go on the other."""
    await p.mouse.move(*await centre(source))
    await p.mouse.down()
    await p.mouse.move(*await centre(destination), steps=8)
    await p.mouse.up()


async def walk_in_frames(p) -> None:
    pay, notes = p.frame_locator("iframe[name=pay]"), p.frame_locator("iframe[title=Notes]")
    await pay.locator("input[name=card]").wait_for()
    await click_on(p, pay.locator("input[name=card]"))
    await p.keyboard.type("4242")
    await click_on(p, pay.locator("input[name=pin]"))
    await p.keyboard.type("s3cret pw")
    await click_on(p, pay.get_by_role("button", name="Pay"))
    await click_on(p, notes.locator("input"))
    await p.keyboard.type("hello")
    await p.keyboard.press("Tab")


async def walk_in_a_popup(p):
    async with p.expect_popup() as opened:
        await click_on(p, p.get_by_role("button", name="Pick a name"))
    popup = await opened.value
    await popup.wait_for_load_state()
    await click_on(popup, popup.locator("input"))
    await popup.keyboard.type("Ann")
    try:  # Save closes the popup: Playwright may say so of the click it was finishing
        await click_on(popup, popup.get_by_role("button", name="Save"))
    except PlaywrightError as error:  # "Target page ... has been closed"
        if "closed" not in str(error):
            raise  # (the opener's "Got Ann" below says the Save was done)
    await p.get_by_text("Got Ann").wait_for()
    await asyncio.sleep(0.5)  # the person looks back at the page, then goes on there
    await click_on(p, p.get_by_role("button", name="Finish"))


async def walk_on_the_board(p) -> None:
    await drag(p, p.locator("#card"), p.locator("#done"))
    await p.locator("#done #card").wait_for()
    await drag(p, p.get_by_text("Gamma"), p.get_by_text("Alpha"))
    await p.get_by_text("sorted").wait_for()
