"""A loop that polls (a callback setting itself again with the same delay, the DOM still:
a code editor polling its input textarea from the moment it has the focus) is not the
action's work: settling stops counting it after its second round, so a fill in such an
editor does not wait out the whole timer limit. A loop that changes the DOM each round
(a typewriter) is the action's, followed to its end as before."""

from __future__ import annotations

import asyncio
import time

from cockpit.core.settle import settle

from conftest import ok, page, ref_of

POLLING = page("settle-polls", """
<textarea aria-label="Query"></textarea>
<button id="type" onclick="typeOut()">Type it out</button><p id="out"></p>
<script>
window.polls = 0;
function poll() { window.polls++; setTimeout(poll, 100); }  // reads nothing, changes nothing
document.querySelector('textarea').addEventListener('focus', () => setTimeout(poll, 100),
                                                    {once: true});
function typeOut() {
  const word = 'TYPEWRITER';
  let n = 0;
  const step = () => {
    document.getElementById('out').textContent = word.slice(0, ++n);
    if (n < word.length) setTimeout(step, 60);
  };
  setTimeout(step, 60);
}
</script>""")


async def test_a_fill_does_not_wait_out_a_poll_loop_its_focus_started(s, base):
    """Counted in the page's own rounds (its clock, slow or fast as the machine is): the
    fill's answer came after at most four rounds of 100 ms, where the timer limit (1 s)
    is ten; and the probe no longer counts the loop, which runs on."""
    await ok(s, f"goto {base}{POLLING}")
    await ok(s, "snapshot -i")
    since = time.time() * 1000
    await ok(s, f'fill {ref_of(s, "textbox", "Query")} "select 1"')
    page_ = s.active.page
    rounds = await page_.evaluate("window.polls")
    assert rounds <= 4, f"the fill waited for {rounds} rounds of the page's poll loop"
    while await page_.evaluate("window.polls") < rounds + 2:  # the loop runs on ...
        await asyncio.sleep(0.05)
    state = await settle.probe(page_, since)
    assert state is not None and state["timers"] == 0, state  # ... uncounted


async def test_a_loop_that_changes_the_page_each_round_is_followed_to_its_end(s, base):
    await ok(s, f"goto {base}{POLLING}")
    await ok(s, "snapshot -i")
    typed = await ok(s, f'click {ref_of(s, "button", "Type it out")}')
    assert "TYPEWRITER" in typed.output, typed.output
