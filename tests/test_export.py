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
