"""One live session a profile: a lock of Cockpit's own in the profile directory, held
from the browser's start to the session's close.

Chromium's own (`SingletonLock`, browser.release_stale_profile_lock) is made by the full
build only: the headless shell makes none, so two sessions of one name in one workspace
(two `Session`s in one program, a `cockpit run` beside a `cockpit serve`) would run two
browsers on one profile side by side and corrupt it. An flock ends with its process: a
killed session leaves nothing to clean up."""

from __future__ import annotations

import os
from pathlib import Path

from ..base.errors import BrowserNotFoundError

try:
    import fcntl
except ImportError:  # not POSIX: Chromium's own lock is all there is
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "cockpit.lock"


class ProfileLock:
    """Taken with take(), given back with release() (both safe to call again)."""

    def __init__(self, profile_dir: Path) -> None:
        self.profile_dir = profile_dir
        self._fd: int | None = None

    def take(self) -> None:
        """Raises BrowserNotFoundError, saying what to do, when another session has it."""
        if fcntl is None or self._fd is not None:
            return
        self.profile_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.profile_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise BrowserNotFoundError(
                f"the browser profile {self.profile_dir} is in use by another Cockpit "
                "session (with this name in this workspace): stop it or choose "
                "--session NAME") from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor gives the lock back
            self._fd = None
