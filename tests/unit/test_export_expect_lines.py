"""Each form of `expect` as the exports write it: Playwright's own assertion, in Python
(pytest-playwright) and TypeScript (@playwright/test), from a recording (no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cockpit.record.export import to_pytest
from cockpit.record.export_ts import to_playwright_test
from cockpit.record.reader import Recording

SITE = "http://127.0.0.1:8421"
EMAIL = {"e3": {"role": "textbox", "name": "Email", "nth": 0}}

CASES = [  # command, its targets, the Python line, the TypeScript line
    ("expect @e3 visible", EMAIL,
     "expect(page.get_by_role('textbox', name='Email', exact=True)).to_be_visible()",
     "await expect(page.getByRole('textbox', { name: 'Email', exact: true })).toBeVisible();"),
    ("expect @e3 value a@b.c --not", EMAIL,
     "expect(page.get_by_role('textbox', name='Email', exact=True)).not_to_have_value('a@b.c')",
     "await expect(page.getByRole('textbox', { name: 'Email', exact: true }))"
     ".not.toHaveValue('a@b.c');"),
    ("expect '#terms' unchecked", {},
     "expect(page.locator('#terms')).not_to_be_checked()",
     "await expect(page.locator('#terms')).not.toBeChecked();"),
    ("expect '#terms' unchecked --not", {},
     "expect(page.locator('#terms')).to_be_checked()",
     "await expect(page.locator('#terms')).toBeChecked();"),
    ("expect '#toast' hidden --timeout 0", {},
     "expect(page.locator('#toast')).to_be_hidden(timeout=1)",
     "await expect(page.locator('#toast')).toBeHidden({ timeout: 1 });"),
    ("expect '#q' focused", {}, "expect(page.locator('#q')).to_be_focused()",
     "await expect(page.locator('#q')).toBeFocused();"),
    ("expect '#go' disabled", {}, "expect(page.locator('#go')).to_be_disabled()",
     "await expect(page.locator('#go')).toBeDisabled();"),
    ("expect '#msg' text \"it's saved\" --timeout 2000", {},
     "expect(page.locator('#msg')).to_contain_text(\"it's saved\", timeout=2000)",
     "await expect(page.locator('#msg')).toContainText('it\\'s saved', { timeout: 2000 });"),
    ("expect text 'Welcome back'", {},
     "expect(page.locator('body')).to_contain_text('Welcome back', use_inner_text=True)",
     "await expect(page.locator('body')).toContainText('Welcome back', "
     "{ useInnerText: true });"),
    ("expect count 'tr.row' 3", {}, "expect(page.locator('tr.row')).to_have_count(3)",
     "await expect(page.locator('tr.row')).toHaveCount(3);"),
    ("expect url /inbox", {}, "expect(page).to_have_url(ORIGIN + '/inbox')",
     "await expect(page).toHaveURL(ORIGIN + '/inbox');"),
    (f"expect url {SITE}/inbox?x=1", {}, "expect(page).to_have_url(ORIGIN + '/inbox?x=1')",
     "await expect(page).toHaveURL(ORIGIN + '/inbox?x=1');"),
    ("expect url '/in(box|s)$/'", {}, "expect(page).to_have_url(re.compile('in(box|s)$'))",
     "await expect(page).toHaveURL(new RegExp('in(box|s)$'));"),
    ("expect title Inbox --not", {}, "expect(page).not_to_have_title('Inbox')",
     "await expect(page).not.toHaveTitle('Inbox');"),
]


def recording(command: str, targets: dict) -> Recording:
    rec = Recording(Path("walk.jsonl"), header={"session": "t"})
    rec.steps = [
        {"type": "step", "n": 1, "source": "agent", "command": f"goto {SITE}/inbox",
         "ok": True, "url": f"{SITE}/inbox", "tab": 1, "targets": {}},
        {"type": "step", "n": 2, "source": "agent", "command": command, "ok": True,
         "url": f"{SITE}/inbox", "tab": 1, "at": {"tab": 1, "url": f"{SITE}/inbox"},
         "targets": targets}]
    return rec


@pytest.mark.parametrize("command, targets, python, typescript", CASES)
def test_each_expectation_is_exported_as_playwrights_assertion(command, targets, python,
                                                                typescript):
    rec = recording(command, targets)
    assert f"\n    {python}\n" in to_pytest(rec, "walk")
    spec = to_playwright_test(rec, "walk")
    assert f"\n  {typescript}\n" in spec
    assert spec.rstrip().endswith("});")


def test_an_expectation_that_failed_when_recorded_is_left_as_a_comment():
    rec = recording("expect '#msg' text Nope", {})
    rec.steps[1].update(ok=False, error='expected `#msg` text "Nope", found "Hi"')
    assert "    # failed when recorded, not exported: expected `#msg` text" in \
        to_pytest(rec, "walk")
    assert "  // failed when recorded, not exported: expected `#msg` text" in \
        to_playwright_test(rec, "walk")
