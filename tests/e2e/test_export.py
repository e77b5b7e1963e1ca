"""`cockpit export FILE --to pytest`: the recorded walk becomes a readable
pytest-playwright test (elements by role and name) that passes against the same site."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from test_replay import record_a_walk

COCKPIT = [sys.executable, "-m", "cockpit"]


def test_an_exported_walk_is_readable_and_passes_under_pytest(tmp_path, site):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    path = tmp_path / "walk.jsonl"
    record_a_walk(path, site)
    out = tmp_path / "test_walk.py"
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    code = out.read_text()
    assert 'page.get_by_role("button", name="Sign in", exact=True).click()' in \
        code.replace("'", '"')
    assert "os.environ['PASSWORD']" in code and "os.environ['CODE']" in code
    steps = [line for line in code.split("def test_")[1].splitlines()
             if line.strip() and not line.strip().startswith("#")]
    assert not any("aria-ref" in line or re.search(r"@(f\d+)?e\d+\b", line)
                   for line in steps), code
    assert "expect(page).to_have_url(ORIGIN + '/inbox')" in code
    env = {**os.environ, "PASSWORD": site.password, "CODE": site.mfa_code}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          out.name], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=180)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout
    site.variant = "changed"  # and it fails where the site changed
    try:
        broken = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 out.name], cwd=tmp_path, capture_output=True, text=True,
                                env={**env, "COCKPIT_TIMEOUT_MS": "3000"}, timeout=180)
    finally:
        site.variant = "normal"
    assert broken.returncode == 1 and 'name="Archive' in broken.stdout.replace("'", '"')


def test_a_walk_written_without_a_scheme_moves_and_its_export_runs_as_printed(tmp_path,
                                                                              site):
    """`goto 127.0.0.1:PORT/login` follows `replay --origin` and the exported test's
    $COCKPIT_ORIGIN; the test, written inside this checkout (whose pytest options disable
    pytest-playwright) runs as `cockpit export` says, from the checkout and from outside."""
    import shlex
    import shutil
    import tempfile
    from pathlib import Path

    from cockpit.demo.server import DemoSite
    from test_recording import send, start
    from test_run_cli import ref
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    root = Path(__file__).resolve().parents[2]
    path = tmp_path / "bare.jsonl"
    proc = start(["--record", str(path)])
    try:
        assert send(proc, f"goto {site.url.split('://', 1)[1]}/login")["ok"]  # no scheme
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'Email')} {site.email}")
        send(proc, f"fill {ref(page, 'textbox', 'Password')} {site.password}")
        assert send(proc, f"click {ref(page, 'button', 'Sign in')}")["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    with DemoSite() as other:  # the same site at another origin
        moved = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--origin",
                                          other.url, "--secret", f"PASSWORD={site.password}",
                                          "--session", "bare-replay"],
                               capture_output=True, text=True, timeout=180)
        assert moved.returncode == 0, moved.stdout + moved.stderr
        assert f"goto {other.url}/login" in moved.stdout
        inside = Path(tempfile.mkdtemp(dir=root / "recordings"))
        try:
            test = inside / "test_bare.py"
            made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o",
                                             str(test)], capture_output=True, text=True,
                                  timeout=60, cwd=root)
            assert made.returncode == 0, made.stderr
            assert "page.goto(ORIGIN + '/login')" in test.read_text()
            printed = re.search(r"run it with `([^`]+)`", made.stdout).group(1)
            command = shlex.split(printed)
            assert command[0] == "python3"
            env = {**os.environ, "COCKPIT_ORIGIN": other.url, "PASSWORD": site.password}
            for cwd in (root, tmp_path):  # in the checkout, and outside it
                ran = subprocess.run([sys.executable, *command[1:]], cwd=cwd, env=env,
                                     capture_output=True, text=True, timeout=180)
                assert "1 passed" in ran.stdout, (cwd, ran.stdout + ran.stderr)
        finally:
            shutil.rmtree(inside)


def test_a_walk_that_carries_its_sign_in_with_state_load_exports_and_runs(tmp_path, site):
    """`state save` after signing in, `state load` to start signed in: both are recorded,
    replay as recorded, and the exported test loads the state and reaches the inbox."""
    from test_recording import records, send, start
    from test_run_cli import ref
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    signed_in = tmp_path / "signed-in.json"
    proc = start(["--no-record"])
    try:  # signing in (the CAPTCHA and the code) is not part of the walk
        send(proc, f"goto {site.url}/login")
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'Email')} {site.email}")
        send(proc, f"fill {ref(page, 'textbox', 'Password')} {site.password}")
        send(proc, f"click {ref(page, 'button', 'Sign in')}")
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'code')} {site.mfa_code}")
        send(proc, f"click {ref(page, 'button', 'Verify')}")
        page = send(proc, "snapshot -i")["output"]
        send(proc, f"fill {ref(page, 'textbox', 'characters')} {site.captcha_answer}")
        assert send(proc, f"click {ref(page, 'button', 'Continue')}")["ok"]
        assert send(proc, f"state save {signed_in}")["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    path = tmp_path / "carried.jsonl"
    proc = start(["--record", str(path)])
    try:
        assert send(proc, f"state load {signed_in}")["ok"]
        assert send(proc, f"goto {site.url}/inbox")["ok"]
        assert "Archive" in send(proc, "snapshot -i")["output"]  # signed in: the inbox
        assert send(proc, f"newtab {site.url}/inbox")["ok"]
        assert send(proc, "closetab")["ok"]  # back on tab 1
        assert send(proc, f"state save {tmp_path / 'after.json'}")["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    steps = [r for r in records(path) if r["type"] == "step"]
    assert [s["command"].split()[0] for s in steps] == ["state", "goto", "snapshot", "newtab",
                                                        "closetab", "state"]
    replayed = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                         "carried-replay"],
                              capture_output=True, text=True, timeout=180)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    out = tmp_path / "test_carried.py"
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    code = out.read_text()
    assert f"load_state(page, {str(signed_in)!r})" in code
    assert "page.close()\n    page = tab(page, 1)\n" in code
    assert "expect(page).to_have_url(ORIGIN + '/inbox')" in code  # not the login page
    assert f"page.context.storage_state(path={str(tmp_path / 'after.json')!r})" in code
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          out.name], cwd=tmp_path, capture_output=True, text=True,
                         timeout=180)
    assert "1 passed" in ran.stdout, code + ran.stdout + ran.stderr
