"""`cockpit replay`: a recorded walk of the demo site replays as recorded, and the step a
changed site breaks is the one reported."""

from __future__ import annotations

import json
import subprocess
import sys

from test_recording import records, send, start
from test_run_cli import ref

COCKPIT = [sys.executable, "-m", "cockpit"]


def record_a_walk(path, site) -> None:
    proc = start(["--record", str(path), "--secret", "CODE"], env={"CODE": site.mfa_code})
    try:
        send(proc, f"goto {site.url}/login")
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'Email')} {site.email}")
        send(proc, f"fill {ref(page, 'textbox', 'Password')} {site.password}")
        send(proc, f"click {ref(page, 'button', 'Sign in')}")
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'code')} $CODE")
        send(proc, f"click {ref(page, 'button', 'Verify')}")
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'characters')} {site.captcha_answer}")
        assert send(proc, f"click {ref(page, 'button', 'Continue')}")["ok"]
        page = send(proc, "snapshot -i")["output"]
        assert send(proc, f"click {ref(page, 'button', 'Archive')}")["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0


def replay(path, site, *extra) -> subprocess.CompletedProcess:
    return subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                     "replay-test", "--secret", f"CODE={site.mfa_code}",
                                     "--secret", f"PASSWORD={site.password}", *extra],
                          capture_output=True, text=True, timeout=180)


def test_replay_passes_then_reports_the_step_a_changed_site_breaks(tmp_path, site):
    path = tmp_path / "walk.jsonl"
    record_a_walk(path, site)
    steps = [r for r in records(path) if r["type"] == "step"]
    assert steps[3]["command"].endswith("$PASSWORD")  # masked, so replay must be given it
    same = replay(path, site)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "13 steps: 13 as recorded, 0 diverged, 0 skipped" in same.stdout
    missing = subprocess.run(COCKPIT + ["replay", str(path), "--no-record"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "--secret CODE=VALUE --secret PASSWORD=VALUE" in \
        missing.stderr
    site.variant = "changed"  # the inbox's Archive button is now "File away"
    try:
        stopped = replay(path, site, "--json")
        changed = replay(path, site, "--json", "--keep-going")
    finally:
        site.variant = "normal"
    assert stopped.returncode == 1  # at the first divergence, by default
    assert [json.loads(line)["n"] for line in stopped.stdout.splitlines()][-1] == 11
    assert changed.returncode == 1
    reports = [json.loads(line) for line in changed.stdout.splitlines()]
    diverged = [r for r in reports if r["status"] == "diverged"]
    assert diverged[0]["n"] == 11  # the click that opens the inbox shows other buttons...
    assert any('+ button "File away' in reason for reason in diverged[0]["reasons"])
    last = reports[-1]  # ...and the Archive click cannot find its button
    assert last["n"] == 13 and last["status"] == "diverged"
    assert any('button "Archive' in reason and "not on the page" in reason
               for reason in last["reasons"]) and last["reasons"][-1] == "not run"


def test_a_damaged_recording_is_reported_and_the_rest_replays(tmp_path, site):
    path = tmp_path / "walk.jsonl"
    record_a_walk(path, site)
    lines = path.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"n": 2,' in line)
    lines[cut] = lines[cut][:40]  # step 2 (a snapshot) cut in half, mid-file
    path.write_text("\n".join(lines) + "\n")
    result = replay(path, site)
    assert f"line {cut + 1}: not a JSON object" in result.stderr
    assert "step 2 is missing" in result.stderr
    assert "12 steps: 12 as recorded, 0 diverged" in result.stdout and result.returncode == 0
