"""Replaying a recording in a new session and comparing each step with what was recorded:
ok or error, the URL it ended on, and the shape of its diff. Refs are found again by the
role and name they had when recorded, so a page that numbers them differently still
replays; the recorded site's origin can be moved (`--origin`) to where it runs now."""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Collection
from urllib.parse import urlsplit

from ..core import (
    REPLAYED, URL, USE, CommandError, CommandSpec, Registry, as_ref, command_of, diff_line,
    events as ev, expectation_of, parse, split_words,
)
from . import pointer
from .frames import framed_selector
from .location import Place, differs, place_of, recorded_place, same_url
from .mask import MASK
from .reader import Recording

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ..core import SessionSurface

REPLAYED_SOURCES = REPLAYED  # core/base/sources.py
# A page that is still becoming the recorded one (a popup closing itself, a redirect)
# gets this long before a step is refused for running elsewhere.
PLACE_GRACE_S = 3.0
REASON_CHARS = 300  # of a list of changes in a reason: whole items, then "and N more"
UNLOADED_WHEN_RECORDED = ("its new page was still loading when it was recorded: what it "
                          "changed is not compared")
UNLOADED_NOW = "its new page was still loading when it ended (it had loaded when recorded)"


@dataclass
class StepReport:
    n: int
    recorded: str  # the command as recorded
    ran: str | None = None  # as replayed (refs found again, origin moved), None: skipped
    # same | diverged | skipped | failed (an expectation that did not hold: reported
    # apart from divergences, and the walk goes on, since checking changed nothing)
    status: str = "same"
    reasons: list[str] = field(default_factory=list)
    expected: dict[str, Any] = field(default_factory=dict)
    actual: dict[str, Any] = field(default_factory=dict)

    @property
    def line(self) -> str:
        mark = {"same": "ok  ", "diverged": "DIFF", "skipped": "skip",
                "failed": "FAIL"}[self.status]
        text = f"{self.n:4} {mark} {self.ran or self.recorded}"
        if self.ran and self.ran != self.recorded:
            text += f"   (recorded: {self.recorded})"
        return "\n".join([text] + [f"          {r}" for r in self.reasons])


