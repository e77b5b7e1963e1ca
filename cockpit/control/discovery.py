"""Where a live session's control socket and its token live, and whether it is alive.

Sockets sit in a per-user directory of mode 0700 (`$XDG_RUNTIME_DIR/cockpit`, else
`/tmp/cockpit-<uid>`): another user cannot even list it. Each live session has
`<key>.sock` (mode 0600) and `<key>.json` (mode 0600: its pid, name, workspace and the
random token a client must send first). The key is a hash of the workspace plus the
session name: two workspaces' `default` sessions are two sessions, as their browser
profiles are, and the path stays short (a Unix socket path has at most 107 bytes).

Cleaning up only ever removes our own leftovers: a socket file in that directory whose
session is gone, and its .json. A path a user gave (--socket, $COCKPIT_SOCKET) is never
removed: it may be anything.

`cockpit exec` passes through here on every agent step, so this imports little: paths are
plain strings (os.path; pathlib alone cost about as much as the rest), the .json is read
by wire.py, names are checked without a regex, and the liveness probe uses `_socket`
(`socket` imports enum and selectors).
"""

from __future__ import annotations

import os
import stat
import time
import zlib
from _socket import AF_UNIX, SOCK_STREAM
from _socket import socket as raw_socket

from ..core import check_session_name
from . import wire

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Callable

    Probe = Callable[[str], bool | None]  # answers(), or a client's own connect

ENV_SESSION = "COCKPIT_SESSION"
ENV_SOCKET = "COCKPIT_SOCKET"
SUN_PATH_MAX = 107  # bytes in a Unix socket's path (sun_path is 108, with its NUL)
KEY_AND_SUFFIX = len("/0123456789ab-.sock")  # what socket_path adds around the name


class Unreachable(Exception):
    """No live session answers; the message says how to start or find one (exit code 3)."""


class AlreadyLive(Exception):
    """A session of this name is already live in this workspace: a second one is refused
    before it opens anything; the message says how to reach the first (exit code 2)."""


def runtime_dir() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and len(base) < 40 and os.path.isdir(base):
        return os.path.join(base, "cockpit")
    return f"/tmp/cockpit-{os.getuid()}"


def private_dir(create: bool = False) -> str:
    """The socket directory, checked: ours, and nobody else may enter it."""
    path = runtime_dir()
    if create:
        os.makedirs(path, mode=0o700, exist_ok=True)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise Unreachable(f"{path} is not a directory of yours: remove it (another user or "
                          f"program made it) and start the session again")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)  # tighten what an old version or a umask left open
    return path


def workspace_key(workspace: str | os.PathLike[str]) -> str:
    """12 hex digits naming the workspace (two CRC-32s: zlib loads in a fraction of the
    time hashlib's OpenSSL does, and this is not about secrecy)."""
    path = os.fsencode(os.path.realpath(workspace))
    return f"{zlib.crc32(path):08x}{zlib.crc32(path[::-1]) & 0xFFFF:04x}"


def check_name(name: str) -> str:
    """The name by the one rule (core/names.py), with as many characters as the socket's
    path has room for (sun_path)."""
    directory = runtime_dir()
    longest = SUN_PATH_MAX - KEY_AND_SUFFIX - len(os.fsencode(directory))
    return check_session_name(name, longest, directory)


def socket_path(name: str, workspace: str | os.PathLike[str] | None = None) -> str:
    key = workspace_key(workspace or os.getcwd())
    return os.path.join(private_dir(), f"{key}-{check_name(name)}.sock")


def info_path(sock: str | os.PathLike[str]) -> str:
    """The .json beside a socket (`x.sock` -> `x.json`)."""
    return os.path.splitext(os.fspath(sock))[0] + ".json"


class LiveInfo:
    """What a live session's .json file says (a plain class: see core/result.py)."""

    def __init__(self, session: str, socket: str, token: str, pid: int,
                 workspace: str) -> None:
        self.session, self.socket, self.token = session, socket, token
        self.pid, self.workspace = pid, workspace

    @classmethod
    def read(cls, sock: str | os.PathLike[str]) -> LiveInfo | None:
        try:
            with open(info_path(sock), "rb") as file:
                data = wire.loads(file.read())
            return cls(data["session"], os.fspath(sock), data["token"], int(data["pid"]),
                       data.get("workspace", ""))
        except (OSError, ValueError, KeyError, TypeError):
            return None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone's process: not ours to judge dead
    return True


