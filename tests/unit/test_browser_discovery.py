"""Playwright's own Chromium is found however it was installed: full (with its headless
shell), `--no-shell` (full only) and `--only-shell` (the headless shell only).

The layouts are faked with executable stubs in a PLAYWRIGHT_BROWSERS_PATH directory; where
the full build lives is asked of the real Playwright driver, so the test follows Playwright's
own resolution (browsers directory, revision, per-platform sub-path)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cockpit.core.browser import browser, executables
from cockpit.core.browser.browser import plan_launch
from cockpit.core.base.errors import BrowserNotFoundError

ASK_PLAYWRIGHT = ("from playwright.sync_api import sync_playwright\n"
                  "with sync_playwright() as p: print(p.chromium.executable_path)")

# the headless shell's place inside chromium_headless_shell-REV/, new and old builds
SHELL_LAYOUTS = ["chrome-headless-shell-linux64/chrome-headless-shell",
                 "chrome-linux/headless_shell"]


@pytest.fixture(scope="module")
def browsers(tmp_path_factory) -> tuple[Path, str]:
    """An empty browsers directory and the full Chromium's path Playwright expects in it."""
    root = tmp_path_factory.mktemp("ms-playwright")
    env = dict(os.environ, PLAYWRIGHT_BROWSERS_PATH=str(root))
    out = subprocess.run([sys.executable, "-c", ASK_PLAYWRIGHT], env=env, capture_output=True,
                         text=True, timeout=60, check=True)
    full = out.stdout.strip()
    assert full.startswith(str(root)), full
    return root, full


@pytest.fixture
def layout(browsers, monkeypatch):
    """Makes stub executables in the browsers directory; no system Chromium to fall back on."""
    root, full = browsers
    for child in root.iterdir():
        subprocess.run(["rm", "-rf", str(child)], check=True)
    monkeypatch.setattr(executables, "SYSTEM_CHROMIUMS", [])
    monkeypatch.delenv("COCKPIT_BROWSER_PATH", raising=False)
    playwright = SimpleNamespace(chromium=SimpleNamespace(executable_path=full))

    def make(*, full_build: bool, shell: str | None) -> tuple[SimpleNamespace, str, str | None]:
        paths = [full] if full_build else []
        shell_path = None
        if shell:
            revision = Path(full).relative_to(root).parts[0].split("-")[1]
            shell_path = str(root / f"chromium_headless_shell-{revision}" / shell)
            paths.append(shell_path)
        for path in paths:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text("#!/bin/sh\nexit 0\n")
            Path(path).chmod(0o755)
        return playwright, full, shell_path
    return make


@pytest.mark.parametrize("shell", SHELL_LAYOUTS)
def test_full_install_runs_headless_on_the_shell_and_headed_on_the_full_build(layout, shell):
    playwright, full, shell_path = layout(full_build=True, shell=shell)
    headless = plan_launch(playwright, headless=True)
    assert headless.binary == shell_path
    assert "headless shell" in headless.description
    assert plan_launch(playwright, headless=False).binary == full


def test_no_shell_install_names_the_full_build_for_headless_launches(layout):
    playwright, full, _ = layout(full_build=True, shell=None)
    plan = plan_launch(playwright, headless=True)
    # Left to Playwright (executable None), a headless launch would look for the missing shell.
    assert plan.executable == full and plan.binary == full
    assert plan_launch(playwright, headless=False).binary == full


@pytest.mark.parametrize("shell", SHELL_LAYOUTS)
async def test_only_shell_install_runs_headless_and_says_headed_needs_the_full_build(
        layout, shell, tmp_path):
    playwright, _, shell_path = layout(full_build=False, shell=shell)
    plan = plan_launch(playwright, headless=True, profile_dir=tmp_path / "profile")
    assert plan.binary == shell_path
    with pytest.raises(BrowserNotFoundError, match=r"headless shell only.*playwright install "
                                                   r"chromium"):
        plan_launch(playwright, headless=False)
    # a handoff relaunches the same plan headed: refused before anything starts, clearly
    headed = browser.LaunchPlan(**{**plan.__dict__, "headless": False})
    with pytest.raises(BrowserNotFoundError, match="needs the full build"):
        await browser.launch(SimpleNamespace(), headed)


def test_nothing_installed_says_how_to_get_a_browser(layout):
    playwright, _, _ = layout(full_build=False, shell=None)
    with pytest.raises(BrowserNotFoundError, match="playwright install chromium"):
        plan_launch(playwright)


def system_chromium(folder: Path, *, with_shell: bool, scripts: bool = False) -> str:
    """A system Chromium's layout as executable stubs: Debian's /usr/lib/chromium/ (the
    builds), or with `scripts` its /usr/bin/ (the wrappers that run them)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = ["chromium"] + (["chromium-headless-shell"] if with_shell else [])
    for name in names:
        (folder / name).write_bytes(b"#!/bin/sh\nexec true\n" if scripts else b"\x7fELF stub")
        (folder / name).chmod(0o755)
    return str(folder / "chromium")


@pytest.mark.parametrize("with_shell", [True, False])
def test_a_system_chromium_runs_headless_on_its_own_headless_shell_when_installed(
        layout, monkeypatch, tmp_path, with_shell):
    playwright, _, _ = layout(full_build=False, shell=None)  # no Playwright build at all
    full = system_chromium(tmp_path / "lib" / "chromium", with_shell=with_shell)
    monkeypatch.setattr(executables, "SYSTEM_CHROMIUMS", [full])
    headless, headed = plan_launch(playwright), plan_launch(playwright, headless=False)
    shell = str(tmp_path / "lib" / "chromium" / "chromium-headless-shell")
    assert headless.binary == (shell if with_shell else full)
    assert ("headless shell" in headless.description) == with_shell
    assert headed.binary == full  # a handoff's window: the full build of the same version


def test_a_browser_path_given_is_run_as_given(layout, tmp_path):
    playwright, _, _ = layout(full_build=False, shell=None)
    full = system_chromium(tmp_path / "lib" / "chromium", with_shell=True)
    assert plan_launch(playwright, browser_path=full).binary == full


def test_a_wrapper_script_is_never_paired_with_a_shell_beside_it(layout, monkeypatch, tmp_path):
    """/usr/bin/chromium and /usr/bin/chromium-headless-shell are scripts that run some
    build: nothing says they run the same one."""
    playwright, _, _ = layout(full_build=False, shell=None)
    wrapper = system_chromium(tmp_path / "bin", with_shell=True, scripts=True)
    monkeypatch.setattr(executables, "SYSTEM_CHROMIUMS", [wrapper])
    assert plan_launch(playwright).binary == wrapper
