"""Recordings written by real sessions: one JSON line per step, flushed as the step ends,
secrets masked, and a file a kill -9 cannot spoil."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import uuid

from test_run_cli import ref

COCKPIT = [sys.executable, "-m", "cockpit"]


def start(args: list[str], env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(COCKPIT + ["run", "--json", "--session",
                                       f"rec-{uuid.uuid4().hex[:8]}", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1,
                            env={**os.environ, **(env or {})})


def send(proc: subprocess.Popen, line: str) -> dict:
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(60), f"no answer to {line!r}"
    return json.loads(proc.stdout.readline())


def records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_session_is_recorded_with_its_secrets_masked(tmp_path, site):
    path = tmp_path / "walk.jsonl"
    proc = start(["--record", str(path), "--secret", "CODE"], env={"CODE": site.mfa_code})
    try:
        assert send(proc, f"goto {site.url}/login")["ok"]
        page = login = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'Email')} {site.email}")
        typed = send(proc, f"fill {ref(page, 'textbox', 'Password')} {site.password}")
        assert typed["ok"] and typed["data"]["secret"] is True
        send(proc, f"click {ref(page, 'button', 'Sign in')}")
        page = send(proc, "snapshot -i")["output"]
        answer = send(proc, f"fill {ref(page, 'textbox', 'code')} $CODE")
        assert answer["ok"] and answer["command"].endswith("$CODE")
        assert send(proc, "cookies")["ok"]  # the session cookie's value is on screen...
        assert send(proc, "clik")["ok"] is False
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 2  # the first failure's code: the usage error
    text = path.read_text(encoding="utf-8")
    assert site.mfa_code not in text  # a --secret: masked from the start (the page shows it)
    from_the_fill = text[text.index(f'"command": "fill {ref(login, "textbox", "Password")}'):]
    assert site.password not in from_the_fill  # typed into a password field: masked since
    assert os.stat(path).st_mode & 0o777 == 0o600
    rows = records(path)
    header, steps = rows[0], [r for r in rows if r["type"] == "step"]
    assert header["type"] == "header" and header["version"] == 1
    assert [s["n"] for s in steps] == list(range(1, 10))
    fill = steps[3]
    assert fill["command"].startswith("fill @") and fill["command"].endswith("$PASSWORD")
    assert fill["targets"] == {fill["command"].split()[1][1:]:
                               {"role": "textbox", "name": "Password", "nth": 0}}
    assert steps[6]["command"].endswith("$CODE") and steps[6]["url"].endswith("/mfa")
    cookie = next(s for s in steps if s["command"] == "cookies")
    assert "••••••" in cookie["output"]
    click = steps[4]
    assert click["ok"] and click["url"].endswith("/mfa") and click["diff"]["new_page"]
    assert steps[-1]["ok"] is False and steps[-1]["exit_code"] == 2


def test_a_killed_cockpit_leaves_every_finished_step(tmp_path, site):
    path = tmp_path / "killed.jsonl"
    proc = start(["--record", str(path)])
    try:
        for line in (f"goto {site.url}/login", "snapshot -i", "title"):
            assert send(proc, line)["ok"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        proc.kill()
    steps = [r for r in records(path) if r["type"] == "step"]  # every line parses
    assert [s["command"] for s in steps] == [f"goto {site.url}/login", "snapshot -i", "title"]


def test_no_record_writes_nothing(tmp_path, site, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proc = start(["--no-record"], env={"COCKPIT_RECORDINGS_DIR": str(tmp_path / "rec")})
    try:
        assert send(proc, f"goto {site.url}/")["ok"]
    finally:
        proc.stdin.close()
        proc.wait(60)
    assert not (tmp_path / "rec").exists()
    proc = start([], env={"COCKPIT_RECORDINGS_DIR": str(tmp_path / "rec")})
    try:
        assert send(proc, f"goto {site.url}/")["ok"]
    finally:
        proc.stdin.close()
        proc.wait(60)
    # the default: one file per session, and the pictures of its steps beside it
    made, shots = sorted((tmp_path / "rec").iterdir(), key=lambda p: p.suffix)
    assert made.name.startswith("rec-") and made.suffix == ".jsonl"
    assert shots.name == made.stem + ".shots" and shots.is_dir()


def test_a_bad_secret_is_refused_with_what_to_do(tmp_path):
    proc = start(["--secret", "1BAD=x"])
    proc.stdin.close()
    assert proc.wait(60) == 2  # a usage error, as in `serve`
    assert "a secret's name is letters, digits and _" in proc.stderr.read()


def test_a_damaged_recording_is_read_with_its_problems_by_line(tmp_path):
    from cockpit.record.reader import read

    path = tmp_path / "edited.jsonl"
    step = {"type": "step", "source": "human", "ok": True, "exit_code": 0, "ms": 1.0,
            "output": "", "error": None, "tab": 1, "url": "about:blank", "diff": None,
            "targets": {}}
    lines = [json.dumps({"type": "header", "format": "cockpit-recording", "version": 0}),
             json.dumps({**step, "n": 1, "command": "title"}),
             json.dumps({**step, "n": 2, "command": "url", "colour": "red"}),
             json.dumps({**step, "n": 4, "command": "tabs"}),
             "{not json",
             json.dumps({**step, "n": 5, "command": "status"}),
             '{"type": "step", "n": 6, "comm']  # cut mid-write, no newline
    path.write_text("\n".join(lines), encoding="utf-8")
    rec = read(path)
    assert [s["command"] for s in rec.steps] == ["title", "url", "tabs", "status"]
    assert rec.problems == [
        "line 1: recorded in format version 0, this Cockpit reads version 1: an older "
        "recording; steps are read as far as they match",
        "line 3: unknown field(s) colour: ignored",
        "line 4: step 3 is missing (the file was edited or cut): replay goes on without",
        "line 5: not a JSON object (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)): skipped",
        "line 7: a half-written last line (the cockpit stopped while writing it): skipped"]


def test_trace_writes_a_playwright_trace(tmp_path, site):
    import zipfile

    trace = tmp_path / "walk.zip"
    proc = start(["--no-record", "--trace", str(trace)])
    try:
        assert send(proc, f"goto {site.url}/login")["ok"]
        assert send(proc, "click 'button[type=submit]'")["ok"] is not None
    finally:
        proc.stdin.close()
        proc.wait(60)
    names = zipfile.ZipFile(trace).namelist()  # what Trace Viewer opens
    assert "trace.trace" in names and "trace.network" in names
    assert any(n.startswith("resources/") for n in names)  # the screenshots and snapshots


def test_masking_never_breaks_a_record_and_finds_values_wherever_they_are():
    from cockpit.record.mask import MASK, Masker

    masker = Masker({"PIN": "1234", "QUOTED": "it's \"x\""})
    record = {"time": 1712341234.5, "n": 1234, "command": "fill @e4 $PIN",
              "output": "pin 1234 and it's \"x\" and 'it'\"'\"'s \"x\"'"}
    line = masker.json_line(record)
    back = json.loads(line)  # numbers and structure untouched
    assert back["time"] == 1712341234.5 and back["n"] == 1234
    assert "1234" not in back["output"] and "it's" not in back["output"]
    masker.learn_from("type --delay 100 @e4 hunter2", {"secret": True})
    masker.learn_from("chain fill @e5 s3cret ; click @e6",
                      {"steps": [{"command": "fill @e5 s3cret", "data": {"secret": True}}]})
    masker.learn_from("cookies set --url https://x.test sid v4lue", {})
    long_token = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
    masker.learn_from("cookies", {"cookies": [{"value": long_token}]})
    text = masker.text(f"hunter2 s3cret v4lue {long_token[:37]}... Bearer abcdefghijklmnop")
    assert text == (f"$PASSWORD $PASSWORD2 {MASK} {MASK}... Bearer {MASK}"), text
    assert "100" in masker.text("100 ms")  # the delay is not the password
