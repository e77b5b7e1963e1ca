"""Every face opens the same live session: recorded, reachable over the socket, its agent
started; the parser refuses what a face cannot honour and words that are not URLs."""

from __future__ import annotations

import errno
import json
import logging
import os
import shlex
import subprocess
import sys
import time
import tomllib
import uuid
from types import SimpleNamespace

import pytest
from conftest import SocketPeer

from cockpit import __version__
from cockpit.cli.live import AlreadyLive, LiveSession, SessionOptions
from cockpit.core.base import events as ev
from cockpit.core.base.events import EventBus
from cockpit.core.language.registry import REGISTRY
from cockpit.record.recorder import Recorder

COCKPIT = [sys.executable, "-m", "cockpit"]


def cockpit(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("timeout", 120)
    return subprocess.run(COCKPIT + args, text=True, capture_output=True, check=False,
                          **kwargs)


def name() -> str:
    return f"faces-{uuid.uuid4().hex[:8]}"


# --- the parser ------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["foo"], ["mpc"], ["--headed", "sevre"]])
def test_a_word_that_is_neither_subcommand_nor_url_is_a_quick_usage_error(argv):
    started = time.monotonic()
    done = cockpit(argv, stdin=subprocess.DEVNULL, timeout=10)
    assert time.monotonic() - started < 2
    assert done.returncode == 2
    word = argv[-1]
    assert f"cockpit: {word!r} is not a subcommand or a URL: did you mean `cockpit " \
        in done.stderr
    if word == "sevre":
        assert "did you mean `cockpit serve`" in done.stderr


@pytest.mark.parametrize("argv", [
    ["run", "--theme", "x"],                 # run has no screen
    ["run", "--agent", "true"],              # nor an agent
    ["--plain", "--theme", "x"],             # the plain prompt has no theme
    ["demo", "--walk", "--no-agent"],        # the walk is its own agent
    ["demo", "--serve-only", "--headed"],    # serving the site opens no session
    ["attach", "--record", "f.jsonl"],       # attach records in the session's process
])
def test_options_a_face_cannot_honour_are_usage_errors(argv):
    done = cockpit(argv, stdin=subprocess.DEVNULL, timeout=20)
    assert done.returncode == 2, done
    assert "error:" in done.stderr


def test_version_comes_from_the_package():
    done = cockpit(["--version"], timeout=10)
    assert done.returncode == 0 and done.stdout.strip() == f"cockpit {__version__}"


def test_no_import_circle_among_the_faces():
    """A face module never imports, even lazily, one that imports it back (dispatch and the
    TUI face share the subcommand list through cli/subcommands.py)."""
    import grimp
    graph = grimp.build_graph("cockpit", cache_dir=None)
    faces = sorted(m for m in graph.modules if m.startswith("cockpit.cli."))
    circles = [(a, b) for a in faces for b in graph.find_modules_directly_imported_by(a)
               if b in faces and graph.find_shortest_chain(importer=b, imported=a)]
    assert circles == []


# What `cockpit exec` (a new process per agent step) must not import: each costs it a
# millisecond or more (re compiles patterns at import; socket brings enum and selectors;
# json brings re; functools brings collections), or far more (asyncio, playwright).
EXEC_FORBIDDEN = ("argparse", "asyncio", "pathlib", "importlib", "typing", "playwright",
                  "textual", "re", "json", "enum", "socket", "selectors", "shlex", "functools",
                  "collections", "dataclasses", "hashlib", "math", "logging", "subprocess")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_importing_the_cli_stays_cheap_for_exec():
    """-S: only what our code imports counts, not what this machine's site-packages hooks
    load."""
    code = ("import sys; before = set(sys.modules); "
            "import cockpit.cli, cockpit.cli.exec, cockpit.control.client; "
            f"print(sorted(m for m in {EXEC_FORBIDDEN!r} if m in sys.modules and m not in before))")
    done = subprocess.run([sys.executable, "-S", "-c", code], text=True, capture_output=True,
                          timeout=20, check=False, env={**os.environ, "PYTHONPATH": ROOT})
    assert done.stdout.strip() == "[]", done


def _answer_as_a_session(conn) -> None:
    """The welcome, then each request answered with a result whose output is its line."""
    with conn.makefile("rwb") as file:
        if not file.readline():
            return  # a liveness probe
        file.write(b'{"ok": true, "session": "scripted", "protocol": 2}\n')
        file.flush()
        while line := file.readline():
            request = json.loads(line)
            file.write(json.dumps({
                "id": request["id"], "ok": True, "command": request["command"],
                "output": f"ran {request['command']} \u00e9\x1b", "error": None,
                "ms": 1.0, "data": {}, "exit_code": 0}).encode() + b"\n")
            file.flush()


@pytest.fixture
def scripted():
    session = SocketPeer("scripted", _answer_as_a_session)
    yield session
    session.close()


@pytest.mark.parametrize("words", [["title"], ["click", "@e3"], ["fill", "@e4", "a b"]])
def test_exec_through_its_launcher_imports_nothing_costly(scripted, words):
    """The whole of one `cockpit exec`, from the `cockpit` script installed in place of
    pip's launcher (which imports re): every module it imports, as -X importtime lists
    them. Two words are quoted back into one line without shlex."""
    launcher = os.path.join(ROOT, "scripts", "cockpit")
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", launcher, "exec", "--socket", scripted.path,
         *words], text=True, capture_output=True, timeout=20, check=False,
        env={**os.environ, "PYTHONPATH": ROOT})
    line = shlex.join(words) if len(words) > 1 else words[0]
    assert done.returncode == 0 and done.stdout == f"ran {line} \u00e9\u241b\n", done
    imported = {row.rsplit("|", 1)[-1].strip() for row in done.stderr.splitlines()
                if row.startswith("import time:")}
    assert "cockpit.cli.exec" in imported and "cockpit.control.client" in imported
    assert sorted(imported & set(EXEC_FORBIDDEN)) == []
    assert scripted.connections == 1  # no probe before the connection: the session serves one


