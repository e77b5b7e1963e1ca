"""Themes from YAML files: `themes/` of the project (or the copy shipped in the package)
and the user's theme directory. Colours come only from themes, never from widgets.

One file holds one theme. Its keys are exactly the fields of Textual's `Theme` (read from
the installed Textual, so a new field is accepted when Textual gains it) plus `variables`.
Every problem is reported with the file, the line, the key and the reason; a refused file
registers nothing."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

# Theme's fields by the type Textual declares for them (annotations are strings there).
_KINDS = {"str": "colour", "str | None": "colour", "bool": "boolean", "float": "number",
          "dict[str, str]": "variables"}
FIELD_KINDS = {f.name: _KINDS[str(f.type)] for f in dataclasses.fields(Theme)
               if f.name != "name" and str(f.type) in _KINDS}
THEME_FIELDS = {"name", *FIELD_KINDS}
# Fractions: Textual blends with them, so only 0..1 makes sense.
FRACTIONS = {"luminosity_spread", "text_alpha"}
# The cockpit's own theme variables, with defaults for themes that do not set them.
APP_VARIABLES = {"diff-added": "#4CB963", "diff-removed": "#E5484D",
                 "diff-changed": "#D9A520", "ref": "#4FA3E0", "agent": "#A97BD8",
                 "human": "#4F8FD6"}
DEFAULT_THEME = "cockpit-dark"
SUFFIXES = (".yaml", ".yml")
EMPTY = 'is empty (a # starts a YAML comment: quote colours, "#5AA9E6")'


def user_theme_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base).expanduser() / "cockpit" / "themes"


def theme_dirs() -> list[Path]:
    """Where themes are read from, lowest precedence first: a later dir's theme replaces
    an earlier one of the same name."""
    here = Path(__file__).resolve().parent.parent
    return [here / "themes", here.parent / "themes", user_theme_dir()]


def is_theme_file(path: Path) -> bool:
    return path.suffix in SUFFIXES and not path.name.startswith(".")


@dataclass(frozen=True)
class Problem:
    """Why (part of) a theme file was refused."""
    file: Path
    key: str  # "" when the problem is the whole file
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        where = [str(self.file)] + ([f"line {self.line}"] if self.line else [])
        return ": ".join(where + ([self.key] if self.key else []) + [self.reason])


class ThemeRefused(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


def _kind(value: Any) -> str:
    return "empty" if value is None else f"a {type(value).__name__}"


def _colour_problem(value: Any) -> str | None:
    if value is None:  # most often `primary: #5AA9E6`, which YAML reads as a comment
        return EMPTY
    if not isinstance(value, str):
        return f"{value!r} is {_kind(value)}, not a colour string like \"#5AA9E6\""
    try:
        Color.parse(value)
    except ColorParseError:
        return f"{value!r} is not a colour (write #RRGGBB, rgb(r,g,b), hsl(...) or a name)"
    return None


def _read(path: Path) -> tuple[Any, dict[str, int], list[Problem]]:
    """The YAML data, the line of every key (variables as "variables.NAME"), and keys
    given twice (PyYAML would silently keep the last)."""
    loader = yaml.SafeLoader(path.read_text(encoding="utf-8"))
    try:
        node = loader.get_single_node()
        lines: dict[str, int] = {}
        twice: list[Problem] = []

        def walk(mapping: yaml.Node, prefix: str) -> None:
            for key_node, value_node in mapping.value:
                key = prefix + str(key_node.value)
                line = key_node.start_mark.line + 1
                if key in lines:
                    twice.append(Problem(path, key, "is given twice", line))
                lines[key] = line
                if key == "variables" and isinstance(value_node, yaml.MappingNode):
                    walk(value_node, "variables.")

        if isinstance(node, yaml.MappingNode):
            walk(node, "")
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, lines, twice


def load_theme(path: Path) -> Theme:
    """The theme in `path`, or ThemeRefused with every problem found."""
    path = Path(path)
    try:
        data, lines, problems = _read(path)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        reason = f"YAML syntax error: {exc.problem or exc}"
        if exc.context and exc.context_mark and exc.context_mark is not mark:
            reason += f" ({exc.context} at line {exc.context_mark.line + 1})"
        raise ThemeRefused([Problem(path, "", reason, mark.line + 1 if mark else None)]) \
            from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ThemeRefused([Problem(path, "", f"cannot be read: {exc}")]) from None
    if not isinstance(data, dict):
        reason = f"the file must be a mapping of theme fields, not {_kind(data)}"
        raise ThemeRefused([Problem(path, "", reason)])

    def refuse(key: str, reason: str) -> None:
        problems.append(Problem(path, key, reason, lines.get(key)))

    data.setdefault("name", path.stem)
    for key, value in data.items():
        kind = FIELD_KINDS.get(key)
        if key == "name":
            if not isinstance(value, str) or not value.strip():
                refuse(key, f"{value!r} is {_kind(value)}, not a theme name")
        elif kind is None:
            refuse(str(key), f"unknown key; known: {', '.join(sorted(THEME_FIELDS))}")
        elif kind == "colour" and (problem := _colour_problem(value)) is not None:
            refuse(key, problem)
        elif kind == "boolean" and not isinstance(value, bool):
            refuse(key, f"{value!r} is {_kind(value)}, not true or false")
        elif kind == "number" and (isinstance(value, bool)
                                   or not isinstance(value, (int, float))):
            refuse(key, f"{value!r} is {_kind(value)}, not a number")
        elif kind == "number" and key in FRACTIONS and not 0 <= value <= 1:
            refuse(key, f"{value!r} is outside 0..1")
        elif kind == "variables":
            _check_variables(value, refuse)
    if "primary" not in data:
        refuse("primary", "is required (the colour everything else is derived from)")
    if problems:
        raise ThemeRefused(problems)
    theme = Theme(**data)
    try:  # what Textual does when the theme is applied: fail here, not in the running app
        theme.to_color_system().generate()
    except Exception as exc:  # noqa: BLE001  shown: the refusal names the file and the error
        raise ThemeRefused([Problem(path, "", f"Textual cannot build it: {exc}")]) from None
    return theme


def _check_variables(value: Any, refuse) -> None:
    if not isinstance(value, dict):
        refuse("variables", f"{value!r} is {_kind(value)}, not a mapping of name to value")
        return
    for name, item in value.items():
        key = f"variables.{name}"
        if item is None:
            refuse(key, EMPTY)
        elif not isinstance(item, str):  # Textual pastes them into CSS: strings only
            refuse(key, f"{item!r} is {_kind(item)}, not a string")
        elif name in APP_VARIABLES and (reason := _colour_problem(item)) is not None:
            refuse(key, reason)


@dataclass
class Loaded:
    themes: dict[str, Theme] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)  # theme name -> its file
    errors: list[Problem] = field(default_factory=list)


def theme_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if is_theme_file(p))


def load_themes(dirs: list[Path] | None = None) -> Loaded:
    """Every theme of every dir; a bad file is reported, never silently skipped."""
    loaded = Loaded()
    for folder in theme_dirs() if dirs is None else dirs:
        for path in theme_files(folder):
            try:
                theme = load_theme(path)
            except ThemeRefused as exc:
                loaded.errors += exc.problems
                continue
            loaded.themes[theme.name] = theme
            loaded.files[theme.name] = path
    return loaded
