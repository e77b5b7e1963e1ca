"""Where a session keeps its browser profile and files: one directory per workspace.

A workspace is the directory Cockpit was started in. Its state lives under
`$COCKPIT_STATE_DIR` (or `$XDG_STATE_HOME/cockpit`, or `~/.local/state/cockpit`) in a
folder named after the workspace and a hash of its full path, so two workspaces never
share a profile even when their folders have the same name.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def state_root() -> Path:
    if os.environ.get("COCKPIT_STATE_DIR"):
        return Path(os.environ["COCKPIT_STATE_DIR"]).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "cockpit"


def workspace_dir(workspace: Path | None = None) -> Path:
    workspace = (workspace or Path.cwd()).resolve()
    digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:10]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", workspace.name) or "root"
    return state_root() / f"{name}-{digest}"


def valid_session_name(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name) or name in (".", ".."):
        raise ValueError(f"invalid session name {name!r}: use letters, digits, '.', '_' or '-'")
    return name


def session_dir(session: str, workspace: Path | None = None) -> Path:
    path = workspace_dir(workspace) / "sessions" / valid_session_name(session)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
