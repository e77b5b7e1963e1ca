"""The step of one action a page reported (capture_js.py): its command line, the role
and name of each element it names (`targets`, as a typed ref step has them; `frame`: the
iframes it is in, outermost first), and what it says it did."""

from __future__ import annotations

import shlex
from typing import Any

from ..language.shell_words import positional

REF = "e1"  # the ref a captured step names its element by: its element is in the targets
DROPPED_ON = "e2"  # ... and a drag's second one, what it was dropped on

Targets = dict[str, dict[str, Any]]


def element(target: Any, frame: list[str] | None = None) -> dict[str, Any] | None:
    """What replay and export find an element by (None: the page named no role)."""
    if not isinstance(target, dict) or not target.get("role"):
        return None
    want: dict[str, Any] = {"role": str(target["role"]), "name": str(target.get("name") or ""),
                            "nth": int(target.get("nth") or 0)}
    if not want["name"] and target.get("label"):  # nameless: by its words, as refs are
        want["label"] = str(target["label"])
    if frame:
        want["frame"] = list(frame)
    return want


def said(want: dict[str, Any]) -> str:
    return f'{want["role"]} "{want["name"] or want.get("label") or ""}"'


def step_of(action: dict[str, Any]) -> tuple[str, Targets, str] | None:
    """The command line, targets and output of one reported action (None: not a step)."""
    kind = str(action.get("kind"))
    if kind == "goto":
        url = str(action.get("url") or "")
        return (f"goto {shlex.quote(url)}", {}, f"went to {url}") if url else None
    if kind == "press":
        key = str(action.get("key") or "")
        return (f"press {words(key)}", {}, f"pressed {key}") if key else None
    frame = action.get("frame") if isinstance(action.get("frame"), list) else None
    want = element(action.get("target"), frame)
    if want is None:
        return None
    if kind == "drag":
        source = element(action.get("source"), frame)
        if source is None:
            return None
        return (f"drag @{REF} @{DROPPED_ON}", {REF: source, DROPPED_ON: want},
                f"dragged {said(source)} onto {said(want)}")
    if kind == "fill":
        if action.get("secret"):
            return f"fill @{REF} $PASSWORD", {REF: want}, f"filled {said(want)}"
        return (f"fill {words(f'@{REF}', str(action.get('value') or ''))}", {REF: want},
                f"filled {said(want)}")
    if kind == "select":
        values = [str(v) for v in action.get("values") or []]
        if not values:
            return None
        return (f"select {words(f'@{REF}', *values)}", {REF: want},
                f"selected {', '.join(values)} in {said(want)}")
    done = {"click": "clicked", "dblclick": "double-clicked", "check": "checked",
            "uncheck": "unchecked"}.get(kind)
    return (f"{kind} @{REF}", {REF: want}, f"{done} {said(want)}") if done else None


def words(*args: str) -> str:
    """A step's arguments as its line writes them: each quoted (a value the person typed
    stays their text, `$HOME` too), after `--` when one starts with '-'."""
    return " ".join(shlex.quote(word) if word != "--" else word
                    for word in positional(*args))
