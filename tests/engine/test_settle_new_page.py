"""A new page that goes on rendering after its load, on a real site: the search page of
Python's own documentation (Debian's python3-doc, built by Sphinx) adds its results one
5 ms timer after another, for a second and more after `load`. The step's result had
what was there when settling stopped (a heading still saying "Searching", half of the
results) and said nothing of the rest."""

from __future__ import annotations

from conftest import ok, ref_of

STILL = "the page was still changing"


async def search(s, pydoc_url: str, words: str):
    await ok(s, f"goto {pydoc_url}/library/functions.html")
    await ok(s, "snapshot -i")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Quick search')} {words}")
    return await ok(s, "press Enter")


def finished(result) -> bool:
    """Whether the result holds the page's own word that its search is over."""
    return any("Search finished" in (change.get("text") or change.get("name") or "")
               for change in result.data["diff"]["changes"])


async def test_a_page_rendering_in_steps_is_waited_for_and_said_when_it_goes_on(
        s, pydoc_url):
    few = await search(s, pydoc_url, "zip_longest")  # a few results: done in ~100 ms
    assert finished(few) and STILL not in few.output, few.output
    many = await search(s, pydoc_url, "zip")  # ~190 of them: longer than settling waits
    assert finished(many) or many.output.splitlines()[1].startswith(f"note: {STILL}"), \
        many.output
