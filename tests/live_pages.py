"""Two CAPTCHAs a person solves with the mouse (pages the tests serve with `page()`): a
slider to drag to the end, and an image grid whose bus tiles are clicked before Verify.
Neither has an element an agent could `click` to solve it: the slider wants a motion
(a jump is refused), the grid's tiles are known only by what they show."""

from __future__ import annotations

from conftest import page

# The handle must be dragged (pointerdown, several pointermoves, pointerup) to the end of
# the track: a single jump, or letting go short of the end, is refused.
SLIDER = """
<div id="track" style="position:absolute;left:40px;top:120px;width:400px;height:40px;
     background:#ccc">
  <div id="handle" style="position:absolute;left:0;top:0;width:40px;height:40px;
       background:#2a6;touch-action:none"></div>
</div>
<p id="status" style="position:absolute;top:180px;left:40px">Slide to verify</p>
<script>
  const handle = document.getElementById('handle'), status = document.getElementById('status');
  let grab = null, left = 0, moves = 0;
  handle.addEventListener('pointerdown', e => {
    grab = e.clientX - left; moves = 0; handle.setPointerCapture(e.pointerId); });
  handle.addEventListener('pointermove', e => {
    if (grab === null) return;
    moves++;
    left = Math.max(0, Math.min(360, e.clientX - grab));
    handle.style.left = left + 'px'; });
  handle.addEventListener('pointerup', () => {
    grab = null;
    if (left >= 355 && moves >= 3) { status.textContent = 'Verified'; return; }
    status.textContent = moves < 3 ? 'Too fast: try again' : 'Not at the end: try again';
    left = 0; handle.style.left = '0px'; });
</script>"""

# 3x3 tiles of 100 px from (40, 120); the bus tiles are 2, 4 and 9 (from 1, row by row).
BUS_TILES = (2, 4, 9)
GRID = """
<p>Select all squares with a bus</p>
<div id="grid" style="position:absolute;left:40px;top:120px;width:300px;
     display:grid;grid-template-columns:repeat(3,100px);grid-auto-rows:100px">
""" + "".join(
    f'<div class="tile" data-n="{n}" style="background:{"#fc3" if n in BUS_TILES else "#8ac"};'
    f'border:2px solid #fff;box-sizing:border-box;font-size:40px;text-align:center">'
    f'{"&#x1F68C;" if n in BUS_TILES else ""}</div>' for n in range(1, 10)) + """
</div>
<button id="verify" style="position:absolute;left:40px;top:440px">Verify</button>
<p id="status" style="position:absolute;left:40px;top:470px">Not verified</p>
<input id="note" aria-label="Note" style="position:absolute;left:40px;top:520px">
<script>
  for (const tile of document.querySelectorAll('.tile'))
    tile.addEventListener('click', () => {
      tile.classList.toggle('chosen');
      tile.style.outline = tile.classList.contains('chosen') ? '4px solid red' : ''; });
  document.getElementById('verify').addEventListener('click', () => {
    const chosen = [...document.querySelectorAll('.tile.chosen')].map(t => +t.dataset.n);
    document.getElementById('status').textContent =
      chosen.join(',') === '""" + ",".join(map(str, BUS_TILES)) + """' ? 'Verified'
        : 'Wrong tiles: ' + chosen.join(','); });
</script>"""


# Added to either page: it says it is a CAPTCHA (a marker Cockpit recognises, so an agent
# is told a person is needed) until it is solved.
UNTIL_SOLVED = """
<div data-captcha style="position:absolute;top:20px;left:40px">Prove you are human</div>
<script>
  new MutationObserver(() => {
    if (document.getElementById('status').textContent === 'Verified')
      document.querySelector('[data-captcha]')?.remove();
  }).observe(document.getElementById('status'), {childList: true, characterData: true,
                                                 subtree: true});
</script>"""


def tile_centre(n: int) -> tuple[int, int]:
    """The middle of tile n (1 to 9) in viewport CSS pixels."""
    row, col = divmod(n - 1, 3)
    return 40 + 100 * col + 50, 120 + 100 * row + 50


def slider_url(base: str) -> str:
    return base + page("live-slider", SLIDER)


def grid_url(base: str) -> str:
    return base + page("live-grid", GRID)


async def status_of(page_) -> str:
    return await page_.text_content("#status")
