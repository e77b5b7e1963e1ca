"""Keeps the docs' command reference (docs/commands.md) in step with the registry.

    python -m cockpit.docs      rewrite the section between the markers in docs/commands.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from .core import REGISTRY

START, END = "<!-- commands:start -->", "<!-- commands:end -->"
REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


def reference_section(text: str) -> str:
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n")


def update_reference(path: Path = REFERENCE) -> bool:
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    new = f"{head}{START}\n{REGISTRY.markdown()}{END}{tail}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    changed = update_reference()
    print("docs/commands.md updated" if changed else "docs/commands.md already up to date")
    sys.exit(0)
