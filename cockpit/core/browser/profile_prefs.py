"""Chromium preferences Cockpit sets in every profile it makes: no password saving, no
credential or payment autofill. A person in a handoff window is never offered "Save
password?", and nothing a person or an agent types is stored by the browser to be filled
into a later session. A browser Cockpit attaches to (--cdp) keeps its own settings."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# dotted path -> value, merged into Default/Preferences before each launch
# (current Chromium reads credentials_enable_service, autofill.profile_enabled and
# autofill.credit_card_enabled; profile.password_manager_enabled and autofill.enabled are
# the names older builds read)
NO_STORED_SECRETS: dict[str, Any] = {
    "credentials_enable_service": False,  # the password manager's "offer to save"
    "credentials_enable_autosignin": False,
    "profile.password_manager_enabled": False,
    "autofill.enabled": False,
    "autofill.profile_enabled": False,  # addresses
    "autofill.credit_card_enabled": False,  # payment methods
    "autofill.payment_cvc_storage": False,
    "payments.can_make_payment_enabled": False,
}


def disable_stored_secrets(profile_dir: Path) -> None:
    """Merge NO_STORED_SECRETS into the profile's Preferences (Chromium keeps what it finds
    there, and writes the file back with them)."""
    path = profile_dir / "Default" / "Preferences"
    prefs: dict[str, Any] = {}
    if path.is_file():
        try:
            prefs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # torn by a killed browser: Chromium starts it anew
            log.warning("the profile's Preferences could not be read; written afresh",
                        exc_info=True)
            prefs = {}
    for dotted, value in NO_STORED_SECRETS.items():
        node = prefs
        *parents, leaf = dotted.split(".")
        for key in parents:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[leaf] = value
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(json.dumps(prefs), encoding="utf-8")
