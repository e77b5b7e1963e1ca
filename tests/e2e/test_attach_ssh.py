"""`cockpit attach ssh://USER@HOST/SESSION` against a real sshd on 127.0.0.1: the session
lives on "another machine" (its own socket directory, reachable only through ssh), and
the cockpit here shows its log and drives it, through the user's ssh config (a host
alias, a key, a port) and nothing else."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import pytest
from test_watch import Served

SSHD = "/usr/sbin/sshd"
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not (os.access(SSHD, os.X_OK) and shutil.which("ssh")),
                                reason="no sshd (apt-get install openssh-server)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sshd():
    """An sshd on 127.0.0.1 taking one key, and an ssh config naming it `far-host`."""
    home = Path(tempfile.mkdtemp(prefix="sshd", dir="/tmp"))
    port = free_port()
    for key in ("host_key", "id"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(home / key)],
                       check=True)
    (home / "authorized_keys").write_text((home / "id.pub").read_text())
    (home / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {home}/host_key\n"
        f"AuthorizedKeysFile {home}/authorized_keys\nPidFile {home}/sshd.pid\n"
        "StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\nAllowStreamLocalForwarding yes\nUsePAM no\n")
    (home / "ssh_config").write_text(
        f"Host far-host\n  HostName 127.0.0.1\n  Port {port}\n  IdentityFile {home}/id\n"
        "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n"
        "  LogLevel ERROR\n")
    os.makedirs("/run/sshd", exist_ok=True)  # its privilege separation directory
    daemon = subprocess.Popen([SSHD, "-D", "-e", "-f", str(home / "sshd_config")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert daemon.poll() is None, daemon.stderr.read().decode() if daemon.stderr else ""
            assert time.monotonic() < deadline, "sshd did not listen"
            time.sleep(0.1)
    yield home
    daemon.terminate()
    daemon.wait(10)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def far(sshd, tmp_path):
    """A session on the far machine (a socket directory only ssh reaches), and the
    environment of a user here whose ssh config knows `far-host`."""
    there = tempfile.mkdtemp(prefix="far", dir="/tmp")
    here = tempfile.mkdtemp(prefix="near", dir="/tmp")
    env_there = {**os.environ, "XDG_RUNTIME_DIR": there,
                 "COCKPIT_STATE_DIR": str(tmp_path / "state")}
    served = Served("far-away", env_there, tmp_path)
    remote = (f"env XDG_RUNTIME_DIR={there} PYTHONPATH={ROOT} {sys.executable} -m cockpit")
    env_here = {**os.environ, "XDG_RUNTIME_DIR": here, "TERM": "xterm-256color",
                "COCKPIT_SSH": f"ssh -F {sshd}/ssh_config", "COCKPIT_REMOTE": remote}
    yield served.wait_live(), env_here, here
    served.stop()
    shutil.rmtree(there, ignore_errors=True)
    shutil.rmtree(here, ignore_errors=True)


def test_attach_over_ssh_shows_and_drives_the_far_session(far, site, tmp_path):
    served, env, here = far
    served.exec("goto", f"{site.url}/login")
    assert not os.listdir(here)  # nothing of it here: only ssh reaches it
    user = getpass.getuser()
    child = pexpect.spawn(sys.executable, ["-m", "cockpit", "attach",
                                           f"ssh://{user}@far-host/far-away"],
                          env=env, cwd=str(tmp_path), encoding="utf-8",
                          dimensions=(50, 200), timeout=60)
    try:
        child.expect("Command log")
        child.expect(r"goto http://127\.0\.0\.1")  # its history: the far session's log
        child.send(f"goto {site.url}/playground\r")  # typed here, run there
        deadline = time.monotonic() + 30
        while "/playground" not in served.exec("url") and time.monotonic() < deadline:
            time.sleep(0.3)
        child.sendcontrol("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.exitstatus
    assert served.exec("url").strip() == f"{site.url}/playground"
    assert served.process.poll() is None  # the session runs on
    forwards = subprocess.run(["pgrep", "-f", "cockpit-ssh-"], capture_output=True,
                              text=True).stdout.split()
    assert not forwards, "the ssh forward outlived the cockpit"


def test_attach_over_ssh_names_what_is_live_there(far, tmp_path):
    _, env, _ = far
    done = subprocess.run([sys.executable, "-m", "cockpit", "attach", "ssh://far-host/nope"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert "no live session 'nope' on far-host (live there: far-away)" in done.stderr
    bad = subprocess.run([sys.executable, "-m", "cockpit", "attach", "ssh:///x"],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "is not an ssh address" in bad.stderr


async def test_watch_host_follows_the_far_sessions_and_calls_for_their_needs(
        far, site, tmp_path, monkeypatch):
    import asyncio

    from test_watch import to_the_captcha, until

    from cockpit.control.monitor import Monitor
    from cockpit.control.monitor_ssh import HostWatch
    from cockpit.control.over_ssh import parse
    from cockpit.control.remote_session import RemoteSession

    served, env, _ = far
    for name in ("XDG_RUNTIME_DIR", "COCKPIT_SSH", "COCKPIT_REMOTE"):
        monkeypatch.setenv(name, env[name])
    near = Served("near-by", {**env, "COCKPIT_STATE_DIR": str(tmp_path / "near")}, tmp_path)
    near.wait_live()
    monitor = await Monitor().start()
    calls = []
    monitor.subscribe(calls.extend)
    host = HostWatch(parse("ssh://far-host", session=False), monitor)
    watching = asyncio.ensure_future(host.run())
    second = None
    try:
        await until(lambda: sorted(r.session for r in monitor.rows() if r.connected) == [
            "far-host:far-away", "near-by"])
        far_row = next(r for r in monitor.rows() if r.session == "far-host:far-away")
        assert far_row.workspace.startswith("far-host:") and far_row.browser == "headless"
        await asyncio.to_thread(to_the_captcha, served, site)
        await until(lambda: monitor.rows()[0].need is not None
                    and monitor.rows()[0].need["kind"] == "captcha")
        assert monitor.rows()[0].session == "far-host:far-away"  # first: it needs a person
        await asyncio.to_thread(served.exec, "title")
        await until(lambda: (monitor.rows()[0].last or None) is not None
                    and monitor.rows()[0].last.line == "title")
        assert [(c.session, c.need) for c in calls] == [("far-host:far-away", "code"),
                                                        ("far-host:far-away", "captcha")]
        # Enter's attach works on the forwarded socket: the far session's own state
        remote = await RemoteSession(socket_path=monitor.rows()[0].socket).start()
        try:
            assert remote.status()["active"]["url"] == f"{site.url}/challenge"
        finally:
            await remote.close()
        # a session that starts there appears here; one that ends there goes
        second = Served("far-second", {**os.environ, "XDG_RUNTIME_DIR": served.env[
            "XDG_RUNTIME_DIR"], "COCKPIT_STATE_DIR": str(tmp_path / "second")}, tmp_path)
        second.wait_live()
        await until(lambda: "far-host:far-second" in [r.session for r in monitor.rows()])
        second.stop()
        await until(lambda: "far-host:far-second" not in [r.session for r in monitor.rows()])
        await until(lambda: len(host.forwards) == 1)  # its forward closed with it
    finally:
        if second is not None:
            second.stop()
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
        await monitor.close()
        near.stop()
