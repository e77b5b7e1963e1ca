"""Write a self-contained HTML report of a recording (or of a replay's recording): the
summary, then each step with who sent it, command, result, diff, picture and verdict."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core import EXIT_OK
from .exits import failed

FACE = "cockpit report"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a recording (recordings/*.jsonl)")
    parser.add_argument("-o", "--output", metavar="OUT.html",
                        help="where to write it (default: <recording>.html beside it)")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..record.reader import UnreadableRecording, read
    from ..record.report import write
    try:
        rec = read(Path(args.file))
    except UnreadableRecording as exc:
        return failed(FACE, exc)
    for problem in rec.problems:  # said, and shown at the top of the report too
        print(f"{FACE}: {args.file}: {problem}", file=sys.stderr)
    out = Path(args.output) if args.output else Path(args.file).with_suffix(".html")
    try:
        write(rec, out)
    except OSError as exc:
        return failed(FACE, f"cannot write {out}: {exc.strerror or exc}")
    print(f"wrote {out}: open it in a browser (it needs no network)")
    return EXIT_OK
