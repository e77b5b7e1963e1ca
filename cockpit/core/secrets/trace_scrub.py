"""A Playwright trace holds what the browser was given and showed: every `fill`'s value,
the DOM of every snapshot (input values included) and every request body. Once saved,
the trace is rewritten with each secret and typed password masked in its text entries,
and made readable by its owner only. Its pictures cannot be masked, so a session with
secrets traces without screenshots (Session.start_trace)."""

from __future__ import annotations

import logging
import os
import zipfile
from pathlib import Path

from .mask import Masker

log = logging.getLogger(__name__)


def scrub_trace(path: Path, masker: Masker) -> None:
    """Rewrite the trace at `path` (mode 0600) with `masker` applied to its text; a trace
    that cannot be rewritten is deleted (it would keep the secrets), and the log says so."""
    if not path.is_file():
        return
    os.chmod(path, 0o600)
    if not masker:
        return
    try:
        _rewrite(path, masker)
    except (OSError, zipfile.BadZipFile, RuntimeError) as exc:
        path.unlink(missing_ok=True)
        log.warning("the trace %s could not be masked (%s), so it was deleted", path, exc)


def _rewrite(path: Path, masker: Masker) -> None:
    part = path.with_name(f".{path.name}.scrubbing")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with zipfile.ZipFile(path) as src, os.fdopen(fd, "wb") as raw, \
                zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                data = src.read(info)
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:  # a picture or a binary body: as it was
                    dst.writestr(info, data)
                    continue
                dst.writestr(info, masker.text(text).encode("utf-8"))
        os.replace(part, path)
    finally:
        if part.exists():
            part.unlink()
