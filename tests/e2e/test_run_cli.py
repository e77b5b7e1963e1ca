"""`cockpit run` as programs use it: JSON over pipes, one answer per line, exit codes;
and the whole demo walk driven that way with refs read from snapshots."""

import json
import os
import re
import selectors
import subprocess
import sys

import pytest

COCKPIT = [sys.executable, "-m", "cockpit"]


class Driver:
    """`cockpit run --json` in a subprocess, fed one line at a time."""

    def __init__(self, session: str) -> None:
        self.proc = subprocess.Popen(COCKPIT + ["run", "--json", "--session", session],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1,
                                     env=os.environ.copy())
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, line: str, timeout: float = 60) -> dict:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        # The answer must come while stdin stays open: run answers before reading on.
        if not self.selector.select(timeout):
            raise AssertionError(f"no answer to {line!r} within {timeout} s")
        answer = json.loads(self.proc.stdout.readline())
        # the line as sent; what it typed into a password field comes back masked
        assert answer["command"] == line or "••••••" in answer["command"]
        return answer

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self.selector.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


def ref(snapshot: str, role: str, name: str) -> str:
    m = re.search(rf'^@(\w+) {role} "[^"]*{re.escape(name)}[^"]*"', snapshot, re.MULTILINE)
    assert m, f"no {role} {name!r} in:\n{snapshot}"
    return "@" + m.group(1)


def test_run_json_over_pipes_drives_the_demo_site_end_to_end(site):
    d = Driver("run-e2e")
    try:
        assert d.send(f"goto {site.url}/login")["ok"]
        snap = d.send("snapshot -i")["output"]
        assert d.send(f'fill {ref(snap, "textbox", "Email")} "{site.email}"')["ok"]
        assert d.send(f'fill {ref(snap, "textbox", "Password")} "{site.password}"')["ok"]
        answer = d.send(f'click {ref(snap, "button", "Sign in")}')
        assert answer["ok"] and "/mfa" in answer["output"]
        # MFA: the code is on the page (the demo's "phone"); type it key by key
        code = re.search(r"\b(\d{6})\b", d.send("text")["output"]).group(1)
        snap = d.send("snapshot -i")["output"]
        assert d.send(f'type {ref(snap, "textbox", "Verification code")} {code}')["ok"]
        assert "/challenge" in d.send("press Enter")["output"]
        snap = d.send("snapshot -i")["output"]
        d.send(f'fill {ref(snap, "textbox", "characters")} {site.captcha_answer}')
        assert "/inbox" in d.send(f'click {ref(snap, "button", "Continue")}')["output"]
        snap = d.send("snapshot -i")["output"]
        answer = d.send(f'click {ref(snap, "button", "Archive: Lunch")}')
        assert answer["data"]["diff"]["removed"] >= 1
        answer = d.send(f'click {ref(snap, "link", "Open report")}')
        assert "opened tab 2" in answer["output"]
        assert d.send("tab 2")["ok"]
        d.send("wait --load")
        assert "Weekly report" in d.send("snapshot -i")["output"]
        bad = d.send("click @e424242")
        assert not bad["ok"] and "snapshot" in bad["error"]
        assert d.send("title")["ok"]  # the session went on after the error
    finally:
        code = d.close()
    assert code == 1  # a command failed along the way


def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(COCKPIT + args, input=stdin, text=True, capture_output=True,
                          timeout=120, env=os.environ.copy())


def test_run_file_plain_output_and_exit_codes(site, tmp_path):
    script = tmp_path / "walk.cockpit"
    script.write_text(f"# a comment\n\ngoto {site.url}/report\ntitle\n")
    done = run(["run", "--session", "run-file", str(script)])
    assert done.returncode == 0, done.stderr
    assert "Weekly report" in done.stdout and done.stderr == ""
    script.write_text(f"goto {site.url}/report\nclik\ntitle\n")
    done = run(["run", "--session", "run-file", str(script)])
    assert done.returncode == 2
    assert "error: unknown command 'clik'" in done.stderr
    assert done.stdout.count("Weekly report — Cockpit Demo") == 2  # it went on after it
    done = run(["run", "--session", "run-file", "--echo"],
               stdin=f"goto {site.url}/report\nclick '#nothing'\n")
    assert done.returncode == 1 and "$ click '#nothing'" in done.stdout


def test_run_with_missing_file_is_a_usage_error(tmp_path):
    done = run(["run", str(tmp_path / "nope.txt")])
    assert done.returncode == 2 and "no such file" in done.stderr


def test_bad_browser_path_says_how_to_get_a_browser(tmp_path):
    done = run(["run", "--session", "nobrowser", "--browser-path", str(tmp_path / "chrome")],
               stdin="title\n")
    assert done.returncode == 1
    assert "is not an executable file" in done.stderr and "apt-get install chromium" in done.stderr


@pytest.mark.parametrize("flag", ["--json", "--markdown", None])
def test_commands_reference(flag):
    done = run(["commands"] + ([flag] if flag else []))
    assert done.returncode == 0
    if flag == "--json":
        names = {c["name"] for c in json.loads(done.stdout)["commands"]}
        assert {"click", "snapshot", "chain"} <= names
    else:
        assert "click" in done.stdout
