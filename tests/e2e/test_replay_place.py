"""Replay checks where it is before each step: a step recorded on one page is refused on
another (a clear line: where it was recorded, where it is), even when that page has an
element of the same role and name; `cockpit replay` stops at the first divergence unless
--keep-going; URLs are compared by what is stable in them and shown whole."""

from __future__ import annotations

import json
import subprocess
import sys

import conftest
from cockpit.record.location import Place, differs, page_key
from cockpit.record.reader import read
from cockpit.record.recorder import Recorder
from cockpit.record.replay import Replayer, compare
from conftest import ok, page, ref_of

COCKPIT = [sys.executable, "-m", "cockpit"]

START = page("place-start", "<a href='/place-form'>Next</a>")
FORM = page("place-form", "<button onclick=\"document.title='form saved'\">Save</button>")
# another page with a button of the same role and name: what the old replay clicked
OTHER = page("place-other", "<button onclick=\"document.title='WRONG save'\">Save</button>")


async def _record(s, base, path) -> None:
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {base}{START}")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'link', 'Next')}")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'button', 'Save')}")
    finally:
        recorder.close()


async def test_a_step_on_the_wrong_page_is_refused_not_run(s, base, tmp_path):
    path = tmp_path / "walk.jsonl"
    await _record(s, base, path)
    rec = read(path)
    assert rec.steps[4]["at"]["url"] == f"{base}{FORM}"  # where the Save click began
    conftest.PAGES["place-start"] = conftest.PAGES["place-start"].replace(
        "/place-form", "/place-other")  # the site changed: Next leads elsewhere
    try:
        await ok(s, "goto about:blank")
        replayer = Replayer(s, rec)
        reports = [await replayer.step(step) for step in rec.steps]
    finally:
        conftest.PAGES["place-start"] = conftest.PAGES["place-start"].replace(
            "/place-other", "/place-form")
    # (with --keep-going: every step after it is refused, its snapshot too)
    assert [r.status for r in reports] == ["same", "same", "diverged", "diverged", "diverged"]
    assert any("expected to end on" in r for r in reports[2].reasons)
    refused = reports[4]
    assert refused.reasons == [f'wrong page: recorded on tab 1 "place-form" {base}{FORM}, '
                               f'this is tab 1 "place-other" {base}{OTHER}', "not run"]
    assert (await ok(s, "title")).output == "place-other"  # its Save was not clicked


def test_replay_stops_at_the_first_divergence_unless_keep_going(base, tmp_path):
    """The CLI: stopped there, and said so; --keep-going reports the refused step too."""
    path = tmp_path / "walk.jsonl"
    _record_by_cli(path, base)
    conftest.PAGES["place-start"] = conftest.PAGES["place-start"].replace(
        "/place-form", "/place-other")
    try:
        stopped = _replay(path)
        going = _replay(path, "--keep-going", "--json")
    finally:
        conftest.PAGES["place-start"] = conftest.PAGES["place-start"].replace(
            "/place-other", "/place-form")
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    out = stopped.stdout
    assert "   3 DIFF click" in out and "   4 " not in out
    assert "5 steps: 2 as recorded, 1 diverged (3), 0 skipped, 2 not run (stopped at the " \
           "first divergence: --keep-going runs them)" in out
    reports = [json.loads(line) for line in going.stdout.splitlines()]
    assert going.returncode == 1 and [r["status"] for r in reports][-1] == "diverged"
    assert reports[-1]["reasons"][0].startswith('wrong page: recorded on tab 1 "place-form"')


def _record_by_cli(path, base) -> None:
    from test_recording import send, start
    from test_run_cli import ref
    proc = start(["--record", str(path)])
    try:
        send(proc, f"goto {base}{START}")
        send(proc, f"click {ref(send(proc, 'snapshot -i')['output'], 'link', 'Next')}")
        send(proc, f"click {ref(send(proc, 'snapshot -i')['output'], 'button', 'Save')}")
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0


def _replay(path, *extra) -> subprocess.CompletedProcess:
    return subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                     "replay-place", *extra],
                          capture_output=True, text=True, timeout=180)


