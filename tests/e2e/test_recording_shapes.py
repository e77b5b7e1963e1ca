"""Every result the command registry can produce is recorded: each registered command is
run (each of its choices, with only its required arguments and with all of them) in a
recorded session, and every step lands in the file, masked, with nothing logged as
failing. A new command is covered by being registered."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from cockpit.core import REGISTRY, Session
from cockpit.core import commands  # noqa: F401  (the registry it fills)
from cockpit.core.language.registry import COMMAND, FILE, INT, KEY, TARGET, URL, Arg, CommandSpec
from cockpit.record.mask import Masker
from cockpit.record.recorder import Recorder

from conftest import page

STORED = "s3cret-stored-42"  # a cookie's and a storage value: masked wherever it appears
FORM = page("shapes", """
<form onsubmit="return false">
  <label>Name <input name="name"></label>
  <label>Password <input type="password" name="pw"></label>
  <label><input type="checkbox" name="agree"> Agree</label>
  <label>Colour <select name="colour"><option>Red</option><option>Green</option></select>
  </label>
  <label>Attachment <input type="file" name="file"></label>
  <button type="button">Go</button>
</form>""")
# the element a command's target is, where a textbox is not the one it acts on
ROLE_OF_TARGET = {"check": "checkbox", "uncheck": "checkbox", "select": "combobox",
                  "upload": "file", "dblclick": "button", "click": "button"}
INT_VALUES = {"width": "400", "height": "300"}


def _value(spec: CommandSpec, arg: Arg, refs: dict[str, str], url: str,
           files: dict[str, str]) -> str:
    if arg.kind == TARGET:
        role = ROLE_OF_TARGET.get(spec.name, "textbox") if arg is spec.args[0] else "button"
        return refs[role]
    if arg.kind == URL:
        return url
    if arg.kind == FILE:
        return files.get(spec.name, files["any"])
    if arg.kind == INT:
        return INT_VALUES.get(arg.name, "1")
    if arg.kind == KEY:
        return "Enter"
    if arg.kind == COMMAND:
        return "title"
    if spec.name == "select":
        return "Green"
    return STORED if arg.name in spec.masked_args else "hello"


def lines_for(spec: CommandSpec, refs: dict[str, str], url: str,
              files: dict[str, str]) -> list[str]:
    """The command with each of its first choice argument's choices, once with only the
    arguments it requires and once with all of them."""
    choice = next((a for a in spec.args if a.choices), None)
    lines: list[str] = []
    for pick in (choice.choices if choice else (None,)):
        for every in (False, True):
            words = [spec.name]
            for arg in spec.args:
                if arg is choice:
                    words.append(str(pick))
                elif every or not arg.optional:
                    words.append(_value(spec, arg, refs, url, files))
            line = " ".join(words)
            if line not in lines:
                lines.append(line)
    return lines


async def _refs(session: Session) -> dict[str, str]:
    await session.run("snapshot -i")
    found = {"file": "'input[type=file]'"}
    for ref, role, _name, _value in session.refs_info():
        found.setdefault(role, "@" + ref)
    return found


async def test_every_registered_commands_result_is_recorded_and_masked(
        base, tmp_path, monkeypatch, caplog):
    monkeypatch.delenv("DISPLAY", raising=False)  # handoff: in the terminal, no window
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.chdir(tmp_path)  # files commands write (screenshots, state) land here
    (tmp_path / "a.txt").write_text("attached")
    (tmp_path / "a.js").write_text("1 + 1")
    files = {"state": str(tmp_path / "state.json"), "eval": str(tmp_path / "a.js"),
             "any": str(tmp_path / "a.txt")}
    session = Session("shapes")
    await session.start()
    path = tmp_path / "shapes.jsonl"
    recorder = Recorder(session, path).start()
    failures: list = []
    session.bus.subscribe(lambda e: failures.append(e) if e.kind == "recording.failed"
                          else None)
    ran: list[str] = []
    try:
        with caplog.at_level(logging.WARNING, logger="cockpit.record"):
            for spec in REGISTRY.commands.values():
                await session.run(f"goto {base}{FORM}")
                # a site's cookie, so that `cookies` lists one and `state` counts it
                await session.context.add_cookies([{"name": "sid", "value": STORED,
                                                    "url": base}])
                refs = await _refs(session)
                ran += ["goto", "snapshot"]
                for line in lines_for(spec, refs, base + FORM, files):
                    result = await session.run(line, timeout=20)
                    ran.append(line)
                    assert result.exit_code != 4 or "its turn" not in (result.error or ""), \
                        line
    finally:
        recorder.close()
        await session.close()
    steps = [json.loads(line) for line in path.read_text().splitlines()
             if json.loads(line)["type"] == "step"]
    assert not failures and not [r for r in caplog.records if r.levelno >= logging.WARNING], \
        [r.getMessage() for r in caplog.records]
    assert len(steps) == len(ran), "a step is missing from the recording"
    assert [s["n"] for s in steps] == list(range(1, len(ran) + 1))
    recorded = {s["command"].split()[0] for s in steps}
    assert set(REGISTRY.commands) <= recorded  # every command's result went through it
    state = [s for s in steps if s["command"].startswith("state ")]
    assert [s["ok"] for s in state] == [True, True] and \
        state[1]["command"] == f"state load {files['state']}"
    assert STORED not in path.read_text()


@pytest.mark.parametrize("key", ["cookies", "storage", "steps", "secret", "tab", "diff"])
def test_the_masker_takes_any_shape_a_result_field_may_have(key):
    """A field's value of any JSON type: read when it has the shape it stands for, else
    left alone (`state` says `cookies: 1`, `cookies` lists them)."""
    masker = Masker()
    for value in (1, 2.5, True, None, "text", [], [1, "x", None], {}, {"a": 1},
                  [{"value": 5}], [{"command": 3, "data": 4}], {"value": [1]}):
        masker.learn_from("cookies", {key: value})
        masker.name_typed("cookies", {key: value})
    masker.learn_from("cookies", ["not", "a", "dict"])  # type: ignore[arg-type]
    masker.learn_from("cookies", {"cookies": [{"value": STORED}]})
    assert STORED not in masker.json_line({"output": f"sid={STORED}"})


def test_a_step_the_masker_fails_on_is_recorded_safely_and_logged(tmp_path, caplog,
                                                                   monkeypatch):
    """A bug in the masker: the step is still in the file (where it ran, how it ended),
    without its arguments, output and diff, and the log says why."""
    import asyncio

    from cockpit.core.base.result import Result
    from tui_fake import FakeSession

    def broken(self, command: str, data: Any) -> None:
        raise TypeError("a shape it did not expect")
    monkeypatch.setattr(Masker, "learn_from", broken)
    fake = FakeSession()
    fake._answer = lambda line, source: (Result(line, True, output=f"set {STORED}"), [])  # type: ignore[method-assign]
    path = tmp_path / "r.jsonl"
    recorder = Recorder(fake, path).start()
    with caplog.at_level(logging.ERROR, logger="cockpit.record"):
        asyncio.run(fake.run(f"cookies set sid {STORED}"))
    recorder.close()
    text = path.read_text()
    step = [json.loads(line) for line in text.splitlines()][1]
    assert step["type"] == "step" and step["n"] == 1 and step["ok"] is True
    assert step["command"] == "cookies •••••• •••••• ••••••"
    assert "masking this step failed" in step["output"] and step["diff"] is None
    assert STORED not in text
    assert any("masking step 1 (cookies)" in r.getMessage() for r in caplog.records)
