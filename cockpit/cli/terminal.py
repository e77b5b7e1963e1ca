"""The terminal a TUI face takes over is given back as it was, on every way out.

Textual restores the terminal when its app ends normally. This is the safety net around
it, for the ways out it does not see: the terminal modes are saved before the app starts
and written back when it ends (also at interpreter exit, through atexit), and SIGTERM
ends the app as Ctrl+Q does (the session closes, the recording is flushed) instead of
killing the process with the terminal in raw mode. A second SIGTERM gives the terminal
back and exits at once."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

log = logging.getLogger("cockpit.terminal")

# Leave the alternate screen, show the cursor, stop mouse reports and bracketed paste:
# what a killed Textual app leaves on, for the forced way out only.
RESET = "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l"
EXIT_SIGTERM = 128 + signal.SIGTERM


class SavedTerminal:
    """The modes of the controlling terminal (the first of stdin, stdout, stderr that is
    one) as they were when saved; nothing to do without a terminal."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.modes: list[Any] | None = None
        try:
            import termios
        except ImportError:  # not POSIX: nothing to save
            return
        for stream in (sys.__stdin__, sys.__stdout__, sys.__stderr__):
            try:
                fd = stream.fileno() if stream is not None else -1
                if fd >= 0 and os.isatty(fd):
                    self.modes, self.fd = termios.tcgetattr(fd), fd
                    return
            except (OSError, ValueError, termios.error):
                continue

    def restore(self) -> None:
        if self.fd is None or self.modes is None:
            return
        import termios
        try:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.modes)
        except (OSError, termios.error) as exc:  # the terminal is gone (a closed SSH)
            log.debug("the terminal modes could not be restored: %s", exc)


@contextlib.contextmanager
def kept_terminal(app: Any = None) -> Iterator[SavedTerminal]:
    """Around a TUI's run in a running event loop: `app.exit()` on SIGTERM, and the
    terminal's modes written back however the block ends."""
    saved = SavedTerminal()
    atexit.register(saved.restore)
    loop = asyncio.get_running_loop()
    terms = 0

    def on_sigterm() -> None:
        nonlocal terms
        terms += 1
        if terms > 1 or app is None:
            saved.restore()
            if saved.fd is not None:
                with contextlib.suppress(OSError):
                    os.write(saved.fd, RESET.encode())
            os._exit(EXIT_SIGTERM)
        log.warning("SIGTERM: quitting")
        app.exit(return_code=EXIT_SIGTERM)

    handled = False
    try:
        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        handled = True
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
        pass
    try:
        yield saved
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGTERM)
        saved.restore()
        atexit.unregister(saved.restore)
