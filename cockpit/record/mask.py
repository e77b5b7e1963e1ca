"""Masking what must never land on disk. The Masker lives in core (the session masks what
it shows with it too); the recorder and replay import it from here."""

from __future__ import annotations

from ..core import MASK, Masker

__all__ = ["MASK", "Masker"]
