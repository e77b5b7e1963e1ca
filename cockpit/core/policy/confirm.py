"""`--confirm PATTERN`: an agent's command that matches waits for a person.

A pattern is a command word and a glob, `click:*Delete*`: the word (or a glob of words)
names the command, aliases included (`goto` covers `open`); the glob, compared without
regard to case, matches the command line, its arguments, or the accessible name of an
element it targets by ref (`click @e7` where @e7 is button "Delete all"). A word alone
(`goto`) matches every such command. A `chain` matches when one of its lines does.

Only agents' commands wait (source `agent`: `cockpit exec`, the Python clients, MCP, the
`--agent` process); a person's own commands never do. A waiting command holds no lock:
every other command runs meanwhile, `approve` and `deny` among them. They answer the
oldest command waiting, and only a person may send them (core/commands/policy.py).
"""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base import events as ev
from ..language.command import Command
from ..base.errors import EXIT_FAILED, EXIT_WAIT_TIMEOUT
from ..language.parser import split_chain
from ..base.result import Result
from ..page.targets import refs_used

if TYPE_CHECKING:
    from ..base.events import EventBus
    from ..language.registry import Registry
    from ..model.snapshot import Snapshot

WAITING_SOURCES = ("agent",)  # whose matching commands wait for a person


@dataclass(frozen=True)
class ConfirmPattern:
    """One `--confirm` value: `word:glob`, or a word alone (any line of it)."""

    text: str
    word: str
    glob: str

    @classmethod
    def parse(cls, text: str, registry: Registry) -> ConfirmPattern:
        """ValueError (one line, what to write instead) for a value that names no command."""
        word, sep, glob = text.strip().partition(":")
        word = word.strip().lower()
        if not word or (sep and not glob.strip()):
            raise ValueError(f"--confirm {text!r}: write a command and a glob, like "
                             "click:*Delete* or goto:*checkout* (or a command alone: goto)")
        spec = registry.get(word)
        if spec is not None:
            word = spec.name  # an alias means its command
        elif not any(c in word for c in "*?[") or not fnmatch.filter(list(registry.commands),
                                                                     word):
            raise ValueError(f"--confirm {text!r}: there is no command {word!r} (`help` "
                             "lists them)")
        return cls(text.strip(), word, glob.strip() or "*")

    def matches(self, command: str, line: str, names: list[str]) -> bool:
        if not fnmatch.fnmatchcase(command, self.word):
            return False
        glob = self.glob.lower()
        args = line.strip().split(None, 1)[1] if len(line.split()) > 1 else ""
        return any(fnmatch.fnmatchcase(text.lower(), glob)
                   for text in (line.strip(), args, *names) if text)


@dataclass
class Waiting:
    """An agent's command waiting for a person's answer."""

    id: int
    command: str  # as shown (secrets masked)
    source: str
    pattern: str
    target: dict[str, Any] | None  # role and name of the element it acts on, if a ref
    since: float = field(default_factory=time.time)
    answer: asyncio.Future[tuple[bool, str, str]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())

    def describe(self) -> str:
        """`click @e7 (button "Delete all")`: the command, and what it acts on."""
        if not self.target:
            return f"`{self.command}`"
        name = self.target.get("name") or self.target.get("label") or ""
        return f"`{self.command}` ({self.target.get('role', '')} \"{name}\")"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "command": self.command, "source": self.source,
                "pattern": self.pattern, "target": self.target, "since": self.since}


