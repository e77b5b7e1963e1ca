"""Starting the TUI from the command line: `cockpit [URL]` and `cockpit demo`."""

from __future__ import annotations

import sys

from ..cli import session_from_args
from ..core.workspace import workspace_dir


def run_tui(args, url: str | None = None) -> int:
    from .app import CockpitApp
    try:
        session = session_from_args(args)
    except ValueError as exc:
        print(f"cockpit: {exc}", file=sys.stderr)
        return 2
    app = CockpitApp(session, url=url, theme=getattr(args, "theme", None),
                     history_path=workspace_dir() / "history.txt")
    app.run()
    return 0