def test_the_cockpit_command_is_our_launcher_not_an_entry_point():
    """pip's entry-point launcher imports re before our code: `cockpit` is a wheel script."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as file:
        project = tomllib.load(file)
    assert "cockpit" not in project["project"].get("scripts", {})
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["shared-scripts"] == {"scripts/cockpit": "cockpit"}
    with open(os.path.join(ROOT, "scripts", "cockpit"), encoding="utf-8") as file:
        first = file.readline()
    assert first.startswith("#!") and "python" in first  # hatchling makes it `#!python`
    assert os.access(os.path.join(ROOT, "scripts", "cockpit"), os.X_OK)


# --- faces on a real browser -----------------------------------------------------------
def test_demo_walk_writes_the_recording_it_is_asked_for(tmp_path):
    record = tmp_path / "walk.jsonl"
    done = cockpit(["demo", "--walk", "--session", name(), "--record", str(record)],
                   stdin=subprocess.DEVNULL)  # no tty: the walk stops at the challenge
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0]["type"] == "header"
    steps = [line["command"] for line in lines if line["type"] == "step"]
    assert steps[0].startswith("goto ") and any(s.startswith("fill ") for s in steps), steps
    assert os.stat(record).st_mode & 0o777 == 0o600


def test_plain_prompt_starts_its_agent(tmp_path):
    said = tmp_path / "agent-said.txt"
    agent = f"{shlex.quote(sys.executable)} -m cockpit exec js 6*7 > {shlex.quote(str(said))}"
    proc = subprocess.Popen(COCKPIT + ["--plain", "--no-record", "--session", name(),
                                       "--agent", agent],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (said.exists() and said.read_text().strip()) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        assert said.read_text().strip() == "42"  # it ran, and reached this session
    finally:
        _, err = proc.communicate("", timeout=60)  # end of input: the prompt ends
    assert proc.returncode == 0, err


def test_run_is_live_for_exec_and_a_second_run_of_its_name_is_refused(tmp_path):
    session = name()
    record = tmp_path / "run.jsonl"
    proc = subprocess.Popen(COCKPIT + ["run", "--session", session, "--record", str(record)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:  # stdin stays open: run is waiting for its next line
            done = cockpit(["exec", "--session", session, "js", "6*7"], timeout=30)
            if done.returncode != 3 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert done.returncode == 0 and done.stdout.strip() == "42", done
        second = cockpit(["run", "--session", session], stdin=subprocess.DEVNULL)
        assert second.returncode == 2
        assert "already live" in second.stderr and "cockpit attach" in second.stderr
    finally:
        proc.communicate("", timeout=60)
    assert proc.returncode == 0
    records = [json.loads(line) for line in record.read_text().splitlines()]
    steps = [(r["command"], r["source"]) for r in records if r["type"] == "step"]
    assert steps == [("js '6*7'", "agent")]  # the exec'd step is in run's recording


async def test_live_session_refuses_a_live_name_before_starting_a_browser(tmp_path):
    options = SessionOptions(name=name(), no_record=True)
    async with LiveSession(options, workspace=tmp_path) as first:
        assert first.session.context is not None
        second = LiveSession(options, workspace=tmp_path)
        with pytest.raises(AlreadyLive):
            second.refuse_if_live()
        with pytest.raises(AlreadyLive):
            await second.start()
        assert second.session.context is None  # refused before its browser started
    assert not first.server.socket.exists()  # closed with it


async def test_live_session_starts_the_agent_and_hands_it_to_the_session(tmp_path):
    options = SessionOptions(name=name(), record=tmp_path / "rec.jsonl")
    async with LiveSession(options, agent="sleep 30", workspace=tmp_path) as live:
        assert live.agent is not None and live.agent.running
        assert live.session.agent is live.agent
        assert live.recorder is not None
        agent = live.agent
    assert not agent.running and live.recorder is None and live.agent is None


# --- a recording that cannot be written ------------------------------------------------
def fake_session() -> SimpleNamespace:
    return SimpleNamespace(name="rec", bus=EventBus(), secrets=SimpleNamespace(values={}),
                           registry=REGISTRY, status=lambda: {})


def finished(n: int) -> dict:
    return {"id": n, "command": "title", "source": "human", "ok": True, "exit_code": 0,
            "ms": 1.0, "output": "t", "error": None, "data": {}}


def test_a_failed_recording_write_is_said_once_and_logged(tmp_path, monkeypatch, capsys):
    from cockpit.cli.options import configure_logging
    configure_logging(None, tui=False)  # as `run` and `serve` do: warnings on stderr
    session = fake_session()
    seen = []
    session.bus.subscribe(lambda event: seen.append(event))
    recorder = Recorder(session, tmp_path / "r.jsonl").start()
    session.bus.emit(ev.COMMAND_FINISHED, **finished(1))

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "write", full)
    try:
        session.bus.emit(ev.COMMAND_FINISHED, **finished(2))
        session.bus.emit(ev.COMMAND_FINISHED, **finished(3))
    finally:
        monkeypatch.undo()
        recorder.close()
        logging.getLogger("cockpit").handlers.clear()
    failed = [e for e in seen if e.kind == ev.RECORDING_FAILED]
    assert len(failed) == 1  # said once; the session goes on unrecorded
    assert failed[0].data["path"] == str(tmp_path / "r.jsonl")
    assert "No space left" in failed[0].data["error"]
    assert not [e for e in seen if e.kind == ev.PAGE_ERROR]  # not a page's error
    assert "cockpit: recording to" in capsys.readouterr().err
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 2  # header, step 1


async def test_a_failed_recording_shows_in_the_status_bar():
    from tui_fake import FakeSession

    from cockpit.tui.app import CockpitApp
    from cockpit.tui.status_bar import StatusBar
    fake = FakeSession()
    app = CockpitApp(fake, pictures=False)
    async with app.run_test(headless=True, size=(160, 48)) as pilot:
        fake.bus.emit(ev.RECORDING_FAILED, path="/x/r.jsonl", error="disk full")
        for _ in range(50):
            await pilot.pause(0.05)
            if app.query_one(StatusBar).status.recording.startswith("failed"):
                break
        assert app.query_one(StatusBar).status.recording == "failed: disk full"


def test_a_recording_that_cannot_open_is_said_in_the_log_and_the_session_goes_on(tmp_path):
    log = tmp_path / "cockpit.log"
    unwritable = "/proc/cockpit-no-such-dir/r.jsonl"  # not even root can make it
    done = cockpit(["run", "--session", name(), "--log", str(log), "--record", unwritable],
                   input="js 1+1\n")
    assert done.returncode == 1, done.stderr  # the step ran; its record is missing
    assert done.stdout.strip() == "2"
    assert f"cockpit: recording to {unwritable} failed" in done.stderr
    assert f"recording to {unwritable} failed" in log.read_text()
    assert os.stat(log).st_mode & 0o777 == 0o600
