"""DataTables whose last column takes the width the others leave (no sideways scrolling)."""

from __future__ import annotations

from textual.widgets import DataTable


class FittedTable(DataTable):
    """A DataTable whose last column fills the remaining width and cuts its text."""

    # Columns that share the room the fixed ones leave, as shares of it (last one: rest).
    FLEXIBLE: dict[str, float] = {}

    def fit_last_column(self) -> None:
        if not self.columns:
            return
        keys = list(self.columns)
        flexible = [k for k in keys if k.value in self.FLEXIBLE] or keys[-1:]
        fixed = sum(self.columns[k].get_render_width(self) for k in keys if k not in flexible)
        room = self.size.width - fixed - 2 * self.cell_padding * len(flexible) - 1
        if room <= 8 * len(flexible):
            return
        left = room
        for n, key in enumerate(flexible):
            # only the last may be no FLEXIBLE column (the fallback), and it takes the rest
            share = left if n == len(flexible) - 1 else int(
                room * self.FLEXIBLE.get(key.value or "", 0.0))
            left -= share
            column = self.columns[key]
            column.auto_width = False
            column.width = share
        self._require_update_dimensions = True
        self.refresh(layout=True)

    def on_resize(self) -> None:
        self.fit_last_column()

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit_last_column)
