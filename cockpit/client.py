"""The Python client of a live session (public API): `from cockpit.client import Cockpit`.

It lives in `cockpit.control.client`; this module keeps the import path users rely on."""

from .control.client import (
    CONNECT_TIMEOUT,
    AsyncCockpit,
    Cockpit,
    CockpitError,
    CommandFailed,
    Unreachable,
)

__all__ = ["CONNECT_TIMEOUT", "AsyncCockpit", "Cockpit", "CockpitError", "CommandFailed",
           "Unreachable"]
