"""List the themes (name, dark or light, file) and every problem in the theme files;
exit 1 if any file was refused."""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    # said without importing the theme loader (Textual): parsing must stay quick
    parser.epilog = ("Theme dirs, later ones win: the package's themes/, the checkout's "
                     "themes/, then $XDG_CONFIG_HOME/cockpit/themes (~/.config/...).")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..tui.themes import load_themes, theme_dirs
    loaded = load_themes()
    width = max((len(name) for name in loaded.themes), default=0)
    for name in sorted(loaded.themes):
        shade = "dark" if loaded.themes[name].dark else "light"
        print(f"{name:<{width}}  {shade:<5}  {loaded.files[name]}")
    if not loaded.themes:
        print("no themes found in " + ", ".join(map(str, theme_dirs())))
    for problem in loaded.errors:
        print(f"refused: {problem}", file=sys.stderr)
    return 1 if loaded.errors else 0
