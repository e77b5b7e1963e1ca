"""`cockpit report`: a recording (or a replay's recording) as one self-contained HTML file
that a QA lead opens in any browser, offline: a summary at the top (steps, failures,
failed expectations, divergences, duration, who drove), then every step in order with who
sent it, its command, result, diff, replay verdict and a picture of the page after it.

Everything is inline (CSS in the page, pictures as data: URIs), and everything from the
recording is escaped: a page's text in a result cannot become markup in the report."""

from __future__ import annotations

import base64
import datetime
import html
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..core import events as ev
from ..core import command_of, diff_line
from .reader import Recording
from .report_page import PAGE, STEP

OUTPUT_CHARS = 4_000  # of a step's result shown; the recording keeps it all
DIFF_LINES = 60
PICTURES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png"}


@dataclass
class Row:
    """One step of the report: a recorded step, and what its replay said of it (a step
    a replay did not run has no record, only its verdict)."""

    step: dict[str, Any] | None
    verdict: dict[str, Any] | None = None  # a replay.step event's data
    marks: list[str] = field(default_factory=list)  # failed, expectation, diverged...


def rows_of(rec: Recording) -> list[Row]:
    """The steps in order, each with the replay verdict that followed it (a replay's own
    recording has one after each step it ran, and one alone for a step it did not)."""
    verdicts = [e for e in rec.events if e.get("kind") == ev.REPLAY_STEP]
    timeline = sorted([(float(s.get("time") or 0), 0, i, s) for i, s in enumerate(rec.steps)]
                      + [(float(e.get("time") or 0), 1, i, e) for i, e in enumerate(verdicts)],
                      key=lambda t: t[:3])
    rows: list[Row] = []
    for _, is_verdict, _, item in timeline:
        if not is_verdict:
            rows.append(Row(item))
            continue
        data = item.get("data") or {}
        last = rows[-1] if rows else None
        ran = data.get("ran") and "not run" not in (data.get("reasons") or [])
        if ran and last is not None and last.step is not None and last.verdict is None:
            last.verdict = data  # the step it ran is the one just recorded
        else:
            rows.append(Row(None, data))
    for row in rows:
        row.marks = _marks(row)
    return rows


def _asserts(command: str) -> bool:
    spec = command_of(command)
    return bool(spec is not None and spec.asserts)


def _marks(row: Row) -> list[str]:
    marks = []
    step, verdict = row.step or {}, row.verdict or {}
    status = verdict.get("status")
    command = str(step.get("command") or verdict.get("recorded") or "")
    if status == "failed" or (step and not step.get("ok") and _asserts(command)):
        marks.append("expectation-failed")
    elif step and not step.get("ok"):
        marks.append("failed")
    if status == "diverged":
        marks.append("diverged")
    if status == "skipped":
        marks.append("skipped")
    if not marks:
        marks.append("ok")
    return marks


def summary(rec: Recording, rows: list[Row]) -> dict[str, Any]:
    """The numbers at the top of the report."""
    steps = [r.step for r in rows if r.step is not None]
    count = Counter(m for r in rows for m in r.marks)
    who = Counter(str(s.get("source") or "?") for s in steps)
    clients = Counter(str(s["client"]) for s in steps if s.get("client"))
    times = [float(s["time"]) for s in steps if isinstance(s.get("time"), (int, float))]
    started = rec.header.get("started")
    begin = float(started) if isinstance(started, (int, float)) else (
        times[0] - float(steps[0].get("ms") or 0) / 1000 if times else None)
    return {"steps": len(steps), "failed": count["failed"],
            "expectations_failed": count["expectation-failed"],
            "expectations": sum(_asserts(str(s.get("command") or "")) for s in steps),
            "diverged": count["diverged"], "skipped": count["skipped"],
            "replayed": any(r.verdict is not None for r in rows),
            "duration_s": (max(times) - begin) if times and begin is not None else None,
            "started": begin, "who": dict(who), "clients": dict(clients),
            "session": rec.header.get("session"), "cockpit": rec.header.get("cockpit"),
            "pictures": sum(bool(s.get("shot")) for s in steps)}


def render(rec: Recording) -> str:
    """The whole report, one HTML document."""
    rows = rows_of(rec)
    facts = summary(rec, rows)
    bad = facts["failed"] + facts["expectations_failed"] + facts["diverged"]
    verdict = "passed" if not bad else "failed"
    said = "Everything ran as recorded" if facts["replayed"] else "Every step ran"
    headline = f"{said}: passed" if not bad else ", ".join(
        f"{n} {what}" for n, what in (
            (facts["failed"], "failed"),
            (facts["expectations_failed"], "expectation failed"
             if facts["expectations_failed"] == 1 else "expectations failed"),
            (facts["diverged"], "diverged")) if n)
    return PAGE.format(
        title=esc(rec.path.name), name=esc(rec.path.name), verdict=verdict,
        headline=esc(headline), summary=_summary_html(facts),
        problems="\n".join(f"<li>{esc(p)}</li>" for p in rec.problems),
        problems_hidden="" if rec.problems else " hidden",
        steps="\n".join(_row_html(rec, row, i) for i, row in enumerate(rows, 1)))


