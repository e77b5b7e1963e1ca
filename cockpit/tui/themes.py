"""Themes from YAML files: `themes/` of the project (or the copy shipped in the package)
and the user's theme directory. Colours come only from themes, never from widgets."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from textual.theme import Theme

THEME_FIELDS = {"name", "primary", "secondary", "accent", "foreground", "background",
                "surface", "panel", "boost", "success", "warning", "error", "dark",
                "luminosity_spread", "text_alpha", "variables"}
# The cockpit's own theme variables, with defaults for themes that do not set them.
APP_VARIABLES = {"diff-added": "#4CB963", "diff-removed": "#E5484D",
                 "diff-changed": "#D9A520", "ref": "#4FA3E0", "agent": "#A97BD8",
                 "human": "#4F8FD6"}
DEFAULT_THEME = "cockpit-dark"


def theme_dirs() -> list[Path]:
    here = Path(__file__).resolve().parent.parent
    user = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "cockpit"
    return [here / "themes", here.parent / "themes", user / "themes"]


@dataclass
class Loaded:
    themes: dict[str, Theme] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # "file: reason"


def load_theme(path: Path) -> Theme:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("the file must be a mapping of theme fields")
    unknown = set(data) - THEME_FIELDS
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}; known: "
                         f"{', '.join(sorted(THEME_FIELDS))}")
    data.setdefault("name", path.stem)
    if "primary" not in data:
        raise ValueError("`primary` is required")
    return Theme(**data)


def load_themes() -> Loaded:
    loaded = Loaded()
    for folder in theme_dirs():
        for path in sorted(folder.glob("*.y*ml")) if folder.is_dir() else []:
            try:
                theme = load_theme(path)
            except Exception as exc:  # a bad file is reported, never silently skipped
                loaded.errors.append(f"{path}: {exc}")
                continue
            loaded.themes[theme.name] = theme
    return loaded
