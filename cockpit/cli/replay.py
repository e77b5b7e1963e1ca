"""`cockpit replay FILE`: run a recording again in a new session and report, step by step,
where the outcome differs from the recording (exit 1 on any divergence)."""

from __future__ import annotations

import asyncio
import json
import sys

from ..core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from ..record.reader import UnreadableRecording, read
from ..record.replay import Replayer, missing_secrets


async def replay_main(args) -> int:
    from . import session_from_args
    try:
        rec = read(args.file)
    except UnreadableRecording as exc:
        print(f"cockpit replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for problem in rec.problems:  # said, and the rest still replays
        print(f"cockpit replay: {args.file}: {problem}", file=sys.stderr)
    try:
        session = session_from_args(args)
    except ValueError as exc:
        print(f"cockpit replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    missing = missing_secrets(rec, session.secrets.values)
    if missing:
        print(f"cockpit replay: the recording uses {', '.join('$' + m for m in missing)} "
              f"(masked when recorded): give {'them' if len(missing) > 1 else 'it'} with "
              + " ".join(f"--secret {m}=VALUE" for m in missing), file=sys.stderr)
        return EXIT_USAGE
    from ..record.recorder import start_recording
    await session.start()
    recorder = start_recording(session)
    replayer = Replayer(session, rec, origin=args.origin)
    reports = []
    try:
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
    finally:
        await session.close()
        if recorder is not None:
            recorder.close()
    diverged = [r.n for r in reports if r.status == "diverged"]
    if not args.json:
        skipped = sum(r.status == "skipped" for r in reports)
        which = f" ({', '.join(map(str, diverged))})" if diverged else ""
        print(f"{len(reports)} steps: {len(reports) - len(diverged) - skipped} as recorded, "
              f"{len(diverged)} diverged{which}, {skipped} skipped")
    return EXIT_FAILED if diverged else EXIT_OK


async def _go_on(step) -> bool:
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
