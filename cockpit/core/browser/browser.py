"""Finding and launching a browser: the one place that knows about executables and flags."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from . import attach as attaching
from ..base.errors import BrowserNotFoundError
from .executables import (HOW_TO_GET_ONE, exists, find_headless_shell,
                          find_system_chromium, sibling_headless_shell)
from .processes import new_mark, to_background
from .profile_prefs import disable_stored_secrets
from ..settle.settle_js import INIT_JS as SETTLE_INIT_JS

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, BrowserType, Page, Playwright

log = logging.getLogger(__name__)


class ContextSource(Protocol):
    """A browser that sessions share (browser/shared.py's SharedBrowser), as a launch
    plan needs it: how it runs, and a new context of its own for each session."""

    @property
    def headed(self) -> bool: ...

    async def new_context(self, options: dict[str, Any] | None = None
                          ) -> BrowserContext: ...


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
    # "local": launched by us on profile_dir; "cdp" / "ws": a running browser we attach to
    # at `endpoint` (--cdp, --ws-endpoint) and never close, relaunch or restart; "shared":
    # a context of ours on a browser that sessions share (`shared`, browser/shared.py)
    kind: str = "local"
    endpoint: str | None = None
    found: str = ""  # --cdp auto: which browser it found, and where
    # --remote-header: sent with the connection; secrets, never shown (repr=False)
    headers: dict[str, str] | None = field(default=None, repr=False)
    shared: ContextSource | None = field(default=None, repr=False, compare=False)
    # the switch that finds the running browser's process (browser/processes.py); each
    # launch gets a new one
    mark: str | None = field(default=None, compare=False)

    @property
    def owns_browser(self) -> bool:
        """Whether Cockpit launched this browser, and so may close or relaunch it (on a
        shared browser: the session's own context)."""
        return self.kind in ("local", "shared")

    @property
    def can_open_window(self) -> bool:
        """Whether a relaunch may turn this browser headed (a handoff's window): only a
        browser of the session's own; a shared one stays as it was launched."""
        return self.kind == "local"

    @property
    def shown_endpoint(self) -> str | None:
        """The endpoint, without what grants access to it (for status, logs, messages)."""
        return attaching.shown(self.endpoint) if self.endpoint else None

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
        if not self.owns_browser:
            via = "over CDP" if self.kind == attaching.CDP else "from the browser server"
            found = f"; {self.found}" if self.found else ""
            mode = "headless" if self.headless else "headed"
            return (f"{self.engine} {via} at {self.shown_endpoint} ({mode}, not launched by "
                    f"Cockpit: never closed by it{found})")
        shared = ", shared with other sessions" if self.kind == "shared" else ""
        if self.headless and self.headless_shell:
            where = f"the headless shell {self.headless_shell}"
        else:
            where = self.executable or "Playwright's bundled build"
        return f"{self.engine} ({where}, {'headless' if self.headless else 'headed'}{shared})"



def plan_launch(playwright: Playwright, engine: str = "chromium", browser_path: str | None = None,
                headless: bool = True, profile_dir: Path | None = None) -> LaunchPlan:
    """Choose the executable: --browser-path, then Playwright's own Chromium (full, or
    `--no-shell`: full only), then a system browser (headless: the headless shell beside
    it when installed), then Playwright's headless shell alone
    (`--only-shell`: headless launches only; a headed one says what to install)."""
    if engine not in ENGINES:
        raise BrowserNotFoundError(f"unknown browser engine {engine!r}: use one of "
                                   f"{', '.join(ENGINES)}")
    browser_path = browser_path or os.environ.get("COCKPIT_BROWSER_PATH")
    shell: str | None = None
    if browser_path:
        if not exists(browser_path):
            raise BrowserNotFoundError(f"--browser-path {browser_path} is not an executable "
                                       f"file; {HOW_TO_GET_ONE}")
        executable: str | None = browser_path
    else:
        bundled = getattr(playwright, engine).executable_path
        if engine != "chromium":
            if not exists(bundled):
                raise BrowserNotFoundError(
                    f"no {engine} browser found; `python -m playwright install {engine}` "
                    f"(system {engine} builds do not work with Playwright), or use the "
                    "default chromium")
            executable = None
        else:
            # Named explicitly, never left to Playwright: with `--no-shell` it would look
            # for the missing headless shell on every headless launch.
            shell = find_headless_shell(bundled)
            executable = bundled if exists(bundled) else find_system_chromium()
            if executable is not None and executable != bundled:
                # never mix builds on one profile: a system Chromium's own shell only
                shell = sibling_headless_shell(executable)
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


def _runs_profile(pid: int, profile_dir: Path) -> bool:
    """Whether the process is a browser of this profile: after a browser was killed its
    number may already be another process's (on a busy machine numbers wrap around)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:  # not Linux, or not ours to read: take the lock at its word
        return True
    return f"--user-data-dir={profile_dir}".encode() in argv


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
            # killed and not yet reaped by Playwright's driver, or its number reused
            alive = not _zombie(int(pid)) and _runs_profile(int(pid), profile_dir)
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


def plan_attach(request: attaching.Attach, engine: str = "chromium") -> LaunchPlan:
    """The plan for a running browser (`--cdp`, `--ws-endpoint`); `--cdp auto` looks for
    a local one now, and the plan says which it found."""
    endpoint, found = request.endpoint, ""
    if request.kind == attaching.CDP and endpoint == "auto":
        local = attaching.find_local()
        endpoint, found = local.endpoint, local.description
        log.info("--cdp auto: attaching to %s at %s", local.description,
                 attaching.shown(endpoint))
    return LaunchPlan(engine, None, True, None, [], None, request.kind, endpoint, found,
                      request.header_dict)


ATTACH_TIMEOUT_MS = 15_000


async def connect(playwright: Playwright, plan: LaunchPlan) -> BrowserContext:
    """Attach to the running browser of the plan and return the context the session uses:
    over CDP the browser's own (its open tabs become the session's), from a browser server
    a new one of ours. `plan.headless` is set to what the browser reports."""
    assert plan.endpoint is not None
    browser_type: BrowserType = getattr(playwright, plan.engine)
    try:
        if plan.kind == attaching.CDP:
            browser = await browser_type.connect_over_cdp(plan.endpoint,
                                                          timeout=ATTACH_TIMEOUT_MS,
                                                          headers=plan.headers)
        else:
            browser = await browser_type.connect(plan.endpoint, timeout=ATTACH_TIMEOUT_MS,
                                                 headers=plan.headers)
    except Exception as exc:  # noqa: BLE001 (said below, without the endpoint's secret part)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        first = attaching.redact(first, plan.endpoint)
        for value in (plan.headers or {}).values():  # a server may echo what it was sent
            first = first.replace(value, "•••")
        hint = ("is the browser running with --remote-debugging-port, and is this its port?"
                if plan.kind == attaching.CDP else
                "is the server running (`playwright launch-server`, `playwright "
                "run-server`), and is its Playwright version this one's?")
        raise BrowserNotFoundError(f"could not attach to {plan.shown_endpoint}: {first}: "
                                   f"{hint}") from None
    try:
        context: BrowserContext = (
            browser.contexts[0] if browser.contexts else await browser.new_context(
                viewport={"width": 1280, "height": 800}, accept_downloads=True))
        plan.headless = await _reports_headless(browser)
        await context.add_init_script(script=SETTLE_INIT_JS)
    except BaseException:
        with contextlib.suppress(Exception):  # the original error is the one to say
            await browser.close()
        raise
    return context


async def _reports_headless(browser: Browser) -> bool:
    """Whether the attached browser runs without a window: Chromium says so in its user
    agent (HeadlessChrome). One that cannot tell is taken as headless (no window to show)."""
    try:
        cdp = await browser.new_browser_cdp_session()
        version = await cdp.send("Browser.getVersion")
        await cdp.detach()
    except Exception:  # not Chromium (a Firefox or WebKit server): nothing to ask
        log.debug("the attached browser does not say whether it is headless", exc_info=True)
        return True
    return "Headless" in str(version.get("userAgent", ""))


async def close_browser(plan: LaunchPlan | None, context: BrowserContext) -> None:
    """Close what the plan opened: our own browser; for one we attached to, only our
    connection (and a browser server's context of ours): that browser and its tabs stay."""
    if plan is None or plan.owns_browser:
        await context.close()
        return
    browser = context.browser
    if browser is not None:  # disconnects: Playwright never closes a connected browser
        await browser.close()


async def launch(playwright: Playwright, plan: LaunchPlan,
                 options: dict[str, Any] | None = None) -> BrowserContext:
    """Start a persistent context for the plan and return it (or, for a browser that is
    already running, attach to it: connect()). `options`: more context options (the
    session's emulation, core/network/state.py), over the defaults."""
    if not plan.owns_browser:
        return await connect(playwright, plan)
    if plan.shared is not None:  # a context of a browser other sessions use too
        if plan.headless == plan.shared.headed:
            raise BrowserNotFoundError(
                "this session's browser is shared with other sessions and stays "
                f"{'headed' if plan.shared.headed else 'headless'}: hand over in the "
                "terminal or the web view (`handoff --terminal`)")
        return await plan.shared.new_context(options)
    assert plan.profile_dir is not None
    executable = plan.binary  # before anything starts: says so when headed needs the full build
    plan.profile_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if plan.engine == "chromium":
        release_stale_profile_lock(plan.profile_dir)
        disable_stored_secrets(plan.profile_dir)  # no saved passwords, no autofill
    browser_type: BrowserType = getattr(playwright, plan.engine)
    try:
        given = {"viewport": {"width": 1280, "height": 800}, **(options or {})}
        plan.mark = new_mark() if plan.engine == "chromium" else None
        context = await browser_type.launch_persistent_context(
            str(plan.profile_dir), headless=plan.headless, executable_path=executable,
            args=plan.args + ([plan.mark] if plan.mark else []), accept_downloads=True,
            handle_sigint=False, handle_sigterm=False, handle_sighup=False, **given)
        if plan.headless and plan.mark:  # an agent's: background work (processes.py)
            to_background(plan.mark)
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


async def set_user_agent(context: BrowserContext, engine: str, page: Page, ua: str) -> None:
    """Chromium changes the UA per page through CDP; others get the header only."""
    if engine == "chromium":
        cdp = await context.new_cdp_session(page)
        await cdp.send("Network.setUserAgentOverride", {"userAgent": ua})
    else:
        await page.set_extra_http_headers({"User-Agent": ua})
