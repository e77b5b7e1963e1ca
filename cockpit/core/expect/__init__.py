"""Expectations: what `expect` checks, as one model (model.py) that the engine runs with
Playwright's own `expect` (check.py) and the exports write as `expect(...)` lines."""

from __future__ import annotations

from .model import STATES, Expectation, ExpectationFailed, Pattern, expectation_of

__all__ = ["STATES", "Expectation", "ExpectationFailed", "Pattern", "expectation_of"]
