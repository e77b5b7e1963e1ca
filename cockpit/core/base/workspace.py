"""Where a session keeps its browser profile and files: one directory per workspace.

A workspace is the directory Cockpit was started in. Its state lives under
`$COCKPIT_STATE_DIR` (or `$XDG_STATE_HOME/cockpit`, or `~/.local/state/cockpit`) in a
folder named after the workspace and a hash of its full path, so two workspaces never
share a profile even when their folders have the same name.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import tempfile
from pathlib import Path

from .names import check_session_name

log = logging.getLogger("cockpit.workspace")

_usable: dict[Path, Path] = {}  # a state directory asked for -> the one used (probed once)


def preferred_state_root() -> Path:
    if os.environ.get("COCKPIT_STATE_DIR"):
        return Path(os.environ["COCKPIT_STATE_DIR"]).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "cockpit"


def state_root() -> Path:
    """The state directory, or, when it cannot be written (a read-only HOME, a
    COCKPIT_STATE_DIR that is a file), a private one in the temporary directory, said
    once in a one-line warning: a session runs without its saved state rather than not
    at all."""
    wanted = preferred_state_root()
    if wanted not in _usable:
        try:
            _probe(wanted)
            _usable[wanted] = wanted
        except OSError as exc:
            fallback = _private_temp_dir()
            log.warning("the state directory %s cannot be written (%s): using %s for "
                        "this run", wanted, exc.strerror or exc, fallback)
            _usable[wanted] = fallback
    return _usable[wanted]


def _probe(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with tempfile.TemporaryFile(dir=path):  # EROFS, EACCES, ENOSPC: not a usable place
        pass


def _private_temp_dir() -> Path:
    """/tmp/cockpit-state-UID, ours alone (made 0700, checked it is our own directory
    and not a link another user planted); a fresh one when it is not."""
    path = Path(tempfile.gettempdir()) / f"cockpit-state-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not (
                info.st_mode & 0o077):
            _probe(path)
            return path
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="cockpit-state-"))


def workspace_dir(workspace: Path | None = None) -> Path:
    workspace = (workspace or Path.cwd()).resolve()
    digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:10]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", workspace.name) or "root"
    return state_root() / f"{name}-{digest}"


def valid_session_name(name: str) -> str:
    """The name, checked by the one rule (core/names.py); ValueError says what is wrong."""
    return check_session_name(name)


def session_dir(session: str, workspace: Path | None = None) -> Path:
    path = workspace_dir(workspace) / "sessions" / valid_session_name(session)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
