"""The registry is the one source of command facts: the session, the masker, replay and
export follow each command's declared flags, so a command declared with a flag behaves so
(whatever its name), and no module keeps its own list of command names."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.control import discovery as paths
from cockpit.control.server import ControlServer
from cockpit.core.language.registry import REGISTRY, Arg, Registry, command
from cockpit.core.base.result import Outcome
from cockpit.record.export import to_pytest
from cockpit.record.mask import MASK, Masker
from cockpit.record.reader import Recording

from conftest import fails, ok, ref_of

COCKPIT = Path(__file__).resolve().parents[2] / "cockpit"
# Where command facts may be written: the declarations themselves.
DECLARATIONS = (COCKPIT / "core" / "registry.py", COCKPIT / "core" / "commands")


def with_test_commands() -> Registry:
    """Every real command, plus test-only ones whose flags are all they have in common with
    the real ones: `peek` (modal-safe, read-only, never held, alias `pk`), `poke` (none)
    and `note` (its typed text and stored value are masked)."""
    registry = Registry(dict(REGISTRY.commands), dict(REGISTRY.aliases))

    async def url_of(ctx, a) -> Outcome:
        return Outcome(ctx.page.url)

    command("peek", "meta", "Test only: print the URL.", aliases=("pk",), modal_safe=True,
            read_only=True, never_held=True, registry=registry)(url_of)
    command("poke", "meta", "Test only: print the URL.", registry=registry)(url_of)
    command("note", "meta", "Test only.", args=(Arg("words"), Arg("stash")),
            typed_text="words", masked_args=("stash",), registry=registry)(url_of)
    return registry


# --- `cockpit exec RESUME` through the real socket ------------------------------------------

async def exec_line(server: ControlServer, *words: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cockpit", "exec", "--timeout", "8", *words,
        env={**os.environ, paths.ENV_SOCKET: str(server.socket)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode, out.decode(), err.decode()


async def test_exec_resume_in_any_case_ends_the_handoff(s, tmp_path):
    server = ControlServer(s, workspace=tmp_path)
    await server.start()
    try:
        for word in ("RESUME", "Resume"):
            await ok(s, "handoff --terminal type the code")
            assert s.agents_held
            # an agent's command (that is what `exec` sends) would wait behind the handoff;
            # resume is declared never held, in whatever case it is written
            code, out, err = await exec_line(server, word)
            assert code == 0, err
            assert "handed the browser back" in out
            assert not s.handoff.active and s.agents_held is None
        await ok(s, "handoff --terminal")
        code, out, err = await exec_line(server, "--json", "STATUS")  # never held either
        assert code == 0 and json.loads(out)["data"]["handoff"]["human_has_control"], err
    finally:
        if s.handoff.active:
            await s.run("resume")
        await server.close()


async def test_only_commands_declared_never_held_pass_held_agents(s):
    registry = with_test_commands()
    s.registry = registry
    s.hold_agents("testing", "test")
    try:
        for line in ("peek", "PEEK", "pk", "Pk extra words", "resume", "status"):
            assert not s.waits(line, "agent"), line
        for line in ("poke", "title", "nosuch", 'resume "unclosed', "", "RESUMEX"):
            assert s.waits(line, "agent"), line  # not a command declared never held
        assert not s.waits("poke", "human")  # only agents are held
    finally:
        s.release_agents("test")
        s.registry = REGISTRY


# --- behaviour follows the declaration --------------------------------------------------------

async def test_a_command_declared_modal_safe_runs_while_a_dialog_is_open(s, site):
    s.registry = with_test_commands()
    try:
        await ok(s, f"goto {site.url}/playground")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'button', 'Show alert')}")
        assert s.active.dialog is not None
        assert (await ok(s, "peek")).output.endswith("/playground")  # declared modal-safe
        refused = await fails(s, "poke")  # the same handler, undeclared: refused
        assert "dialog is open" in refused.error
        await ok(s, "dialog accept")
        assert (await ok(s, "poke")).output.endswith("/playground")
    finally:
        s.registry = REGISTRY


def test_export_leaves_out_what_is_declared_read_only(tmp_path):
    registry = with_test_commands()
    step = {"type": "step", "source": "agent", "ok": True, "url": "http://127.0.0.1:1/"}
    rec = Recording(tmp_path / "r.jsonl", {"session": "t"}, [
        {**step, "n": 1, "command": "peek"},
        {**step, "n": 2, "command": "poke"},
        {**step, "n": 3, "command": "resume"},
        {**step, "n": 4, "command": "click '#go'"}])
    code = to_pytest(rec, "t", registry)
    assert "step 1" not in code  # read-only: nothing to do in a test
    assert "# not exported (no pytest form yet): poke" in code  # it may change things
    assert "step 3" not in code  # needs a person
    assert "page.locator('#go').click()" in code


def test_the_masker_masks_the_declared_arguments():
    masker = Masker(registry=with_test_commands())
    masker.learn_from("note hunter2 s3cr3t-stash", {"secret": True})  # typed in a password
    line = masker.json_line({"command": "note hunter2 s3cr3t-stash",
                             "output": "hunter2 and s3cr3t-stash"})
    assert "hunter2" not in line and "s3cr3t-stash" not in line
    assert "$PASSWORD" in line and MASK in line
    plain = Masker(registry=with_test_commands())
    plain.learn_from("note visible s3cr3t-stash", {})  # not a password field: text stays
    assert "visible" in plain.text("visible") and plain.text("s3cr3t-stash") == MASK


def test_commands_json_shows_every_flag():
    env = {**os.environ, "PYTHONPATH": str(COCKPIT.parent)}
    done = subprocess.run([sys.executable, "-m", "cockpit", "commands", "--json"],
                          capture_output=True, text=True, timeout=60, env=env)
    described = {c["name"]: c for c in json.loads(done.stdout)["commands"]}
    resume, fill, snapshot = described["resume"], described["fill"], described["snapshot"]
    assert resume["never_held"] and resume["needs_person"] and not resume["needs_tab"]
    assert resume["modal_safe"] and not resume["read_only"]
    assert fill["typed_text"] == "text" and fill["mutates"] and not fill["modal_safe"]
    assert described["cookies"]["masked_args"] == ["value"]
    assert snapshot["read_only"] and snapshot["checks_needs"]
    assert all({"synopsis", "args", "flags", "examples"} <= set(c) for c in described.values())


def test_help_says_how_a_command_behaves():
    text = REGISTRY.get("resume").help_text()
    assert "never waits while agents are held" in text and "runs while a dialog is open" in text


def test_the_client_methods_name_real_commands():
    """The Python client's named methods only build lines: each parses as the command of
    its own name, so they cannot drift from the registry."""
    from cockpit.control.client import Commands
    from cockpit.core.language.parser import parse

    class Lines(Commands):
        def _checked(self, line: str) -> str:
            return line

    client = Lines()
    samples = {"goto": ("x.test",), "fill": ("@e1", "a b"), "type": ("@e1", "a"),
               "press": ("Enter",), "select": ("@e1", "one"), "tab": (2,), "js": ("1+1",),
               "wait": ("--load",), "snapshot": ("-i",), "click": ("@e1",),
               "check": ("@e1",)}
    methods = [m for m in vars(Commands) if not m.startswith("_")]
    assert "goto" in methods
    for name in methods:
        line = getattr(client, name)(*samples.get(name, ()))
        assert parse(line).spec.name == name, line


# --- no command facts outside the declarations ------------------------------------------------

def command_lists(source: str, words: set[str]) -> list[str]:
    """Literal sets, tuples and lists (nested ones too) of two or more command words."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Set, ast.Tuple, ast.List)):
            continue
        strings, todo = [], [node]
        while todo:
            item = todo.pop()
            for elt in item.elts:
                if isinstance(elt, (ast.Set, ast.Tuple, ast.List)):
                    todo.append(elt)
                elif isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                    strings.append(elt.value)
                else:
                    strings.append(None)
        if len(strings) >= 2 and all(w is not None and w.lower() in words for w in strings):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_the_guard_finds_a_planted_list_of_command_names():
    words = set(REGISTRY.words())
    assert command_lists('MODAL_SAFE = frozenset({"dialog", "help"})', words)
    assert command_lists('ok = line.split()[:1] not in (["resume"], ["status"])', words)
    assert command_lists('if name in ("Fill", "type"): pass', words)
    assert not command_lists('KINDS = ("captcha", "code")', words)
    assert not command_lists('FIELDS = ("command", "tab", "url", "id")', words)


def test_no_module_outside_the_declarations_lists_command_names():
    words = set(REGISTRY.words())
    offenders = []
    for path in sorted(COCKPIT.rglob("*.py")):
        if path == DECLARATIONS[0] or DECLARATIONS[1] in path.parents:
            continue
        offenders += [f"{path.relative_to(COCKPIT.parent)} {hit}"
                      for hit in command_lists(path.read_text(encoding="utf-8"), words)]
    assert not offenders, ("command facts belong in the @command declaration (a flag on "
                           "CommandSpec), not in a list:\n" + "\n".join(offenders))


@pytest.mark.parametrize("flag", ["typed_text", "masked_args"])
def test_a_declared_argument_must_exist(flag):
    value = "nope" if flag == "typed_text" else ("nope",)
    with pytest.raises(ValueError, match="no argument 'nope'"):
        command("bad", "meta", "x", registry=Registry(), **{flag: value})(lambda c, a: None)
