"""End to end: the real `cockpit demo` TUI in a pseudo-terminal (tmux), driven by keys.

Only the screen is read, as a person would: wait for the login page's tab, take a
snapshot, find the Email textbox's ref in the refs pane, fill it, quit with Ctrl+Q.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COLS, ROWS = 200, 50


class Tmux:
    """One detached tmux session on a private server (never the user's tmux)."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:8]
        self.socket = f"cockpit-e2e-{os.getpid()}-{tag}"
        self.name = f"e2e-{tag}"
        self.socket_path: str | None = None

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        # An explicit env: pytest imports readline, which puts COLUMNS=80 and LINES=24 in
        # the C environment; inherited by the tmux server, they would make the app (through
        # shutil.get_terminal_size) draw itself at 80x24 in a 200x50 pane.
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        return subprocess.run(["tmux", "-L", self.socket, "-f", os.devnull, *args],
                              capture_output=True, text=True, timeout=10, check=check,
                              env=env)

    def start(self, command: list[str], env: dict[str, str], status_file: Path) -> None:
        """Run `command` in the pane; its exit status is written to `status_file`."""
        env_args = [a for key, value in env.items() for a in ("-e", f"{key}={value}")]
        shell = f"{shlex.join(command)}; echo $? > {shlex.quote(str(status_file))}"
        # remain-on-exit: the pane stays (dead) after the app exits, for dead() to see.
        self.tmux("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
                  "new-session", "-d", "-s", self.name, "-x", str(COLS), "-y", str(ROWS),
                  "-c", str(ROOT), *env_args, shell)
        self.socket_path = self.pane("#{socket_path}")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys)

    def type_line(self, line: str) -> None:
        self.keys(line, literal=True)
        self.keys("Enter")

    def pane(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", "-t", self.name, fmt).stdout.strip()

    def dead(self) -> bool:
        return self.pane("#{pane_dead}") == "1"

    def wait_for(self, what: str, predicate, timeout: float = 30.0):
        """Poll the screen until predicate(screen) is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            found = predicate(screen)
            if found:
                return found
            if self.dead():
                pytest.fail(f"cockpit exited while waiting for {what}; the screen was:\n"
                            f"{screen}")
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {what}; the screen was:\n{screen}")
            time.sleep(0.2)

    def kill(self) -> None:
        self.tmux("kill-server", check=False)
        if self.socket_path:  # tmux leaves its socket file behind
            Path(self.socket_path).unlink(missing_ok=True)


def row_matching(pattern: str):
    regex = re.compile(pattern)
    return lambda screen: next((m for m in map(regex.search, screen.splitlines()) if m), None)


def test_demo_tui_login_fill_and_quit(tmp_path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    env = {"COCKPIT_STATE_DIR": os.environ["COCKPIT_STATE_DIR"],
           "XDG_CONFIG_HOME": str(tmp_path / "config"),  # no user themes
           "TERM": "xterm-256color"}
    session_name = f"e2e-{uuid.uuid4().hex[:8]}"
    tmux = Tmux()
    try:
        status = tmp_path / "exit-status"
        tmux.start([sys.executable, "-m", "cockpit", "demo", "--no-agent", "--session",
                    session_name], env, status)
        # The demo opens its login page first: its title shows on the active tab's row.
        tmux.wait_for("the login tab", row_matching(r"▶.*Sign in"))
        tmux.wait_for("the goto in the log",
                      row_matching(r"goto http://127\.0\.0\.1:[\d…/login]*\s+ok"))

        tmux.type_line("snapshot -i")
        tmux.wait_for("the snapshot in the log", row_matching(r"snapshot -i\s+ok"))
        email = tmux.wait_for("the Email textbox in the refs pane",
                              row_matching(r"@(e\d+)\s+textbox\s+Email"))
        ref = email.group(1)

        tmux.type_line(f"fill @{ref} jane@example.com")
        done = tmux.wait_for("the fill in the log",
                             row_matching(rf"fill @{ref} jane@[\w.…]*\s+(ok|error)\b"))
        assert done.group(1) == "ok", tmux.screen()
        # the name and value wrap in the refs pane: on the row, or on the line under it
        value = re.compile(rf"@{ref}\s+textbox\s+Email:( |[^\n]*\n│\s+)jane@")
        tmux.wait_for("the value in the refs pane", value.search)

        tmux.keys("C-q")
        deadline = time.monotonic() + 20
        while not tmux.dead():
            if time.monotonic() > deadline:
                pytest.fail(f"cockpit did not exit after Ctrl+Q; the screen was:\n"
                            f"{tmux.screen()}")
            time.sleep(0.2)
        assert status.read_text().strip() == "0", tmux.screen()
    finally:
        tmux.kill()


def test_demo_with_its_agent_asks_a_human_and_finishes(tmp_path, display):
    """`cockpit demo` as a new user sees it: the demo agent works in the agent pane, its
    commands in the log; at the challenge the cockpit says it needs a human, F10 hands the
    browser over (a window on the virtual display), the human answers (typed in the
    prompt here), F10 gives it back and the agent carries on, told what changed."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    env = {"COCKPIT_STATE_DIR": os.environ["COCKPIT_STATE_DIR"],
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "TERM": "xterm-256color",
           "COCKPIT_DEMO_CAPTCHA": "K7RWM",  # the picture's text, known to the test
           "DISPLAY": display}
    tmux = Tmux()
    try:
        status = tmp_path / "exit-status"
        tmux.start([sys.executable, "-m", "cockpit", "demo", "--session",
                    f"e2e-{uuid.uuid4().hex[:8]}"], env, status)
        tmux.wait_for("the agent's commands in the log", row_matching(r"agent\s+fill @"), 60)
        tmux.wait_for("the agent asking for a human", lambda s: "I need a human" in s, 60)
        tmux.wait_for("the status saying so", lambda s: "NEEDS A HUMAN: captcha" in s)
        tmux.keys("F10")
        tmux.wait_for("the human in control", lambda s: "HUMAN (needs: captcha" in s, 60)
        field = tmux.wait_for("the answer field in the refs pane",
                              row_matching(r"@(\w+)\s+textbox\s"))
        button = tmux.wait_for("the Continue button in the refs pane",
                               row_matching(r"@(\w+)\s+button\s+Continue"))
        tmux.type_line(f"fill @{field.group(1)} K7RWM")
        tmux.wait_for("the fill in the log", row_matching(r"human\s+fill @\w+ K7RWM\s+ok"))
        tmux.type_line(f"click @{button.group(1)}")
        tmux.wait_for("the click in the log", row_matching(r"human\s+click @\w+\s+ok"))
        tmux.keys("F10")
        # told: the agent's first result after it starts with the resume report (its log
        # row, "The human had control for ..."), and the agent says so in its pane (a
        # line a fast agent scrolls away before a loaded machine's next look)
        tmux.wait_for("the agent told what the human changed",
                      lambda s: "the human had control for" in s.lower(), 60)
        tmux.wait_for("the agent finishing", lambda s: "Done: signed in" in s, 60)
        tmux.wait_for("the agent's exit in the pane title",
                      lambda s: "Agent: exited with code 0" in s)
        assert row_matching(r"human\s+click @\w+\s+ok")(tmux.screen()), tmux.screen()
        tmux.keys("C-q")
        deadline = time.monotonic() + 20
        while not tmux.dead():
            if time.monotonic() > deadline:
                pytest.fail(f"cockpit did not exit after Ctrl+Q:\n{tmux.screen()}")
            time.sleep(0.2)
        assert status.read_text().strip() == "0", tmux.screen()
    finally:
        tmux.kill()
