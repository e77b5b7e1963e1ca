"""`a` on a ref's row: the expectations that hold now for that element (`expectations
@eN`), to pick one; the one picked runs as a command of the person's, so it is logged,
recorded, replayed and exported like one typed in the prompt."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static


class ExpectScreen(ModalScreen[str | None]):
    """Pick one `expect` line (Enter), or none (Escape)."""

    DEFAULT_CSS = """
    ExpectScreen { align: center middle; }
    #expect-screen { width: 80%; max-width: 100; height: auto; max-height: 80%;
                     border: round $accent; background: $surface; padding: 0 1; }
    #expect-options { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "dismiss", "Close", id="expect.close")]

    def __init__(self, ref: str, lines: list[str]) -> None:
        super().__init__()
        self.ref = ref
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical(id="expect-screen"):
            yield Static("Holds now; Enter keeps one as a check of the walk (Esc: none)",
                         markup=False)
            yield OptionList(*self.lines, id="expect-options")

    def on_mount(self) -> None:
        self.query_one("#expect-screen").border_title = f"Expect {self.ref}"
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.lines[event.option_index])
