"""What an agent reads after an action (issue 17, economy): the refs a result shows are the
page's live ones, a ref given out before a list re-rendered still finds its element, and a
diff cut short keeps what the agent could not predict and says what it left out.

Each test runs on both paths: the incremental diff and a full snapshot per action."""

from __future__ import annotations

import re

import pytest
from conftest import fails, ok, page, ref_of

# A list rebuilt from scratch on every change (`innerHTML = ''` and new rows, as many apps
# do), a "Delete all" behind a confirm, and a status line that says when it is done.
TASKS = """<!doctype html><title>tasks</title><main><h1>Tasks</h1>
<ul id=list aria-label=Tasks></ul><button id=all>Delete all</button><p id=done role=status></p>
<p>Done <span id=count>0</span></p><fieldset id=keep></fieldset></main><script>
for (let i = 1; i <= 10; i++) keep.insertAdjacentHTML('beforeend',
  `<label><input type=checkbox checked> Keep ${i}</label>`);
let tasks = ['Write the report', 'Call the bank', 'Book the flight', 'Pay the rent',
             'Water the plants', 'Feed the cat'];
let numbered = false;
function render() {
  list.innerHTML = '';
  tasks.forEach((title, i) => {
    const row = document.createElement('li');
    row.append((numbered ? (i + 1) + '. ' : '') + title + ' ');
    const b = document.createElement('button');
    b.textContent = 'Archive';
    b.setAttribute('aria-label', 'Archive ' + title);
    b.onclick = () => { tasks = tasks.filter((t) => t !== title); count.textContent =
      String(Number(count.textContent) + 1); render(); };
    row.append(b);
    list.append(row);
  });
}
all.onclick = () => { if (!confirm('Delete all tasks?')) return; tasks = []; render();
  done.textContent = 'All deleted';
  keep.querySelectorAll('input').forEach((box) => { box.checked = false; }); };
window.renumber = () => { numbered = true; render(); };
render();
</script>"""

REF = re.compile(r"@((?:f\d+)?e\d+)")


@pytest.fixture(params=["incremental", "full"])
async def tasks(s, tmp_path, request):
    page = tmp_path / "tasks.html"
    page.write_text(TASKS, encoding="utf-8")
    s.incremental_diffs = request.param == "incremental"
    try:
        await ok(s, f"goto {page.as_uri()}")
        await ok(s, "snapshot -i")
        yield s
    finally:
        s.incremental_diffs = True


def _live_refs_only(s, output: str) -> None:
    """Every ref a result shows is one the page has now (a removed line names what left,
    and the first line what was acted on, which may have left with its row)."""
    live = s.active.snapshot.refs
    for line in output.splitlines()[1:]:
        if line.startswith("- "):
            continue
        for ref in REF.findall(line):
            assert ref in live, f"@{ref} in {line!r} is not on the page any more"


async def test_a_ref_given_before_a_list_re_rendered_finds_its_element(tasks):
    s = tasks
    book, rent = ref_of(s, "button", "Archive Book the flight"), \
        ref_of(s, "button", "Archive Pay the rent")
    first = await ok(s, f"click {book}")
    assert first.output.startswith(f"clicked {book}\n")  # the ref it gave: it knows it
    # the row went with its button: one line, the row told by its words, what it held by
    # its ref alone
    assert re.search(rf'^- @(?:f\d+)?e\d+ listitem: Book the flight \(with {book}\)$',
                     first.output, re.M), first.output
    _live_refs_only(s, first.output)
    assert rent[1:] not in s.active.snapshot.refs  # the row is a new element: a new ref
    # the agent still holds the ref it was given: it finds the re-rendered button, and the
    # result names the ref the button has now
    live_then = set(s.active.snapshot.refs)
    second = await ok(s, f"click {rent}")
    assert re.search(r'clicked @(?:f\d+)?e\d+ \(button "Archive Pay the rent"\)', second.output), \
        second.output
    clicked = REF.search(second.output.split("\n")[0]).group(1)
    assert clicked != rent[1:] and clicked in live_then  # the live ref, not the one given
    names = [n.name for n in s.active.snapshot.refs.values() if n.role == "button"]
    assert "Archive Pay the rent" not in names and "Archive Water the plants" in names
    assert await s.active.page.inner_text("#count") == "2"


async def test_a_changed_row_is_not_taken_for_the_old_one(tasks):
    """Rows whose words changed (renumbered) are not the same elements for sure: the old
    ref fails at once, as any outdated ref does, instead of clicking a guess."""
    s = tasks
    rent = ref_of(s, "button", "Archive Pay the rent")
    await ok(s, "js renumber()")
    await ok(s, f"click {ref_of(s, 'heading', 'Tasks')}")  # an action: its diff is taken
    result = await fails(s, f"click {rent}")
    assert "snapshot" in result.error
    assert await s.active.page.inner_text("#count") == "0"


async def test_a_cut_diff_keeps_the_news_and_says_what_it_left_out(tasks):
    s = tasks
    opened = await ok(s, f"click {ref_of(s, 'button', 'Delete all')}")
    assert "dialog" in opened.output
    result = await ok(s, "dialog accept")
    d = result.data["diff"]
    assert d["removed"] >= 12, d  # six rows and their buttons, and ten boxes unchecked
    lines = result.output.splitlines()
    assert any("All deleted" in line for line in lines), result.output  # the news, kept
    # the list went with its rows: one line says so (the data keeps every removal), and
    # removals are what a cut leaves out first
    cut = [line for line in lines if line.startswith("… ")]
    assert cut, result.output
    shown = sum(1 for line in lines if line[:2] in ("+ ", "- ", "~ "))
    left = int(re.search(r"… (\d+) more lines", cut[0]).group(1))
    assert shown + left + 12 == len(d["changes"]) and "snapshot -D" in cut[0]
    # what it left out is there in full
    full = await ok(s, "snapshot -D")
    assert len([line for line in full.output.splitlines() if line[:2] == "- "]) == d["removed"]
    assert "All deleted" in full.output
    _live_refs_only(s, result.output)


@pytest.mark.parametrize("incremental", [True, False])
async def test_a_url_change_says_only_what_changed_in_it(s, base, incremental):
    s.incremental_diffs = incremental
    try:
        await ok(s, f"goto {base}" + page("economy-url", (
            "<a href='#part-two'>To part two</a>"
            "<button onclick=\"history.pushState({}, '', '/economy-url/step?n=2')\">Next"
            "</button><h2 id='part-two'>Part two</h2>")))
        await ok(s, "snapshot -i")
        result = await ok(s, f"click {ref_of(s, 'link', 'To part two')}")
        assert result.output.splitlines()[1] == "URL -> #part-two", result.output
        assert result.data["tab"]["loading"] is False  # nothing loads: not "loading…"
        assert result.data["diff"]["url"] == [f"{base}/economy-url",
                                              f"{base}/economy-url#part-two"]
        result = await ok(s, f"click {ref_of(s, 'button', 'Next')}")
        assert result.output.splitlines()[1] == "URL /economy-url#part-two -> " \
            "/economy-url/step?n=2", result.output
        assert base in result.data["diff"]["summary"]  # the data says URLs in full
        assert result.data["tab"]["loading"] is False
    finally:
        s.incremental_diffs = True
