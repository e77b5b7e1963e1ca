"""Event kinds are declared once (core/events.py) and every consumer routes by the
declaration: the code emits only declared kinds with their declared payload keys, and a
new declaration reaches the server's history, the recorder, the remote session, `serve`'s
output and the TUI's panes with no other edit."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from cockpit.core.language.registry import REGISTRY
from cockpit.cli.live import tell as _tell
from cockpit.control.remote_session import RemoteSession
from cockpit.control.server import ControlServer
from cockpit.core.base import events as ev
from cockpit.core.page.changeset import Change, diff_line
from cockpit.core.base.events import Event, EventBus, EventKind
from cockpit.record.recorder import Recorder
from cockpit.tui import messages

ROOT = Path(ev.__file__).parents[1]


def _payloads() -> dict[str, tuple[set[str], set[str]]]:
    """Each payload TypedDict of events.py (declared for type checkers only, so read from
    the source): its keys, and those of them that are required."""
    tree = ast.parse(Path(ev.__file__).read_text())
    found: dict[str, tuple[set[str], set[str]]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef) or node.name == "EventKind":
            continue
        keys, required = set(), set()
        for base in node.bases:  # a payload that extends another
            if isinstance(base, ast.Name) and base.id in found:
                keys |= found[base.id][0]
                required |= found[base.id][1]
        total = not any(k.arg == "total" and isinstance(k.value, ast.Constant)
                        and k.value.value is False for k in node.keywords)
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                keys.add(item.target.id)
                if total and "NotRequired" not in ast.unparse(item.annotation):
                    required.add(item.target.id)
        found[node.name] = (keys, required)
    return found


def _emits() -> list[tuple[str, str, set[str], bool]]:
    """Every `emit(ev.X, key=...)` (and `_emit`, `emit_at`) in the package: where, the
    constant, its keywords, and whether it also spreads a dict (**info)."""
    calls = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("emit", "_emit", "emit_at") and node.args):
                continue
            kind = node.args[-1] if node.func.attr == "emit_at" else node.args[0]
            if isinstance(kind, ast.Attribute) and isinstance(kind.value, ast.Name) \
                    and kind.value.id == "ev":
                keys = {k.arg for k in node.keywords if k.arg}
                if node.func.attr == "_emit":  # Tab._emit adds the tab's id
                    keys.add("tab")
                spread = any(k.arg is None for k in node.keywords)
                calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", kind.attr, keys,
                              spread))
    return calls


def test_every_declared_kind_names_a_payload_type():
    payloads = _payloads()
    assert len(ev.KINDS) >= 25 and ev.RECORDING_FAILED == "recording.failed"
    for kind, spec in ev.KINDS.items():
        assert spec.kind == kind and spec.group, kind
        assert spec.payload in payloads, f"{kind}: no TypedDict {spec.payload}"
    assert payloads["RecordingFailed"][0] == {"path", "error"}


def test_every_emitted_kind_is_declared_with_the_keys_it_sends():
    payloads, calls = _payloads(), _emits()
    assert len(calls) > 30  # the scan finds the engine's emits
    for where, constant, keys, spread in calls:
        kind = getattr(ev, constant)
        assert kind in ev.KINDS, f"{where}: {kind} is not declared in core/events.py"
        declared, required = payloads[ev.KINDS[kind].payload]
        assert keys <= declared, f"{where}: {kind} sends {keys - declared} undeclared"
        if not spread and keys:  # (a remote session's synthetic refresh sends none)
            assert required <= keys, f"{where}: {kind} lacks {required - keys}"


def test_the_wire_form_of_an_event_is_unchanged():
    event = Event(ev.COMMAND_QUEUED, {"id": 1, "command": "click @e6", "source": "agent"},
                  time=5.0)
    assert event.to_json() == {"kind": "command.queued", "time": 5.0,
                               "data": {"id": 1, "command": "click @e6", "source": "agent"}}


@pytest.fixture
def fake_kind(monkeypatch):
    """A kind declared once, as a new one would be: about the agent, kept for viewers,
    recorded, changing the tab list, said by serve, urgent."""
    kind = EventKind("test.fake", ev.AGENT, "NoData", kept=True, recorded=True, tabs=True,
                     says="fake thing {what}", urgent=True)
    monkeypatch.setitem(ev.KINDS, kind.kind, kind)
    return kind.kind


async def test_a_new_declaration_is_routed_by_every_consumer(fake_kind, tmp_path, capsys):
    event = Event(fake_kind, {"what": "happened"}, time=1.0)
    plain = Event("test.undeclared", {"what": "happened"}, time=2.0)
    # the control server keeps it for viewers that attach later
    server = ControlServer(SimpleNamespace(name="events-test"))
    server._keep(event)
    server._keep(plain)
    assert server.history() == [event]
    # the recorder writes it
    session = SimpleNamespace(name="t", bus=EventBus(), secrets=SimpleNamespace(values={}),
                              registry=REGISTRY, status=lambda: {})
    recorder = Recorder(session, tmp_path / "r.jsonl").start()
    session.bus.publish(event)
    session.bus.publish(plain)
    recorder.close()
    kinds = [json.loads(line).get("kind") for line in (tmp_path / "r.jsonl").open()]
    assert kinds == [None, fake_kind]
    # a remote session fetches its copy of the tabs again
    remote = RemoteSession.__new__(RemoteSession)
    remote.name, remote.bus, remote.ended, remote._dirty = "t", EventBus(), False, \
        asyncio.Event()

    async def events(history):
        yield event

    remote.client = SimpleNamespace(events=events)
    await remote._follow()
    assert remote._dirty.is_set()
    # `serve` says it on stderr, with a bell
    _tell(event)
    _tell(plain)
    assert capsys.readouterr().err == "cockpit: \a fake thing happened\n"
    # the TUI: an agent notice, and the tab list fetched again
    tui = SimpleNamespace(tabs_info=lambda: ["tab"], refs_info=list)
    out = messages.translate([event, plain], tui)
    assert [type(m) for m in out] == [messages.AgentChanged, messages.TabsChanged]
    assert out[1].tabs == ["tab"]


def test_one_rendering_of_a_diff_line():
    change = Change("changed", "e3", "checkbox", "Remember me", {"checked": (False, True)})
    assert change.line == '~ @e3 checkbox "Remember me" (checked: false -> true)'
    assert diff_line(change.to_json()) == ("changed", change.line)
    added = {"kind": "added", "ref": "e8", "role": "status", "name": "", "text": "x" * 90}
    assert diff_line(added) == ("added", "+ @e8 status: " + "x" * 79 + "…")
    assert diff_line({"kind": "removed", "ref": "e2", "role": "button", "name": "Go"},
                     ref=False) == ("removed", '- button "Go"')
    assert diff_line({"kind": "moved", "ref": "e1", "role": "link", "name": ""})[0] == ""


async def test_one_batch_updates_the_log_the_diff_the_tabs_and_the_agent_pane():
    from tui_fake import CLICK_DIFF, TABS, FakeSession

    from cockpit.tui.agent_pane import AgentPane
    from cockpit.tui.app import CockpitApp
    from cockpit.tui.command_log import CommandLog
    from cockpit.tui.diff_pane import DiffPane
    from cockpit.tui.tabs_pane import TabsPane

    session = FakeSession()
    app = CockpitApp(session, pictures=False)
    batches: list[int] = []
    deliver = app.deliver
    app.deliver = lambda batch: (batches.append(len(batch)), deliver(batch))
    async with app.run_test(size=(160, 48)) as pilot:
        tabs = app.query_one(TabsPane)
        await until(pilot, lambda: tabs.row_count == len(TABS))
        third = {**TABS[1], "index": 3, "id": 3, "title": "Opened by the agent"}
        session.tabs_info = lambda: [dict(t) for t in TABS] + [third]
        # emitted in one go, as the engine would within a frame: one batch
        session.bus.emit(ev.COMMAND_QUEUED, id=1, command="click @e3", source="agent")
        session.bus.emit(ev.COMMAND_FINISHED, id=1, source="agent", exit_code=0, ok=True,
                         command="click @e3", output="clicked", error=None, ms=3.0,
                         data={"diff": CLICK_DIFF})
        session.bus.emit(ev.TAB_OPENED, **third)
        session.bus.emit(ev.AGENT_OUTPUT, stream="stderr", lines=["hello", "there"],
                         dropped=0)
        log, agent = app.query_one(CommandLog), app.query_one(AgentPane)
        await until(pilot, lambda: batches and log.rows and agent.lines_seen)
        assert batches == [4]
        assert [e.cells()[3] for e in log.rows] == ["ok"]
        assert app.query_one(DiffPane).steps[-1].command == "click @e3"
        assert tabs.row_count == 3
        assert agent.lines_seen == 2


async def until(pilot, condition, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "the app did not get there in time"
        await pilot.pause(0.05)


async def test_the_status_bar_says_the_agent_has_control_while_it_runs():
    from tui_fake import FakeSession

    from cockpit.tui.app import CockpitApp
    from cockpit.tui.status_bar import StatusBar

    session = FakeSession()
    app = CockpitApp(session, pictures=False)
    agent = {"detail": "", "command": "agent.py", "exit_code": None, "waiting_for": None,
             "pid": 42}
    async with app.run_test(size=(160, 48)) as pilot:
        status = app.query_one(StatusBar).status
        assert status.control == "human"  # no agent yet
        session.bus.emit(ev.AGENT_STATE, state="running", **agent)
        await until(pilot, lambda: status.control == "agent")
        session.bus.emit(ev.AGENTS_HELD, reason="a person is solving the CAPTCHA")
        await until(pilot, lambda: status.control.startswith("agents wait"))
        session.bus.emit(ev.AGENT_STATE, state="waiting", **agent)  # stays held
        session.bus.emit(ev.AGENT_OUTPUT, stream="stdout", lines=["."], dropped=0)
        await until(pilot, lambda: app.query_one(StatusBar).status.agent != "no agent")
        assert status.control.startswith("agents wait")
        session.bus.emit(ev.AGENT_STATE, state="exited", **{**agent, "exit_code": 0})
        session.bus.emit(ev.AGENTS_RELEASED)
        await until(pilot, lambda: status.control == "human")
