"""Reading a recording back, tolerantly: a half-written last line, a hand-edited line, an
unknown field or a missing step is reported by line number and the rest still reads."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .recorder import FORMAT, VERSION

STEP_FIELDS = {"type", "n", "time", "source", "command", "ok", "exit_code", "ms", "output",
               "error", "tab", "url", "title", "diff", "targets", "needs", "handoff",
               "at", "client", "confirm", "shot", "under", "select_all",
               "still_loading"}


@dataclass
class Recording:
    path: Path
    header: dict[str, Any] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "line N: what, and what was done"
    line_of: dict[int, int] = field(default_factory=dict)  # step n -> line number


class UnreadableRecording(Exception):
    """The file cannot be read as a recording at all (missing, or another format)."""


def read(path: Path) -> Recording:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UnreadableRecording(f"cannot read {path}: {exc.strerror or exc}") from None
    rec = Recording(path)
    lines = text.split("\n")
    complete = text.endswith("\n")
    expected_n = 1
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        last = number == len(lines) and not complete
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            why = ("a half-written last line (the cockpit stopped while writing it)" if last
                   else f"not a JSON object ({exc})")
            rec.problems.append(f"line {number}: {why}: skipped")
            continue
        kind = record.get("type")
        if kind == "header":
            _check_header(rec, record, number)
        elif kind == "step":
            if not isinstance(record.get("command"), str):
                rec.problems.append(f"line {number}: a step without a command: skipped")
                continue
            unknown = sorted(set(record) - STEP_FIELDS)
            if unknown:
                rec.problems.append(f"line {number}: unknown field(s) {', '.join(unknown)}: "
                                    "ignored")
            given = record.get("n")
            n = given if isinstance(given, int) else expected_n
            if n > expected_n:
                missing = (f"step {expected_n} is" if n == expected_n + 1 else
                           f"steps {expected_n}-{n - 1} are")
                rec.problems.append(f"line {number}: {missing} missing (the file was "
                                    "edited or cut): replay goes on without")
            record["n"] = n
            expected_n = n + 1
            rec.line_of[n] = number
            rec.steps.append(record)
        elif kind == "event":
            rec.events.append(record)
        else:
            rec.problems.append(f"line {number}: unknown record type {kind!r}: skipped")
    if not rec.header:
        if not rec.steps:
            raise UnreadableRecording(f"{path} is not a Cockpit recording (no header line "
                                      "and no steps)")
        rec.problems.insert(0, "line 1: no header line: read as format version "
                               f"{VERSION}")
    return rec


def _check_header(rec: Recording, record: dict[str, Any], number: int) -> None:
    if record.get("format") != FORMAT:
        raise UnreadableRecording(f"{rec.path} line {number}: format "
                                  f"{record.get('format')!r}, not a Cockpit recording")
    version = record.get("version")
    if version != VERSION:
        newer = isinstance(version, int) and version > VERSION
        rec.problems.append(
            f"line {number}: recorded in format version {version}, this Cockpit reads "
            f"version {VERSION}: " + ("upgrade Cockpit to read it fully" if newer else
                                      "an older recording; steps are read as far as they "
                                      "match"))
    rec.header = record
