"""The Python client of a live session (public API): `from cockpit.client import Cockpit`.

It lives in `cockpit.control.client` (and `AsyncCockpit` in `cockpit.control.async_client`);
this module keeps the import path users rely on."""

from .control.async_client import AsyncCockpit
from .control.client import CONNECT_TIMEOUT, Cockpit, CockpitError, CommandFailed, Unreachable

__all__ = ["CONNECT_TIMEOUT", "AsyncCockpit", "Cockpit", "CockpitError", "CommandFailed",
           "Unreachable"]
