"""The one rule for a session's name, for every place that takes one: the engine's
session directory (core/workspace.py) and the control socket (control/discovery.py).

No imports: `cockpit exec` checks a name in a new process per agent step."""

from __future__ import annotations

LONGEST = 64
# ASCII only: the name becomes a directory's name and a socket file's
CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def check_session_name(name: str, longest: int = LONGEST, socket_dir: str = "") -> str:
    """`name` when it is 1 to `longest` (at most 64) letters, digits, '.', '_' or '-' and
    neither '.' nor '..'; else ValueError, one message for every caller. `socket_dir`:
    the directory whose path leaves room for fewer than 64 (a socket's path is short)."""
    longest = min(longest, LONGEST)
    if not (0 < len(name) <= longest and CHARS.issuperset(name)) or name in (".", ".."):
        room = (f" (its socket in {socket_dir} allows at most {longest} characters)"
                if socket_dir and longest < LONGEST else "")
        raise ValueError(f"invalid session name {name!r}: use 1 to {longest} letters, digits, "
                         f"'.', '_' or '-'{room}")
    return name
