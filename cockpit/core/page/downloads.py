"""A tab's downloads: each saved into the session's files/downloads/ under a name no
other file has, reported to the action that caused it and as a `download` event. Mixed
into Tab."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base import events as ev
from ..base.logs import spawn

if TYPE_CHECKING:
    from playwright.async_api import Download

    from .host import TabHost

log = logging.getLogger("cockpit.core.page.tab")  # as before the move


class TabDownloads:
    """The downloads of the Tab this is mixed into."""

    id: int
    session: TabHost[Any]
    _emit: Callable[..., None]  # the Tab's

    def _on_download(self, download: Download) -> None:
        task = spawn(self._save_download(download), f"saving a download of tab {self.id}")
        for watch in self.session.watches:  # the action that caused it reports it
            if watch.tab_id == self.id:
                watch.downloads.append(task)

    async def _save_download(self, download: Download) -> dict[str, Any]:
        folder = self.session.files_dir / "downloads"
        folder.mkdir(parents=True, exist_ok=True)
        target = _free_name(folder / (Path(download.suggested_filename).name or "download"))
        try:
            await download.save_as(target)
        except Exception as exc:  # a cancelled download must not break the session
            log.warning("saving download %s failed", download.url, exc_info=True)
            self._emit(ev.DOWNLOAD, url=download.url, path=None, ok=False, error=str(exc))
            return {"url": download.url, "path": None, "ok": False, "error": str(exc)}
        self._emit(ev.DOWNLOAD, url=download.url, path=str(target), ok=True)
        return {"url": download.url, "path": str(target), "ok": True,
                "bytes": target.stat().st_size}


def _free_name(path: Path) -> Path:
    """`path`, or `name (2).ext`, `name (3).ext`...: a download never overwrites a file."""
    n = 1
    candidate = path
    while True:
        try:
            candidate.touch(exist_ok=False)  # taken at once: two downloads at a time differ
            return candidate
        except FileExistsError:
            n += 1
            candidate = path.with_name(f"{path.stem} ({n}){path.suffix}")
