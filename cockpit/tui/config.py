"""The user's configuration file: `$XDG_CONFIG_HOME/cockpit/config.yaml` (by default
`~/.config/cockpit/config.yaml`). For now it remaps keys, by binding id:

    keys:
      help: f10                 # F10 opens the help instead of F1
      focus.prompt: ctrl+o
      quit: "ctrl+q,ctrl+x"     # several keys: one string, comma-separated

Every problem (an unknown id, a value that is not a key string, a key name Textual does not
know, two bindings given one key, ...) is reported with the file, the key and the reason;
nothing is silently ignored. What is valid is still applied."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

import yaml
from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import KEY_TO_UNICODE_NAME, REPLACED_KEYS, Keys, key_to_character

SECTIONS = ("keys",)
# Keys Textual keeps for itself in every app: a binding moved onto one would fight it.
RESERVED = {"ctrl+c": "copies the selected text (and tells how to quit)",
            "ctrl+p": "opens the command palette"}
MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}
# Named keys (f10, escape, pageup, ...): the last part of every Textual key name.
KEY_NAMES = {k.value.rpartition("+")[2] for k in Keys} | set(KEY_TO_UNICODE_NAME)


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base).expanduser() / "cockpit" / "config.yaml"


# --- the binding ids there are ---------------------------------------------------------
def tui_classes(app_class: type | None = None) -> list[type[DOMNode]]:
    """The app class and every widget or screen class of the TUI (cockpit.tui.*)."""
    from .app import CockpitApp  # here, not above: app.py imports this module

    found: list[type[DOMNode]] = [app_class or CockpitApp]
    stack = list(DOMNode.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("cockpit.tui.") and cls not in found:
            found.append(cls)
    return found


def binding_ids(classes: list[type[DOMNode]]) -> dict[str, list[tuple[str, str]]]:
    """binding id -> [(class name, default key)] for every Binding with an id in BINDINGS
    (inherited ones too) of these classes."""
    ids: dict[str, list[tuple[str, str]]] = {}
    for cls in classes:
        for klass in cls.__mro__:
            for binding in klass.__dict__.get("BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id:
                    where = (cls.__name__, binding.key)
                    if where not in ids.setdefault(binding.id, []):
                        ids[binding.id].append(where)
    return ids


# --- reading the file -------------------------------------------------------------------
class _Loader(yaml.SafeLoader):
    """A safe loader that remembers keys given twice (PyYAML silently keeps the last)."""

    def __init__(self, stream) -> None:
        super().__init__(stream)
        self.repeated: list[tuple[str, int]] = []

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str):
                if key in seen:
                    self.repeated.append((key, key_node.start_mark.line + 1))
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def key_problem(keys: str) -> str | None:
    """Why `keys` (Textual's "ctrl+o" or "f10,ctrl+h" form) is not a key string, or None."""
    if not keys.strip():
        return "the key string is empty"
    for key in (k.strip() for k in keys.split(",")):
        if not key:
            return f"{keys!r} has an empty key between commas"
        *modifiers, name = key.split("+")
        unknown = [m for m in modifiers if m not in MODIFIERS]
        if unknown:
            return (f"{key!r}: unknown modifier {unknown[0]!r} (modifiers: "
                    f"{', '.join(sorted(MODIFIERS))})")
        if not (len(name) == 1 or name in KEY_NAMES
                or key_to_character(REPLACED_KEYS.get(name, name)) is not None):
            hint = f"; did you mean {name.lower()!r}?" if name.lower() in KEY_NAMES else ""
            return (f"{key!r}: {name!r} is not a key name (examples: f10, ctrl+o, escape, "
                    f"pageup, question_mark){hint}")
    return None


def load_config(path: Path | str | None = None,
                known: dict[str, list[tuple[str, str]]] | None = None,
                ) -> tuple[dict[str, str], list[str]]:
    """The keymap (binding id -> key string) from the config file, and every problem found
    as "file: keys.id: reason". No file at the default place is no error; a path given
    explicitly must exist."""
    explicit = path is not None
    path = Path(path).expanduser() if path is not None else config_path()
    if known is None:
        known = binding_ids(tui_classes())
    keymap: dict[str, str] = {}
    errors: list[str] = []
    if not path.is_file():
        if explicit or path.exists():
            errors.append(f"{path}: no such file" if not path.exists() else
                          f"{path}: not a file")
        return keymap, errors
    try:
        loader = _Loader(path.read_text(encoding="utf-8"))
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return keymap, [f"{path}: cannot be read: {exc}"]
    for key, line in loader.repeated:
        errors.append(f"{path}: line {line}: {key!r} is given twice; the last one is used")
    if data is None:
        return keymap, errors
    if not isinstance(data, dict):
        return keymap, errors + [f"{path}: the file must be a mapping with a `keys:` section, "
                                 f"not {_kind(data)}"]
    for section in data:
        if section not in SECTIONS:
            errors.append(f"{path}: {section}: unknown section; known: {', '.join(SECTIONS)}")
    keys = data.get("keys")
    if keys is None:
        return keymap, errors
    if not isinstance(keys, dict):
        return keymap, errors + [f"{path}: keys: must be a mapping of binding id to key "
                                 f"string, not {_kind(keys)}"]
    for binding_id, value in keys.items():
        where = f"{path}: keys.{binding_id}"
        if binding_id not in known:
            close = difflib.get_close_matches(str(binding_id), list(known), n=1)
            errors.append(f"{where}: unknown binding id"
                          + (f" (did you mean {close[0]!r}?)" if close else "")
                          + f"; known ids: {', '.join(sorted(known))}")
            continue
        if not isinstance(value, str):
            errors.append(f"{where}: {value!r} is {_kind(value)}, not a key string: write "
                          f"it as \"f10\" or, for several keys, \"f10,ctrl+h\"")
            continue
        problem = key_problem(value)
        if problem:
            errors.append(f"{where}: {problem}")
            continue
        taken = [k.strip() for k in value.split(",") if k.strip() in RESERVED]
        if taken:
            errors.append(f"{where}: {taken[0]!r} {RESERVED[taken[0]]} in every Textual app; "
                          f"pick another key (this one is not applied)")
            continue
        keymap[binding_id] = ",".join(k.strip() for k in value.split(","))
    errors += _clashes(path, keymap, known)
    return keymap, errors


def _clashes(path: Path, keymap: dict[str, str],
             known: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Two binding ids of one class that end up on the same key: only one would work."""
    keys_of: dict[str, dict[str, set[str]]] = {}  # class -> key -> ids
    for binding_id, places in known.items():
        for cls, default in places:
            keys = keymap.get(binding_id, default)
            for key in (k.strip() for k in keys.split(",")):
                keys_of.setdefault(cls, {}).setdefault(key, set()).add(binding_id)
    errors = []
    for binding_id in keymap:
        for cls, _ in known[binding_id]:
            for key in (k.strip() for k in keymap[binding_id].split(",")):
                others = sorted(keys_of[cls][key] - {binding_id})
                if others:
                    errors.append(f"{path}: keys.{binding_id}: {key!r} is also the key of "
                                  f"{', '.join(others)} in {cls}; only one of them can work")
    return errors


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    return {dict: "a mapping", list: "a list", bool: "a yes/no value", int: "a number",
            float: "a number"}.get(type(value), f"a {type(value).__name__}")


def apply_config(app, path: Path | str | None = None) -> list[str]:
    """Remap the app's keys from the config file (`app.set_keymap`) and note on the app
    which key each binding id now has (`app.binding_keys`, for help texts); returns the
    problems found, for the app to show."""
    known = binding_ids(tui_classes(type(app)))
    keymap, errors = load_config(path, known)
    app.set_keymap(keymap)
    app.binding_keys = {binding_id: keymap.get(binding_id, places[0][1])
                        for binding_id, places in known.items()}
    return errors


def key_label(app, binding_id: str) -> str:
    """The key(s) that run a binding now, remapping included, as the footer writes them
    ("f1", "^r", "f10/^h")."""
    keys = getattr(app, "binding_keys", {}).get(binding_id)
    if keys is None:
        return binding_id
    return "/".join(app.get_key_display(Binding(key, "")) for key in keys.split(","))
