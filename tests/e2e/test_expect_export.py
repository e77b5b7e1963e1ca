"""`cockpit export`: a walk's expectations become Playwright's own `expect(...)` lines, in
the pytest-playwright test and in the @playwright/test TypeScript spec (`--to
playwright-test`); both run unedited, pass against the site and fail where it changed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_expect_replay import record_walk_with_expectations, walk_page

COCKPIT = [sys.executable, "-m", "cockpit"]
# @playwright/test from the npm registry, installed once (Playwright's browsers are not
# downloaded: the spec finds the system's Chromium, as Cockpit does)
NPM_DIR = Path.home() / ".cache" / "cockpit" / "playwright-test"


def export(path: Path, to: str, out: Path) -> subprocess.CompletedProcess:
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", to, "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made


def test_the_pytest_export_asserts_the_expectations_and_fails_where_the_site_changed(
        tmp_path, base):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    path = tmp_path / "walk.jsonl"
    record_walk_with_expectations(path, base)
    out = tmp_path / "test_walk.py"
    export(path, "pytest", out)
    code = out.read_text()
    for line in ("expect(page.locator('#msg')).to_contain_text('Saved a@b.c', timeout=1500)",
                 "expect(page.get_by_role('textbox', name='Email', exact=True))"
                 ".to_have_value('a@b.c')",
                 "expect(page.get_by_role('checkbox', name='News', exact=True))"
                 ".to_be_checked()",
                 "expect(page).to_have_title('Saved', timeout=1500)",
                 "expect(page).to_have_url(re.compile('saved=1'))"):
        assert f"\n    {line}\n" in code, code
    assert "# failed when recorded, not exported: expected `#msg` text" in code
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "playwright", out.name], cwd=tmp_path, capture_output=True,
                         text=True, timeout=180)
    assert "1 passed" in ran.stdout, ran.stdout + ran.stderr
    walk_page("Stored")
    try:
        broken = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p",
                                 "no:cacheprovider", "-p", "playwright", out.name],
                                cwd=tmp_path, capture_output=True, text=True, timeout=180)
    finally:
        walk_page()
    assert broken.returncode == 1 and "1 failed" in broken.stdout, broken.stdout
    assert "to_contain_text" in broken.stdout and "Stored a@b.c" in broken.stdout


def playwright_test_modules() -> Path:
    """node_modules with @playwright/test in it, installed from the npm registry once;
    skipped with the reason when that cannot be done (failed under CI=true)."""
    modules = NPM_DIR / "node_modules"
    installed = modules / "@playwright" / "test" / "package.json"
    why = None
    if shutil.which("npm") is None or shutil.which("npx") is None:
        why = "npm/npx are not installed (apt-get install npm)"
    elif installed.is_file():
        why = node_too_old(installed)
        if why is None:
            return modules
    else:
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        try:
            ran = subprocess.run(["npm", "install", "--no-audit", "--no-fund",
                                  "--loglevel=error", "@playwright/test"], cwd=NPM_DIR,
                                 capture_output=True, text=True, timeout=600,
                                 env={**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"})
            if ran.returncode != 0:
                last = (ran.stderr.strip().splitlines() or ["(no output)"])[-1]
                why = f"`npm install @playwright/test` failed (exit {ran.returncode}): {last}"
            else:
                why = node_too_old(installed)
        except subprocess.TimeoutExpired:
            why = "`npm install @playwright/test` took over 10 minutes"
    if why is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    return modules


def node_too_old(package: Path) -> str | None:
    """Why this Node cannot run the @playwright/test installed (its `engines`), or None:
    `npx playwright test` would otherwise fail with no word of the reason."""
    import json
    wanted = json.loads(package.read_text()).get("engines", {}).get("node", "")
    least = re.match(r">=\s*(\d+)", wanted)
    ran = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    have = re.match(r"v(\d+)", ran.stdout.strip())
    if least and have and int(have.group(1)) < int(least.group(1)):
        return (f"@playwright/test needs Node {wanted}, this is {ran.stdout.strip()} "
                f"(Debian 12's nodejs is 18: NodeSource's, or Debian 13's)")
    return None


def test_the_typescript_spec_runs_under_npx_playwright_test_and_fails_where_the_site_changed(
        tmp_path, base):
    modules = playwright_test_modules()
    path = tmp_path / "walk.jsonl"
    record_walk_with_expectations(path, base)
    spec = tmp_path / "walk.spec.ts"
    made = export(path, "playwright-test", spec)
    code = spec.read_text()
    for line in ("await expect(page.locator('#msg')).toContainText('Saved a@b.c', "
                 "{ timeout: 1500 });",
                 "await expect(page.getByRole('textbox', { name: 'Email', exact: true }))"
                 ".toHaveValue('a@b.c');",
                 "await expect(page.getByRole('checkbox', { name: 'News', exact: true }))"
                 ".toBeChecked();",
                 "await page.getByRole('button', { name: 'Save', exact: true }).click();",
                 "await expect(page).toHaveTitle('Saved', { timeout: 1500 });",
                 "await expect(page).toHaveURL(new RegExp('saved=1'));"):
        assert f"\n  {line}\n" in code, code
    assert "import { test, expect, chromium, type Page } from '@playwright/test';" in code
    (tmp_path / "node_modules").symlink_to(modules)  # where the runner resolves it from
    printed = re.search(r"run it with `([^`]+)`", made.stdout).group(1)
    assert printed == f"cd {shlex.quote(str(tmp_path))} && npx playwright test walk.spec.ts"

    def npx() -> subprocess.CompletedProcess:
        return subprocess.run(["npx", "playwright", "test", "walk.spec.ts", "--reporter=line"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "CI": "1"})
    ran = npx()
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
    walk_page("Stored")
    try:
        broken = npx()
    finally:
        walk_page()
    assert broken.returncode == 1 and "1 failed" in broken.stdout, broken.stdout
    assert "toContainText" in broken.stdout and "Stored a@b.c" in broken.stdout