def test_what_is_stable_in_a_url_is_what_is_compared():
    same = [("http://h/admin/shop/product/3/change/", "http://h/admin/shop/product/41/change"),
            ("http://h/reset/9f86d081-884c-4d63-9a2b-b3c5a5e0e6b1/", "http://h/reset/"
             "0c2f6c2e-1111-4d63-9a2b-b3c5a5e0e6b1/"),
            ("http://h/inbox?token=abc&page=1", "http://h/inbox?page=2&token=xyz"),
            ("http://h/inbox#top", "http://h/inbox"),
            ("http://H/a/", "http://h/a")]
    for a, b in same:
        assert page_key(a) == page_key(b), (a, b)
    other = [("http://h/admin/shop/product/add/",
              "http://h/admin/shop/category/add/?_to_field=id&_popup=1"),
             ("http://h/product/add/", "http://h/product/add/?_popup=1"),
             ("http://h/app#/inbox", "http://h/app#/settings"),
             ("http://h/teapot-large", "http://h/teapot-small"),
             ("about:blank", "data:text/html,x")]
    for a, b in other:
        assert page_key(a) != page_key(b), (a, b)
    assert differs(Place(1, "http://h/a", "Inbox (3)"), Place(1, "http://h/a/", "Inbox (4)")) \
        is None
    assert differs(Place(1, "http://h/a", "Add product"), Place(1, "http://h/a", "Error")) \
        == 'wrong title: recorded on tab 1 "Add product" http://h/a, this is tab 1 "Error" ' \
           "http://h/a"


def test_replay_shows_urls_whole_and_lists_in_whole_items():
    reasons = compare({"ok": True, "url": "http://h/admin/", "diff": None},
                      {"ok": True, "url": "http://h/login/?next=/admin/", "diff": None})
    assert reasons == ["expected to end on http://h/admin/, got http://h/login/?next=/admin/"]
    many = {"changes": [{"kind": "added", "role": "row", "name": f"Product number {i}"}
                        for i in range(40)]}
    reason = compare({"ok": True, "diff": many}, {"ok": True, "diff": {"changes": []}})[0]
    items = reason.removeprefix("the page changed differently: missing ").split(", ")
    assert items[-1].startswith("and ") and items[-1].endswith(" more")
    assert all(item.startswith('+ row "Product number ') and item.endswith('"')
               for item in items[:-1]), reason
    assert len(items) - 1 + int(items[-1].split()[1]) == 40


async def test_a_wait_may_find_the_page_it_waited_for_already_there(s, base, tmp_path):
    """Recorded while the click's page was still coming (it began on the page before),
    a `wait` that finds this run already on the page it waited for runs: not refused."""
    path = tmp_path / "wait.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {base}{START}")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'link', 'Next')}")
        await ok(s, "wait --text Save")
    finally:
        recorder.close()
    rec = read(path)
    rec.steps[3]["at"] = {**rec.steps[3]["at"], "url": f"{base}{START}",
                          "title": "place-start"}  # as a slower recording saw it begin
    await ok(s, "goto about:blank")
    replayer = Replayer(s, rec)
    reports = [await replayer.step(step) for step in rec.steps]
    assert [r.status for r in reports] == ["same"] * 4, [r.reasons for r in reports]


WORDY = page("place-wordy", (  # buttons named only by their words (Streamlit's)
    "<button onclick=\"document.title='cancelled'\"><p>Cancel</p></button>"
    "<button onclick=\"document.title='ordered'\"><div><p>Place order</p></div></button>"))


async def test_a_button_named_by_its_words_is_found_again_and_exported_by_them(
        s, base, tmp_path):
    from cockpit.record.export import to_pytest
    path = tmp_path / "wordy.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {base}{WORDY}")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'button', 'Place order')}")
    finally:
        recorder.close()
    rec = read(path)
    assert rec.steps[2]["targets"] == {  # Playwright gives it no name: its words are kept
        ref_of(s, "button", "Place order")[1:]: {"role": "button", "name": "",
                                                 "label": "Place order", "nth": 0}}
    conftest.PAGES["place-wordy"] = conftest.PAGES["place-wordy"].replace(
        "<button", "<button>New</button><button", 1)  # every ref after it moves
    try:
        await ok(s, "goto about:blank")
        replayer = Replayer(s, rec)
        reports = [await replayer.step(step) for step in rec.steps]
    finally:
        conftest.PAGES["place-wordy"] = conftest.PAGES["place-wordy"].replace(
            "<button>New</button>", "", 1)
    assert reports[2].status == "same", [r.reasons for r in reports]
    assert (await ok(s, "title")).output == "ordered"  # not "New", not "Cancel"
    code = to_pytest(rec, "wordy")
    assert "page.get_by_role('button').filter(has_text='Place order').click()" in code
