"""Playwright's device descriptors as context options (`device NAME`, `--device`)."""

from __future__ import annotations

import difflib
import logging
from typing import Any

from ..base.errors import UsageError
from ..language.parser import excerpt

log = logging.getLogger("cockpit")

# The device descriptor's keys that are context options (default_browser_type is not).
DEVICE_KEYS = ("user_agent", "viewport", "screen", "device_scale_factor", "is_mobile",
               "has_touch")


def device_options(found: dict[str, dict[str, Any]], name: str) -> tuple[str, dict[str, Any]]:
    """The exact name and the context options of a device, found in any case."""
    by_lower = {n.lower(): n for n in found}
    exact = by_lower.get(name.lower())
    if exact is None:
        near = difflib.get_close_matches(name, list(found), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(repr(n) for n in near)}? " if near else ""
        raise UsageError(f"no device {excerpt(name)!r}: {hint}`device list` names them all")
    descriptor = found[exact]
    return exact, {k: descriptor[k] for k in DEVICE_KEYS if k in descriptor}
