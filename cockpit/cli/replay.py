"""Run a recording again in a new session and report every step whose outcome (ok or
error, URL, what changed) differs, or that would run on another page than it was recorded
on (refused); stop at the first divergence (--keep-going: report them all); exit 1 on any.

The new session is a live one like every face's: recorded unless --no-record, reachable
with `cockpit exec`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from typing import TYPE_CHECKING, Any

from ..core import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from .exits import failed
from .options import add_session_options, configure_logging, live_from_args

if TYPE_CHECKING:
    from ..core import SessionSurface
    from ..record.reader import Recording
    from ..record.replay import StepReport

FACE = "cockpit replay"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a recording (recordings/*.jsonl)")
    parser.add_argument("--step", action="store_true",
                        help="walk through it: Enter runs each step, s skips, q stops")
    parser.add_argument("--origin", metavar="URL",
                        help="where the recorded site runs now, e.g. http://127.0.0.1:8001")
    parser.add_argument("--json", action="store_true", help="one JSON line per step")
    parser.add_argument("--keep-going", action="store_true",
                        help="go on after a step diverges (a step on the wrong page is "
                             "still refused); default: stop at the first divergence")
    add_session_options(parser)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    configure_logging(args.log, tui=False)
    return asyncio.run(replay_main(args))


async def replay_main(args: argparse.Namespace) -> int:
    from ..record.reader import UnreadableRecording, read
    from .live import OPEN_ERRORS
    try:
        rec = read(args.file)
    except UnreadableRecording as exc:
        return failed(FACE, exc)
    for problem in rec.problems:  # said, and the rest still replays
        print(f"{FACE}: {args.file}: {problem}", file=sys.stderr)
    try:
        live = live_from_args(args)
    except OPEN_ERRORS as exc:
        return failed(FACE, exc)
    from ..record.replay import missing_secrets
    missing = missing_secrets(rec, live.session.secrets.values)
    if missing:
        return failed(FACE, f"the recording uses {', '.join('$' + m for m in missing)} "
                            f"(masked when recorded): give "
                            f"{'them' if len(missing) > 1 else 'it'} with "
                            + " ".join(f"--secret {m}=VALUE" for m in missing), EXIT_USAGE)
    try:
        async with live:
            reports = await _replay(live.session, rec, args)
    except OPEN_ERRORS as exc:
        return failed(FACE, exc)
    diverged = [r.n for r in reports if r.status == "diverged"]
    unmet = [r for r in reports if r.status == "failed"]
    if not args.json:
        skipped = sum(r.status == "skipped" for r in reports)
        which = f" ({', '.join(map(str, diverged))})" if diverged else ""
        left = len(rec.steps) - len(reports)
        why = (" (stopped at the first divergence: --keep-going runs them)"
               if diverged and not args.keep_going else "")
        print(f"{len(rec.steps)} steps: {len(reports) - len(diverged) - skipped - len(unmet)}"
              f" as recorded, {len(diverged)} diverged{which}, {skipped} skipped"
              + (f", {left} not run{why}" if left else ""))
        if said := expectations_line(reports):
            print(said)
        for report in unmet:
            print(f"  step {report.n}: {report.reasons[-1] if report.reasons else report.ran}")
    return EXIT_FAILED if diverged or unmet else EXIT_OK


def expectations_line(reports: list[StepReport]) -> str:
    """How the walk's expectations went: `2 expectations failed (of 5)`, or that they
    all held ("" when it checked none)."""
    from ..record.replay import asserting
    checked = [r for r in reports if r.status in ("same", "failed") and asserting(r.recorded)]
    unmet = sum(r.status == "failed" for r in checked)
    if not checked:
        return ""
    noun = "expectation" if unmet == 1 else "expectations"
    if unmet:
        return f"{unmet} {noun} failed (of {len(checked)})"
    return f"{len(checked)} expectation{'s' if len(checked) > 1 else ''} held"


async def _replay(session: SessionSurface, rec: Recording,
                  args: argparse.Namespace) -> list[StepReport]:
    from ..record.replay import Replayer
    replayer = Replayer(session, rec, origin=args.origin)
    reports: list[StepReport] = []
    for step in rec.steps:
        if args.step and not await _go_on(step):
            break
        report = await replayer.step(step)
        reports.append(report)
        if args.json:
            print(json.dumps({"n": report.n, "status": report.status,
                              "recorded": report.recorded, "ran": report.ran,
                              "reasons": report.reasons}), flush=True)
        else:
            print(report.line, flush=True)
        if report.status == "diverged" and not args.keep_going:
            break  # what follows was recorded on the page this step should have made
    return reports


async def _go_on(step: dict[str, Any]) -> bool:
    """--step: the QA walkthrough in a terminal; Enter runs the step, s skips, q stops."""
    prompt = f"step {step['n']}: {step['command']}  [Enter runs, s skips, q stops] "
    answer = await asyncio.get_running_loop().run_in_executor(None, _ask, prompt)
    if answer.startswith("q"):
        return False
    if answer.startswith("s"):
        step["source"] = "skipped by you"
    return True


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip().lower()
    except EOFError:
        return "q"
