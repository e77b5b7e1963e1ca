"""Keeps the README's command reference in step with the registry.

    python -m cockpit.docs      rewrite the section between the markers in README.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from .core import REGISTRY

START, END = "<!-- commands:start -->", "<!-- commands:end -->"
README = Path(__file__).resolve().parent.parent / "README.md"


def reference_section(text: str) -> str:
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n")


def update_readme(path: Path = README) -> bool:
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    new = f"{head}{START}\n{REGISTRY.markdown()}{END}{tail}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    changed = update_readme()
    print("README.md updated" if changed else "README.md already up to date")
    sys.exit(0)
