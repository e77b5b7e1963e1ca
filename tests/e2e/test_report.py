"""`cockpit report`: a recording, or a replay's recording, as one self-contained HTML file,
opened here in a real browser: the summary, every step in order, a picture after each step
that changed the page, failed expectations and divergences marked."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ok
from test_expect_replay import record_walk_with_expectations, walk_page
from test_recording import records, send, start

COCKPIT = [sys.executable, "-m", "cockpit"]

READ_REPORT_JS = """() => ({
  verdict: document.querySelector('#verdict').textContent,
  facts: Object.fromEntries([...document.querySelectorAll('.fact')].map(
    f => [f.dataset.fact, f.querySelector('dd').textContent])),
  steps: [...document.querySelectorAll('li.step')].map(li => ({
    n: li.dataset.n, marks: li.className.replace('step ', ''),
    command: li.querySelector('code.command').textContent,
    result: li.querySelector('pre.result').textContent,
    replay: li.querySelector('.replayed') ? li.querySelector('.replayed').textContent : null,
    picture: li.querySelector('figure img') ? {
      loaded: li.querySelector('figure img').complete,
      width: li.querySelector('figure img').naturalWidth,
      src: li.querySelector('figure img').getAttribute('src').slice(0, 23)} : null})),
  sheets: document.styleSheets.length,
})"""


def report(path, out) -> None:
    made = subprocess.run(COCKPIT + ["report", str(path), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert f"wrote {out}" in made.stdout


def self_contained(html: str) -> None:
    """Nothing the page would fetch: no script, no stylesheet link, no remote URL."""
    assert not re.search(r"<script|<link|<iframe|@import", html, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", html, re.I)


async def test_the_report_of_a_walk_shows_each_step_with_its_picture(s, base, tmp_path):
    path = tmp_path / "walk.jsonl"
    record_walk_with_expectations(path, base)
    steps = [r for r in records(path) if r["type"] == "step"]
    shots = sorted((tmp_path / "walk.shots").iterdir())
    # the steps that may change the page, and the expectation that failed; no read step
    assert [s["n"] for s in steps if s.get("shot")] == [1, 3, 4, 5, 11]
    assert [p.name for p in shots] == ["0001.jpg", "0002.jpg", "0003.jpg", "0004.jpg",
                                       "0005.jpg"]
    assert all(p.read_bytes()[:3] == b"\xff\xd8\xff" for p in shots)  # JPEGs
    assert all(p.stat().st_mode & 0o077 == 0 for p in shots)  # the owner's only
    out = tmp_path / "walk.html"
    report(path, out)
    assert out.stat().st_mode & 0o077 == 0  # as private as the recording it shows
    self_contained(out.read_text())
    await ok(s, f"goto file://{out}")
    seen = await s.active.page.evaluate(READ_REPORT_JS)
    assert seen["verdict"] == "1 expectation failed"
    assert seen["facts"]["steps"] == "11" and seen["facts"]["expectations failed"] == "1 of 6"
    assert seen["facts"]["who drove"] == "script (11 steps)"
    assert seen["facts"]["pictures"] == "5" and seen["sheets"] == 1
    assert [row["n"] for row in seen["steps"]] == [str(n) for n in range(1, 12)]
    assert seen["steps"][2]["command"] == steps[2]["command"]  # fill @eN a@b.c
    for row in seen["steps"]:
        if row["n"] in ("1", "3", "4", "5", "11"):
            picture = row["picture"]  # decoded by the browser: a real picture, inline
            assert picture["loaded"] and picture["width"] >= 300, row
            assert picture["src"] == "data:image/jpeg;base64,"
        else:
            assert row["picture"] is None, row
    last = seen["steps"][-1]
    assert last["marks"] == "expectation-failed"
    assert last["result"] == 'expected `#msg` text "Nope", found "Saved a@b.c"'
    assert {row["marks"] for row in seen["steps"][:-1]} == {"ok"}


async def test_the_report_of_a_replay_marks_divergences_and_failed_expectations(
        s, base, tmp_path):
    path = tmp_path / "walk.jsonl"
    record_walk_with_expectations(path, base)
    replayed = tmp_path / "replayed.jsonl"
    walk_page("Stored", news=False)  # the News checkbox is gone, and the page says Stored
    try:
        run = subprocess.run(COCKPIT + ["replay", str(path), "--keep-going", "--record",
                                        str(replayed), "--session", "report-replay"],
                             capture_output=True, text=True, timeout=180)
    finally:
        walk_page()
    assert run.returncode == 1, run.stdout + run.stderr
    out = tmp_path / "replayed.html"
    report(replayed, out)
    self_contained(out.read_text())
    await ok(s, f"goto file://{out}")
    seen = await s.active.page.evaluate(READ_REPORT_JS)
    assert seen["verdict"] == "3 expectations failed, 2 diverged", seen["verdict"]
    marks = [row["marks"] for row in seen["steps"]]
    assert marks.count("diverged") == 2 and marks.count("expectation-failed") == 3
    not_run = [row for row in seen["steps"] if row["result"] == "not run in this replay"]
    # the check and the expectation on the gone checkbox; the failure it recorded
    assert [row["n"] for row in not_run] == ["4", "8", "11"]
    assert any("not on the page now" in (row["replay"] or "") for row in not_run)
    failed = [row for row in seen["steps"] if row["marks"] == "expectation-failed"]
    assert any('found "Stored a@b.c"' in row["result"] for row in failed)
    assert any("found no such element on the page" in (row["replay"] or "") for row in failed)
    assert all(row["picture"] and row["picture"]["width"] >= 300 for row in failed
               if row["result"] != "not run in this replay")


def test_no_shots_records_no_pictures(tmp_path, base):
    path = tmp_path / "plain.jsonl"
    proc = start(["--record", str(path), "--no-shots"])
    try:
        assert send(proc, f"goto {base}{walk_page()}")["ok"]
        assert send(proc, "click 'button[onclick]'")["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    steps = [r for r in records(path) if r["type"] == "step"]
    assert len(steps) == 2 and not any("shot" in step for step in steps)
    assert not (tmp_path / "plain.shots").exists()
