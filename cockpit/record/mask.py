"""Masking what must never land on disk: secrets given with --secret, values typed into
password fields, cookie and storage values, and bearer tokens or JWTs in any text."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from ..core import commands  # noqa: F401  (the registry parse() reads)
from ..core.errors import CommandError
from ..core.parser import parse
from ..core.registry import REGISTRY, Registry

MASK = "••••••"
# Tokens that look like credentials wherever they appear (headers, JSON, page text).
JWT = re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*")
LABELLED = re.compile(r"(?i)\b(bearer|token|basic)(\s+|[=:]\s*)[\w.~+/-]{12,}=*")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # one JSON string literal
# How the `cookies` and `storage` outputs cut long values (state.py): the cut prefix
# must be masked too.
SHOWN_PREFIXES = (37, 57)


class Masker:
    def __init__(self, secrets: dict[str, str] | None = None,
                 registry: Registry = REGISTRY) -> None:
        self.registry = registry  # which argument is typed text, which values are masked
        # value -> what replaces it; longer values first, so a value inside another is
        # not half-masked
        self._values: dict[str, str] = {}
        for name, value in (secrets or {}).items():
            self.add(value, f"${name}")

    def add(self, value: str, shown: str = MASK, least: int = 1) -> None:
        if not value or len(value) < least or value in self._values:
            return
        forms = {value, json.dumps(value, ensure_ascii=False)[1:-1],  # inside JSON
                 shlex.quote(value)}  # as a command line quotes it (chain's steps)
        forms |= {value[:n] for n in SHOWN_PREFIXES if len(value) > n + 3}
        for form in forms:
            self._values.setdefault(form, shown)
        self._values = dict(sorted(self._values.items(), key=lambda kv: -len(kv[0])))

    def json_line(self, record: dict[str, Any]) -> str:
        """The record as one JSON line with every string in it masked (numbers, names of
        fields and the structure are never touched, whatever a secret looks like)."""
        line = json.dumps(record, ensure_ascii=False, default=str)
        return STRING.sub(lambda m: self.text(m.group(0)), line)

    def learn_from(self, command: str, data: dict[str, Any]) -> None:
        """Values this step puts on the page or in the browser that are secret."""
        for step in data.get("steps") or []:  # a chain: each of its steps
            if isinstance(step, dict) and isinstance(step.get("command"), str):
                self.learn_from(step["command"], step.get("data") or {})
        try:
            inv = parse(command, self.registry)
        except CommandError:  # it did not run, so it put nothing on the page
            return
        spec, params = inv.spec, inv.params
        typed = params.get(spec.typed_text) if spec.typed_text else None
        # typed into a password field: recorded as a name replay asks for (--secret)
        if (data.get("secret") and isinstance(typed, str) and not typed.startswith("$")
                and typed not in self._values):
            count = sum(1 for v in set(self._values.values()) if v.startswith("$PASSWORD"))
            self.add(typed, f"$PASSWORD{count + 1 if count else ''}")
        for arg in spec.masked_args:  # a stored value (a cookie's, say) may be a credential
            value = params.get(arg)
            if isinstance(value, str):
                self.add(value, least=1)
        for cookie in data.get("cookies") or []:
            if isinstance(cookie, dict) and isinstance(cookie.get("value"), str):
                self.add(cookie["value"], least=4)
        storage = data.get("storage")
        if isinstance(storage, dict):
            for value in storage.values():
                if isinstance(value, str):
                    self.add(value, least=4)

    def text(self, text: str) -> str:
        for value, shown in self._values.items():
            if value in text:
                text = text.replace(value, shown)
        if "eyJ" in text:  # the regexes only where they can match: this runs on every string
            text = JWT.sub(MASK, text)
        lower = text.lower()
        if "bearer" in lower or "token" in lower or "basic" in lower:
            text = LABELLED.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
        return text
