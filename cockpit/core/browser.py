"""Finding and launching a browser: the one place that knows about executables and flags."""

from __future__ import annotations

import os
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


@dataclass
class LaunchPlan:
    """Everything needed to start the browser; kept so a relaunch (handoff) is identical."""

    engine: str = "chromium"
    executable: str | None = None  # None: Playwright's own build
    headless: bool = True
    profile_dir: Path | None = None
    args: list[str] = field(default_factory=list)

    @property
    def description(self) -> str:
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


def plan_launch(playwright, engine: str = "chromium", browser_path: str | None = None,
                headless: bool = True, profile_dir: Path | None = None) -> LaunchPlan:
    """Choose the executable: --browser-path, then Playwright's own, then a system browser."""
    if engine not in ENGINES:
        raise BrowserNotFoundError(f"unknown browser engine {engine!r}: use one of "
                                   f"{', '.join(ENGINES)}")
    browser_path = browser_path or os.environ.get("COCKPIT_BROWSER_PATH")
    if browser_path:
        if not _exists(browser_path):
            raise BrowserNotFoundError(f"--browser-path {browser_path} is not an executable "
                                       f"file; {HOW_TO_GET_ONE}")
        executable: str | None = browser_path
    else:
        bundled = getattr(playwright, engine).executable_path
        if _exists(bundled):
            executable = None
        elif engine == "chromium" and (system := find_system_chromium()):
            executable = system
        else:
            hint = HOW_TO_GET_ONE if engine == "chromium" else (
                f"`python -m playwright install {engine}` (system {engine} builds do not work "
                "with Playwright), or use the default chromium")
            raise BrowserNotFoundError(f"no {engine} browser found; {hint}")
    args = list(CHROMIUM_FLAGS) if engine == "chromium" else []
    if engine == "chromium" and hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox
    return LaunchPlan(engine, executable, headless, profile_dir, args)


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
            alive = True
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
    plan.profile_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if plan.engine == "chromium":
        release_stale_profile_lock(plan.profile_dir)
    browser_type = getattr(playwright, plan.engine)
    try:
        context = await browser_type.launch_persistent_context(
            str(plan.profile_dir), headless=plan.headless, executable_path=plan.executable,
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
