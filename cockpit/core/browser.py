"""Finding and launching a browser: the one place that knows about executables and flags."""

from __future__ import annotations

import os
import re
import shutil
import socket
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BrowserNotFoundError
from .settle_js import INIT_JS as SETTLE_INIT_JS

ENGINES = ("chromium", "firefox", "webkit")

# Flags a closed network and root need; without them Chromium floods the network with
# update, sync and metrics requests that are refused here.
CHROMIUM_FLAGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-default-browser-check",
]

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

HEADED_NEEDS_FULL = (
    "Playwright's Chromium is installed as the headless shell only (`playwright install "
    "--only-shell`), and a visible window (--headed, handoff) needs the full build: "
    "`python -m playwright install chromium`, a system Chromium (Debian/Ubuntu: `apt-get "
    "install chromium`), or --browser-path /path/to/chrome")


@dataclass
class LaunchPlan:
    """Everything needed to start the browser; kept so a relaunch (handoff) is identical."""

    engine: str = "chromium"
    executable: str | None = None  # the full browser; None: Playwright's own (firefox/webkit)
    headless: bool = True
    profile_dir: Path | None = None
    args: list[str] = field(default_factory=list)
    headless_shell: str | None = None  # Playwright's Chromium headless shell, when installed

    @property
    def binary(self) -> str | None:
        """The executable this launch runs: the headless shell for a headless launch when
        Playwright installed one (as Playwright itself does), else the full browser.
        Raises BrowserNotFoundError for a headed launch when only the shell exists."""
        if self.headless and self.headless_shell:
            return self.headless_shell
        if self.executable is None and self.headless_shell:
            raise BrowserNotFoundError(HEADED_NEEDS_FULL)
        return self.executable

    @property
    def description(self) -> str:
        if self.headless and self.headless_shell:
            where = f"Playwright's headless shell {self.headless_shell}"
        else:
            where = self.executable or "Playwright's bundled build"
        return f"{self.engine} ({where}, {'headless' if self.headless else 'headed'})"


def _exists(path: str | None) -> bool:
    return path is not None and Path(path).is_file() and os.access(path, os.X_OK)


def find_system_chromium() -> str | None:
    for candidate in SYSTEM_CHROMIUMS:
        path = candidate if candidate.startswith("/") else shutil.which(candidate)
        if path and _exists(path):
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
                if candidate.name in HEADLESS_SHELL_NAMES and _exists(str(candidate)):
                    return str(candidate)
            return None
    return None


def plan_launch(playwright, engine: str = "chromium", browser_path: str | None = None,
                headless: bool = True, profile_dir: Path | None = None) -> LaunchPlan:
    """Choose the executable: --browser-path, then Playwright's own Chromium (full, or
    `--no-shell`: full only), then a system browser, then Playwright's headless shell alone
    (`--only-shell`: headless launches only; a headed one says what to install)."""
    if engine not in ENGINES:
        raise BrowserNotFoundError(f"unknown browser engine {engine!r}: use one of "
                                   f"{', '.join(ENGINES)}")
    browser_path = browser_path or os.environ.get("COCKPIT_BROWSER_PATH")
    shell: str | None = None
    if browser_path:
        if not _exists(browser_path):
            raise BrowserNotFoundError(f"--browser-path {browser_path} is not an executable "
                                       f"file; {HOW_TO_GET_ONE}")
        executable: str | None = browser_path
    else:
        bundled = getattr(playwright, engine).executable_path
        if engine != "chromium":
            if not _exists(bundled):
                raise BrowserNotFoundError(
                    f"no {engine} browser found; `python -m playwright install {engine}` "
                    f"(system {engine} builds do not work with Playwright), or use the "
                    "default chromium")
            executable = None
        else:
            # Named explicitly, never left to Playwright: with `--no-shell` it would look
            # for the missing headless shell on every headless launch.
            shell = find_headless_shell(bundled)
            executable = bundled if _exists(bundled) else find_system_chromium()
            if executable is not None and executable != bundled:
                shell = None  # never mix builds on one profile: the system one does both
            if executable is None and shell is None:
                raise BrowserNotFoundError(f"no {engine} browser found; {HOW_TO_GET_ONE}")
    args = list(CHROMIUM_FLAGS) if engine == "chromium" else []
    if engine == "chromium" and hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox
    if executable is None and not headless:
        raise BrowserNotFoundError(HEADED_NEEDS_FULL)  # only the headless shell is there
    return LaunchPlan(engine, executable, headless, profile_dir, args, shell)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # not Linux, or it is gone
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def release_stale_profile_lock(profile_dir: Path) -> None:
    """Chromium leaves `SingletonLock` (host-pid) behind when killed; a live one means in use."""
    lock = profile_dir / "SingletonLock"
    if not lock.is_symlink():
        return
    host, _, pid = os.readlink(lock).rpartition("-")
    alive = False
    if host == socket.gethostname() and pid.isdigit():
        try:
            os.kill(int(pid), 0)
            alive = not _zombie(int(pid))  # killed, not yet reaped by Playwright's driver
        except ProcessLookupError:
            alive = False
        except PermissionError:
            alive = True
    if alive:
        raise BrowserNotFoundError(
            f"the browser profile {profile_dir} is in use by process {pid} (another Cockpit "
            "session with this name in this workspace?): stop it or choose --session NAME")
    for name in ("SingletonLock", "SingletonSocket", "SingletonCookie"):
        try:
            (profile_dir / name).unlink()
        except FileNotFoundError:
            pass


async def launch(playwright, plan: LaunchPlan):
    """Start a persistent context for the plan and return it."""
    assert plan.profile_dir is not None
    executable = plan.binary  # before anything starts: says so when headed needs the full build
    plan.profile_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if plan.engine == "chromium":
        release_stale_profile_lock(plan.profile_dir)
    browser_type = getattr(playwright, plan.engine)
    try:
        context = await browser_type.launch_persistent_context(
            str(plan.profile_dir), headless=plan.headless, executable_path=executable,
            args=plan.args, viewport={"width": 1280, "height": 800}, accept_downloads=True,
            handle_sigint=False, handle_sigterm=False, handle_sighup=False)
        # every document notes what an action sets going there (core/settle.py asks it)
        await context.add_init_script(script=SETTLE_INIT_JS)
        return context
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        display = "" if plan.headless or os.environ.get("DISPLAY") or os.environ.get(
            "WAYLAND_DISPLAY") else " (no DISPLAY is set: a headed browser needs a screen; " \
            "run under xvfb-run or drop --headed)"
        raise BrowserNotFoundError(f"could not start {plan.description}: {first}{display}") \
            from exc
