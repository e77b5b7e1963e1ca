"""Failures that the session goes on past still leave a trace: in the "cockpit" log.

Loggers are children of "cockpit" (`logging.getLogger(__name__)`); the CLI decides where
the log goes (`--log FILE`, `$COCKPIT_LOG`). Without that configuration, Python shows
warnings and errors on stderr and drops debug lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import traceback
import weakref
from collections.abc import Coroutine, Iterator
from typing import Any, Protocol

log = logging.getLogger(__name__)

# Tasks started and not awaited: asyncio holds only weak references to them, so an
# unreferenced task can vanish mid-run. Each stays here until it is done.
_background: set[asyncio.Task[Any]] = set()


@contextlib.contextmanager
def tolerated(what: str, logger: logging.Logger = log) -> Iterator[None]:
    """Go on past a failure that is expected now and then (a page or window closing under
    us), logged at debug level with its traceback instead of swallowed."""
    try:
        yield
    except Exception:
        logger.debug("%s failed; going on", what, exc_info=True)


def spawn(coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
    """Run `coro` in the background, keep it referenced until done, and log its failure
    (an unawaited task's exception would otherwise surface only at garbage collection)."""
    task = asyncio.ensure_future(coro)
    _background.add(task)

    def done(task: asyncio.Task[Any]) -> None:
        _background.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("%s failed", what, exc_info=exc)

    task.add_done_callback(done)
    return task


@contextlib.contextmanager
def child_stderr_logged(what: str, logger: logging.Logger = log) -> Iterator[None]:
    """Subprocesses started inside get a pipe as stderr instead of ours; their lines go
    to `logger` (warning level: such a process writes there only when something is wrong
    or when asked to, e.g. DEBUG=pw:api).

    Why: Playwright's driver is a Node process, and Node saves the terminal modes of a
    tty on its stdio when it starts and writes them back when it exits. Started while a
    TUI has the terminal in raw mode, it put raw mode back after the TUI had restored the
    terminal: the shell was left with -icanon -echo -icrnl. A pipe is no tty."""
    import sys
    import threading
    read_fd, write_fd = os.pipe()
    writer = os.fdopen(write_fd, "w")
    saved = sys.stderr
    sys.stderr = writer  # Playwright gives its driver sys.stderr.fileno()
    try:
        yield
    finally:
        sys.stderr = saved
        writer.close()  # the child holds its own copy: EOF comes when it exits

    def forward() -> None:
        with os.fdopen(read_fd, "r", errors="replace") as lines:
            for line in lines:
                if line.strip():
                    logger.warning("%s: %s", what, line.rstrip())

    threading.Thread(target=forward, name=f"{what} stderr", daemon=True).start()


def driver_end_noted(manager: Any, logger: logging.Logger = log) -> None:
    """Playwright sets an error on its transport's `on_error_future` when its driver dies
    under us (a signal to the whole process group: Ctrl+C in a terminal, `docker stop`,
    systemd) and nobody awaits it after start-up, so asyncio printed "Future exception
    was never retrieved" on every such stop. It is read here, and logged."""
    client = getattr(manager, "_client", None) or getattr(manager, "_connection", None)
    transport = getattr(client, "_transport", None)
    future = getattr(transport, "on_error_future", None)
    if not isinstance(future, asyncio.Future):  # another Playwright: nothing to hold
        logger.debug("no Playwright transport future to watch")
        return

    def noted(done: asyncio.Future[Any]) -> None:
        if not done.cancelled() and done.exception() is not None:
            logger.info("the Playwright driver ended: %s", done.exception())

    future.add_done_callback(noted)


class _Masks(Protocol):
    def __bool__(self) -> bool: ...

    def text(self, text: str) -> str: ...


# Every live session's file masker (core/redact.py): a log line (--log FILE) never holds a
# secret or a password, whoever logged it, traceback included.
_redactors: weakref.WeakSet[_Masks] = weakref.WeakSet()
_plain_factory = logging.getLogRecordFactory()


def _masked_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _plain_factory(*args, **kwargs)
    active = [r for r in list(_redactors) if r]
    if not active:
        return record
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a bad format: the handler reports it as usual
        return record
    masked = message
    for redactor in active:
        masked = redactor.text(masked)
    if masked != message:
        record.msg, record.args = masked, ()
    if record.exc_info and record.exc_info[0] is not None:
        text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        for redactor in active:
            text = redactor.text(text)
        record.exc_text = text  # the formatter uses it instead of formatting its own
    return record


def mask_logs(redactor: _Masks) -> None:
    """Mask what `redactor` masks in every log record from now on."""
    if logging.getLogRecordFactory() is not _masked_record:
        logging.setLogRecordFactory(_masked_record)
    _redactors.add(redactor)
