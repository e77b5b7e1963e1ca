"""A walkthrough of the real admin through the real CLI, the way a user keeps one: recorded
by `cockpit run --record`, replayed by `cockpit replay`, exported by `cockpit export --to
pytest`, and the exported test run with pytest.

A one-time code cannot be replayed (it is good once), so the walkthroughs start signed in:
from the session's own browser profile, or from a `state load` of a saved sign-in."""

from __future__ import annotations

import asyncio
import json
import os
import selectors
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from steps import ref, signed_state

COCKPIT = [sys.executable, "-m", "cockpit"]
ROOT = Path(__file__).resolve().parents[2]


def cockpit(*args: str, stdin: str | None = None, cwd: Path | None = None,
            timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(COCKPIT + list(args), input=stdin, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class Driver:
    """`cockpit run --json` over pipes, one command a line: an agent's way to drive it."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(COCKPIT + ["run", "--json", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)

    def send(self, line: str) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        with selectors.DefaultSelector() as sel:  # a hung session fails, not the run
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            assert sel.select(120), f"no answer to {line!r} in 120 s"
        answer = self.proc.stdout.readline()
        assert answer, f"no answer to {line!r}: the session ended"
        return json.loads(answer)

    def ok(self, line: str) -> dict:
        got = self.send(line)
        assert got["ok"], f"{line!r}: {got['error']}"
        return got

    def close(self) -> tuple[int, str]:
        assert self.proc.stdin and self.proc.stderr
        self.proc.stdin.close()
        code = self.proc.wait(60)
        return code, self.proc.stderr.read()


def record_the_category_walk(path: Path, session: str, origin: str) -> None:
    """Add a category, then delete it with the list's action and its confirmation page (no
    object id in any URL, so the walk replays on the same shop as often as wanted)."""
    d = Driver("--session", session, "--record", str(path))
    try:
        d.ok(f"goto {origin}/admin/shop/category/add/")
        page = d.ok("snapshot -i")["output"]
        d.ok(f"fill {ref(page, 'textbox', 'Name')} Walk-through")
        added = d.ok(f"click {ref(page, 'button', 'Save')}")
        assert added["data"]["tab"]["url"] == f"{origin}/admin/shop/category/"
        page = d.ok("snapshot -i")["output"]
        d.ok(f"check {ref(page, 'checkbox', 'Select this object for an action - Walk')}")
        d.ok(f"select {ref(page, 'combobox', 'Action')} 'Delete selected categories'")
        asked = d.ok(f"click {ref(page, 'button', 'Go')}")
        assert asked["data"]["tab"]["title"] == "Delete multiple objects | Django site admin"
        page = d.ok("snapshot -i")["output"]
        d.ok(f"click {ref(page, 'button', 'Yes')}")
        assert "Walk-through" not in d.ok("snapshot -i")["output"]
    finally:
        code, err = d.close()
    assert code == 0 and "Traceback" not in err, err


def run_export(test: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The exported test under pytest-playwright, from its own folder (as a user runs it)."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           test.name], cwd=test.parent, capture_output=True, text=True,
                          timeout=180, env={**os.environ, **(env or {})})


async def test_an_admin_walkthrough_is_recorded_replayed_exported_and_the_export_passes(
        s, shop, tmp_path):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    state = await signed_state(s, shop)
    session = f"walk-{uuid.uuid4().hex[:8]}"
    # the session's browser profile keeps the sign-in (a user signs in once in it)
    (tmp_path / "sign-in.cockpit").write_text(f"state load {state}\n")
    signed = await asyncio.to_thread(cockpit, "run", "--session", session, "--no-record",
                                     str(tmp_path / "sign-in.cockpit"))
    assert signed.returncode == 0, signed.stdout + signed.stderr
    walk = tmp_path / "walk.jsonl"
    await asyncio.to_thread(record_the_category_walk, walk, session, shop.url)
    steps = [r for r in records(walk) if r["type"] == "step"]
    assert [r["command"].split()[0] for r in steps if r["command"] != "snapshot -i"] == \
        ["goto", "fill", "click", "check", "select", "click", "click"]
    replayed = await asyncio.to_thread(cockpit, "replay", str(walk), "--no-record",
                                       "--session", session)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert f"{len(steps)} steps: {len(steps)} as recorded, 0 diverged" in replayed.stdout, \
        replayed.stdout
    test = tmp_path / "export" / "test_walk.py"
    test.parent.mkdir()
    made = await asyncio.to_thread(cockpit, "export", str(walk), "--to", "pytest", "-o",
                                   str(test))
    assert made.returncode == 0, made.stderr
    code = test.read_text()
    assert "get_by_role('button', name='Yes, I\u2019m sure', exact=True).click()" in code, code
    # pytest-playwright's own way to start signed in: the context's storage state
    (test.parent / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture(scope='session')\n"
        "def browser_context_args(browser_context_args):\n"
        f"    return {{**browser_context_args, 'storage_state': {str(state)!r}}}\n")
    ran = await asyncio.to_thread(run_export, test)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


async def test_a_walkthrough_that_loads_its_sign_in_replays_and_exports_with_it(
        s, shop, tmp_path):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    state = await signed_state(s, shop)
    commands = tmp_path / "walk.cockpit"  # a command file, one line each
    commands.write_text(f"state load {state}\n"
                        f"goto {shop.url}/admin/shop/category/\n"
                        "wait --text 'Select category to change'\n")
    walk = tmp_path / "walk.jsonl"
    recorded = await asyncio.to_thread(cockpit, "run", "--session",
                                       f"load-{uuid.uuid4().hex[:8]}", "--record", str(walk),
                                       str(commands))
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "Traceback" not in recorded.stderr, recorded.stderr
    commands_recorded = [r["command"] for r in records(walk) if r["type"] == "step"]
    assert commands_recorded[0] == f"state load {state}", commands_recorded
    # a fresh session: the sign-in comes from the recording alone
    replayed = await asyncio.to_thread(cockpit, "replay", str(walk), "--no-record",
                                       "--session", f"load-{uuid.uuid4().hex[:8]}")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    test = tmp_path / "export" / "test_signed_walk.py"
    test.parent.mkdir()
    made = await asyncio.to_thread(cockpit, "export", str(walk), "--to", "pytest", "-o",
                                   str(test))
    assert made.returncode == 0, made.stderr
    ran = await asyncio.to_thread(run_export, test)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


async def test_a_data_app_walkthrough_is_recorded_replayed_exported_and_the_export_passes(
        data_app, tmp_path):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    walk = tmp_path / "walk.jsonl"

    def record() -> None:
        d = Driver("--session", f"data-{uuid.uuid4().hex[:8]}", "--record", str(walk))
        try:
            d.ok(f"goto {data_app}")
            d.ok("wait --text 'Place order'")
            page = d.ok("snapshot -i")["output"]
            d.ok(f"press ArrowRight {ref(page, 'slider', 'Quantity')}")
            placed = d.ok(f"click {ref(page, 'button', 'Place order')}")
            assert "Ordered 3 x Garden" in placed["output"], placed["output"]
        finally:
            code, err = d.close()
        assert code == 0 and "Traceback" not in err, err

    await asyncio.to_thread(record)
    targets = [t for r in records(walk) if r["type"] == "step"
               for t in (r.get("targets") or {}).values()]
    assert {"role": "button", "label": "Place order"}.items() <= targets[-1].items(), targets
    replayed = await asyncio.to_thread(cockpit, "replay", str(walk), "--no-record",
                                       "--session", f"data-{uuid.uuid4().hex[:8]}")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    test = tmp_path / "export" / "test_data_walk.py"
    test.parent.mkdir()
    made = await asyncio.to_thread(cockpit, "export", str(walk), "--to", "pytest", "-o",
                                   str(test))
    assert made.returncode == 0, made.stderr
    ran = await asyncio.to_thread(run_export, test)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
