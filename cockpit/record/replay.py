"""Replaying a recording in a new session and comparing each step with what was recorded:
ok or error, the URL it ended on, and the shape of its diff. Refs are found again by the
role and name they had when recorded, so a page that numbers them differently still
replays; the recorded site's origin can be moved (`--origin`) to where it runs now."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Collection
from urllib.parse import urlsplit

from ..core.diff import diff_line
from ..core.parser import command_of, split_words
from ..core.secrets import USE
from ..core.targets import as_ref
from .mask import MASK
from .reader import Recording

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ..core.surface import SessionSurface

REPLAYED_SOURCES = {"human", "agent", "script", "replay"}


@dataclass
class StepReport:
    n: int
    recorded: str  # the command as recorded
    ran: str | None = None  # as replayed (refs found again, origin moved), None: skipped
    status: str = "same"  # same | diverged | skipped
    reasons: list[str] = field(default_factory=list)
    expected: dict[str, Any] = field(default_factory=dict)
    actual: dict[str, Any] = field(default_factory=dict)

    @property
    def line(self) -> str:
        mark = {"same": "ok  ", "diverged": "DIFF", "skipped": "skip"}[self.status]
        text = f"{self.n:4} {mark} {self.ran or self.recorded}"
        if self.ran and self.ran != self.recorded:
            text += f"   (recorded: {self.recorded})"
        return "\n".join([text] + [f"          {r}" for r in self.reasons])


def recorded_origin(rec: Recording) -> str | None:
    for step in rec.steps:
        url = step.get("url") or ""
        if url.startswith("http"):
            parts = urlsplit(url)
            return f"{parts.scheme}://{parts.netloc}"
    return None


def at_origin(url: str, origin: str | None) -> str | None:
    """What follows the origin in `url` ("/login"), when `url` is at that origin, written
    with its scheme or without one (`goto localhost:8421/login`); else None."""
    if not origin or not url:
        return None
    netloc = urlsplit(origin).netloc
    for prefix in (origin, netloc):
        if url == prefix or (url.startswith(prefix) and url[len(prefix)] in "/?#"):
            return url[len(prefix):]
    return None


def secrets_used(command: str) -> set[str]:
    return {m.group(1) or m.group(2) for m in USE.finditer(command)}


def missing_secrets(rec: Recording, known: Collection[str]) -> list[str]:
    """`$NAME`s the recorded commands use that this replay was not given."""
    names = {n for s in rec.steps for n in secrets_used(s["command"])}
    return sorted(n for n in names if n not in known)


class Replayer:
    """Runs a recording's steps one at a time in `session` (`await step(record)`), so a
    CLI can run them all and a walkthrough can step, skip and pause between them. Any
    session surface will do: a local one, or a live one over its socket (attach)."""

    def __init__(self, session: SessionSurface, rec: Recording,
                 origin: str | None = None, without: Collection[str] = ()) -> None:
        self.session = session
        self.rec = rec
        self.old_origin = recorded_origin(rec)
        self.new_origin = origin.rstrip("/") if origin else None
        self.without = set(without)  # secrets nobody gave: their steps are skipped

    def move(self, text: str) -> str:
        """The recorded origin replaced by the new one, in URLs with a scheme and in
        those written without (`goto localhost:8421/login`: the new origin, scheme and
        all, since the new site may not use the scheme a bare host gets)."""
        if not (self.old_origin and self.new_origin and text):
            return text
        text = text.replace(self.old_origin, self.new_origin)
        netloc = re.escape(urlsplit(self.old_origin).netloc)
        return re.sub(rf"(?<![\w.:/@-]){netloc}(?=[/?#\s'\"]|$)",
                      lambda _: self.new_origin or "", text)

    async def step(self, step: dict[str, Any]) -> StepReport:
        report = StepReport(step["n"], step["command"])
        spec = command_of(step["command"], self.session.registry)
        why = None
        if step.get("source") not in REPLAYED_SOURCES:
            why = f"sent by {step.get('source')}, not replayed"
        elif spec is not None and spec.needs_person:  # replay hands the browser to nobody
            why = "a handoff needs a person; replay goes on without"
        elif MASK in step["command"]:
            why = "its values were masked when recorded (give them with --secret NAME and "\
                  "write $NAME in the recording to replay it)"
        elif step.get("exit_code") == 4 or "refs are void" in (step.get("error") or ""):
            why = "it did not run when recorded"
        elif lacking := sorted(secrets_used(step["command"]) & self.without):
            why = (f"it types {', '.join('$' + n for n in lacking)}, which this session was "
                   f"not given (--secret NAME, or type it when the walkthrough asks)")
        if why:
            report.status = "skipped"
            report.reasons.append(why)
            return report
        line = self.move(step["command"])
        line, notes = await self._find_refs(line, step.get("targets") or {})
        report.ran = line
        if any("is not on the page now" in n for n in notes):
            report.status = "diverged"  # its ref would hit whatever has that number now
            report.reasons = notes + ["not run"]
            return report
        result = await self.session.run(line, source="replay")
        report.actual = {"ok": result.ok, "error": result.error,
                         "url": (result.data.get("tab") or {}).get("url")
                         or (self.session.status().get("active") or {}).get("url"),
                         "diff": result.data.get("diff")}
        report.expected = {"ok": step.get("ok"), "error": step.get("error"),
                           "url": self.move(step.get("url") or ""), "diff": step.get("diff")}
        report.reasons = notes + compare(report.expected, report.actual)
        if len(report.reasons) > len(notes):
            report.status = "diverged"
        return report

    async def _find_refs(self, line: str, targets: dict[str, dict]) -> tuple[str, list[str]]:
        """The line with each recorded ref replaced by the ref that has its role and name
        (and the same place among equals) on the page now."""
        if not targets:
            return line, []
        try:
            refs = await self.session.current_refs()
        except Exception as exc:  # noqa: BLE001  the step runs as recorded, and says so
            return line, [f"its refs were not looked up again ({type(exc).__name__}: "
                          f"{exc}): run as recorded"]
        notes: list[str] = []
        out: list[str] = []
        for word in split_words(line):
            ref = as_ref(word)
            want = targets.get(ref) if ref else None
            if want is None or ref is None:  # want is None whenever ref is (for mypy)
                out.append(word)
                continue
            same = [r for r, role, name, _ in refs
                    if role == want["role"] and name == want["name"]]
            nth = want.get("nth", 0)
            found = same[nth] if nth < len(same) else None  # not another one of its kind
            if found is None:
                notes.append(f"@{ref} ({want['role']} \"{want['name']}\") is not on the page "
                             "now")
                out.append(word)
            else:
                if found != ref:
                    notes.append(f"@{ref} is @{found} now (same {want['role']} "
                                 f"\"{want['name']}\")")
                out.append(word.replace(ref, found))
        return _join(out), notes


def _join(words: list[str]) -> str:
    import shlex
    return " ".join(w if re.fullmatch(r"[\w@./:=,+$-]+", w) else shlex.quote(w)
                    for w in words)


def compare(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Why the step's outcome differs from the recording (empty: the same)."""
    reasons = []
    if bool(expected["ok"]) != bool(actual["ok"]):
        reasons.append(f"expected {'ok' if expected['ok'] else 'an error'}, got "
                       + ("ok" if actual["ok"] else f"an error: {actual['error']}"))
    want, got = (expected.get("url") or "").rstrip("/"), (actual.get("url") or "").rstrip("/")
    if want and got and want != got:
        reasons.append(f"expected to end on {want}, got {got}")
    a, b = expected.get("diff"), actual.get("diff")
    if a is not None and b is not None:
        old, new = _shape(a), _shape(b)
        if old != new:
            lost = ", ".join(_say(c) for c in (old - new).elements())
            extra = ", ".join(_say(c) for c in (new - old).elements())
            reasons.append("the page changed differently: " + "; ".join(
                p for p in (f"missing {lost[:300]}" if lost else "",
                            f"new {extra[:300]}" if extra else "") if p))
    return reasons


def _shape(diff: dict[str, Any]) -> Counter:
    return Counter((c["kind"], c["role"], c.get("name", "")) for c in diff.get("changes", []))


def _say(change: tuple[str, str, str]) -> str:
    kind, role, name = change
    return diff_line({"kind": kind, "role": role, "name": name}, ref=False)[1]