class Approvals:
    """The session's `--confirm` patterns and the commands waiting on them, oldest first."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self.patterns: list[ConfirmPattern] = []
        self.waiting: list[Waiting] = []
        self._ids = itertools.count(1)

    def require(self, values: list[str], registry: Registry) -> None:
        """Set the patterns from `--confirm` values (ValueError: a bad one)."""
        self.patterns = [ConfirmPattern.parse(v, registry) for v in values]

    def match(self, command: Command, source: str, registry: Registry,
              snap: Snapshot | None) -> tuple[ConfirmPattern, dict[str, Any] | None] | None:
        """The first pattern this command of `source` matches, and the element it acts
        on (role and name, when it names a ref of the snapshot); None: it runs at once."""
        if not self.patterns or source not in WAITING_SOURCES:
            return None
        if command.spec is None:
            return None
        steps = [command]
        if command.name == "chain":  # any of its lines may match
            if command.invocation is None:  # it does not parse: it refuses itself
                return None
            steps = [Command.of(one, registry) for one in
                     split_chain(list(command.invocation.params.get("commands") or []))]
        for one in steps:
            one_spec = one.spec
            if one_spec is None:
                continue
            targets = refs_used(snap, one)
            names = [str(t.get(k)) for t in targets.values() for k in ("name", "label")
                     if t.get(k)]
            for pattern in self.patterns:
                if pattern.matches(one_spec.name, one.line, names):
                    first = next(iter(targets.items()), None)  # the ref, to picture it
                    return pattern, {"ref": first[0], **first[1]} if first else None
        return None

    async def gate(self, command: Command, shown: str, source: str, registry: Registry,
                   snap: Snapshot | None, timeout: float | None
                   ) -> tuple[Result | None, dict[str, Any] | None]:
        """Wait for a person when the command matches a pattern: (None, None) when none
        does; (None, answer) when a person approved it, so it runs and its step says so;
        (Result, answer) when it must not run (denied, or no answer within `timeout`:
        exit code 4)."""
        found = self.match(command, source, registry, snap)
        if found is None:
            return None, None
        pattern, target = found
        waiting = Waiting(next(self._ids), shown, source, pattern.text, target)
        self.waiting.append(waiting)
        self.bus.emit(ev.CONFIRM_WAITING, **waiting.to_json(), waiting=len(self.waiting))
        try:
            ok, reason, by = await asyncio.wait_for(asyncio.shield(waiting.answer), timeout)
        except TimeoutError:
            self._gone(waiting, "timed out")
            record: dict[str, Any] = {"answer": "timed out", "pattern": pattern.text}
            return Result(shown, False, source=source, exit_code=EXIT_WAIT_TIMEOUT,
                          error=f"timed out after {timeout:g} s waiting for a person to "
                                f"approve it (--confirm {pattern.text}); it did not run",
                          data={"confirm": record}), record
        except asyncio.CancelledError:  # the caller left: nobody waits for the answer
            self._gone(waiting, "withdrawn")
            raise
        record = {"answer": "approved" if ok else "denied", "by": by,
                  "pattern": pattern.text, **({"reason": reason} if reason else {})}
        if ok:
            return None, record
        why = f"denied by a person: {reason}" if reason else "denied by a person"
        return Result(shown, False, source=source, exit_code=EXIT_FAILED, error=why,
                      data={"confirm": record}), record

    def answer(self, ok: bool, reason: str, by: str) -> Waiting | None:
        """Answer the oldest command waiting; None when none waits."""
        while self.waiting:
            waiting = self.waiting.pop(0)
            if waiting.answer.done():  # its caller left meanwhile
                continue
            waiting.answer.set_result((ok, reason, by))
            self.bus.emit(ev.CONFIRM_ANSWERED, id=waiting.id, command=waiting.command,
                          answer="approved" if ok else "denied", reason=reason, by=by,
                          waiting=len(self.waiting))
            return waiting
        return None

    def why(self, line: str) -> str | None:
        """What an agent's command waits for, said to its caller while it waits."""
        for waiting in self.waiting:
            if waiting.command == line or waiting.command == line.strip():
                return waiting_text(waiting.pattern)
        return None

    def _gone(self, waiting: Waiting, how: str) -> None:
        if waiting in self.waiting:
            self.waiting.remove(waiting)
        if not waiting.answer.done():
            waiting.answer.cancel()
        self.bus.emit(ev.CONFIRM_ANSWERED, id=waiting.id, command=waiting.command,
                      answer=how, reason="", by="", waiting=len(self.waiting))


def waiting_text(pattern: str) -> str:
    """Why a command waits, for its caller (`cockpit exec` says it on stderr)."""
    return (f"a person must approve it first (--confirm {pattern}): `approve` or "
            "`deny [REASON]` in the cockpit, or `cockpit exec --human approve`")
