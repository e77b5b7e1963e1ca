"""Print the command reference (from the command registry)."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="the JSON description instead")
    parser.add_argument("--markdown", action="store_true", help="the docs' Markdown table")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import json

    from ..core import REGISTRY
    if args.json:
        print(json.dumps(REGISTRY.describe(), indent=2))
    elif args.markdown:
        print(REGISTRY.markdown(), end="")
    else:
        print(REGISTRY.overview())
    return 0
