"""Which browser binary a launch runs: a system Chromium when Playwright's own is not
installed, Playwright's headless shell of the same revision, or the headless shell a
system Chromium has beside it (browser.plan_launch chooses among them)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

# System browsers tried, in order, when Playwright's own Chromium is not installed.
SYSTEM_CHROMIUMS = [
    "/usr/lib/chromium/chromium",  # Debian's real binary (skips the noisy wrapper script)
    "google-chrome", "google-chrome-stable", "chromium", "chromium-browser",
    "microsoft-edge", "microsoft-edge-stable", "brave-browser", "brave",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
]

HOW_TO_GET_ONE = (
    "install one: `python -m playwright install chromium`, or a system Chromium "
    "(Debian/Ubuntu: `apt-get install chromium`), or pass --browser-path /path/to/chrome"
)


# Playwright's headless shell (`playwright install --only-shell`, or beside the full build):
# `chromium_headless_shell-REV/chrome-headless-shell-linux64/chrome-headless-shell` since
# Chrome for Testing builds, `chromium_headless_shell-REV/chrome-linux/headless_shell` before.
HEADLESS_SHELL_NAMES = ("chrome-headless-shell", "chrome-headless-shell.exe", "headless_shell",
                        "headless_shell.exe")


def exists(path: str | None) -> bool:
    return path is not None and Path(path).is_file() and os.access(path, os.X_OK)


def find_system_chromium() -> str | None:
    for candidate in SYSTEM_CHROMIUMS:
        path = candidate if candidate.startswith("/") else shutil.which(candidate)
        if path and exists(path):
            return path
    return None


def find_headless_shell(bundled: str | None) -> str | None:
    """Playwright's headless shell of the same revision as its full Chromium, if installed.

    `bundled` is the full build's path as Playwright reports it (installed or not); it
    already follows PLAYWRIGHT_BROWSERS_PATH and the platform's cache directory, so the
    shell is its sibling `chromium_headless_shell-REV` in the same browsers directory."""
    if not bundled:
        return None
    for folder in Path(bundled).parents:
        revision = re.fullmatch(r"chromium-(\d+)", folder.name)
        if revision:
            shell_dir = folder.parent / f"chromium_headless_shell-{revision[1]}"
            if not shell_dir.is_dir():
                return None
            for candidate in sorted(shell_dir.glob("*/*")):
                if candidate.name in HEADLESS_SHELL_NAMES and exists(str(candidate)):
                    return str(candidate)
            return None
    return None


# Debian's `chromium-headless-shell` package puts the headless shell beside the binary of
# `chromium` (/usr/lib/chromium/); both are built from one source package and depend on
# the same `chromium-common` version, so they are one build, as Playwright's own pair is.
SIBLING_SHELL_NAMES = ("chromium-headless-shell", "chrome-headless-shell")


def sibling_headless_shell(executable: str) -> str | None:
    """The headless shell installed beside a system Chromium, if any. It starts in a
    third of the full browser's time (~100 ms against ~290 ms here): it is what Playwright
    runs headless too when it has its own builds."""
    folder = Path(os.path.realpath(executable)).parent
    if _script(str(Path(executable).resolve())):
        return None  # a wrapper (/usr/bin/chromium): what is beside it is no build of its
    for name in SIBLING_SHELL_NAMES:
        candidate = os.path.realpath(folder / name)
        if exists(candidate) and not _script(candidate):
            return candidate
    return None


def _script(path: str) -> bool:
    """Whether the file is a script (`#!`): a launcher of some binary, not a build."""
    try:
        with open(path, "rb") as file:
            return file.read(2) == b"#!"
    except OSError:
        return True
