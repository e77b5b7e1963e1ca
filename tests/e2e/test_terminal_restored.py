"""Quitting a TUI face leaves a sane terminal: in a real pty, `stty -a` after the cockpit
ends shows canonical mode and echo again (Ctrl+Q, and SIGTERM), so the next line-reading
program works."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pexpect
import pytest

MODES = "stty -a | tr ' ;' '\\n\\n' | grep -x -E -- '-?(icanon|echo|icrnl|isig)' | tr '\\n' ' '"


def _tui_in_pty(face: str, session: str) -> pexpect.spawn:
    """`sh -c 'cockpit ...; stty -a'` in a pty of 50x200: the stty runs in the same
    terminal once the cockpit is gone."""
    script = (f"{MODES}; echo; {sys.executable} -m cockpit {face} --no-record "
              f"--session {session}; echo EXIT=$?; {MODES}; echo; echo END")
    env = {**os.environ, "TERM": "xterm-256color"}
    child = pexpect.spawn("/bin/sh", ["-c", script], env=env, encoding="utf-8",
                          dimensions=(50, 200), timeout=90)
    # the status bar says `rec off` once the session has started (before: not recording)
    child.expect(r"rec (\x1b\[[0-9;]*m)*off")
    time.sleep(1)  # the first page settles; nothing to wait for on screen
    return child


def _modes_after(child: pexpect.spawn) -> tuple[str, list[str]]:
    child.expect("END")
    text = re.sub(r"\x1b\[[0-9;?<>=]*[a-zA-Z]", "", child.before)
    code = re.search(r"EXIT=(\d+)", text)
    modes = text[code.end():].split() if code else []
    return (code.group(1) if code else "?"), modes


def _cockpit_pid(shell_pid: int) -> int:
    out = subprocess.run(["pgrep", "-P", str(shell_pid)], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def test_ctrl_q_leaves_the_terminal_sane():
    child = _tui_in_pty("about:blank", "tty-quit")
    try:
        child.sendcontrol("q")
        code, modes = _modes_after(child)
    finally:
        child.close(force=True)
    assert code == "0"
    assert {"icanon", "echo", "icrnl", "isig"} <= set(modes), modes


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX only")
def test_sigterm_quits_like_ctrl_q_and_leaves_the_terminal_sane():
    child = _tui_in_pty("demo --no-agent", "tty-term")
    try:
        os.kill(_cockpit_pid(child.pid), signal.SIGTERM)
        code, modes = _modes_after(child)
    finally:
        child.close(force=True)
    assert code == str(128 + signal.SIGTERM)
    assert {"icanon", "echo", "icrnl", "isig"} <= set(modes), modes
