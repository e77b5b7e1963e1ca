"""A live session on another machine, reached through the user's own ssh (its keys,
config, agent and jump hosts): `cockpit attach ssh://USER@HOST[:PORT]/SESSION`.

Nothing new is opened on the other machine: ssh runs `cockpit sessions --json` there to
find the session's socket, reads its token from the session's own .json (mode 0600,
readable by the same user only), then forwards that Unix socket to one here
(`ssh -L local.sock:remote.sock`, in a directory of mode 0700 with a .json of mode 0600
beside it, as discovery.py expects of a live session). The client then talks to it as to
any local session; closing it ends the forward.

$COCKPIT_SSH is the ssh command (default `ssh`; e.g. `ssh -F ~/.ssh/work_config`), and
$COCKPIT_REMOTE the cockpit command on the other machine (default `cockpit`)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from ..core import check_session_name
from . import discovery
from .discovery import Unreachable

ENV_SSH, ENV_REMOTE = "COCKPIT_SSH", "COCKPIT_REMOTE"
SSH_TIMEOUT_S = 30.0  # for each step over ssh (a password prompt is the user's to answer)
FORWARD_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class SshTarget:
    """`ssh://[USER@]HOST[:PORT]/SESSION`, checked."""

    host: str
    user: str | None
    port: int | None
    session: str

    @property
    def destination(self) -> list[str]:
        """ssh's arguments naming the machine."""
        where = f"{self.user}@{self.host}" if self.user else self.host
        return (["-p", str(self.port)] if self.port else []) + ["--", where]

    def __str__(self) -> str:
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port else ""
        return f"ssh://{user}{self.host}{port}/{self.session}"


def is_ssh(target: str | None) -> bool:
    return bool(target) and str(target).startswith("ssh://")


def parse(target: str, session: bool = True) -> SshTarget:
    """ValueError says what is wrong with the address (`session`: it names one;
    otherwise it is a machine only, `ssh://USER@HOST[:PORT]`)."""
    try:
        parts = urlsplit(target)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{target!r}: {exc}: write ssh://USER@HOST/SESSION") from None
    host = parts.hostname
    name = unquote(parts.path.strip("/")) or "default"
    if parts.scheme != "ssh" or not host or host.startswith("-"):
        raise ValueError(f"{target!r} is not an ssh address: write ssh://USER@HOST/SESSION "
                         f"(ssh://HOST/SESSION uses your ssh config's user)")
    if not session and parts.path.strip("/"):
        raise ValueError(f"{target!r}: name the machine only: ssh://USER@HOST[:PORT]")
    if "/" in name or parts.query or parts.fragment or parts.password:
        raise ValueError(f"{target!r}: write ssh://USER@HOST[:PORT]/SESSION (one session "
                         f"name after the host; the password is ssh's to ask)")
    user = unquote(parts.username) if parts.username else None
    if user is not None and (not user or user.startswith("-")):
        raise ValueError(f"{target!r}: {user!r} is not a user name")
    check_session_name(name)
    return SshTarget(host, user, port, name)


def ssh_command() -> list[str]:
    return shlex.split(os.environ.get(ENV_SSH) or "ssh")


def remote_cockpit() -> list[str]:
    return shlex.split(os.environ.get(ENV_REMOTE) or "cockpit")


async def _ssh(target: SshTarget, remote: list[str], what: str) -> str:
    """Run `remote` (words, quoted for the remote shell) over ssh; its stdout."""
    command = [*ssh_command(), "-o", "BatchMode=no", *target.destination,
               shlex.join(remote)]
    try:
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
    except OSError as exc:
        raise Unreachable(f"cannot run {command[0]}: {exc} (set {ENV_SSH} to your ssh "
                          f"command)") from None
    try:
        out, err = await asyncio.wait_for(process.communicate(), SSH_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise Unreachable(f"{target.host}: ssh did not answer within {SSH_TIMEOUT_S:g} s "
                          f"while {what}") from None
    if process.returncode:
        said = err.decode(errors="replace").strip().splitlines()
        raise Unreachable(f"{target.host}: {what} failed over ssh (exit {process.returncode})"
                          f"{': ' + said[-1] if said else ''}")
    return out.decode(errors="replace")


class SshSession:
    """The forward of one remote session's socket: `await start()` gives the local
    socket (with its .json) that `RemoteSession(socket_path=...)` attaches to."""

    def __init__(self, target: SshTarget) -> None:
        self.target = target
        self.directory: str | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.remote_socket = ""
        self.workspace = ""

    async def find(self) -> tuple[str, str]:
        """The remote session's socket and workspace; Unreachable when there is none."""
        out = await _ssh(self.target, [*remote_cockpit(), "sessions", "--json"],
                         "listing its sessions (`cockpit sessions --json`)")
        try:
            rows = json.loads(out)
        except ValueError:
            raise Unreachable(f"{self.target.host}: `cockpit sessions --json` answered "
                              f"something else: is Cockpit installed there (set "
                              f"{ENV_REMOTE} to its command)?") from None
        named = [r for r in rows if r.get("session") == self.target.session]
        if not named:
            names = ", ".join(sorted({str(r.get("session")) for r in rows})) or "none"
            raise Unreachable(f"no live session {self.target.session!r} on "
                              f"{self.target.host} (live there: {names})")
        return str(named[0]["socket"]), str(named[0].get("workspace") or "")

    async def start(self) -> str:
        self.remote_socket, self.workspace = await self.find()
        return await self.forward(self.remote_socket, self.workspace)

    async def forward(self, remote_socket: str, workspace: str) -> str:
        """Forward a remote session's socket here (its token read over ssh); the local
        socket, with its .json beside it."""
        self.remote_socket, self.workspace = remote_socket, workspace
        info_text = await _ssh(self.target, ["cat", "--", discovery.info_path(remote_socket)],
                               "reading the session's token")
        try:
            info = json.loads(info_text)
            token = str(info["token"])
        except (ValueError, KeyError, TypeError):
            raise Unreachable(f"{self.target.host}: the session's .json could not be "
                              f"read") from None
        self.directory = tempfile.mkdtemp(prefix="cockpit-ssh-")  # mode 0700
        local = os.path.join(self.directory, "s.sock")
        self.process = await asyncio.create_subprocess_exec(
            *ssh_command(), "-nNT", "-o", "ExitOnForwardFailure=yes",
            "-o", "StreamLocalBindUnlink=yes", "-L", f"{local}:{remote_socket}",
            *self.target.destination, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        fd = os.open(discovery.info_path(local), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            # the pid is the forward's: the session is alive here while it runs
            json.dump({"session": self.target.session, "token": token,
                       "pid": self.process.pid,
                       "workspace": f"{self.target.host}:{workspace}"}, out)
        await self._forwarded(local)
        return local

    async def _forwarded(self, local: str) -> None:
        """Until the forward accepts connections (ssh made its socket)."""
        assert self.process is not None
        loop = asyncio.get_running_loop()
        end = loop.time() + FORWARD_TIMEOUT_S
        while not (os.path.exists(local) and discovery.answers(local)):
            if self.process.returncode is not None or loop.time() > end:
                err = b""
                if self.process.stderr is not None and self.process.returncode is not None:
                    err = await self.process.stderr.read()
                said = err.decode(errors="replace").strip().splitlines()
                await self.close()
                raise Unreachable(f"{self.target.host}: ssh could not forward the "
                                  f"session's socket{': ' + said[-1] if said else ''}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 5)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
