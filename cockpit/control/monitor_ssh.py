"""The sessions of another machine in `cockpit watch --host ssh://USER@HOST`: one ssh
connection runs `cockpit sessions --follow` there (a line each time a session starts or
ends: its socket directory is watched there, nothing polled), and each session's socket
is forwarded here (over_ssh.py) and followed like a local one, its events and all."""

from __future__ import annotations

from typing import Any

import asyncio
import json
import logging
import shlex

from .discovery import LiveInfo, Unreachable
from .monitor import Monitor
from .over_ssh import ENV_REMOTE, SshSession, SshTarget, remote_cockpit, ssh_command

log = logging.getLogger("cockpit.watch")


class HostWatch:
    """One machine's sessions in a Monitor, for as long as `run()` runs."""

    def __init__(self, host: SshTarget, monitor: Monitor) -> None:
        self.host = host
        self.monitor = monitor
        self.forwards: dict[str, SshSession] = {}  # remote socket -> its forward
        self._starting: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def label(self) -> str:
        return f"{self.host.user}@{self.host.host}" if self.host.user else self.host.host

    async def run(self) -> None:
        command = [*ssh_command(), *self.host.destination,
                   shlex.join([*remote_cockpit(), "sessions", "--follow"])]
        try:
            process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            self.monitor.note(self.label, f"ssh could not start: {exc}")
            return
        assert process.stdout is not None and process.stderr is not None
        try:
            while line := await process.stdout.readline():
                try:
                    rows = json.loads(line)
                except ValueError:
                    self.monitor.note(self.label, f"`cockpit sessions --follow` answered "
                                                  f"something else (set {ENV_REMOTE})")
                    continue
                self.monitor.note(self.label, None)
                self._sync(rows)
            said = (await process.stderr.read()).decode(errors="replace").strip()
            self.monitor.note(self.label, "the ssh connection ended" + (
                f": {said.splitlines()[-1]}" if said else ""))
        finally:
            if process.returncode is None:
                if process.stdin is not None:
                    process.stdin.close()  # the far end ends on it
                process.terminate()
                await process.wait()
            await self.close()

    def _sync(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            remote = str(row.get("socket") or "")
            if remote and remote not in self.forwards and remote not in self._starting:
                self._starting.add(remote)
                task = asyncio.ensure_future(self._follow(row))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _follow(self, row: dict[str, Any]) -> None:
        remote, name = str(row["socket"]), str(row.get("session") or "?")
        target = SshTarget(self.host.host, self.host.user, self.host.port, name)
        forward = SshSession(target)
        try:
            local = await forward.forward(remote, str(row.get("workspace") or ""))
        except (Unreachable, OSError) as exc:
            log.warning("%s: session %s not reached: %s", self.label, name, exc)
            await forward.close()
            return
        finally:
            self._starting.discard(remote)
        self.forwards[remote] = forward
        info = LiveInfo(f"{self.host.host}:{name}", local, "", forward.process.pid
                        if forward.process else 0, f"{self.host.host}:{row.get('workspace')}")

        def ended() -> None:  # the session ended there (or the forward broke)
            if self.forwards.pop(remote, None) is forward:
                task = asyncio.ensure_future(forward.close())
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        self.monitor.follow(info, on_end=ended)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)
        forwards, self.forwards = list(self.forwards.values()), {}
        for forward in forwards:
            await forward.close()
