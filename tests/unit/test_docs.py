"""The README a newcomer reads, and the docs site: short, linked, pictured, buildable."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_gives_the_two_set_up_commands():
    assert len(README.splitlines()) < 300
    assert "bash .ci/setup && .venv/bin/cockpit demo" in README
    assert "bash .ci/setup --test && .venv/bin/python -m pytest -q" in README


def test_every_local_link_of_the_readme_reaches_a_file():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local, "the README links to its docs"
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to files that are not there: {missing}"


def test_the_picture_is_the_cockpit_drawn_by_textual():
    svg = (ROOT / "docs" / "cockpit.svg").read_text(encoding="utf-8")
    assert "(docs/cockpit.svg)" in README
    # Textual's own SVG export of the real app (scripts/picture), at a need for a human
    assert "Command&#160;log" in svg and "NEEDS&#160;A&#160;HUMAN" in svg


@pytest.mark.skipif(shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None,
                    reason="mkdocs is in the test extras: bash .ci/setup --test")
def test_the_docs_site_builds_strictly(tmp_path):
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    done = subprocess.run([str(mkdocs), "build", "--strict", "-q", "-d", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "handoff" / "index.html").exists()
