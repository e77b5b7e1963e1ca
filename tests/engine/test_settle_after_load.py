"""What a page sets loading at its `load` (an image, a stylesheet its script adds) is in
the goto's result: settling waits out a short quiet after `load` only when the page says
nothing of it is still coming (settle.py's `_nothing_loading`)."""

from __future__ import annotations

import pytest

from conftest import ok, page, stylesheet

from cockpit.core.settle.settle import _nothing_loading

LATE_PICTURE = page("after-load-picture", "<p>Gallery</p><script>addEventListener('load', "
                    "() => { const i = new Image(); i.alt = 'Late picture'; i.width = 40; "
                    "i.height = 30; i.src = '/after-load-missing.png?slow=400'; "
                    "document.querySelector('main').append(i); })</script>")
SHEET = stylesheet("after-load-sheet", "#soon-hidden { display: none }")
LATE_SHEET = page("after-load-sheet-page", "<p id=soon-hidden>Soon hidden</p><p>Stays</p>"
                  "<script>addEventListener('load', () => { const l = "
                  "document.createElement('link'); l.rel = 'stylesheet'; "
                  f"l.href = '{SHEET}?slow=400'; document.head.append(l); }})</script>")
PLAIN = page("after-load-plain", "<p>Nothing more to come</p>")


async def test_a_picture_a_page_adds_at_its_load_is_in_the_gotos_result(s, base):
    await ok(s, f"goto {base}{LATE_PICTURE}")
    assert ("img", "Late picture") in _shown(s)


async def test_a_stylesheet_a_page_adds_at_its_load_applies_in_the_gotos_result(s, base):
    await ok(s, f"goto {base}{LATE_SHEET}")
    texts = " ".join(name for _, name in _shown(s))
    assert "Stays" in texts and "Soon hidden" not in texts, texts


def _shown(s) -> list[tuple[str, str]]:
    """(role, name or text) of every node of what the goto's result was made of: the
    tab's snapshot, as that step left it (no new look)."""
    seen = s.active.snapshot
    assert seen is not None
    return [(n.role, n.name or n.words()) for root in seen.roots for n in root.walk()]


@pytest.mark.parametrize(("path", "loading"), [(LATE_PICTURE, True), (PLAIN, False)])
async def test_the_page_says_whether_anything_of_it_is_still_coming(s, base, path, loading):
    await ok(s, f"goto {base}{path}")
    if loading:  # the picture was in the result: another, as at its load (3 s to come)
        await s.active.page.evaluate("() => { const i = new Image(); "
                                     "i.src = '/after-load-missing.png?slow=3000'; "
                                     "document.body.append(i); }")
    assert await _nothing_loading(s.active.page) is not loading
