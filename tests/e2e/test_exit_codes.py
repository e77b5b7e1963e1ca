"""One exit code per error, whichever face meets it (cli/exits.py's table): a bad session
name, a name already live, a socket directory that is not ours, no live session. Each
face is a real `cockpit` process; the error is said in one line, with the face's name."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from cockpit.cli.exits import EXIT_INTERRUPTED, exit_code
from cockpit.control import discovery
from cockpit.control.discovery import AlreadyLive, Unreachable
from cockpit.core.base.errors import (
    EXIT_FAILED,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    EXIT_WAIT_TIMEOUT,
    BrowserNotFoundError,
)
from cockpit.record.reader import UnreadableRecording

# the faces that open a session, as (argv before the session options, what they call
# themselves on stderr); `{rec}` is a recording to replay, `{none}` a file of no commands
OPENING = [
    (["run", "{none}"], "cockpit run"),
    (["--plain"], "cockpit"),
    ([], "cockpit"),  # the TUI: refused before its screen shows
    (["serve"], "cockpit serve"),
    (["mcp"], "cockpit mcp"),
    (["replay", "{rec}"], "cockpit replay"),
    (["demo", "--walk"], "cockpit demo"),
]
# the faces that reach a live session
REACHING = [
    (["exec"], ["title"], "cockpit exec"),
    (["attach"], [], "cockpit attach"),
    (["web", "--port", "0"], [], "cockpit web"),
]


def test_the_table():
    for error, code in [(ValueError("bad name"), EXIT_USAGE),
                        (AlreadyLive("live"), EXIT_USAGE),
                        (Unreachable("gone"), EXIT_UNREACHABLE),
                        (TimeoutError("late"), EXIT_WAIT_TIMEOUT),
                        (BrowserNotFoundError("none"), EXIT_FAILED),
                        (UnreadableRecording("what"), EXIT_USAGE),
                        (json.JSONDecodeError("x", "", 0), EXIT_USAGE),  # a ValueError
                        (KeyboardInterrupt(), EXIT_INTERRUPTED),
                        (RuntimeError("else"), EXIT_FAILED)]:
        assert exit_code(error) == code, error


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"type": "header", "format": "cockpit-recording",
                                "version": 1}) + "\n" +
                    json.dumps({"type": "step", "n": 1, "command": "title", "ok": True})
                    + "\n", encoding="utf-8")
    return path


@pytest.fixture
def not_ours(tmp_path: Path):
    """An XDG_RUNTIME_DIR whose cockpit/ is a link to elsewhere: not a directory of ours."""
    linked = tempfile.mkdtemp(dir="/tmp", prefix="ck")
    os.symlink(tmp_path, os.path.join(linked, "cockpit"))
    yield linked
    os.unlink(os.path.join(linked, "cockpit"))
    os.rmdir(linked)


async def face(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
               limit: asyncio.Semaphore | None = None) -> tuple[int, str]:
    async with limit or asyncio.Semaphore(1):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cockpit", *argv, cwd=cwd,
            env={**os.environ, discovery.ENV_SOCKET: "", discovery.ENV_SESSION: "",
                 **(env or {})},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE)
        try:
            _, err = await asyncio.wait_for(proc.communicate(), 120)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        return proc.returncode, err.decode()


async def all_faces(cases: list[tuple[list[str], str]], cwd: Path,
                    env: dict[str, str] | None = None) -> list[tuple[list[str], str, int, str]]:
    limit = asyncio.Semaphore(3)  # a few at a time: the machine is shared
    done = await asyncio.gather(*(face(argv, cwd, env, limit) for argv, _ in cases))
    return [(argv, said, code, err) for (argv, said), (code, err) in zip(cases, done)]


def opening(recording: Path, *options: str) -> list[tuple[list[str], str]]:
    none = recording.with_name("none.txt")
    none.write_text("", encoding="utf-8")
    files = {"{rec}": str(recording), "{none}": str(none)}
    return [([files.get(w, w) for w in argv] + ["--no-record", *options], said)
            for argv, said in OPENING]


def one_line(err: str, said: str, what: str) -> bool:
    lines = [line for line in err.splitlines() if line.startswith(f"{said}: ")]
    return "Traceback" not in err and any(what in line for line in lines)


async def test_a_bad_session_name_is_a_usage_error_said_the_same_by_every_face(
        tmp_path, recording):
    rule = "invalid session name 'a/b': use 1 to"
    cases = opening(recording, "--session", "a/b") + [
        (before + ["--session", "a/b"] + after, said) for before, after, said in REACHING]
    for argv, said, code, err in await all_faces(cases, tmp_path):
        assert code == EXIT_USAGE and one_line(err, said, rule), (argv, code, err)


async def test_a_name_already_live_is_a_usage_error_for_every_face(live, tmp_path,
                                                                    recording):
    # `live`: the shared session's socket, as session "tests" of the workspace tmp_path
    for argv, said, code, err in await all_faces(opening(recording, "--session", "tests"),
                                                 tmp_path):
        assert code == EXIT_USAGE and one_line(err, said, "is already live here"), \
            (argv, code, err)


async def test_a_socket_directory_not_ours_is_unreachable_for_every_face(
        tmp_path, recording, not_ours):
    env = {"XDG_RUNTIME_DIR": not_ours}
    cases = opening(recording) + [(before + after, said) for before, after, said in REACHING]
    for argv, said, code, err in await all_faces(cases, tmp_path, env):
        assert code == EXIT_UNREACHABLE and one_line(err, said, "is not a directory of yours"), \
            (argv, code, err)


async def test_no_live_session_is_unreachable_for_every_face_that_reaches_one(tmp_path):
    cases = [(before + ["--session", "nobody-here"] + after, said)
             for before, after, said in REACHING]
    for argv, said, code, err in await all_faces(cases, tmp_path):
        assert code == EXIT_UNREACHABLE and one_line(err, said, "no live session"), \
            (argv, code, err)


def test_both_places_that_take_a_name_say_the_same():
    from cockpit.core.base.workspace import valid_session_name
    for bad in ("a/b", "", "..", "caf\u00e9", "x" * 65):
        with pytest.raises(ValueError) as engine:
            valid_session_name(bad)
        with pytest.raises(ValueError) as socket:
            discovery.check_name(bad)
        assert str(engine.value) == str(socket.value), bad


def test_a_name_too_long_for_the_socket_says_why(monkeypatch):
    base = tempfile.mkdtemp(dir="/tmp", prefix="c" * 26)  # 39 bytes with /tmp/
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", base)
        longest = 107 - len("/0123456789ab-.sock") - len(discovery.runtime_dir().encode())
        assert discovery.check_name("n" * longest)
        with pytest.raises(ValueError, match=f"use 1 to {longest} letters.*allows at most "
                                             f"{longest} characters"):
            discovery.check_name("n" * (longest + 1))
    finally:
        shutil.rmtree(base)
