"""The recordings screen (F12): this workspace's recordings, each one's steps with their
results and diffs (no browser needed), and a walkthrough that replays the chosen one in the
live session step by step, the recorded diff beside the one the step gives now."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from ..core import SessionSurface, diff_line
from ..record.reader import Recording, UnreadableRecording, read
from ..record.recorder import recordings_dir
from ..record.replay import Replayer, StepReport, missing_secrets
from .safe import clean



def diff_lines(diff: dict | None, limit: int = 40) -> str:
    """Without refs: the recorded and the replayed side may number them differently."""
    if not diff:
        return "(no diff: this step does not change the page)"
    lines = [diff.get("summary", "")]
    lines += [diff_line(change, ref=False)[1] for change in diff.get("changes", [])[:limit]]
    more = len(diff.get("changes", [])) - limit
    return "\n".join(lines + ([f"… {more} more"] if more > 0 else []))


class SecretScreen(ModalScreen[str | None]):
    """Asks for one secret a recording types ($NAME), masked as it is typed; Escape
    leaves it out (None)."""

    BINDINGS = [Binding("escape", "leave_out", "Leave it out", id="secret.skip")]
    DEFAULT_CSS = """
    SecretScreen { align: center middle; }
    #secret-dialog { width: 70; height: auto; border: round $warning; background: $surface;
                     padding: 0 1; }
    """

    def __init__(self, name: str, recording: str) -> None:
        super().__init__()
        self.secret = name
        self.recording = recording

    def compose(self) -> ComposeResult:
        with Vertical(id="secret-dialog"):
            yield Static(f"{self.recording} types ${self.secret}, which this session was "
                         "not given. Type its value (it is masked in recordings, like "
                         "--secret), or Escape to skip the steps that type it.",
                         markup=False)
            yield Input(password=True, placeholder=f"${self.secret}", id="secret-value")

    def on_mount(self) -> None:
        self.query_one("#secret-dialog").border_title = f"${self.secret}"
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value or None)

    def action_leave_out(self) -> None:
        self.dismiss(None)


class RecordingsScreen(ModalScreen):
    BINDINGS = [Binding("escape", "dismiss", "Close", id="recordings.close"),
                Binding("n", "walk_next", "Replay next step", id="recordings.next"),
                Binding("g", "walk_to", "Replay to the selected step", id="recordings.to"),
                Binding("s", "walk_skip", "Skip a step", id="recordings.skip"),
                Binding("p", "walk_pause", "Pause", id="recordings.pause")]

    def __init__(self, session: SessionSurface | None = None,
                 folder: Path | None = None) -> None:
        super().__init__()
        self.session = session  # the live one a walkthrough replays in (None: browse only)
        self.folder = folder or recordings_dir()
        self.files: list[Path] = []
        self.recording: Recording | None = None
        self.replayer: Replayer | None = None
        self.next_index = 0  # the walkthrough's next step (an index into steps)
        self.reports: dict[int, StepReport] = {}
        self.stop_at: int | None = None
        self.walking = False  # a step is being replayed: no other may start meanwhile
        self.without: set[str] = set()  # secrets not given: the steps typing them skip

    def compose(self) -> ComposeResult:
        with Vertical(id="recordings-screen"):
            yield DataTable(id="recordings-list", cursor_type="row")
            yield DataTable(id="recording-steps", cursor_type="row")
            with Horizontal(id="recording-detail"):
                yield Static("", markup=False, id="recorded-side")
                yield Static("", markup=False, id="replayed-side")

    def on_mount(self) -> None:
        self.query_one("#recordings-screen").border_title = (
            f"Recordings in {self.folder} (Enter opens · n next step · g replay to the "
            "selected step · s skip · p pause · Esc closes)")
        files = self.query_one("#recordings-list", DataTable)
        files.add_columns("file", "steps", "problems")
        self.query_one("#recording-steps", DataTable).add_columns(
            "n", "source", "command", "recorded", "ms", "url", "replayed")
        found = sorted(self.folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime,
                       reverse=True) if self.folder.is_dir() else []
        for path in found:
            try:
                rec = read(path)
                files.add_row(path.name, str(len(rec.steps)), str(len(rec.problems)))
            except UnreadableRecording as exc:
                files.add_row(path.name, "-", clean(str(exc))[:60])
            self.files.append(path)
        if not found:
            self.query_one("#recorded-side", Static).update(
                f"No recordings in {self.folder} yet: every session records itself there.")
        files.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "recordings-list":
            self.open(self.files[event.cursor_row])

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "recording-steps" and self.recording is not None:
            self.show_step(event.cursor_row)

    def open(self, path: Path) -> None:
        if self.walking:
            self.notify("a walkthrough is running: p pauses it first", markup=False)
            return
        try:
            recording = self.recording = read(path)
        except UnreadableRecording as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.replayer, self.next_index, self.reports = None, 0, {}
        table = self.query_one("#recording-steps", DataTable)
        table.clear()
        for step in recording.steps:
            table.add_row(str(step["n"]), step.get("source", ""), clean(step["command"]),
                          "ok" if step.get("ok") else "error", f"{step.get('ms') or 0:.0f}",
                          clean(step.get("url") or ""), "")
        for problem in recording.problems:
            self.notify(problem, title=path.name, severity="warning", markup=False)
        missing = missing_secrets(recording, self.session.secret_names) \
            if self.session is not None else []
        self.without = set()
        table.focus()
        if recording.steps:
            self.show_step(0)
        if missing:  # else those steps would type the name itself, `$PASSWORD`
            self.ask_secrets(path.name, missing)

    def ask_secrets(self, recording: str, names: list[str]) -> None:
        """One dialog per secret, in turn; a secret not given skips its steps. A session
        in another process (attach) cannot be handed one: its steps are skipped."""
        secrets = getattr(self.session, "secrets", None)
        if secrets is None:
            self._leave_out(recording, names, "the session runs in another process; start "
                            "it with --secret NAME to replay them")
            return
        name, rest = names[0], names[1:]

        def answered(value: str | None) -> None:
            if value is None:
                self._leave_out(recording, [name], "not given")
            else:
                secrets.add(f"{name}={value}")  # a valid name: the recording's own
            if rest:
                self.ask_secrets(recording, rest)
        self.app.push_screen(SecretScreen(name, recording), answered)

    def _leave_out(self, recording: str, names: list[str], why: str) -> None:
        self.without.update(names)
        self.replayer = None  # made again, knowing which steps to skip
        self.notify(f"the steps that type {', '.join('$' + n for n in names)} will be "
                    f"skipped ({why})", title=recording, severity="warning", markup=False)

    def show_step(self, index: int) -> None:
        if self.recording is None:
            return
        step = self.recording.steps[index]
        result = step.get("error") or step.get("output") or ""
        # results and diffs keep their lines (clean(..., one_line=False)): read as lines
        self.query_one("#recorded-side", Static).update(Text(
            f"recorded · step {step['n']}: {clean(step['command'])}\n"
            f"{clean(result[:2000], one_line=False)}\n\n"
            f"{clean(diff_lines(step.get('diff')), one_line=False)}"))
        report = self.reports.get(index)
        side = "not replayed yet (n replays the next step)" if report is None else (
            f"now · {report.status}: {clean(report.ran or report.recorded)}\n"
            + "\n".join(clean(r, one_line=False) for r in report.reasons)
            + f"\n\n{clean(diff_lines(report.actual.get('diff')), one_line=False)}")
        self.query_one("#replayed-side", Static).update(Text(side))

    # --- the walkthrough ----------------------------------------------------------------
    def _can_walk(self) -> bool:
        if self.recording is None or self.session is None:
            self.notify("open a recording first (Enter)" if self.session else
                        "no live session to replay in", markup=False)
            return False
        if self.replayer is None:
            self.replayer = Replayer(self.session, self.recording, without=self.without)
        return self.next_index < len(self.recording.steps)

    def action_walk_next(self) -> None:
        if self._can_walk():
            self._walk_to(self.next_index if not self.walking else (self.stop_at or 0) + 1)

    def action_walk_to(self) -> None:
        if self._can_walk():
            self._walk_to(self.query_one("#recording-steps", DataTable).cursor_row)

    def _walk_to(self, index: int) -> None:
        self.stop_at = max(index, self.stop_at or 0) if self.walking else index
        replayer, recording = self.replayer, self.recording
        if not self.walking and replayer is not None and recording is not None:
            self.walking = True  # a walk that runs just goes further
            # on the app, not this screen: closing the screen must not cancel a command
            # half-way in the live session
            self.app.run_worker(self.walk(replayer, recording.steps),
                                group="walkthrough", exit_on_error=False)

    def action_walk_skip(self) -> None:
        if self._can_walk() and not self.walking:
            self._mark(self.next_index, "skipped")
            self.next_index += 1

    def action_walk_pause(self) -> None:
        self.stop_at = None  # the step running finishes; no further one starts

    async def walk(self, replayer: Replayer, steps: list[dict[str, Any]]) -> None:
        try:
            while self.stop_at is not None and self.next_index <= self.stop_at \
                    and self.next_index < len(steps):
                index = self.next_index
                self.reports[index] = report = await replayer.step(steps[index])
                self.next_index += 1
                if self.is_attached:  # the screen may have been closed meanwhile
                    self._mark(index, report.status)
                if report.status == "diverged":  # as `cockpit replay` without --keep-going
                    self.stop_at = None
                    self.app.notify(f"step {report.n} diverged: {clean(report.reasons[0])}"
                                    if report.reasons else f"step {report.n} diverged",
                                    title="Walkthrough stopped (n or g goes on)",
                                    severity="warning", timeout=20, markup=False)
        except Exception as exc:  # noqa: BLE001  a worker's error is silent: say it, the screen stays
            self.app.notify(f"the walkthrough stopped at step {self.next_index + 1}: "
                            f"{type(exc).__name__}: {exc}", title="Walkthrough",
                            severity="error", timeout=20, markup=False)
        finally:
            self.walking, self.stop_at = False, None

    def _mark(self, index: int, status: str) -> None:
        table = self.query_one("#recording-steps", DataTable)
        table.update_cell_at(Coordinate(index, 6), {"same": "as recorded", "diverged": "DIVERGED",
                                          "skipped": "skipped"}.get(status, status))
        table.move_cursor(row=index)
        self.show_step(index)
