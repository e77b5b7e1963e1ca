"""Expectations in a recorded walk: `cockpit replay` checks each one, reports those that
fail apart from divergences (and goes on past them: checking changed nothing), and exits
1 when any failed."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import page
from test_recording import records, send, start
from test_run_cli import ref

COCKPIT = [sys.executable, "-m", "cockpit"]


def walk_page(word: str = "Saved", news: bool = True) -> str:
    box = "<label><input type=checkbox id=news> News</label>" if news else ""
    return page("expect-walk", f"""
<label>Email <input id=email></label> {box}
<button onclick="save()">Save</button>
<p id=msg>Nothing saved</p>
<script>function save() {{
  document.getElementById('msg').textContent = '{word} ' +
    document.getElementById('email').value;
  document.title = '{word}';
  history.pushState({{}}, '', '?saved=1');
}}</script>""")


def record_walk_with_expectations(path, base) -> None:
    proc = start(["--record", str(path)])
    try:
        assert send(proc, f"goto {base}{walk_page()}")["ok"]
        snap = send(proc, "snapshot -i")["output"]
        email, news = ref(snap, "textbox", "Email"), ref(snap, "checkbox", "News")
        assert send(proc, f"fill {email} a@b.c")["ok"]
        assert send(proc, f"check {news}")["ok"]
        assert send(proc, f"click {ref(snap, 'button', 'Save')}")["ok"]
        for line in ("expect '#msg' text 'Saved a@b.c' --timeout 1500",
                     f"expect {email} value a@b.c", f"expect {news} checked",
                     "expect title Saved --timeout 1500", "expect url /saved=1/"):
            assert send(proc, line)["ok"], line
        failed = send(proc, "expect '#msg' text Nope --timeout 100")  # failed when recorded
        assert not failed["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 1  # `run` says a command failed: the last expectation


def replay(path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                     "expect-replay", *extra],
                          capture_output=True, text=True, timeout=180)


def test_replay_checks_expectations_and_reports_the_failed_ones_apart(tmp_path, base):
    path = tmp_path / "walk.jsonl"
    record_walk_with_expectations(path, base)
    steps = [r for r in records(path) if r["type"] == "step"]
    assert [s["command"].split()[0] for s in steps].count("expect") == 6
    same = replay(path)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "11 steps: 10 as recorded, 0 diverged, 1 skipped" in same.stdout
    assert "5 expectations held" in same.stdout
    assert "an expectation that failed when recorded" in same.stdout

    walk_page("Stored")  # the site now says "Stored": two expectations no longer hold
    try:
        changed = replay(path)
        as_json = replay(path, "--json")
    finally:
        walk_page()
    assert changed.returncode == 1, changed.stdout + changed.stderr
    out = changed.stdout
    assert "11 steps: 8 as recorded, 0 diverged, 1 skipped" in out  # not divergences
    assert "2 expectations failed (of 5)" in out
    listed = out.split("2 expectations failed (of 5)")[1].splitlines()[1:]
    assert listed == ['  step 6: expected `#msg` text "Saved a@b.c", found "Stored a@b.c"',
                      '  step 9: expected title "Saved", found "Stored"'], out
    assert '   6 FAIL expect' in out  # in the walk, where it happened, too
    reports = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert as_json.returncode == 1
    assert [r["n"] for r in reports if r["status"] == "failed"] == [6, 9]
    assert len(reports) == 11  # the walk went on past them


def test_an_expectation_on_an_element_that_is_gone_fails_naming_it(tmp_path, base):
    path = tmp_path / "walk.jsonl"
    record_walk_with_expectations(path, base)
    walk_page(news=False)  # the News checkbox is gone: the page itself diverges
    try:
        stopped = replay(path)
        going = replay(path, "--keep-going", "--json")
    finally:
        walk_page()
    assert stopped.returncode == 1 and "1 diverged (1)" in stopped.stdout
    reports = {r["n"]: r for r in map(json.loads, going.stdout.splitlines())}
    assert reports[4]["status"] == "diverged"  # `check` has nothing to act on
    assert reports[8]["status"] == "failed"
    assert reports[8]["reasons"][-1].startswith("expected @e")
    assert reports[8]["reasons"][-1].endswith(
        ' (checkbox "News") checked, found no such element on the page')
    assert reports[7]["status"] == "same"  # the field is still there and holds its value


def test_the_listing_a_pick_came_from_is_no_step_of_the_walk(tmp_path, base):
    """`expectations` (what the TUI's `a` lists) is recorded, but replay and export leave
    it out: where the element is gone, the expectation picked from it fails and is named,
    instead of the listing stopping the replay as a divergence before it."""
    from cockpit.record.export import to_pytest
    from cockpit.record.reader import read
    path = tmp_path / "picked.jsonl"
    proc = start(["--record", str(path)])
    try:
        assert send(proc, f"goto {base}{walk_page()}")["ok"]
        news = ref(send(proc, "snapshot -i")["output"], "checkbox", "News")
        listed = send(proc, f"expectations {news}")
        assert listed["ok"] and f"expect {news} unchecked" in listed["output"]
        assert send(proc, f"expect {news} unchecked")["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    steps = [r["command"] for r in records(path) if r["type"] == "step"]
    assert steps[2:] == [f"expectations {news}", f"expect {news} unchecked"]
    code = to_pytest(read(path), "picked")
    assert "expectations" not in code.split("def test_picked", 1)[1].replace(
        "# step 3: expectations", ""), code
    same = replay(path)
    assert same.returncode == 0, same.stdout
    assert "   3 skip expectations" in same.stdout and "1 expectation held" in same.stdout
    walk_page(news=False)
    try:
        gone = replay(path, "--keep-going", "--json")
    finally:
        walk_page()
    assert gone.returncode == 1, gone.stdout
    reports = {r["n"]: r for r in map(json.loads, gone.stdout.splitlines())}
    assert reports[3]["status"] == "skipped", reports[3]  # not a divergence of its own
    assert reports[4]["status"] == "failed"
    assert reports[4]["reasons"][-1] == (f'expected {news} (checkbox "News") unchecked, '
                                         "found no such element on the page")
