"""Every profile Cockpit makes has password saving and credential/payment autofill off:
a person in a handoff window is never offered "Save password?", and nothing typed is
stored by the browser for a later session. A browser Cockpit attaches to is left alone."""

from __future__ import annotations

import json

from cockpit.core import Session
from cockpit.core.browser.profile_prefs import NO_STORED_SECRETS, disable_stored_secrets


def _get(prefs: dict, dotted: str):
    for key in dotted.split("."):
        prefs = prefs[key]
    return prefs


async def test_a_session_profile_stores_no_passwords_or_autofill(site):
    s = Session("prefs-off")
    await s.start()
    try:
        await s.run(f"goto {site.url}/login")
        profile = s.plan.profile_dir
    finally:
        await s.close()
    # read after Chromium wrote the file back on exit: it kept them
    prefs = json.loads((profile / "Default" / "Preferences").read_text())
    for dotted in ("credentials_enable_service", "profile.password_manager_enabled",
                   "autofill.profile_enabled", "autofill.credit_card_enabled"):
        assert _get(prefs, dotted) is False, dotted


async def test_chromium_itself_has_them_off(site):
    """What the browser uses (chrome://prefs-internals), not only what the file says: the
    full build's, the one a person gets in a handoff's window (a headless session may run
    the headless shell, which has neither a password manager nor chrome:// pages)."""
    first = Session("prefs-effective")
    await first.start()
    full = first.plan.executable
    await first.close()
    s = Session("prefs-effective", browser_path=full)
    await s.start()
    try:
        page = s.active.page
        await page.goto("chrome://prefs-internals")
        prefs = json.loads(await page.inner_text("body"))
    finally:
        await s.close()
    for dotted in ("credentials_enable_service", "credentials_enable_autosignin",
                   "autofill.profile_enabled", "autofill.credit_card_enabled",
                   "autofill.payment_cvc_storage"):
        assert _get(prefs, dotted)["value"] is False, dotted


def test_prefs_a_user_turned_on_are_turned_off_and_the_rest_kept(tmp_path):
    (tmp_path / "Default").mkdir()
    (tmp_path / "Default" / "Preferences").write_text(json.dumps({
        "credentials_enable_service": True, "profile": {"password_manager_enabled": True,
                                                        "name": "Work"},
        "autofill": "garbled", "homepage": "https://example.com"}))
    disable_stored_secrets(tmp_path)
    prefs = json.loads((tmp_path / "Default" / "Preferences").read_text())
    assert all(_get(prefs, dotted) == value for dotted, value in NO_STORED_SECRETS.items())
    assert prefs["profile"]["name"] == "Work" and prefs["homepage"] == "https://example.com"


def test_a_torn_preferences_file_is_written_afresh(tmp_path):
    (tmp_path / "Default").mkdir()
    (tmp_path / "Default" / "Preferences").write_text('{"credentials_enable_ser')
    disable_stored_secrets(tmp_path)
    prefs = json.loads((tmp_path / "Default" / "Preferences").read_text())
    assert prefs["credentials_enable_service"] is False