def asserting(command: str, registry: Registry | None = None) -> bool:
    """Whether a recorded command is an expectation (declared `asserts`)."""
    spec = command_of(command, registry) if registry is not None else command_of(command)
    return bool(spec is not None and spec.asserts)


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
        self._before: dict[str, Any] | None = None  # the step before (where it ended)

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
        """Replay one recorded step and compare; its report is also a replay.step event
        (the replay's own recording keeps it, for `cockpit report`)."""
        report = await self._step(step)
        self.session.bus.emit(ev.REPLAY_STEP, n=report.n, status=report.status,
                              recorded=report.recorded, ran=report.ran,
                              reasons=list(report.reasons))
        return report

    async def _step(self, step: dict[str, Any]) -> StepReport:
        report = StepReport(step["n"], step["command"])
        spec = command_of(step["command"], self.session.registry)
        # the first step runs where the new session starts (a recording may begin on a
        # page its session had open): from the second on, each runs where it ran. An
        # expectation runs wherever the walk is: it changes nothing, and where it is not
        # met (another URL, another title) it fails saying what it found there
        expected = recorded_place(step, self._before) \
            if self._before is not None and _runs_somewhere(spec) and not (
                spec is not None and spec.asserts) else None
        self._before = step
        why = None
        if step.get("source") not in REPLAYED_SOURCES:
            why = f"sent by {step.get('source')}, not replayed"
        elif spec is not None and spec.needs_person:  # replay hands the browser to nobody
            why = f"`{spec.name}` needs a person; replay goes on without"
        elif spec is not None and spec.session_control:  # it would overwrite their files
            why = (f"`{spec.name}` is a session control; give the replay --trace or "
                   f"--video to capture it")
        elif spec is not None and spec.proposes:  # the choice was the step that followed
            why = f"`{spec.name}` offered a person choices; the one picked is a step"
        elif MASK in step["command"]:
            why = "its values were masked when recorded (give them with --secret NAME and "\
                  "write $NAME in the recording to replay it)"
        elif step.get("exit_code") == 4 or "refs are void" in (step.get("error") or ""):
            why = "it did not run when recorded"
        elif (step.get("confirm") or {}).get("answer") == "denied":  # --confirm
            why = "a person denied it when recorded: it did not run"
        elif spec is not None and spec.asserts and not step.get("ok"):
            why = "an expectation that failed when recorded: not one this walk holds to"
        elif lacking := sorted(secrets_used(step["command"]) & self.without):
            why = (f"it types {', '.join('$' + n for n in lacking)}, which this session was "
                   f"not given (--secret NAME, or type it when the walkthrough asks)")
        if why:
            report.status = "skipped"
            report.reasons.append(why)
            return report
        line = self.move(step["command"])
        if expected is not None:
            places = [expected]
            if spec is not None and spec.waits_for and isinstance(step.get("url"), str):
                # a wait is where it should be on the page it waited for, too (this run
                # may have got there sooner)
                places.append(Place(step.get("tab"), step["url"], step.get("title") or ""))
            wrong = await self._wrong_place([Place(p.tab, self.move(p.url), p.title)
                                             for p in places])
            if wrong is not None:  # whatever it would act on is not what it acted on
                report.ran, report.status, report.reasons = line, "diverged", [wrong,
                                                                              "not run"]
                report.actual = {"place": wrong}
                return report
        line, notes = await self._find_refs(line, step.get("targets") or {})
        if step.get("under"):  # a `mouse` step: at its element, where that is now
            line, placed = pointer.replayed(line, step["under"],
                                            await self._refs_or_none(),
                                            self.session.registry)
            notes += placed
        report.ran = line
        if any("is not on the page now" in n for n in notes):
            if spec is not None and spec.asserts:  # what it expected of the element
                return _absent(report, line, notes, self.session.registry)
            report.status = "diverged"  # its ref would hit whatever has that number now
            report.reasons = notes + ["not run"]
            return report
        began = (self.session.status().get("active") or {}).get("url")
        result = await self.session.run(line, source="replay")
        report.actual = {"ok": result.ok, "error": result.error, "from": began,
                         "url": (result.data.get("tab") or {}).get("url")
                         or (self.session.status().get("active") or {}).get("url"),
                         "diff": result.data.get("diff"),
                         "still_loading": result.data.get("still_loading") is True}
        recorded_at = step.get("at")
        at: dict[str, Any] = recorded_at if isinstance(recorded_at, dict) else {}
        report.expected = {"ok": step.get("ok"), "error": step.get("error"),
                           "from": self.move(at.get("url") or "") or None,
                           "url": self.move(step.get("url") or ""), "diff": step.get("diff"),
                           "still_loading": step.get("still_loading") is True}
        if spec is not None and spec.asserts:
            # held or not is all there is to it: the expectation itself is the check
            report.reasons = notes + ([] if result.ok else [str(result.error)])
            report.status = "same" if result.ok else "failed"
            return report
        if report.expected["still_loading"]:
            notes.append(UNLOADED_WHEN_RECORDED)
        report.reasons = notes + compare(report.expected, report.actual)
        if len(report.reasons) > len(notes):
            report.status = "diverged"
        return report

    async def _wrong_place(self, places: list[Place]) -> str | None:
        """Why the session is not where the step ran (the first of `places`, or another
        it may run on) (None: it is), after giving a page that is still getting there
        PLACE_GRACE_S."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PLACE_GRACE_S
        while True:
            found = place_of(self.session.status().get("active"))
            whys = [differs(p, found) if found is not None else
                    f"no tab is open: recorded on {p}" for p in places]
            if None in whys:
                return None
            if loop.time() >= deadline:
                return whys[0]
            await asyncio.sleep(0.1)

    async def _refs_or_none(self) -> list:
        """The page's refs now; none when they cannot be had (the step runs as recorded)."""
        try:
            return await self.session.current_refs()
        except Exception as exc:  # noqa: BLE001  logged; the step runs at its coordinates
            log.warning("refs not looked up for a mouse step: %s", exc)
            return []

    async def _find_refs(self, line: str, targets: dict[str, dict]) -> tuple[str, list[str]]:
        """The line with each recorded ref replaced by the ref that has its role and name
        (and the same place among equals) on the page now; one in an iframe, by a selector
        that enters its frames."""
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
            if want.get("frame"):  # in an iframe: its refs are not the page's to match
                out.append(framed_selector(want))
                continue
            # refs are named as `snapshot -i` names them: a nameless button by its words
            label = want.get("label") or want["name"]
            # one nameless even by its words (a list item: its text is its value), by them
            same = [r for r, role, name, value in refs if role == want["role"]
                    and (name == label or (want.get("label") and not name and value == label))]
            nth = want.get("nth", 0)
            found = same[nth] if nth < len(same) else None  # not another one of its kind
            if found is None:
                notes.append(f"@{ref} ({want['role']} \"{label}\") is not on the page now")
                out.append(word)
            else:
                if found != ref:
                    notes.append(f"@{ref} is @{found} now (same {want['role']} \"{label}\")")
                out.append(word.replace(ref, found))
        return _join(out), notes


