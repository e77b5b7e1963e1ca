"""Hot reload of theme files: a changed or new file in a theme dir is loaded again and
registered; if it is the active theme, the app recolours at once. A bad edit is refused
with its reason in a notification, and the last good version stays."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from textual.app import App
from textual.theme import Theme
from watchfiles import Change, awatch

from .themes import (APP_VARIABLES, DEFAULT_THEME, ThemeRefused, is_theme_file, load_theme,
                     theme_dirs)

log = logging.getLogger(__name__)


def css_failure(exc: Exception, theme: Theme | None) -> str:
    """Which variables the app's CSS could not use, as far as Textual's error tells."""
    names: list[str] = []
    try:  # the layout of Textual's CSS errors is not public API: the names are a bonus
        for rule in exc.errors.rules:  # type: ignore[attr-defined]
            for token, _ in rule.errors:
                name = token.referenced_by.name if token.referenced_by else None
                if name and f"variables.{name}" not in names:
                    names.append(f"variables.{name}")
    except Exception:  # another layout: fall back to the theme's own variables below
        log.debug("cannot read the variables out of Textual's CSS error", exc_info=True)
    if not names:
        names = [f"variables.{v}" for v in (theme.variables if theme else {})
                 if v not in APP_VARIABLES]
    return (f"{', '.join(names) or 'variables'}: a value the app's CSS cannot use here "
            "(see https://textual.textualize.io/guide/design/ for each variable's kind)")


class ThemeReloader:
    """Applies changed theme files to a running app, keeping the dirs' precedence."""

    def __init__(self, app: App, files: dict[str, Path],
                 dirs: list[Path] | None = None) -> None:
        self.app = app
        self.dirs = [d.resolve() for d in (theme_dirs() if dirs is None else dirs)]
        # theme name -> the file its registered version is from
        self.files = {name: path.resolve() for name, path in files.items()}

    def watched_dirs(self) -> list[Path]:
        """The dirs that exist now (a dir made later is not watched: restart to see it)."""
        return list(dict.fromkeys(d for d in self.dirs if d.is_dir()))

    def rank(self, path: Path) -> int:
        parent = path.resolve().parent
        return max((i for i, d in enumerate(self.dirs) if d == parent), default=-1)

    def activate(self, name: str) -> str | None:
        """Make `name` the app's theme; if it is unknown or the CSS cannot take it, keep
        (or fall back to) a theme that works and return why."""
        if name not in self.app.available_themes:
            if DEFAULT_THEME in self.app.available_themes:
                self.activate(DEFAULT_THEME)
            return (f"no theme named {name!r}; themes: "
                    f"{', '.join(sorted(self.app.available_themes))}")
        before = self.app.theme
        self.app.theme = name
        try:  # now, so that a bad variable is a message instead of a crash
            self.app.refresh_css(animate=False)
        except Exception as exc:  # the message names the variable; the log has the rest
            log.warning("theme %s does not apply", name, exc_info=True)
            self.app.theme = next(t for t in (DEFAULT_THEME, before, "textual-dark")
                                  if t != name and t in self.app.available_themes)
            self.app.refresh_css(animate=False)
            where = self.files.get(name, name)
            return f"{where}: {css_failure(exc, self.app.get_theme(name))}"
        return None

    def reload(self, path: Path) -> str | None:
        """Load `path` again and register its theme; the name of the theme registered."""
        path = path.resolve()
        if not path.is_file():  # deleted or moved away: its theme stays registered
            return None
        try:
            theme = load_theme(path)
        except ThemeRefused as exc:
            self.app.notify(f"{exc}\nThe previous version stays.", title="Theme refused",
                            severity="error", timeout=10, markup=False)
            return None
        owner = self.files.get(theme.name)
        if owner is not None and owner != path and self.rank(owner) > self.rank(path):
            self.app.notify(f"{path}: theme {theme.name!r} is not used: {owner} "
                            "overrides it", title="Theme", severity="warning", markup=False)
            return None
        previous = self.app.get_theme(theme.name)
        self.app.register_theme(theme)
        if self.app.theme == theme.name:
            try:  # a Textual variable the CSS cannot take fails here, not in the app's loop
                self.app.refresh_css(animate=False)
            except Exception as exc:  # shown below; the log has the traceback
                log.warning("theme file %s does not apply", path, exc_info=True)
                if previous is not None:
                    self.app.register_theme(previous)
                self.app.refresh_css(animate=False)
                self.app.notify(f"{path}: {css_failure(exc, theme)}\nThe previous version "
                                "stays.", title="Theme refused", severity="error",
                                timeout=10, markup=False)
                return None
            # Same name, new colours: setting `theme` to its own value is a no-op, so force
            # the reactive's watcher, which also sets the dark/light classes and tells the
            # widgets that cache styles.
            self.app.mutate_reactive(App.theme)
        self.files[theme.name] = path
        self.app.notify(f"theme {theme.name!r} loaded from {path}", title="Theme",
                        timeout=3, markup=False)
        return theme.name

    async def watch(self, stop: asyncio.Event) -> None:
        """Reload theme files as they change, until `stop` is set."""
        dirs = self.watched_dirs()
        if not dirs:
            return

        def wanted(change: Change, name: str) -> bool:
            return change != Change.deleted and is_theme_file(Path(name))

        # watchfiles debounces: an editor's burst of writes arrives as one set.
        async for changes in awatch(*dirs, watch_filter=wanted, stop_event=stop,
                                    recursive=False):
            for path in sorted({Path(name) for _, name in changes}):
                try:
                    self.reload(path)
                except Exception as exc:  # one bad reload must not end hot reload
                    log.warning("reloading theme file %s failed", path, exc_info=True)
                    self.app.notify(f"{path}: {exc}", title="Theme reload failed",
                                    severity="error", timeout=10, markup=False)
