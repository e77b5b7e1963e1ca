"""What the session shows never holds a secret: the values of `--secret` come back as
`$NAME` in every Result and every event, and a value typed into a password field as the
mask, in the line that typed it and in its Result; a password field's value is masked in
every snapshot at the source (core/secret_fields.py). So no pane, client, agent, history or
recording sees them.

A command line is masked twice: before it runs (its queued and started events), when it
is not yet known whether the field it types into is a password field, its typed text is
masked unless its target is a ref the snapshot knows as an ordinary field; once it ran,
the Result says (`data.secret`) and the line is masked exactly.

Page text that repeats a password (a page printing it, `js` reading the field) is shown:
it is the page's, and the user asked for it. A URL is not: a GET form with a password
field puts the password in the query of the page it opens, so a password's value as a
query parameter's (`?pw=VALUE`, as typed or URL-encoded) is masked in everything shown.
Files are stricter: `files` also knows every typed and every shown password value, and
masks them wherever they appear in a trace, a log or a local recording.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote, quote_plus
from typing import TYPE_CHECKING, Any

from .mask import MASK, Masker
from ..language.command import Command
from ..language.parser import split_chain
from ..language.registry import Registry
from ..language.parser import as_ref

if TYPE_CHECKING:
    from ..base.result import Result
    from ..model.snapshot import Snapshot

# A target whose name says password is one, even when the page could not be asked (the
# step failed before typing).
PASSWORDISH = re.compile(r"(?i)pass(word|phrase|code)|\bpin\b")


class Redactor:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        # what views show: the --secret values (no token guessing: the user asked to see
        # that cookie)
        self.shown = Masker(registry=registry, tokens=False, short_words=True)
        # what files hold: those, and every password typed or shown in a field
        self.files = Masker(registry=registry, tokens=False, short_words=True)
        self._ids: dict[str, int] = {}  # a typed password -> its number this session

    def add_secret(self, name: str, value: str) -> None:
        self.shown.add(value, f"${name}")
        self.files.add(value, f"${name}")

    def learn_value(self, value: str) -> None:
        """A value a password field showed: masked in files from now on, and as a URL's
        query value everywhere."""
        self.files.add(value, MASK)
        self._in_urls(value)

    def _in_urls(self, password: str) -> None:
        """A password as a query parameter's value (a GET form's submission) is masked in
        what is shown: in a result's `new page` line, `url`, a tab's URL, the events."""
        for form in {password, quote_plus(password), quote(password, safe="")}:
            self.shown.add(f"={form}", f"={MASK}")

    def payload(self, data: dict[str, Any]) -> dict[str, Any]:
        """An event's payload, masked (as it is: nothing to mask is the common case)."""
        return _tree(self.shown, data) if self.shown else data

    def text(self, text: str) -> str:
        return self.shown.text(text) if self.shown and text else text

    # --- before a command runs ------------------------------------------------------------
    def line(self, command: Command, snap: Snapshot | None) -> str:
        """The line as its queued and started events show it."""
        shown = self.text(command.line)
        hide = Masker(registry=self.registry, tokens=False, short_words=True)
        for target, typed in self._typed_steps(command):
            if typed.startswith("$") or _plain_field(snap, target):
                continue
            hide.add(typed)
        for value in self.secret_values(command):
            hide.add(value)
        return hide.text(shown) if hide else shown

    def secret_values(self, command: Command) -> list[str]:
        """The values of the command's `secret_args` (a `$NAME` stays its name)."""
        spec, inv = command.spec, command.invocation
        if spec is None or inv is None or not spec.secret_args:
            return []
        values = [inv.params.get(arg) for arg in spec.secret_args]
        return [v for v in values if isinstance(v, str) and v and not v.startswith("$")]

    def _typed_steps(self, command: Command) -> list[tuple[str, str]]:
        """(target, typed text) of each step of the command that types text."""
        spec, inv = command.spec, command.invocation
        if spec is None or inv is None or not (spec.typed_text or spec.name == "chain"):
            return []
        if spec.name == "chain":  # each of its lines is a command of its own
            steps: list[tuple[str, str]] = []
            for sub in split_chain(list(inv.params.get("commands") or [])):
                step = Command.of(sub, self.registry)
                steps += self._typed_steps(step) if step.spec is not spec else []
            return steps
        typed = inv.params.get(spec.typed_text) if spec.typed_text else None
        target = inv.params.get("target")
        return [(str(target or ""), typed)] if isinstance(typed, str) and typed else []

    # --- once it ran ----------------------------------------------------------------------
    def result(self, result: Result, snap: Snapshot | None = None,
               command: Command | None = None) -> Result:
        """Mask the Result in place (and return it). `snap`: the snapshot its refs came
        from (a ref known as a password field is one, also when the step failed early);
        `command`: the line it ran, parsed (else its result's line is)."""
        hide = Masker(registry=self.registry, tokens=False, short_words=True)
        command = command or Command.of(result.command, self.registry)
        for data, typed in self._typed_secrets(command, result.data, snap):
            data["secret"] = True
            # the recorder names each distinct password ($PASSWORD, $PASSWORD2...) by it
            data["secret_id"] = self._ids.setdefault(typed, len(self._ids) + 1)
            hide.add(typed)
            self.files.add(typed, MASK)
            self._in_urls(typed)
        for value in self.secret_values(command):
            hide.add(value)
            self.files.add(value, MASK)
        for masker in (self.shown, hide):
            if masker:
                result.command = masker.text(result.command)
                result.output = masker.text(result.output)
                if result.error:
                    result.error = masker.text(result.error)
                result.data = _tree(masker, result.data)
        return result

    def _typed_secrets(self, command: Command, data: dict[str, Any], snap: Snapshot | None
                       ) -> Iterator[tuple[dict[str, Any], str]]:
        """(the data of the step, what it typed) for each step that typed a password."""
        spec = command.spec
        if spec is None or spec.name == "chain":
            for step in data.get("steps") or []:  # each step says what it typed into
                if isinstance(step, dict) and isinstance(step.get("command"), str):
                    step.setdefault("data", {})
                    if isinstance(step["data"], dict):
                        yield from self._typed_secrets(
                            Command.of(step["command"], self.registry), step["data"], snap)
            return
        if not spec.typed_text or not (data.get("secret")
                                       or passwordish_target(snap, command)):
            return
        for _target, typed in self._typed_steps(command):
            if not typed.startswith("$") and MASK not in typed:
                yield data, typed

def _tree(masker: Masker, value: Any) -> Any:
    """Every string in a result's data or an event's payload masked (keys and structure
    kept)."""
    if isinstance(value, str):
        return masker.text(value)
    if isinstance(value, dict):
        return {k: _tree(masker, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tree(masker, v) for v in value]
    return value


def _plain_field(snap: Snapshot | None, target: str) -> bool:
    """Whether the target is a ref the snapshot knows, and not as a password field."""
    ref = as_ref(target)
    node = snap.refs.get(ref) if snap is not None and ref else None
    return node is not None and not node.secret and not PASSWORDISH.search(node.name)


def passwordish_target(snap: Snapshot | None, command: Command) -> bool:
    """Whether a ref the command uses is a password field (or named like one)."""
    if snap is None:
        return False
    for ref in command.refs():
        node = snap.refs.get(ref)
        if node is not None and (node.secret or PASSWORDISH.search(node.name)):
            return True
    return False