def answers(sock: str | os.PathLike[str]) -> bool | None:
    """True: something accepts connections on this socket; False: nobody listens there
    (refused, or no such file); None: cannot tell (a full listen queue, a slow peer)."""
    s = raw_socket(AF_UNIX, SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect(os.fspath(sock))
        return True
    except (ConnectionRefusedError, FileNotFoundError):
        return False
    except OSError:
        return None  # EAGAIN: a busy session is still a live one
    finally:
        s.close()


def alive(sock: str | os.PathLike[str], probe: Probe | None = None) -> LiveInfo | None:
    """The live session on this socket, or None. A socket whose recorded process is gone,
    or that refuses connections, is stale: our own leftovers are removed (remove_stale).
    `probe` tells whether the socket answers, as answers() does (its default)."""
    info = LiveInfo.read(sock)
    probe = probe or answers
    if (info is None or pid_alive(info.pid)) and probe(os.fspath(sock)) is not False:
        return info  # live (or busy); without its .json we cannot use it, nor judge it
    if info is None and _young(sock):
        # a session between its bind() and listen(), or before its .json: starting, not
        # stale (removing its socket would hide it from everyone for good)
        return None
    remove_stale(sock)
    return None


STARTING_S = 30.0  # a socket without its .json this young may be a session starting


def _young(sock: str | os.PathLike[str]) -> bool:
    try:
        age = time.time() - os.lstat(sock).st_mtime
    except OSError:
        return False
    return 0 <= age < STARTING_S  # (a clock set back makes no socket young for good)


def remove_stale(sock: str | os.PathLike[str]) -> None:
    """Remove a dead session's socket and .json, only if the socket sits in our private
    directory and is a socket (or gone): never a file someone pointed us at."""
    try:
        if os.path.realpath(os.path.dirname(sock)) != os.path.realpath(private_dir()):
            return
        if not stat.S_ISSOCK(os.lstat(sock).st_mode):
            return
    except FileNotFoundError:
        pass  # the socket went first: its .json is still ours to clear
    except (OSError, Unreachable):
        return
    remove(sock)


def remove(sock: str | os.PathLike[str]) -> None:
    for path in (os.fspath(sock), info_path(sock)):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def find(name: str | None = None, socket_hint: str | None = None,
         probe: Probe | None = None) -> LiveInfo:
    """The live session a client means: the socket given (or $COCKPIT_SOCKET when no
    name is given or it names the same session), else `name` (default "default") of this
    directory's workspace or the nearest parent's. Raises Unreachable with what to do.
    `probe`: see alive(); a client passes its own connect, so that the probe of the
    socket it finds is its connection (a session then serves one connection, not two)."""
    hint = socket_hint or os.environ.get(ENV_SOCKET)
    env_name = os.environ.get(ENV_SESSION)
    if hint and (name is None or name == env_name or socket_hint):
        info = alive(hint, probe)
        if info is None:
            raise Unreachable(f"no live session at {hint} (from "
                              f"{'--socket' if socket_hint else ENV_SOCKET}): it has ended; "
                              f"start one with `cockpit serve` or `cockpit`")
        return info
    name = check_name(name or env_name or "default")
    here = workspace = os.path.realpath(os.getcwd())
    while True:
        info = alive(socket_path(name, workspace), probe)
        if info is not None:
            return info
        parent = os.path.dirname(workspace)
        if parent == workspace:
            break
        workspace = parent
    raise Unreachable(f"no live session {name!r} here ({here} or its parents){elsewhere(name)}. "
                      f"Start one with `cockpit serve --session {name}` (no window) or "
                      f"`cockpit --session {name}` (the TUI), then run this again")


def live_sessions() -> list[LiveInfo]:
    """Every live session of this user, in any workspace (stale sockets are cleared)."""
    return [info for sock in list_sockets() if (info := alive(sock)) is not None]


def elsewhere(name: str = "", limit: int = 4) -> str:
    """Where this user's live sessions are (those named `name` first), with how to
    reach each from here."""
    found = sorted(live_sessions(), key=lambda info: info.session != name)
    if not found:
        return ""
    named = [f"{info.session!r} in {info.workspace or '?'} (`cockpit exec --socket "
             f"{info.socket} ...`)" for info in found[:limit]]
    more = f" and {len(found) - limit} more" if len(found) > limit else ""
    return (f"; live sessions of yours: {', '.join(named)}{more} (`cockpit sessions` "
            f"lists them)")


def list_sockets() -> list[str]:
    try:
        directory = private_dir()
        return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                      if name.endswith(".sock"))
    except (OSError, Unreachable):
        return []
