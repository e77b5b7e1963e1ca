"""Cockpit: a terminal cockpit to watch and steer browsers driven by AI agents."""

__version__ = "0.4.0"
