"""The Cockpit app: lays out the panes and routes engine events and typed commands."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual import events
from textual.containers import Container
from textual.css.query import NoMatches
from textual.message_pump import MessagePump
from textual.widgets import Footer

from ..core import events as ev
from ..control.notify import NeedLedger
from ..core import Event, SessionSurface
from .agent_pane import AgentPane
from .event_batcher import EngineBatch, EventBatcher
from .config import apply_config
from .confirm import ConfirmNotice
from .control_handlers import CONTROL_KEY_SAYS, ControlHandlers
from .command_log import CommandLog, describe_entry
from .diff_pane import DiffPane
from .history import History
from .layout import PaneLayout
from .output_pane import OutputPane
from .messages import CommandsRan, route, translate
from .palette import CockpitCommands
from .picture import PicturePane
from .prompt import Hint, Prompt
from .expect_screen import ExpectScreen
from .refs_pane import RefsPane
from .screens import HelpScreen, TextScreen
from .status_bar import NeedsNotice, StatusBar
from .tabs_pane import TabsPane
from .theme_watch import ThemeReloader
from .themes import APP_VARIABLES, DEFAULT_THEME, load_themes
from .live import FrameFeed
from .live_zoom import LiveZoomScreen

log = logging.getLogger("cockpit")


class Lifecycle(Protocol):
    """What the app needs of the live session it owns (cli.live.LiveSession): started in
    a worker, so the screen shows at once and errors appear in it; closed on quit."""

    agent: Any  # the agent process, or None

    async def start(self) -> Any: ...

    async def close(self) -> None: ...



DIFF_KEYS = Binding.Group("Diff", compact=True)


class CockpitApp(ControlHandlers):
    CSS_PATH = "cockpit.tcss"
    TITLE = "Cockpit"
    COMMANDS = App.COMMANDS | {CockpitCommands}
    # The footer shows them in this order and a narrow terminal cuts its end: the keys a
    # person needs in a hurry (the agent, the handoff) come right after help.
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        Binding("f10", "handoff", CONTROL_KEY_SAYS[False], id="handoff"),
        Binding("f8", "agent_pause", "Agent pause", id="agent.pause"),
        Binding("f9", "agent_stop", "Agent stop", id="agent.stop"),
        Binding("ctrl+n", "next_pane", "Next pane", id="pane.next"),
        Binding("f2", "focus('tabs')", "Tabs", id="focus.tabs"),
        Binding("f3", "focus('refs-filter')", "Refs", id="focus.refs"),
        Binding("f4", "focus('log')", "Log", id="focus.log"),
        Binding("f6", "focus('prompt')", "Prompt", id="focus.prompt"),
        Binding("f5", "refresh_picture", "Picture", id="picture.refresh"),
        Binding("f7", "zoom_labelled", "Ref labels", id="picture.labels", show=False),
        Binding("alt+left", "diff_step(-1)", "Older diff", id="diff.older", group=DIFF_KEYS),
        Binding("alt+right", "diff_step(1)", "Newer diff", id="diff.newer", group=DIFF_KEYS),
        Binding("f12", "recordings", "Recordings", id="recordings", show=False),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        # only while an agent's command waits for a person and the prompt is empty:
        # otherwise the keys are the prompt's (check_action)
        Binding("y", "confirm_answer(True)", "Approve", id="confirm.approve", priority=True),
        Binding("n", "confirm_answer(False)", "Deny", id="confirm.deny", priority=True),
    ]

    def __init__(self, session: SessionSurface, *, url: str | None = None, pictures: bool = True,
                 history_path: Path | None = None, theme: str | None = None,
                 live: Lifecycle | None = None) -> None:
        """`live`: the live session (cli.live.LiveSession) this app starts, in a worker,
        and closes on quit; without it the app is a view of a session run elsewhere (an
        attached one, or a test's)."""
        super().__init__()
        self.session = session
        self.live = live  # the session with its control socket, recorder and agent
        self.first_url = url
        self.pictures = pictures
        self.history = History(history_path)
        self._batcher = EventBatcher(self.post_message)
        self._unsubscribe: Callable[[], None] | None = None
        self._picture_due = False
        self._routes: list[MessagePump] = []  # who handles the engine's messages
        self.human_has_control = False
        self.live_mode = False  # `live`, key l: the pictures follow the page as it paints
        self._pane_feed: FrameFeed | None = None
        self.panes = PaneLayout()  # which panes show, for the terminal's size
        self._agent_state = {}
        self._confirm_waiting = []
        self._recording_failed = None
        self._needs_told = NeedLedger()
        loaded = load_themes()
        self.theme_errors = [str(problem) for problem in loaded.errors]
        for t in loaded.themes.values():
            self.register_theme(t)
        self.wanted_theme = theme or DEFAULT_THEME
        self.theme_reloader = ThemeReloader(self, loaded.files)
        self._themes_stop = asyncio.Event()  # set on unmount: ends the theme watcher

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """The cockpit's own variables, for themes that do not set them."""
        return dict(APP_VARIABLES)

    @work(group="themes", exit_on_error=False)
    async def watch_themes(self) -> None:
        """Hot reload: theme files edited or added while the app runs."""
        try:
            await self.theme_reloader.watch(self._themes_stop)
        except Exception as exc:  # noqa: BLE001  shown; e.g. out of inotify watches
            self.notify(f"theme files are not watched: {exc}", title="Theme",
                        severity="warning", markup=False)

    def compose(self) -> ComposeResult:
        with Container(id="main"):  # its grid places the panes: tui/layout.py
            yield TabsPane(id="tabs")
            yield CommandLog(id="log")
            yield PicturePane(enabled=self.pictures, id="picture-pane")
            yield RefsPane(id="refs")
            yield OutputPane(id="output")
            yield DiffPane(id="diff")
            yield AgentPane(id="agent")
        yield NeedsNotice(id="needs")
        yield ConfirmNotice(id="confirm")
        yield StatusBar(id="status")
        yield Prompt(self.session.registry, self.history, self.session.refs, id="prompt")
        yield Hint(id="hint")
        yield Footer()

    async def on_mount(self) -> None:
        problem = self.theme_reloader.activate(self.wanted_theme)
        if problem:
            self.theme_errors.append(problem)
        for error in self.theme_errors:
            self.notify(error, title="Theme refused", severity="error", timeout=10,
                        markup=False)
        self.watch_themes()
        for error in apply_config(self):  # keys remapped by id from config.yaml
            self.notify(error, title="Config", severity="error", timeout=10, markup=False)
        self.lay_out()
        # the panes live as long as the app: found once, while all are here
        self._routes = [self.query_one(t) for t in (CommandLog, DiffPane, StatusBar,
                                                    TabsPane, RefsPane, AgentPane)] + [self]
        self._unsubscribe = self.session.bus.subscribe(self._batcher)
        self.query_one(StatusBar).set(session=self.session.name)
        self.query_one(Prompt).focus()
        self.query_one(Prompt).show_hint()
        self.start_session()

    @work(group="session", exit_on_error=False)
    async def start_session(self) -> None:
        if self.live is not None:
            try:
                await self.live.start()
            except Exception as exc:  # noqa: BLE001  shown in the status bar and a notice
                self.query_one(StatusBar).set(last_error=str(exc))
                self.notify(str(exc), title="The browser did not start", severity="error",
                            timeout=30, markup=False)
                return
        status = self.session.status()
        self.query_one(StatusBar).set(mode="headed" if status["headed"] else "headless",
                                      recording=self._recording_failed or
                                      _recording(status.get("recording")))
        self.sync_control()  # attached during a handoff: the human has control already
        self.refresh_tabs()
        self.query_one(RefsPane).show(self.session.refs_info())  # attached: already there
        if self.first_url:
            await self.session.run(f"goto {self.first_url}", source="human")

    async def on_unmount(self) -> None:
        self._themes_stop.set()
        if self._unsubscribe:
            self._unsubscribe()
        self._batcher.close()
        if self.live is not None:
            await self.live.close()

    # --- engine events, in batches --------------------------------------------------------
    def on_engine_batch(self, message: EngineBatch) -> None:
        if not self.is_running:  # closing: its panes are being removed, one by one
            return
        try:
            self.deliver(message.events)
        except NoMatches as gone:  # a view that cannot show an event must not end the app
            log.warning("events not shown (%s): %s",
                        ", ".join(sorted({e.kind for e in message.events})), gone)

    def deliver(self, batch: list[Event]) -> None:
        """The batch as typed messages (tui/messages.py), each handed at once to the panes
        that handle it and to the app, in one batch_update: one repaint a batch."""
        with self.batch_update():
            for message in translate(batch, self.session):
                route(message, self._routes)
        if self._picture_due:
            self._picture_due = False
            self.refresh_picture()

    def on_commands_ran(self, message: CommandsRan) -> None:
        """A step that changed the page: its picture is due (the panes show the rest)."""
        self._picture_due |= any(e.kind == ev.COMMAND_FINISHED and
                                 (e.data.get("data") or {}).get("diff") is not None
                                 for e in message.events)

    def refresh_tabs(self) -> None:
        self.query_one(TabsPane).show(self.session.tabs_info())

    # --- input --------------------------------------------------------------------------
    def on_prompt_command(self, message: Prompt.Command) -> None:
        self.submit(message.line, typed=True)

    def submit(self, line: str, source: str = "human", typed: bool = False) -> None:
        """Queue a command; the prompt stays free while the browser works. A `typed` line
        goes to the history file once the session says how it shows it (masked or not)."""
        words = line.split()
        if words and words[0] == "help" and len(words) <= 2:
            self.push_screen(HelpScreen(self.session.registry, words[1] if len(words) > 1
                                        else None))
        self.run_worker(self._run(line, source, typed), group="commands",
                        exit_on_error=False)

    async def _run(self, line: str, source: str, typed: bool) -> None:
        result = await self.session.run(line, source=source)
        if typed:
            self.history.settle(line, result.command)
        if result.ok and "zoom" in result.data:  # a picture to enlarge: `zoom [TARGET]`
            self.push_screen(LiveZoomScreen(self.session, result.data["zoom"]))
        if result.ok and "live" in result.data and "watchers" in result.data:  # `live`
            wanted = result.data["live"]
            self.set_live(not self.live_mode if wanted is None else wanted == "on")

    def on_picture_pane_zoom(self, message: PicturePane.Zoom) -> None:
        self.submit("zoom")

    def on_picture_pane_live(self, message: PicturePane.Live) -> None:
        self.submit("live")

    def on_refs_pane_zoom(self, message: RefsPane.Zoom) -> None:
        self.submit(f"zoom {message.ref}")

    def on_refs_pane_propose(self, message: RefsPane.Propose) -> None:
        self.run_worker(self._propose(message.ref), group="commands", exit_on_error=False)

    async def _propose(self, ref: str) -> None:
        """`expectations REF` (logged as the person's), then the pick runs as typed."""
        result = await self.session.run(f"expectations {ref}", source="human")
        lines = result.data.get("proposals") if result.ok else None
        if not lines:
            self.notify(result.error or f"nothing to expect of {ref}", title="Expect",
                        severity="warning", markup=False)
            return
        self.push_screen(ExpectScreen(ref, list(lines)),
                         lambda line: self.submit(line) if line else None)

    def on_refs_pane_insert(self, message: RefsPane.Insert) -> None:
        self.insert_into_prompt(message.ref + " ")

    def on_tabs_pane_switch_to(self, message: TabsPane.SwitchTo) -> None:
        self.submit(f"tab {message.index}")

    def on_command_log_show_entry(self, message: CommandLog.ShowEntry) -> None:
        self.push_screen(TextScreen(f"#{message.entry.id} {message.entry.command}",
                                    describe_entry(message.entry)))

    def insert_into_prompt(self, text: str) -> None:
        prompt = self.query_one(Prompt)
        sep = "" if not prompt.value or prompt.value.endswith(" ") else " "
        prompt.value = f"{prompt.value}{sep}{text}"
        prompt.cursor_position = len(prompt.value)
        prompt.focus()

    def action_recordings(self) -> None:
        from .recordings import RecordingsScreen
        self.push_screen(RecordingsScreen(self.session))

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.session.registry))

    async def action_focus(self, widget_id: str) -> None:
        widget = self.query_one(f"#{widget_id}")
        pane = next((w for w in widget.ancestors_with_self if w.parent is self._main), None)
        if pane is not None and not pane.display:  # a narrow layout: show it first
            self.panes.reveal(pane.id or "")
            self.lay_out()
        widget.focus()

    # --- the layout, for the terminal's size (tui/layout.py) ------------------------------
    @property
    def _main(self) -> Container:
        return self.query_one("#main", Container)

    def on_resize(self, event: events.Resize) -> None:
        # the event's size: this runs before App's own handler records the new one
        self.lay_out(event.size.width, event.size.height)

    def lay_out(self, width: int | None = None, height: int | None = None) -> None:
        mode = self.panes.mode
        self.panes.apply(self._main, width or self.size.width, height or self.size.height)
        self.query_one(Footer).compact = self.panes.mode != "wide"
        if mode != self.panes.mode:
            self.refresh_bindings()  # the next-pane key shows only where it does something

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_pane":
            return self.panes.mode not in ("", "wide")
        if action == "confirm_answer":  # y/n answer only when nothing is being typed
            return bool(self._confirm_waiting) and not self.query_one(Prompt).value \
                and self.screen is self.screen_stack[0]
        return True

    def action_next_pane(self) -> None:
        self.panes.cycle()  # the pane's border names it: no notice needed
        self.lay_out()
        focused = self.focused
        if focused is not None and not all(w.display for w in focused.ancestors_with_self):
            self.query_one(Prompt).focus()  # focus must not stay on a hidden pane

    def on_command_log_highlighted(self, message: CommandLog.Highlighted) -> None:
        for pane in self.query(OutputPane):  # none once the app is closing: it may arrive late
            pane.show_entry(message.entry)

    def action_diff_step(self, delta: int) -> None:
        self.query_one(DiffPane).step(delta)

    @work(group="picture", exclusive=True, exit_on_error=False)
    async def refresh_picture(self) -> None:
        pane = self.query_one(PicturePane)
        if not pane.enabled or (self._pane_feed is not None and self._pane_feed.running):
            return  # (live: the frames show every step already)
        pane.show_png(await self.session.picture())

    # --- the live picture (tui/live.py) --------------------------------------------------
    def set_live(self, on: bool) -> None:
        self.live_mode = on
        self.live_changed()
        self.notify("the pictures follow the page as it paints" if on else
                    "the pictures are taken after each step again", title=f"Live: "
                    f"{'on' if on else 'off'}", markup=False)

    def live_changed(self) -> None:
        """Follow the page live where the person asked for it or has control: the Page
        pane, and a zoom showing."""
        wanted = self.live_mode or self.human_has_control
        pane = self.query_one(PicturePane)
        if wanted and pane.enabled:
            if self._pane_feed is None:
                self._pane_feed = FrameFeed(self.session, pane,
                                            lambda image, w, h: pane.show_image(image))
            self._pane_feed.start()
        elif self._pane_feed is not None:
            self._pane_feed.stop()
        pane.live = wanted
        if isinstance(self.screen, LiveZoomScreen):
            self.screen.sync_live()

    def action_zoom_labelled(self) -> None:
        """The page with its refs labelled: enlarged, and the labels drawn as text by the
        terminal (burnt into the pane's few pixels, they could not be read)."""
        self.submit("zoom")


def _recording(path: str | None) -> str:
    return Path(path).name if path else "off"