def write(rec: Recording, out: Path) -> Path:
    """Write the report, readable by its owner only, as the recording it shows is."""
    text = render(rec).encode("utf-8")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(text)
    return out


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _summary_html(f: dict[str, Any]) -> str:
    who = ", ".join(f"{src} ({n} step{'s' * (n != 1)})" for src, n in f["who"].items())
    if f["clients"]:
        who += "; programs: " + ", ".join(f"{c} ({n})" for c, n in f["clients"].items())
    started = datetime.datetime.fromtimestamp(f["started"]).strftime("%Y-%m-%d %H:%M:%S") \
        if f["started"] else "?"
    pairs = [("steps", f["steps"]), ("failed", f["failed"]),
             ("expectations failed",
              f"{f['expectations_failed']} of {f['expectations']}" if f["expectations"]
              else "none checked"),
             ("diverged", f["diverged"] if f["replayed"] else "(not a replay)"),
             ("duration", _duration(f["duration_s"])), ("who drove", who or "nobody"),
             ("session", f["session"] or "?"), ("started", started),
             ("pictures", f["pictures"]), ("cockpit", f["cockpit"] or "?")]
    return "\n".join(f'<div class="fact" data-fact="{esc(k)}"><dt>{esc(k)}</dt>'
                     f"<dd>{esc(v)}</dd></div>" for k, v in pairs)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


BADGES = {"ok": "ok", "failed": "FAILED", "expectation-failed": "EXPECTATION FAILED",
          "diverged": "DIVERGED", "skipped": "skipped"}


def _row_html(rec: Recording, row: Row, index: int) -> str:
    step, verdict = row.step or {}, row.verdict or {}
    # a replay's rows are numbered as the walk replayed numbers them (some did not run)
    n = verdict.get("n") if verdict else step.get("n")
    command = step.get("command") or verdict.get("ran") or verdict.get("recorded") or ""
    where = " · ".join(str(x) for x in (f"tab {step['tab']}" if step.get("tab") else "",
                                        step.get("title") or "", step.get("url") or "")
                       if x)
    result = step.get("error") if step and not step.get("ok") else step.get("output")
    if not step:
        result = "not run in this replay"
    text = str(result or "")
    if len(text) > OUTPUT_CHARS:
        text = text[:OUTPUT_CHARS] + f"\n… cut at {OUTPUT_CHARS} of {len(text)} characters"
    reasons = verdict.get("reasons") or []
    replay = ""
    if (verdict and verdict.get("status") != "same") or reasons:
        recorded = verdict.get("recorded")
        also = f" (recorded: {recorded})" if recorded and recorded != command else ""
        replay = (f'<div class="replayed"><b>replay: {esc(verdict.get("status"))}</b>'
                  f"{esc(also)}<ul>" + "".join(f"<li>{esc(r)}</li>" for r in reasons)
                  + "</ul></div>")
    return STEP.format(
        index=index, n=esc(n if n is not None else "?"), marks=" ".join(row.marks),
        badges="".join(f'<span class="badge {m}">{esc(BADGES.get(m, m))}</span>'
                       for m in row.marks),
        source=esc(step.get("source") or "replay"), command=esc(command),
        ms=esc(f"{float(step['ms']):.0f} ms") if isinstance(step.get("ms"), (int, float))
        else "", where=esc(where), result=esc(text), result_hidden="" if text else " hidden",
        diff=esc(_diff_text(step.get("diff"))),
        diff_hidden="" if step.get("diff") else " hidden", replay=replay,
        picture=_picture(rec, step, n))


def _diff_text(diff: Any) -> str:
    if not isinstance(diff, dict):
        return ""
    changes = diff.get("changes") or []
    lines = [str(diff.get("summary") or "")]
    lines += [diff_line(c)[1] for c in changes[:DIFF_LINES] if isinstance(c, dict)]
    if len(changes) > DIFF_LINES:
        lines.append(f"… {len(changes) - DIFF_LINES} more")
    return "\n".join(lines)


def _picture(rec: Recording, step: dict[str, Any], n: Any) -> str:
    """The step's picture inline, or why there is none; only a picture file in the
    recording's own folder is read (a hand-edited record cannot pull in another file)."""
    shot = step.get("shot")
    if not isinstance(shot, str) or not shot:
        return ""
    rel = PurePosixPath(shot)
    kind = PICTURES.get(rel.suffix.lower())
    if rel.is_absolute() or ".." in rel.parts or kind is None:
        return f'<p class="nopicture">picture refused: {esc(shot)}</p>'
    path = rec.path.parent / Path(*rel.parts)
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError as exc:
        return (f'<p class="nopicture">picture missing: {esc(shot)} '
                f"({esc(exc.strerror or exc)})</p>")
    return (f'<figure><img src="data:{kind};base64,{data}" '
            f'alt="the page after step {esc(n)}"></figure>')
