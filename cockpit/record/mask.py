"""Masking what must never land on disk: secrets given with --secret, values typed into
password fields, cookie and storage values, and bearer tokens or JWTs in any text."""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.parser import split_words

MASK = "••••••"
# Tokens that look like credentials wherever they appear (headers, JSON, page text).
JWT = re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*")
LABELLED = re.compile(r"(?i)\b(bearer|token|basic)(\s+|[=:]\s*)[\w.~+/-]{12,}=*")
# Commands whose values are credentials by nature: the value words are masked.
VALUE_WORD = {"cookies": 3, "storage": 3}  # `cookies set NAME VALUE`: the 4th word


class Masker:
    def __init__(self, secrets: dict[str, str] | None = None) -> None:
        # value -> what replaces it; longer values first, so a value inside another is
        # not half-masked
        self._values: dict[str, str] = {}
        for name, value in (secrets or {}).items():
            self.add(value, f"${name}")

    def add(self, value: str, shown: str = MASK) -> None:
        if value and len(value) >= 3 and value not in self._values:
            self._values[value] = shown
            escaped = json.dumps(value, ensure_ascii=False)[1:-1]  # as it is inside JSON
            if escaped != value:
                self._values[escaped] = shown
            self._values = dict(sorted(self._values.items(), key=lambda kv: -len(kv[0])))

    def json_line(self, record: dict[str, Any]) -> str:
        """The record as one JSON line, masked: one pass over one string (every step
        pays for this, so not a walk over each value)."""
        return self.text(json.dumps(record, ensure_ascii=False, default=str))

    def learn_from(self, command: str, data: dict[str, Any]) -> None:
        """Values this step puts on the page or in the browser that are secret."""
        try:
            words = split_words(command)
        except Exception:
            return
        if not words:
            return
        if data.get("secret") and words[0] in ("fill", "type") and len(words) >= 3:
            # typed into a password field: recorded as a name replay asks for (--secret)
            if words[2] not in self._values and not words[2].startswith("$"):
                count = sum(1 for v in self._values.values() if v.startswith("$PASSWORD"))
                self.add(words[2], f"$PASSWORD{count + 1 if count else ''}")
        index = VALUE_WORD.get(words[0])
        if index is not None and len(words) > index and words[1] == "set":
            self.add(words[index])
        for cookie in data.get("cookies") or []:
            if isinstance(cookie, dict) and isinstance(cookie.get("value"), str):
                self.add(cookie["value"])
        storage = data.get("storage")
        if isinstance(storage, dict):
            for value in storage.values():
                if isinstance(value, str):
                    self.add(value)

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

    def value(self, obj: Any) -> Any:
        """A JSON value with every string masked."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {k: self.value(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.value(v) for v in obj]
        return obj
