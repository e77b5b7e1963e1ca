"""The embedded demo site: a small local web app to try Cockpit on, standard library only."""

from __future__ import annotations

from .server import DemoSite

__all__ = ["DemoSite"]
