"""Write a test from a recording: pytest-playwright, or a @playwright/test spec in
TypeScript; elements by role and name."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

from ..core import EXIT_OK
from .exits import failed


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a recording (recordings/*.jsonl)")
    parser.add_argument("--to", choices=("pytest", "playwright-test"), required=True,
                        help="the kind of test: pytest (pytest-playwright) or "
                             "playwright-test (@playwright/test, TypeScript)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write it (default beside it: test_<recording>.py, "
                             "or <recording>.spec.ts)")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..record.reader import UnreadableRecording, read
    try:
        rec = read(Path(args.file))
    except UnreadableRecording as exc:
        return failed("cockpit export", exc)
    for problem in rec.problems:
        print(f"cockpit export: {args.file}: {problem}", file=sys.stderr)
    stem = re.sub(r"\W+", "_", Path(args.file).stem).strip("_").lower() or "recording"
    if args.to == "playwright-test":
        from ..record.export_ts import to_playwright_test
        out = Path(args.output) if args.output else \
            Path(args.file).with_name(f"{stem}.spec.ts")
        text = to_playwright_test(rec, stem)
        how = f"`{run_spec_command(out)}` (npm install -D @playwright/test)"
    else:
        from ..record.export import to_pytest
        out = Path(args.output) if args.output else \
            Path(args.file).with_name(f"test_{stem}.py")
        text = to_pytest(rec, stem)
        how = f"`{run_command(out)}` (pip install pytest-playwright)"
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        return failed("cockpit export", f"cannot write {out}: {exc.strerror or exc}")
    print(f"wrote {out}: run it with {how}")
    return EXIT_OK


def run_spec_command(spec: Path) -> str:
    """`npx playwright test` from the spec's directory (with no config of its own, the
    runner looks for tests under the directory it runs in, and takes the name as a
    filter)."""
    where = spec.resolve()
    return f"cd {shlex.quote(str(where.parent))} && npx playwright test " \
           f"{shlex.quote(where.name)}"


def run_command(test: Path) -> str:
    """A command that runs the test from any directory. `-p playwright` loads
    pytest-playwright (its `page` fixture) even where a project's pytest options disable
    it, as this checkout's own do (`-p no:playwright`, its suite drives Playwright itself);
    where it loads anyway, naming it again changes nothing."""
    return f"python3 -m pytest -p playwright {shlex.quote(str(test.resolve()))}"
