"""What a page sets loading at its `load` (an image, a stylesheet its script adds) is in
the goto's result: settling waits out a short quiet after `load` only when the page says
nothing of it is still coming (after_load.nothing_loading); and an app that boots in
modules after its `load` is in it once booted (after_load.booted)."""

from __future__ import annotations

import pytest

from conftest import ok, page, script, stylesheet

from cockpit.core.settle.after_load import nothing_loading

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
# An app of modules, as Vite builds them (Gradio's): the entry imports its layout, which
# arrives after `load`, is evaluated in one long task (150 ms of script, no request on its
# way, the DOM still) and only then imports the form's module, which renders the form.
FORM = script("boot-form", "const f = document.createElement('form'); f.innerHTML = "
              "'<label>Name <input name=n></label><button type=button>Greet</button>'; "
              "document.querySelector('main').append(f);")
LAYOUT = script("boot-layout", "const t = Date.now(); while (Date.now() - t < 150); "
                f"import('{FORM}');")
BOOTING = page("after-load-booting", "<p>Loading the app</p>",
               f"<script type=module>import('{LAYOUT}?slow=150');</script>")


async def test_a_picture_a_page_adds_at_its_load_is_in_the_gotos_result(s, base):
    await ok(s, f"goto {base}{LATE_PICTURE}")
    assert ("img", "Late picture") in _shown(s)


async def test_a_stylesheet_a_page_adds_at_its_load_applies_in_the_gotos_result(s, base):
    await ok(s, f"goto {base}{LATE_SHEET}")
    texts = " ".join(name for _, name in _shown(s))
    assert "Stays" in texts and "Soon hidden" not in texts, texts


async def test_an_app_that_boots_in_modules_after_its_load_is_in_the_gotos_result(s, base):
    opened = await ok(s, f"goto {base}{BOOTING}")
    # it answered with the loading line alone, before the layout's module had run
    assert ("textbox", "Name") in _shown(s) and ("button", "Greet") in _shown(s), \
        opened.output


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
    assert await nothing_loading(s.active.page) is not loading
