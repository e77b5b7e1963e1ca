"""The full cockpit on one session, opened from `cockpit watch`: the attached cockpit
(handoff, agent keys, prompt and all), and Escape goes back to the watch."""

from __future__ import annotations

from textual.binding import Binding

from .app import CockpitApp


class WatchedCockpit(CockpitApp):
    """`cockpit attach` as `watch` opens it: Escape (where no pane or dialog takes it)
    and Ctrl+Q both leave it for the watch; the session runs on."""

    BINDINGS = [*CockpitApp.BINDINGS,
                Binding("escape", "back_to_watch", "Back to watch", id="watch.back")]

    def action_back_to_watch(self) -> None:
        self.exit()
