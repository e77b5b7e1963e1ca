"""SIGTERM to the whole process group of `cockpit serve` / `cockpit mcp` (what Ctrl+C in a
terminal, `docker stop` or systemd do: the Playwright driver gets it too) stops them
cleanly: no "Future exception was never retrieved" on stderr."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_sigterm_to_the_group_leaves_stderr_clean(command, tmp_path):
    env = {**os.environ, "COCKPIT_STATE_DIR": str(tmp_path)}
    process = subprocess.Popen([sys.executable, "-m", "cockpit", command, "--session",
                                f"stop-{command}"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               start_new_session=True, text=True)
    seen: list[str] = []
    live = threading.Event()

    def read(stream) -> None:
        for line in stream:
            seen.append(line)
            if "is live" in line:
                live.set()

    readers = [threading.Thread(target=read, args=(s,), daemon=True)
               for s in (process.stdout, process.stderr)]
    for reader in readers:
        reader.start()
    try:
        assert live.wait(60), "".join(seen)
        os.killpg(process.pid, signal.SIGTERM)  # the group: the driver and browser too
        process.wait(60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    for reader in readers:
        reader.join(10)
    said = "".join(seen)
    assert "never retrieved" not in said and "Traceback" not in said, said
