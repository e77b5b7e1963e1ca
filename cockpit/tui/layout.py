"""Which panes the main screen shows, and where, for the terminal's size.

Three layouts, chosen from the terminal's size (`layout_for`):

- wide (100+ columns, 30+ rows): three columns, every pane at once: tabs and refs on the
  left; the log, the output of the command under the log's cursor and the diff in the
  middle; the picture and the agent on the right.
- stacked (70+ columns, 20+ rows): the log across the whole width, the output under it, and
  one more pane beside the output, which a key cycles (agent, picture, refs, diff, tabs).
- single (smaller): one pane at a time, cycled by the same key; the first is the log with
  the output under it, so a command and its result are still read together.

The panes are siblings in one container whose CSS grid (cockpit.tcss) places them; the
grid fills its cells in the children's order, so a change of layout puts them in that
layout's order (`Widget.move_child`) and shows only the panes it has room for.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from textual.widget import Widget

WIDE, STACKED, SINGLE = "wide", "stacked", "single"
WIDE_MIN = (100, 30)  # columns, rows
STACKED_MIN = (70, 20)
ROOMY_COLUMNS = 160  # from here the side columns take their full widths
SHORT_ROWS = 30  # below: the prompt loses its border (two rows more for the panes)

# Pane ids in the order each layout's grid needs them (see cockpit.tcss).
WIDE_ORDER = ("tabs", "log", "picture-pane", "refs", "output", "diff", "agent")
NARROW_ORDER = ("log", "output", "agent", "picture-pane", "refs", "diff", "tabs")
# What the cycling key steps through; "commands" is the log with the output.
SIDE_PANES = ("agent", "picture-pane", "refs", "diff", "tabs")
SINGLE_PANES = ("commands",) + SIDE_PANES



def layout_for(width: int, height: int) -> str:
    if width >= WIDE_MIN[0] and height >= WIDE_MIN[1]:
        return WIDE
    if width >= STACKED_MIN[0] and height >= STACKED_MIN[1]:
        return STACKED
    return SINGLE


@dataclass
class PaneLayout:
    """The main screen's layout now, and the pane the cycling key shows."""

    mode: str = ""
    side: str = "agent"  # the pane beside the output (stacked)
    single: str = "commands"  # the pane shown (single)

    def shown(self) -> set[str]:
        if self.mode == WIDE:
            return set(WIDE_ORDER)
        if self.mode == STACKED:
            return {"log", "output", self.side}
        return {"log", "output"} if self.single == "commands" else {self.single}

    def cycle(self) -> str:
        """The next pane; returns its name."""
        if self.mode == STACKED:
            self.side = SIDE_PANES[(SIDE_PANES.index(self.side) + 1) % len(SIDE_PANES)]
            return self.side
        if self.mode == SINGLE:
            self.single = SINGLE_PANES[(SINGLE_PANES.index(self.single) + 1)
                                       % len(SINGLE_PANES)]
            return self.single
        return ""

    def reveal(self, pane_id: str) -> None:
        """Bring the pane that holds `pane_id` into view (a key that focuses it)."""
        if pane_id in ("log", "output"):
            self.single = "commands"
        elif pane_id in SIDE_PANES:
            self.side = self.single = pane_id

    def apply(self, main: Widget, width: int, height: int) -> None:
        """Lay `main`'s panes out for a terminal of this size."""
        mode = layout_for(width, height)
        if mode != self.mode:
            self.mode = mode
            order = WIDE_ORDER if mode == WIDE else NARROW_ORDER
            panes = [main.get_child_by_id(pane_id) for pane_id in order]
            for before, pane in pairwise(panes):
                main.move_child(pane, after=before)
        for name in (WIDE, STACKED, SINGLE):
            main.set_class(name == mode, f"-{name}")
        main.set_class(width >= ROOMY_COLUMNS, "-roomy")
        main.screen.set_class(height < SHORT_ROWS, "-short")
        shown = self.shown()
        for pane_id in WIDE_ORDER:
            main.get_child_by_id(pane_id).display = pane_id in shown
