"""Write a test from a recording: pytest-playwright, elements by role and name."""

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
    parser.add_argument("--to", choices=("pytest",), required=True, help="the kind of test")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write it (default: test_<recording>.py beside it)")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..record.export import to_pytest
    from ..record.reader import UnreadableRecording, read
    try:
        rec = read(Path(args.file))
    except UnreadableRecording as exc:
        return failed("cockpit export", exc)
    for problem in rec.problems:
        print(f"cockpit export: {args.file}: {problem}", file=sys.stderr)
    stem = re.sub(r"\W+", "_", Path(args.file).stem).strip("_").lower() or "recording"
    out = Path(args.output) if args.output else Path(args.file).with_name(f"test_{stem}.py")
    out.write_text(to_pytest(rec, stem), encoding="utf-8")
    print(f"wrote {out}: run it with `{run_command(out)}` (pip install pytest-playwright)")
    return EXIT_OK


def run_command(test: Path) -> str:
    """A command that runs the test from any directory. `-p playwright` loads
    pytest-playwright (its `page` fixture) even where a project's pytest options disable
    it, as this checkout's own do (`-p no:playwright`, its suite drives Playwright itself);
    where it loads anyway, naming it again changes nothing."""
    return f"python3 -m pytest -p playwright {shlex.quote(str(test.resolve()))}"
