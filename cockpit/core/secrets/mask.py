"""Masking what must never land on disk or reach a screen: secrets given with --secret,
values typed into password fields, cookie and storage values, and (in files) bearer tokens
or JWTs in any text. The recorder masks its file with one Masker; the session masks what
it shows (results, events) with another (core/redact.py)."""

from __future__ import annotations

import html
import json
import re
import shlex
from typing import Any
from urllib.parse import quote, quote_plus

from ..base.errors import CommandError
from ..language.parser import parse
from ..language.registry import REGISTRY, Registry

MASK = "••••••"
# Tokens that look like credentials wherever they appear (headers, JSON, page text).
JWT = re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*")
LABELLED = re.compile(r"(?i)\b(bearer|token|basic)(\s+|[=:]\s*)[\w.~+/-]{12,}=*")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # one JSON string literal
# How the `cookies` and `storage` outputs cut long values (state.py): the cut prefix
# must be masked too.
SHOWN_PREFIXES = (37, 57)


SHORT = 4  # a value shorter than this is masked only as a whole word by `short_words`


class Masker:
    """`tokens`: also mask what looks like a credential (JWTs, `Bearer ...`) though no one
    named it: right for files, wrong for what the user asked to see. `short_words`: a value
    of fewer than SHORT characters is masked only where it stands as a word, so a typed
    password "ab" does not mangle every "about" in the outputs shown."""

    def __init__(self, secrets: dict[str, str] | None = None,
                 registry: Registry = REGISTRY, *, tokens: bool = True,
                 short_words: bool = False) -> None:
        self.registry = registry  # which argument is typed text, which values are masked
        self.tokens = tokens
        self.short_words = short_words
        # value -> what replaces it; longer values first, so a value inside another is
        # not half-masked
        self._values: dict[str, str] = {}
        self._short: re.Pattern[str] | None = None
        self._short_values: dict[str, str] = {}
        self._typed_names: dict[int, str] = {}  # the session's number of a password: name
        self.also: list[Masker] = []  # applied after this one (a session's file masker)
        for name, value in (secrets or {}).items():
            self.add(value, f"${name}")

    def __bool__(self) -> bool:
        return bool(self._values or self._short_values)

    def add(self, value: str, shown: str = MASK, least: int = 1) -> None:
        if not value or len(value) < least or value in self._values:
            return
        if self.short_words and len(value) < SHORT:
            self._short_values.setdefault(value, shown)
            words = "|".join(re.escape(v) for v in sorted(self._short_values, key=len,
                                                            reverse=True))
            self._short = re.compile(rf"(?<![\w$])(?:{words})(?!\w)" if words else "(?!)")
            return
        forms = {value, json.dumps(value, ensure_ascii=False)[1:-1],  # inside JSON
                 shlex.quote(value),  # as a command line quotes it (chain's steps)
                 html.escape(value), quote(value, safe=""), quote_plus(value)}  # in a
        # trace's DOM snapshots and in a form's posted body
        forms |= {value[:n] for n in SHOWN_PREFIXES if len(value) > n + 3}
        for form in forms:
            self._values.setdefault(form, shown)
        self._values = dict(sorted(self._values.items(), key=lambda kv: -len(kv[0])))

    def json_line(self, record: dict[str, Any]) -> str:
        """The record as one JSON line with every string in it masked (numbers, names of
        fields and the structure are never touched, whatever a secret looks like)."""
        line = json.dumps(record, ensure_ascii=False, default=str)
        return STRING.sub(lambda m: self.text(m.group(0)), line)

    def learn_from(self, command: str, data: Any) -> None:
        """Values this step puts on the page or in the browser that are secret.

        Any result data is taken, whatever its shape: commands share field names with
        other meanings (`state` reports `cookies` as a count, `cookies` as a list of
        them), so each field is read only when it has the shape of what it stands for."""
        if not isinstance(data, dict):
            data = {}
        for step in _list(data.get("steps")):  # a chain: each of its steps
            if isinstance(step, dict) and isinstance(step.get("command"), str):
                self.learn_from(step["command"], step.get("data"))
        try:
            inv = parse(command, self.registry)
        except CommandError:  # it did not run, so it put nothing on the page
            return
        spec, params = inv.spec, inv.params
        typed = params.get(spec.typed_text) if spec.typed_text else None
        # typed into a password field: recorded as a name replay asks for (--secret)
        if (data.get("secret") and isinstance(typed, str) and not typed.startswith("$")
                and typed not in self._values and MASK not in typed):  # the session masked it
            self.add(typed, self._password_name())
        for arg in spec.masked_args:  # a stored value (a cookie's, say) may be a credential
            value = params.get(arg)
            if isinstance(value, str):
                self.add(value, least=1)
        for cookie in _list(data.get("cookies")):  # the cookies listed (not a count)
            if isinstance(cookie, dict) and isinstance(cookie.get("value"), str):
                self.add(cookie["value"], least=4)
        storage = data.get("storage")
        if isinstance(storage, dict):
            for value in storage.values():
                if isinstance(value, str):
                    self.add(value, least=4)

    def _password_name(self) -> str:
        taken = {v for v in self._values.values() if v.startswith("$PASSWORD")}
        count = len(taken | set(self._typed_names.values()))
        return f"$PASSWORD{count + 1 if count else ''}"

    def name_typed(self, command: str, data: Any) -> str:
        """The command as the session showed it, each typed password as the mask, with the
        masks of the steps that typed one (`data.secret_id`, in step order) turned into
        the names replay asks for: $PASSWORD, $PASSWORD2... (one per distinct value)."""
        if not isinstance(data, dict):
            data = {}
        steps = [s.get("data") for s in _list(data.get("steps")) if isinstance(s, dict)]
        at = 0
        for step in [*steps, data]:
            n = step.get("secret_id") if isinstance(step, dict) else None
            if not isinstance(n, int):
                continue
            at = command.find(MASK, at)
            if at < 0:
                break
            name = self._typed_names.get(n) or self._typed_names.setdefault(
                n, self._password_name())
            command = command[:at] + name + command[at + len(MASK):]
            at += len(name)
        return command

    def text(self, text: str) -> str:
        for value, shown in self._values.items():
            if value in text:
                text = text.replace(value, shown)
        if self._short is not None:
            text = self._short.sub(lambda m: self._short_values[m.group(0)], text)
        for other in self.also:
            if other:
                text = other.text(text)
        if not self.tokens:
            return text
        if "eyJ" in text:  # the regexes only where they can match: this runs on every string
            text = JWT.sub(MASK, text)
        lower = text.lower()
        if "bearer" in lower or "token" in lower or "basic" in lower:
            text = LABELLED.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
        return text


def _list(value: Any) -> list[Any]:
    """The items of a list field, or none when the field holds something else."""
    return value if isinstance(value, list) else []
