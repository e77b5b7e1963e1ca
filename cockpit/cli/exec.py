"""`cockpit exec`: one command in a live session, its result on stdout, the contract's
exit code. Called once per agent step, a new process each, so it starts as a bare Python
does plus the little it needs: no Textual, Playwright, argparse or asyncio, and not even
`json`, `re`, `socket`, `enum`, `shlex` or `math` (tests/e2e/test_cli_faces.py checks it); its
few options are parsed by hand. See control/client.py for how the client does without."""

from __future__ import annotations

import os  # loaded by Python itself already: no cost
import sys

from ..control import wire
from ..control.protocol import ENV_AGENT, MAX_REQUEST
from ..core import EXIT_USAGE, join, visible
from .exits import exit_code, failed

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Any

FACE = "cockpit exec"

ENVELOPE = 200  # bytes a request adds around its command line (id, op, source, timeout)

USAGE = """usage: cockpit exec [--session NAME] [--json] [--timeout S] [--human] COMMAND [ARG...]

Run one command in a live session (started by `cockpit`, `run`, `serve`, `demo`, `replay`)
and print its result. The session is $COCKPIT_SOCKET when set (an agent started with
--agent has it), else NAME (default: default) of this directory or the nearest parent.

  --session NAME  the session's name
  --json          one JSON result on one line: ok, command, output, error, ms, data
  --timeout S     give up after S seconds waiting for the command's turn (exit code 4);
                  also bounds reaching the session (default 10 s; exit code 3)
  --socket PATH   a session's socket, as in $COCKPIT_SOCKET
  --human         sent by a person, not an agent: `approve` and `deny` (--confirm) need
                  it; refused inside an agent started by Cockpit ($COCKPIT_AGENT)

Exit codes: 0 ok; 1 the command failed on the page; 2 usage error; 3 no such live
session; 4 timed out waiting. Examples:
  cockpit exec goto localhost:8000
  cockpit exec snapshot -i
  cockpit exec fill @e4 "jane@example.com"
  cockpit exec 'click @e6'"""


class _Usage(Exception):
    pass


def parse(argv: list[str]) -> dict[str, Any]:
    """Options come before COMMAND; everything from COMMAND on is the command's own
    (`cockpit exec snapshot -i`: -i is snapshot's)."""
    opts: dict[str, Any] = {"session": None, "json": False, "timeout": None, "socket": None,
                            "human": False}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        arg, _, value = argv[i].partition("=")
        if arg in ("-h", "--help"):
            raise SystemExit(print(USAGE) or 0)
        if arg in ("--json", "--human"):
            opts[arg[2:]] = True
            i += 1
            continue
        if arg not in ("--session", "--timeout", "--socket"):
            raise _Usage(f"unknown option {argv[i]!r} (options: --session, --json, "
                         f"--timeout, --socket, --human; they come before the command)")
        if not value:
            if i + 1 >= len(argv):
                raise _Usage(f"{arg} needs a value")
            value, i = argv[i + 1], i + 1
        if arg == "--timeout":
            try:
                seconds = float(value)
            except ValueError:
                raise _Usage(f"--timeout takes seconds, like 30; got {value!r}") from None
            # NaN or infinite: math.isfinite's test, without loading math
            if seconds - seconds != 0 or seconds <= 0:
                raise _Usage(f"--timeout must be a number of seconds above 0, like 30; "
                             f"got {seconds!r}")
            opts["timeout"] = seconds
        else:
            opts[arg[2:]] = value
        i += 1
    if opts["human"] and os.environ.get(ENV_AGENT):
        raise _Usage("--human is refused here: this runs inside an agent Cockpit started "
                     f"(${ENV_AGENT} is set); a person answers from their own terminal or "
                     "the cockpit")
    words = argv[i:]
    if not words:
        raise _Usage("no command given: try `cockpit exec snapshot -i`, or `cockpit exec "
                     "help` for the commands")
    # one word is taken as the whole line (`cockpit exec 'fill @e4 "a b"'`); several are
    # quoted back, so `cockpit exec fill @e4 "a b"` means the same
    opts["line"] = words[0] if len(words) == 1 else join(words)
    size = len(wire.dumps(opts["line"]).encode("utf-8", "replace"))
    if size + ENVELOPE > MAX_REQUEST:  # the session would refuse it: say so here
        raise _Usage(f"the command line is {size} bytes; a request holds at most "
                     f"{MAX_REQUEST - ENVELOPE}: pass large text through a file or the page")
    return opts


def _say_waiting(why: str, timeout: float | None) -> None:
    limit = f"up to {timeout:g} s (--timeout)" if timeout else "until then (--timeout S limits it)"
    print(f"cockpit exec: waiting: {why}; the command runs when they are done, {limit}",
          file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    try:
        opts = parse(argv)
    except _Usage as exc:
        return failed(FACE, f"{exc}\n\n{USAGE}", EXIT_USAGE)
    from ..control.client import CONNECT_TIMEOUT, Cockpit, Unreachable
    try:
        with Cockpit(opts["session"], socket_path=opts["socket"], client="exec",
                     source="human" if opts["human"] else "agent",
                     on_waiting=lambda why: _say_waiting(why, opts["timeout"]),
                     connect_timeout=opts["timeout"] or CONNECT_TIMEOUT) as cockpit:
            result = cockpit.run(opts["line"], timeout=opts["timeout"])
    except KeyboardInterrupt as exc:  # the session takes back the command if not started
        return failed(FACE, "interrupted", exit_code(exc))
    # no such session, or a reply that is not JSON; waited past --timeout; a bad name
    except (Unreachable, TimeoutError, ValueError) as exc:
        return failed(FACE, exc)
    if opts["json"]:  # json.dumps' default separators, as before
        print(wire.dumps(result.to_json(), separators=(", ", ": ")), flush=True)
    elif result.ok:
        if result.output:  # page text: its escape sequences must not reach the terminal
            print(visible(result.output), flush=True)
    else:
        print(visible(result.text), file=sys.stderr, flush=True)
    return result.exit_code
