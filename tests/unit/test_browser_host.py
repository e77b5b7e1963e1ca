"""Finding a browser, per-workspace profiles, and profile locks."""

import os
import socket
import subprocess
import sys
from types import SimpleNamespace

import pytest

from cockpit.core.browser.browser import CHROMIUM_FLAGS, plan_launch, release_stale_profile_lock
from cockpit.core.base.errors import BrowserNotFoundError
from cockpit.core.base.workspace import session_dir, valid_session_name


def fake_playwright(bundled: str = "/nonexistent/chromium"):
    engine = SimpleNamespace(executable_path=bundled)
    return SimpleNamespace(chromium=engine, firefox=engine, webkit=engine)


def test_system_chromium_is_found_when_playwright_has_none():
    plan = plan_launch(fake_playwright(), "chromium")
    assert plan.executable and os.access(plan.executable, os.X_OK)
    assert set(CHROMIUM_FLAGS) <= set(plan.args)
    if os.geteuid() == 0:
        assert "--no-sandbox" in plan.args


def test_browser_path_overrides_and_is_checked(tmp_path):
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert plan_launch(fake_playwright(), browser_path=str(fake)).executable == str(fake)
    with pytest.raises(BrowserNotFoundError, match="not an executable file"):
        plan_launch(fake_playwright(), browser_path=str(tmp_path / "missing"))


def test_firefox_without_playwright_build_says_how_to_install():
    with pytest.raises(BrowserNotFoundError, match="playwright install firefox"):
        plan_launch(fake_playwright(), "firefox")


def test_workspaces_never_share_a_profile(tmp_path):
    a, b = tmp_path / "one" / "app", tmp_path / "two" / "app"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    assert session_dir("default", a) != session_dir("default", b)
    assert session_dir("default", a) == session_dir("default", a)
    with pytest.raises(ValueError, match="invalid session name"):
        valid_session_name("../escape")


def test_stale_profile_lock_is_released_and_a_live_one_refused(tmp_path):
    host = socket.gethostname()
    (tmp_path / "SingletonLock").symlink_to(f"{host}-999999999")  # no such process
    release_stale_profile_lock(tmp_path)
    assert not (tmp_path / "SingletonLock").is_symlink()
    # a live process that is not a browser of this profile: the dead one's number, reused
    (tmp_path / "SingletonLock").symlink_to(f"{host}-{os.getpid()}")
    release_stale_profile_lock(tmp_path)
    assert not (tmp_path / "SingletonLock").is_symlink()
    browser = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                f"--user-data-dir={tmp_path}"])
    try:
        (tmp_path / "SingletonLock").symlink_to(f"{host}-{browser.pid}")
        with pytest.raises(BrowserNotFoundError, match="in use by process"):
            release_stale_profile_lock(tmp_path)
    finally:
        browser.kill()
        browser.wait()
