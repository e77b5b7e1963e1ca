"""A recording that cannot be written is said at once (log, event) and leaves a file of
whole lines; `cockpit run` then exits 1; an unwritable state directory falls back to a
private temporary one with a one-line warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from cockpit.core.base import events as ev
from cockpit.record import recorder as recorder_module
from cockpit.record.recorder import Recorder
from tui_fake import FakeSession

COCKPIT = [sys.executable, "-m", "cockpit"]


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs (root only): a disk that really fills up, short writes and all."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def whole_lines(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert data.endswith(b"\n"), "the file ends in the middle of a record"
    return [json.loads(line) for line in data.decode().splitlines()]


async def fill(fake: FakeSession, recorder: Recorder, seen: list) -> None:
    for i in range(40):  # ~20 KB a step: the 64 KiB disk is full after three
        await fake.run(f"js 'x'.repeat({20_000 + i})")
        if recorder.failed:
            break


async def test_a_full_disk_is_said_once_and_the_file_keeps_whole_lines(small_disk):
    fake = FakeSession()
    fake._answer = lambda line, source: (_big_result(line), [])  # type: ignore[method-assign]
    seen: list = []
    fake.bus.subscribe(seen.append)
    recorder = Recorder(fake, small_disk / "r.jsonl").start()
    await fill(fake, recorder, seen)
    assert recorder.failed and "No space left" in recorder.failed
    failures = [e for e in seen if e.kind == ev.RECORDING_FAILED]
    assert len(failures) == 1 and failures[0].data["path"] == str(small_disk / "r.jsonl")
    records = whole_lines(small_disk / "r.jsonl")
    steps = [r for r in records if r["type"] == "step"]
    assert records[0]["type"] == "header" and steps
    assert [r["n"] for r in steps] == list(range(1, len(steps) + 1))
    await fake.run("js 1")  # after the failure: no error, nothing more written
    assert whole_lines(small_disk / "r.jsonl") == records
    recorder.close()


async def test_a_short_write_is_cut_back_to_the_last_whole_line(tmp_path, monkeypatch):
    """The same without a tmpfs: the OS takes half a record, then says ENOSPC."""
    fake = FakeSession()
    fake._answer = lambda line, source: (_big_result(line), [])  # type: ignore[method-assign]
    seen: list = []
    fake.bus.subscribe(seen.append)
    path = tmp_path / "r.jsonl"
    recorder = Recorder(fake, path).start()
    await fake.run("js 1")
    real_write = os.write

    def half_write(fd: int, data: bytes) -> int:
        return real_write(fd, data[:len(data) // 2])
    monkeypatch.setattr(recorder_module.os, "write", half_write)
    await fake.run("js 2")
    assert recorder.failed and "No space left" in recorder.failed
    assert [r.get("command") for r in whole_lines(path)] == [None, "js 1"]
    assert sum(e.kind == ev.RECORDING_FAILED for e in seen) == 1
    recorder.close()


def _big_result(line: str):
    from cockpit.core.base.result import Result
    return Result(line, True, output="x" * 20_000, ms=1.0)


def test_run_on_a_full_disk_says_so_and_exits_1(small_disk, tmp_path):
    record = small_disk / "r.jsonl"
    lines = "".join(f"js 'x'.repeat({15_000 + i})\n" for i in range(10))
    done = subprocess.run(COCKPIT + ["run", "--session", f"full-{uuid.uuid4().hex[:6]}",
                                     "--record", str(record)],
                          input=lines, text=True, capture_output=True, timeout=180,
                          check=False)
    assert done.returncode == 1, done.stderr
    assert f"recording to {record} failed" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stdout.splitlines()) == 10  # every step ran all the same
    steps = [r for r in whole_lines(record) if r["type"] == "step"]
    assert 1 <= len(steps) < 10


def test_an_unwritable_state_directory_falls_back_with_one_warning(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    env = {**os.environ, "COCKPIT_STATE_DIR": str(not_a_dir)}
    done = subprocess.run(COCKPIT + ["run", "--session", f"state-{uuid.uuid4().hex[:6]}",
                                     "--no-record"], input="js 6*7\n", text=True,
                          capture_output=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "42"
    warnings = [line for line in done.stderr.splitlines() if "state directory" in line]
    assert len(warnings) == 1 and str(not_a_dir) in warnings[0]
    assert "Traceback" not in done.stderr


def test_an_unwritable_home_falls_back_too(tmp_path):
    home = tmp_path / "home"
    home.write_text("")  # HOME is a file: nothing can be made under it, not even by root
    env = {k: v for k, v in os.environ.items()
           if k not in ("COCKPIT_STATE_DIR", "XDG_STATE_HOME")}
    env["HOME"] = str(home)
    done = subprocess.run(COCKPIT + ["run", "--session", f"home-{uuid.uuid4().hex[:6]}",
                                     "--record", str(home / "r.jsonl")],
                          input="js 6*7\n", text=True, capture_output=True, timeout=120,
                          env=env, check=False)
    assert "Traceback" not in done.stderr
    assert done.stdout.strip() == "42"
    assert sum("state directory" in line for line in done.stderr.splitlines()) == 1
    assert done.returncode == 1  # its recording could not be made: said, and exit 1
