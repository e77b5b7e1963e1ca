"""Masking what must never land on disk. The Masker lives in core (the session masks what
it shows with it too); the recorder and replay import it from here."""

from __future__ import annotations

from ..core import commands  # noqa: F401  (the registry parse() reads)
from ..core.mask import MASK, Masker

__all__ = ["MASK", "Masker"]
