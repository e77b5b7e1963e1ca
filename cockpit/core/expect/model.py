"""What one `expect` line asks, read from its parsed words: the subject (an element, the
page's URL, title or text, or how many elements a selector matches), the check, the
value expected, and whether it is negated. No browser here: the engine (check.py) runs it
with Playwright's expect, and the exports (record/export*.py) write the same assertion."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..base.errors import CommandError, UsageError
from ..language.parser import excerpt

STATES = ("visible", "hidden", "enabled", "disabled", "checked", "unchecked", "focused")
ELEMENT_CHECKS = STATES + ("text", "value")
# First words that name something of the page's, not an element (dict: what each is)
PAGE_SUBJECTS = {"url": "the page's URL", "title": "the page's title",
                 "text": "the page's visible text", "count": "a selector's matches"}
DEFAULT_TIMEOUT_MS = 5_000  # Playwright's own default for expect
MAX_TIMEOUT_MS = 600_000
SHOWN = 80  # characters of a value an error quotes

FORMS = ("expect TARGET visible|hidden|enabled|disabled|checked|unchecked|focused, "
         "expect TARGET text TEXT, expect TARGET value TEXT, expect url TEXT|/REGEX/, "
         "expect title TEXT, expect text TEXT, expect count SELECTOR N")


class ExpectationFailed(CommandError):
    """An expectation that did not hold within its timeout: a failed command (exit 1)
    whose data holds the expectation and what was found (replay reports it apart)."""

    kind = "expectation"


@dataclass(frozen=True)
class Pattern:
    """A /REGEX/ as the user wrote it (searched, as Playwright searches a RegExp)."""

    source: str

    def __str__(self) -> str:
        return f"/{self.source}/"


Expected = str | int | Pattern | None


@dataclass(frozen=True)
class Expectation:
    """`kind`: a state (STATES), "text" or "value" of an element; "url", "title",
    "page_text" (the page shows it) or "count" (of a selector's matches)."""

    kind: str
    target: str | None = None  # the element (@ref or selector), or count's selector
    expected: Expected = None
    negated: bool = False
    timeout: int = DEFAULT_TIMEOUT_MS
    timeout_given: bool = False  # said again in an export only when the user said it

    @property
    def on_element(self) -> bool:
        return self.kind in ELEMENT_CHECKS

    @property
    def met_by_absence(self) -> bool:
        """Whether an element that is not on the page at all meets it (hidden, or not
        visible), as Playwright says of a locator that matches nothing."""
        return (self.kind == "hidden" and not self.negated) or \
            (self.kind == "visible" and self.negated)

    @property
    def method(self) -> str:
        """Playwright's assertion, snake_case (`to_have_value`); `unchecked` is a negated
        `to_be_checked` (see `negates`)."""
        if self.kind in STATES:
            return "to_be_checked" if self.kind == "unchecked" else f"to_be_{self.kind}"
        return {"text": "to_contain_text", "value": "to_have_value", "url": "to_have_url",
                "title": "to_have_title", "page_text": "to_contain_text",
                "count": "to_have_count"}[self.kind]

    @property
    def negates(self) -> bool:
        """Whether Playwright's `not_` form is the one to call."""
        return self.negated != (self.kind == "unchecked")

    def words(self, subject: str | None = None) -> str:
        """What was expected, in words: `@e3 "Email" value "a@b.c"`, `url /inbox`.
        `subject`: how to name the element (default: as written)."""
        not_ = "not " if self.negated else ""
        what = subject or self.target or ""
        if self.kind in STATES:
            return f"{what} {not_}{self.kind}"
        if self.kind in ("text", "value"):
            return f"{what} {not_}{self.kind} {shown(self.expected)}"
        if self.kind == "page_text":
            return f"the page {'not ' if self.negated else ''}to show {shown(self.expected)}"
        if self.kind == "count":
            return f"{not_}{self.expected} element(s) matching `{self.target}`"
        return f"{self.kind} {not_}{shown(self.expected)}"


def shown(value: Any) -> str:
    """A value as an error quotes it: strings in double quotes, cut when long."""
    if isinstance(value, (Pattern, int)):
        return str(value)
    text = str(value)
    if len(text) > SHOWN:
        text = text[:SHOWN] + "…"
    return json.dumps(text, ensure_ascii=False)


def pattern_or_text(word: str) -> str | Pattern:
    """`/REGEX/` is a pattern (checked here, so a bad one is a usage error), else text."""
    if len(word) > 2 and word[0] == word[-1] == "/":
        try:
            re.compile(word[1:-1])
        except re.error as exc:
            raise UsageError(f"expect: /{word[1:-1]}/ is not a valid regular expression "
                             f"({exc}): fix it, or write plain text") from None
        return Pattern(word[1:-1])
    return word


def expectation_of(params: dict[str, Any]) -> Expectation:
    """The expectation an `expect` line's values ask for (UsageError says how to write
    it). Words: `subject` (a target, or url|title|text|count), `check`, `value`."""
    subject, check, value = params.get("subject"), params.get("check"), params.get("value")
    timeout = params.get("timeout")
    given = timeout is not None
    if timeout is None:
        timeout = DEFAULT_TIMEOUT_MS
    if not 0 <= timeout <= MAX_TIMEOUT_MS:
        raise UsageError(f"expect --timeout takes 0 to {MAX_TIMEOUT_MS} milliseconds")
    negated = bool(params.get("not"))

    def made(kind: str, target: str | None, expected: Expected) -> Expectation:
        return Expectation(kind, target, expected, negated, timeout, given)

    if not subject:
        raise UsageError(f"expect needs what to check: {FORMS}")
    if subject in PAGE_SUBJECTS and check is not None:
        if subject == "count":
            if value is None or not re.fullmatch(r"\d+", value):
                raise UsageError("expect count needs a selector and a whole number: "
                                 "expect count 'tr.row' 3")
            return made("count", check, int(value))
        if value is not None:
            raise UsageError(f"expect {subject} takes one value: quote text that has "
                             f"spaces, e.g. expect {subject} \"{excerpt(f'{check} {value}')}\"")
        if subject == "text":
            return made("page_text", None, check)
        expected = pattern_or_text(check)
        return made(subject, None, expected)
    if check is None:
        hint = (f"; `{subject}` alone checks nothing: expect {subject} TEXT"
                if subject in PAGE_SUBJECTS else "")
        said = excerpt(subject)
        raise UsageError(f"expect {said} needs a check: {' | '.join(STATES)}, text TEXT "
                         f"or value TEXT (e.g. expect {said} visible){hint}")
    check = check.lower()
    if check in STATES:
        if value is not None:
            raise UsageError(f"expect TARGET {check} takes no value (got {shown(value)})")
        return made(check, subject, None)
    if check in ("text", "value"):
        if value is None:
            raise UsageError(f"expect TARGET {check} needs the text: expect "
                             f"{excerpt(subject)} {check} \"...\"")
        return made(check, subject, value)
    raise UsageError(f"expect: '{excerpt(check)}' is not a check: {' | '.join(STATES)}, "
                     "text TEXT or value TEXT; or expect url|title|text TEXT, expect count "
                     "SELECTOR N")