def _absent(report: StepReport, line: str, notes: list[str],
            registry: Registry) -> StepReport:
    """An expectation whose element is not on the page now: met when it expected the
    element hidden (as Playwright says of nothing), else failed, naming the element."""
    missing = next(n for n in notes if n.endswith(" is not on the page now"))
    element = missing[:-len(" is not on the page now")]
    try:
        e = expectation_of(parse(line, registry).params)
    except CommandError as exc:
        report.status, report.reasons = "failed", notes + [exc.message]
        return report
    if e.met_by_absence:
        report.reasons = notes + ["hidden, as expected"]
        return report
    report.status = "failed"
    report.reasons = [f"expected {e.words(element)}, found no such element on the page"]
    return report


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
    want, got = expected.get("url") or "", actual.get("url") or ""
    # a step that left the page where it was, recorded and now, ended where it began:
    # where that is was checked before it ran (not at all for a first step)
    stayed = all(isinstance(side.get("from"), str) and same_url(side["from"],
                                                                side.get("url") or "")
                 for side in (expected, actual))
    if want and got and not stayed and not same_url(want, got):  # shown whole
        reasons.append(f"expected to end on {want}, got {got}")
    a, b = expected.get("diff"), actual.get("diff")
    # recorded while its new page was still loading: the diff is of however much of the
    # page had come, not of what the step does (the report says so: UNLOADED_WHEN_RECORDED)
    if a is not None and b is not None and not expected.get("still_loading"):
        old, new = _shape(a), _shape(b)
        if old != new:
            lost = listed([_say(c) for c in (old - new).elements()])
            extra = listed([_say(c) for c in (new - old).elements()])
            reasons.append("the page changed differently: " + "; ".join(
                p for p in (f"missing {lost}" if lost else "",
                            f"new {extra}" if extra else "") if p))
            if actual.get("still_loading"):
                reasons.append(UNLOADED_NOW)
    return reasons


def listed(items: list[str], limit: int = REASON_CHARS) -> str:
    """Items joined with commas, as many whole ones as fit in `limit` characters, then
    how many more: never one cut in the middle."""
    shown: list[str] = []
    size = 0
    for item in items:
        if shown and size + len(item) + 2 > limit:
            break
        shown.append(item)
        size += len(item) + 2
    more = len(items) - len(shown)
    return ", ".join(shown) + (f", and {more} more" if more else "")


def _runs_somewhere(spec: CommandSpec | None) -> bool:
    """Whether where a step starts matters: not for a command that needs no tab, nor for
    one that goes to the URL it is given, wherever it starts (`goto`)."""
    if spec is None or not spec.needs_tab:
        return False
    return not any(a.kind == URL and not a.optional for a in spec.args)


def _shape(diff: dict[str, Any]) -> Counter:
    return Counter((c["kind"], c["role"], c.get("name", "")) for c in diff.get("changes", []))


def _say(change: tuple[str, str, str]) -> str:
    kind, role, name = change
    return diff_line({"kind": kind, "role": role, "name": name}, ref=False)[1]
